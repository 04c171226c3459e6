// Narrow the semantics matrix to the rows that match: words of the expression, and
// measured facts. The measurements are the page's copy of semantics.json.
(() => {
  const form = document.querySelector("form.semantics-filter");
  const source = document.querySelector("script.semantics-filter-data");
  if (!form || !source) return;
  const data = JSON.parse(source.textContent);
  // The values each operation shows per field, over every device it was measured on.
  const shown = {};
  for (const entry of data.document.entries) {
    const facts = (shown[entry.op] ??= {});
    for (const field of Object.keys(entry)) {
      const value = entry.error !== null ? "raises" : data.shown[JSON.stringify(entry[field])];
      if (value !== undefined) (facts[field] ??= new Set()).add(value);
    }
  }
  const rows = [...document.querySelectorAll("main tr[id]")].filter(
    (row) => row.id in data.rows,
  );
  const output = form.querySelector("output");
  const apply = () => {
    const words = form.elements.text.value.toLowerCase().split(/\s+/).filter(Boolean);
    const wanted = [...form.querySelectorAll("select")].filter((s) => s.value);
    let count = 0;
    for (const row of rows) {
      const facts = shown[data.rows[row.id]] ?? {};
      const text = row.innerText.toLowerCase();
      const match =
        words.every((word) => text.includes(word)) &&
        wanted.every((select) => facts[select.name]?.has(select.value));
      row.hidden = !match;
      count += match;
    }
    // A group whose rows are all hidden is hidden with them.
    for (const section of document.querySelectorAll("main section[id^='semantics-group-']")) {
      section.hidden = !section.querySelector("tr[id]:not([hidden])");
    }
    // The words come with the data, in the page's language ("{count} of {total} rows").
    output.value = data.count.replace("{count}", count).replace("{total}", rows.length);
  };
  form.addEventListener("input", apply);
  form.addEventListener("submit", (event) => event.preventDefault());
  form.hidden = false; // only useful, so only shown, where this script runs
  apply();
})();
