// The chart full screen on a phone. A phone shows the chart about 390 px wide, where
// its labels shrink to a few pixels: a tap opens it full screen, fitted; a tap on it
// there zooms to the image's own pixels (or twice the screen, whichever is larger) and
// a finger pans; another tap fits it again. Pinch zoom works as usual.
"use strict";

(function () {
  const small = window.matchMedia("(max-width: 640px)");
  const figures = Array.from(document.querySelectorAll("[data-chart-zoom]"));
  if (!figures.length || typeof HTMLDialogElement !== "function") return;

  function applyMode() {
    document.documentElement.classList.toggle("has-zoom", small.matches);
    figures.forEach((figure) => {
      const img = figure.querySelector("img");
      if (!img) return;
      if (small.matches) {
        img.tabIndex = 0;
        img.setAttribute("aria-describedby", hintId(figure));
      } else {
        img.removeAttribute("tabindex");
        img.removeAttribute("aria-describedby");
      }
    });
  }

  function hintId(figure) {
    const hint = figure.querySelector(".chart-zoom-hint");
    if (hint && !hint.id) hint.id = "chart-zoom-hint";
    return hint ? hint.id : "";
  }

  let dialog = null;

  function buildDialog() {
    dialog = document.createElement("dialog");
    dialog.className = "chart-zoom";
    // Its words come translated from the figure's data-say-* attributes (participate/trial.html).
    const words = figures[0].dataset;
    dialog.setAttribute("aria-label", words.sayDialog || "");
    const close = document.createElement("button");
    close.type = "button";
    close.className = "chart-zoom-close";
    close.textContent = words.sayClose || "";
    const frame = document.createElement("div");
    frame.className = "chart-zoom-frame";
    const img = document.createElement("img");
    frame.appendChild(img);
    const help = document.createElement("p");
    help.className = "chart-zoom-help";
    help.textContent = words.sayHelp || "";
    dialog.append(close, frame, help);
    document.body.appendChild(dialog);
    close.addEventListener("click", () => dialog.close());
    img.addEventListener("click", (event) => toggleZoom(event, frame, img));
    dialog.addEventListener("close", () => {
      dialog.classList.remove("is-zoomed");
      img.style.removeProperty("width");
    });
    return dialog;
  }

  function toggleZoom(event, frame, img) {
    if (dialog.classList.contains("is-zoomed")) {
      dialog.classList.remove("is-zoomed");
      img.style.removeProperty("width");
      return;
    }
    // Keep the tapped spot under the finger: remember where it was in the fitted image.
    const box = img.getBoundingClientRect();
    const fx = box.width ? (event.clientX - box.left) / box.width : 0.5;
    const fy = box.height ? (event.clientY - box.top) / box.height : 0.5;
    const width = Math.max(img.naturalWidth || 0, frame.clientWidth * 2);
    img.style.width = `${Math.round(width)}px`;
    dialog.classList.add("is-zoomed");
    const zoomed = img.getBoundingClientRect();
    frame.scrollLeft = fx * zoomed.width - frame.clientWidth / 2;
    frame.scrollTop = fy * zoomed.height - frame.clientHeight / 2;
  }

  function open(source) {
    const box = dialog || buildDialog();
    const img = box.querySelector(".chart-zoom-frame img");
    img.src = source.currentSrc || source.src;
    img.alt = source.alt;
    box.showModal();
  }

  figures.forEach((figure) => {
    const img = figure.querySelector("img");
    if (!img) return;
    figure.addEventListener("click", () => {
      if (small.matches) open(img);
    });
    img.addEventListener("keydown", (event) => {
      if (small.matches && (event.key === "Enter" || event.key === " ")) {
        event.preventDefault();
        open(img);
      }
    });
  });
  applyMode();
  small.addEventListener("change", applyMode);
})();
