/* Tables scroll sideways only where they must, and show it: see tables.css.
 *
 * pydata-sphinx-theme wraps every table in a horizontally scrolling box. Such a box
 * is also the box a sticky table head sticks in, so the head could never follow the
 * reader down a long table. A table that fits its column needs no scrolling: its box
 * is marked "table-fits" and stops being a scroll container. A box that does scroll
 * says on which sides columns lie out of sight ("more-left", "more-right"). The head
 * of a table whose box scrolls cannot stick to the page: it is moved down instead, by
 * the reader's scrolling, to stay under the page header ("--head-shift"), and it keeps
 * scrolling sideways with its columns.
 */
"use strict";

(() => {
  const boxes = [...document.querySelectorAll(".pst-scrollable-table-container")]
    .filter((box) => box.querySelector(":scope > table"));

  const update = (box) => {
    const table = box.querySelector(":scope > table");
    // The table's own width, not the box's scrollWidth: a box that does not scroll
    // reports no overflow, and the table would never be seen to grow out of it.
    const fits = table.getBoundingClientRect().width <= box.clientWidth + 1;
    box.classList.toggle("table-fits", fits);
    const hidden = box.scrollWidth - box.clientWidth;
    box.classList.toggle("more-left", !fits && box.scrollLeft > 1);
    box.classList.toggle("more-right", !fits && box.scrollLeft < hidden - 1);
    // A row a link jumps to lands below the stuck head, not under it.
    const head = table.tHead;
    box.style.setProperty("--table-head-height", `${head ? head.offsetHeight : 0}px`);
    followSoon();
  };

  const observer = new ResizeObserver((entries) => {
    for (const entry of entries) {
      update(entry.target.closest(".pst-scrollable-table-container"));
    }
  });
  // How far each scrolling table's head must move down to sit under the page header,
  // within its table: a box that scrolls sideways is the box a sticky head sticks in,
  // and it never scrolls down.
  const header = document.querySelector("header.bd-header");
  const follow = () => {
    const below = header ? header.getBoundingClientRect().bottom : 0;
    for (const box of boxes) {
      const table = box.querySelector(":scope > table");
      const head = table.tHead;
      if (!head || box.classList.contains("table-fits")) {
        box.style.removeProperty("--head-shift");
        continue;
      }
      const body = table.tBodies[table.tBodies.length - 1];
      const shift = parseFloat(box.style.getPropertyValue("--head-shift")) || 0;
      const top = head.getBoundingClientRect().top - shift;
      const room = body ? body.getBoundingClientRect().bottom - top - head.offsetHeight : 0;
      const wanted = Math.min(Math.max(below - top, 0), Math.max(room, 0));
      box.style.setProperty("--head-shift", `${wanted}px`);
    }
  };
  let pending = false;
  const followSoon = () => {
    if (!pending) {
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        follow();
      });
    }
  };
  addEventListener("scroll", followSoon, { passive: true });
  addEventListener("resize", followSoon, { passive: true });

  for (const box of boxes) {
    update(box);
    observer.observe(box);
    observer.observe(box.querySelector(":scope > table"));
    box.addEventListener("scroll", () => update(box), { passive: true });
  }
  follow();
})();
