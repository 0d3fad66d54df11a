// Folding sections: "Unfold all" / "Fold all", and a section followed from the table of
// contents (or a link to its #id) opens first.
(function () {
  "use strict";
  const folds = Array.from(document.querySelectorAll("details.fold"));
  document.querySelectorAll("[data-fold]").forEach(function (button) {
    button.addEventListener("click", function () {
      const open = button.dataset.fold === "open";
      folds.forEach(function (d) { d.open = open; });
    });
  });
  function openTarget() {
    const id = window.location.hash.slice(1);
    const target = id && document.getElementById(id);
    if (target && target.tagName === "DETAILS") { target.open = true; target.scrollIntoView(); }
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
})();
