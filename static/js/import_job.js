// The caption import page while a background import runs: ask the job how far it got every
// two seconds, and reload once it has finished so the page shows the summary or the problems.
(function () {
  "use strict";

  const panel = document.getElementById("import-job");
  if (!panel || panel.dataset.finished === "1") return;
  const badge = panel.querySelector("[data-job-state]");
  const message = panel.querySelector("[data-job-message]");
  const bar = panel.querySelector("progress");
  const LABELS = { queued: "Queued", running: "Running", done: "Done", failed: "Failed" };

  function show(job) {
    const percent = Math.round((job.progress || 0) * 100);
    const label = LABELS[job.state] + (job.state === "running" ? " " + percent + "%" : "");
    // The panel's badge and the same job's row in the import list below.
    [badge, document.querySelector('[data-job-badge="' + job.id + '"]')].forEach(function (el) {
      if (!el) return;
      el.className = "badge badge-" + job.state;
      el.textContent = label;
    });
    if (job.message) message.textContent = job.message;
    bar.value = job.progress || 0;
    bar.textContent = percent + "%";
  }

  function poll() {
    fetch(panel.dataset.statusUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error("status " + response.status);
        return response.json();
      })
      .then(function (job) {
        if (job.state === "done" || job.state === "failed") {
          window.location.reload();
          return;
        }
        show(job);
        window.setTimeout(poll, 2000);
      })
      .catch(function () { window.setTimeout(poll, 5000); });
  }

  window.setTimeout(poll, 2000);
})();
