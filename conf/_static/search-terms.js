/* The words of a query that the search looks up (search-sections.js ranks the
   sections holding them). A pasted message keeps its own words: not the exception's
   class before it, nor the details after its first clause (shapes, versions, hints),
   which no page repeats. A question keeps the words that name things: not its question and function words.
   A Chinese query is split into words here, so that its particles can be left out. */
"use strict";

const SITE_SEARCH_STOPWORDS = new Set((
  "a an the is are was were be been being do does did doing why how what which when " +
  "where who whom can could should would may might will shall must i me my we our " +
  "you your it its this that these those of in on at to for from with by as and or " +
  "than then so if whether there here also just only still even instead way get " +
  "gets got make makes say says tell not no"
).split(" ").concat(
  ("吗 呢 吧 啊 的 了 着 么 什么 为什么 怎么 怎样 如何 是 会 能 可以 有 没有 和 与 或 " +
   "还是 一个 这个 那个 我 你 它 就 都 也 又 吗？ ？ ， 。").split(" ")
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
      // Code is looked up whole, as Pagefind indexes it (`x[mask]` as xmask), and by
      // its names: `x[mask][:, 0]` asks for mask. A one-letter name (x, t) or a digit
      // is in every other section.
      const parts = piece
        .split(/[^\p{L}\p{N}_.]+/u)
        .map((part) => part.replace(/^\.+|\.+$/g, ""))
        .filter((part) => part.length > 1 && !SITE_SEARCH_STOPWORDS.has(part.toLowerCase()));
      const whole = piece.replace(/[^\p{L}\p{N}_]+/gu, "");
      const named = parts.map((part) => part.replace(/\./g, "").toLowerCase());
      if (parts.length && whole.length > 1 && !named.includes(whole.toLowerCase())) {
        words.push(whole);
      }
      words.push(...parts);
      continue;
    }
    for (const { segment, isWordLike } of segmenter.segment(piece)) {
      if (isWordLike && !SITE_SEARCH_STOPWORDS.has(segment)) words.push(segment);
    }
  }
  return words.length ? words.join(" ") : term;
}
