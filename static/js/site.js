// Small behaviours shared by every page, kept out of the HTML so the
// Content-Security-Policy can forbid inline scripts and style attributes.
(() => {
  "use strict";

  // <form data-confirm="Delete this?">: ask before submitting.
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
      return;
    }
    // <form data-go-to="item">: open the URL chosen in the form's <select name="item">.
    if (form.dataset.goTo) {
      const field = form.elements.namedItem(form.dataset.goTo);
      if (field && field.value) {
        event.preventDefault();
        window.location.assign(field.value);
      }
    }
  });

  // <span data-width="42%">: a bar's length, set through the CSSOM (allowed by the
  // policy) instead of a style attribute (refused by it).
  const sizeBars = (root) => {
    root.querySelectorAll("[data-width]").forEach((bar) => {
      bar.style.width = bar.dataset.width;
    });
  };
  // A refused form's summary of errors (templates/_form_error_summary.html) is where the
  // eye and a screen reader start: the page would otherwise open at its top, the errors
  // screens below.
  const showErrors = () => {
    const summary = document.querySelector("[data-error-summary]");
    if (summary) summary.focus();
  };
  const ready = () => { sizeBars(document); showErrors(); };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();
