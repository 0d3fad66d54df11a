// The proportion slider (answer type "proportion"): no starting position.
// The range input's own value is never submitted (it has no name); the text field
// beside it is, and it stays empty until the participant touches the slider or types.
"use strict";

(function () {
  function enhance(box) {
    const slider = box.querySelector("[data-proportion-slider]");
    const field = box.querySelector("[data-proportion-value]");
    if (!slider || !field) return;
    const form = slider.form;

    function place() {
      slider.classList.remove("is-unset");
      field.value = slider.value;
      if (form && form.noteInteraction) form.noteInteraction();
    }
    // A pointer press puts the value where it lands; "input" follows drags and keys.
    slider.addEventListener("input", place);
    slider.addEventListener("pointerup", () => {
      if (field.value === "") place();
    });
    // A typed number moves the handle; anything else leaves it where it was.
    field.addEventListener("input", () => {
      const value = Number(field.value.replace("%", "").trim());
      if (field.value.trim() !== "" && Number.isFinite(value) && value >= 0 && value <= 100) {
        slider.value = String(value);
        slider.classList.remove("is-unset");
      }
    });
  }
  document.querySelectorAll("[data-proportion]").forEach(enhance);
  // A trial drawn without a page load (trial_flow.js) brings its own slider.
  document.addEventListener("chartroom:trial", (event) => {
    event.detail.root.querySelectorAll("[data-proportion]").forEach(enhance);
  });
})();
