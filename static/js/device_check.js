// Before consent: a study for computers and tablets sends a phone to its explanation page.
// The server already refuses browsers that say they are phones; this catches the rest by
// the screen itself (its shorter side under 600 CSS px: every phone, no tablet or laptop).
// See studies/services/sessions/devices.py.
"use strict";

(function () {
  const marked = document.querySelector("[data-phone-refusal]");
  if (!marked) return;
  const shorter = Math.min(window.screen.width || Infinity, window.screen.height || Infinity);
  if (shorter < 600) window.location.replace(marked.dataset.phoneRefusal);
})();
