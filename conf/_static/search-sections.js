/* The search page's ranking and results. Pagefind's index holds one document per
   section (site_build/search_index.py); this orders the sections for a query.

   Pagefind answers several words with the documents holding every one, and a question
   names more words than the section that answers it. So each word of the query is
   searched alone, and a section's scores for its words are added up: Pagefind scores
   one word as BM25 does (rare words weigh more, headings more than prose), and BM25
   scores a query as that sum. A section whose heading the query quotes whole, as a
   pasted error quotes the section titled with it, comes before every other; the
   longest quoted heading first. For a query of one or two words, the sections whose
   heading names them come next. */
"use strict";

const SITE_SEARCH_SHOWN = 10;
// Sections whose data is loaded to be ranked by their headings: the best by score.
const SITE_SEARCH_CANDIDATES = 40;
// A heading shorter than this, once normalised, is too common to count as quoted.
const SITE_SEARCH_QUOTED_LENGTH = 20;
const SITE_SEARCH_EXCERPT_WORDS = 30;

/* Lower case, each run of other characters than letters and digits one space. */
function siteSearchNormal(text) {
  return ` ${text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()} `;
}

/* The `length` words of `raw` (Pagefind's escaped content) around the most matched
   words, those marked: Pagefind's excerpt marks one query's words, these come from
   several. Chinese content is split at zero-width spaces, as Pagefind splits it. */
function siteSearchExcerpt(raw, locations, length = SITE_SEARCH_EXCERPT_WORDS) {
  const spaced = !raw.includes("\u200B");
  const words = spaced ? raw.split(/\s+/) : raw.split("\u200B");
  const at = [...locations].sort((a, b) => a - b);
  let start = 0;
  let most = 0;
  for (let i = 0, j = 0; i < at.length; i++) {
    while (j < at.length && at[j] < at[i] + length) j++;
    if (j - i > most) [most, start] = [j - i, at[i]];
  }
  start = Math.max(0, Math.min(start - 3, words.length - length));
  const marked = new Set(at);
  return words
    .slice(start, start + length)
    .map((word, k) => (marked.has(start + k) ? `<mark>${word}</mark>` : word))
    .join(spaced ? " " : "");
}

/* `words` with each run of one-character Chinese words joined, where the index
   holds the joined word: the browser's segmenter, which Pagefind's search uses too,
   does not know the field's terms (张量 comes out as 张 and 量), its indexer does. */
async function siteSearchJoined(pagefind, words) {
  const single = (word) => /^[\u3400-\u9fff]$/.test(word);
  const joined = [];
  for (let i = 0; i < words.length; i++) {
    let j = i;
    while (j < words.length && single(words[j])) j++;
    if (j - i >= 2) {
      const run = words.slice(i, j).join("");
      if ((await pagefind.search(run)).results.length) {
        joined.push(run);
        i = j - 1;
        continue;
      }
    }
    joined.push(words[i]);
  }
  return joined;
}

/* The sections found for `query`, best first: {url, title, excerpt} each, `url`
   below the edition's root. */
async function siteSearchSections(pagefind, query) {
  const words = await siteSearchJoined(
    pagefind, [...new Set(siteSearchTerm(query).split(/\s+/).filter(Boolean))]);
  const found = new Map();
  for (const word of words) {
    for (const result of (await pagefind.search(word)).results) {
      const entry = found.get(result.id) || { result, score: 0, words: 0, at: new Set() };
      entry.score += result.score;
      entry.words += 1;
      result.words.forEach((location) => entry.at.add(location));
      found.set(result.id, entry);
    }
  }
  // A section holding more of the words ranks higher than its scores alone say:
  // each score is scaled by the share of the query's words the section holds.
  for (const entry of found.values()) entry.score *= entry.words / words.length;
  const quoted = siteSearchNormal(query);
  const ranked = [...found.values()]
    .sort((a, b) => b.score - a.score)
    .slice(0, SITE_SEARCH_CANDIDATES);
  const named = words.map((word) => siteSearchNormal(word).trim());
  for (const entry of ranked) {
    entry.data = await entry.result.data();
    const heading = siteSearchNormal(entry.data.meta.heading || "");
    entry.quoted =
      heading.length >= SITE_SEARCH_QUOTED_LENGTH && quoted.includes(heading)
        ? heading.length
        : 0;
    // A heading that names both words of a short query is about what it asks, the
    // more so the more of the heading they make up; a longer query is better told
    // by its words' scores.
    entry.named =
      named.length <= 2 && heading && named.every((word) => heading.includes(word))
        ? named.reduce((sum, word) => sum + word.length, 0) / heading.length
        : 0;
  }
  ranked.sort(
    (a, b) => b.quoted - a.quoted || b.named - a.named || b.score - a.score);
  return ranked.slice(0, SITE_SEARCH_SHOWN).map((entry) => ({
    url: entry.data.meta.section,
    title: entry.data.meta.title,
    excerpt: siteSearchExcerpt(entry.data.raw_content || "", entry.at),
  }));
}

/* Show the sections found for `query` in `element`, whose data-* attributes hold the
   page's words in its edition's language. */
async function siteSearchShow(element, pagefind, query) {
  const words = element.dataset;
  const message = element.querySelector(".site-search__message");
  const list = element.querySelector(".site-search__results");
  element.dataset.state = "searching";
  message.textContent = words.searching;
  list.replaceChildren();
  const sections = query.trim() ? await siteSearchSections(pagefind, query) : [];
  const root = new URL(".", location.href);
  for (const section of sections) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.className = "site-search__link";
    link.href = new URL(section.url, root).href;
    link.textContent = section.title;
    const excerpt = document.createElement("p");
    excerpt.className = "site-search__excerpt";
    excerpt.innerHTML = section.excerpt;  // Pagefind's escaped text and our <mark>s
    item.append(link, excerpt);
    list.append(item);
  }
  message.textContent = (sections.length ? words.found : words.none).replace(
    "%s", query.trim());
  element.dataset.state = "done";
}
