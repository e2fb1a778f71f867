/**
 * Notes beside their rows: each table row with data-scenario="<id>" (the capacity page's saturation table)
 * whose scenario, or one of whose runs, has a note gets the class "has-note" (a ✎ after its first cell,
 * drawn by CSS, so the cell's text stays the scenario's name) and the notes as its first cell's tooltip.
 * The notes come from the page's "notes-data" (dashboard/_notes.html); rows are re-marked after each render.
 */
(function () {
  "use strict";
  const node = document.getElementById("notes-data");
  const notes = node ? JSON.parse(node.textContent) : [];
  const byScenario = {};
  notes.forEach(function (n) {
    if (n.scenario !== null) {
      const line = (n.target === "run" ? "run " + n.run_name + ": " : "") + n.text;
      (byScenario[n.scenario] = byScenario[n.scenario] || []).push(line);
    }
  });

  function mark() {
    document.querySelectorAll("tr[data-scenario]").forEach(function (row) {
      const lines = byScenario[row.getAttribute("data-scenario")];
      if (!lines || row.classList.contains("has-note") || !row.cells.length) {
        return;
      }
      row.classList.add("has-note");
      const text = "Notes: " + lines.join(" · ");
      row.cells[0].setAttribute("title", text);
      row.cells[0].setAttribute("aria-description", text);
    });
  }

  if (Object.keys(byScenario).length) {
    new MutationObserver(mark).observe(document.body, { attributes: true, attributeFilter: ["data-state"] });
    mark();
  }
})();
