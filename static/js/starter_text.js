// Study settings: "Use this text" puts a starter text into its field for the researcher to
// edit. Without JavaScript the starter text can still be copied from its read-only box.
"use strict";

(function () {
  document.querySelectorAll("[data-starter-for]").forEach((button) => {
    const field = document.getElementById(button.dataset.starterFor);
    const source = document.getElementById(button.dataset.starterText);
    if (!field || !source) return;
    button.hidden = false;
    button.addEventListener("click", () => {
      const current = field.value.trim();
      if (current && current !== source.value.trim()) {
        if (!window.confirm("Replace the text in the box with the starter text?")) return;
      }
      field.value = source.value;
      field.focus();
      field.setSelectionRange(0, 0);
      field.scrollTop = 0;
      field.scrollIntoView({ block: "center" });
    });
  });
})();
