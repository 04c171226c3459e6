/* What the search box sends to Pagefind, which finds only pages holding every word.
   A pasted message keeps its own words: not the exception's class before it, nor the
   details after its first clause (shapes, versions, hints), which no page repeats. A
   question keeps the words that name things: not its question and function words.
   A Chinese query is split into words here, so that its particles can be left out. */
"use strict";

const SITE_SEARCH_STOPWORDS = new Set((
  "a an the is are was were be been being do does did doing why how what which when " +
  "where who whom can could should would may might will shall must i me my we our " +
  "you your it its this that these those of in on at to for from with by as and or " +
  "than then so if whether there here also just only still even instead way get " +
  "gets got make makes say says tell"
).split(" ").concat(
  "吗 呢 吧 啊 的 了 着 么 什么 为什么 怎么 怎样 如何 是 会 能 可以 有 没有 和 与 或 " +
  "还是 一个 这个 那个 我 你 它 就 都 也 又 吗？ ？ ， 。".split(" ")
));

/* The first clause of a pasted message, without "SomeError:" before it. */
function siteSearchMessage(term) {
  const message = term.replace(/^\s*(?:[\w.]+(?:Error|Warning|Exception)\s*:\s*)+/, "");
  const clause = message.split(/(?:\.\s|\s\(|:\s|;\s|\.$)/)[0].trim();
  return clause.split(/\s+/).length >= 3 ? clause : message.trim();
}

function siteSearchTerm(term) {
  const words = [];
  const segmenter = new Intl.Segmenter(document.documentElement.lang || "en", {
    granularity: "word",
  });
  for (const piece of siteSearchMessage(term).split(/\s+/)) {
    if (!/[\u3400-\u9fff]/.test(piece)) {
      if (!SITE_SEARCH_STOPWORDS.has(piece.toLowerCase())) words.push(piece);
      continue;
    }
    for (const { segment, isWordLike } of segmenter.segment(piece)) {
      if (isWordLike && !SITE_SEARCH_STOPWORDS.has(segment)) words.push(segment);
    }
  }
  return words.length ? words.join(" ") : term;
}

/* The query that Pagefind answers: all of the words if some section has them all,
   else the fewest words left out (one, then two) that leave a result, choosing the
   variant with the fewest results: the most specific. A question names more than its
   answer's section says. */
async function siteSearchRelaxed(pagefind, term) {
  const words = siteSearchTerm(term).split(" ");
  const count = async (kept) =>
    (await pagefind.search(kept.join(" "))).results.length;
  if (words.length < 2 || (await count(words)) > 0) return words.join(" ");
  let variants = [words];
  for (let dropped = 1; dropped <= 2 && words.length - dropped >= 1; dropped++) {
    const next = [];
    for (const variant of variants) {
      variant.forEach((_, i) => next.push(variant.filter((_, j) => j !== i)));
    }
    variants = [...new Map(next.map((v) => [v.join(" "), v])).values()];
    let best = null;
    for (const variant of variants) {
      const found = await count(variant);
      if (found > 0 && (best === null || found < best.found)) best = { variant, found };
    }
    if (best) return best.variant.join(" ");
  }
  return words.join(" ");
}
