// The results page: sortable tables, answer drill-down, and a poll while a run is going.
(function () {
  "use strict";

  function cellValue(row, index, kind) {
    const cell = row.cells[index];
    const raw = cell ? (cell.dataset.value ?? cell.textContent.trim()) : "";
    return kind === "number" ? parseFloat(raw) : raw;
  }

  function naturalCompare(a, b) {
    return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: "base" });
  }

  document.querySelectorAll("table.sortable").forEach(function (table) {
    const headers = Array.from(table.tHead.rows[0].cells);
    headers.forEach(function (th, index) {
      const button = th.querySelector("button[data-sort]");
      if (!button) return;
      button.addEventListener("click", function () {
        const kind = button.dataset.sort;
        const ascending = th.getAttribute("aria-sort") !== "ascending";
        headers.forEach(function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        // Each chart is its own <tbody> (its row and its drill-down row), so they move together.
        const bodies = Array.from(table.tBodies);
        bodies.sort(function (x, y) {
          const a = cellValue(x.rows[0], index, kind);
          const b = cellValue(y.rows[0], index, kind);
          const order = kind === "number" ? a - b : naturalCompare(a, b);
          return ascending ? order : -order;
        });
        bodies.forEach(function (body) { table.appendChild(body); });
      });
    });
  });

  document.querySelectorAll("button.drill").forEach(function (button) {
    button.addEventListener("click", function () {
      const target = document.getElementById(button.getAttribute("aria-controls"));
      const open = button.getAttribute("aria-expanded") === "true";
      target.hidden = open;
      button.setAttribute("aria-expanded", open ? "false" : "true");
      button.textContent = open ? "Show" : "Hide";
    });
  });

  // While a run is going the status panel shows its progress and message, polled from
  // the server; the page reloads once the run is over, to show its numbers.
  const state = document.getElementById("job-state");
  function showProgress(job) {
    const bar = document.getElementById("job-progress");
    const percent = document.getElementById("job-percent");
    const message = document.getElementById("job-message");
    const badge = document.getElementById("job-badge");
    if (bar) { bar.value = job.progress; bar.textContent = job.progress + "%"; }
    if (percent) { percent.textContent = job.progress + "%"; }
    if (message) { message.textContent = job.message ? ", " + job.message : ""; }
    if (badge) { badge.textContent = job.label; badge.className = "badge badge-" + job.state; }
  }
  if (state && state.dataset.running === "1") {
    const poll = function () {
      fetch(state.dataset.statusUrl, { headers: { Accept: "application/json" } })
        .then(function (r) { return r.json(); })
        .then(function (body) {
          if (body.job) { showProgress(body.job); }
          if (body.job && body.job.finished) { window.location.reload(); }
          else { window.setTimeout(poll, 1000); }
        })
        .catch(function () { window.setTimeout(poll, 5000); });
    };
    window.setTimeout(poll, 500);
  }
})();
