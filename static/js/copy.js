// <button data-copy="ID">: copy the text of element ID to the clipboard, and say so
// on the button ("Copied") and in a live region for screen readers.
(() => {
  "use strict";

  const fallbackCopy = (node) => {
    // The Clipboard API needs a secure context (https or localhost); elsewhere, select
    // the text and use the older copy command.
    const range = document.createRange();
    range.selectNodeContents(node);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    const ok = document.execCommand("copy");
    return ok ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  };

  const show = (button, text, copied) => {
    const label = button.dataset.label || button.textContent;
    button.dataset.label = label;
    button.textContent = text;
    button.classList.toggle("copied", copied);
    const status = document.getElementById(button.dataset.copyStatus || "");
    if (status) status.textContent = copied ? "Copied to the clipboard." : text;
    window.clearTimeout(button.copyTimer);
    button.copyTimer = window.setTimeout(() => {
      button.textContent = label;
      button.classList.remove("copied");
    }, 4000);
  };

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-copy]");
    if (!button) return;
    const node = document.getElementById(button.dataset.copy);
    if (!node) return;
    const text = node.textContent.trim();
    const copy = navigator.clipboard && window.isSecureContext
      ? navigator.clipboard.writeText(text).catch(() => fallbackCopy(node))
      : fallbackCopy(node);
    copy.then(
      () => show(button, "Copied", true),
      () => show(button, "Select the key and copy it by hand", false),
    );
  });
})();
