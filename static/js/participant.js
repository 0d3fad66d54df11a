// Participant pages: client-side timing, a one-click submit, and the ranking widget.
// Everything works without this file; it only adds comfort and the client's clock.
"use strict";

(function () {
  const shownAt = performance.now();
  document.documentElement.classList.add("has-js");

  // --- answer form: send how long the chart was on screen, and submit only once
  document.querySelectorAll("form[data-trial-form]").forEach((form) => {
    let sent = false;
    form.addEventListener("submit", (event) => {
      if (sent) {
        event.preventDefault();
        return;
      }
      sent = true;
      const field = form.querySelector("input[name=client_ms]");
      if (field) field.value = String(Math.round(performance.now() - shownAt));
      const button = form.querySelector("button[type=submit]");
      if (button) {
        button.setAttribute("aria-disabled", "true");
        button.classList.add("is-sending");
      }
    });
    // Coming back through the browser's cache must not leave the form stuck.
    window.addEventListener("pageshow", () => {
      sent = false;
    });
  });

  // --- copy the completion code
  document.querySelectorAll("[data-copy]").forEach((button) => {
    const target = document.querySelector(button.dataset.copy);
    if (!target || !navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener("click", () => {
      navigator.clipboard.writeText(target.textContent.trim()).then(() => {
        button.textContent = "Copied";
      });
    });
  });

  // --- ranking: drag, buttons and keyboard on top of the per-item rank selects
  document.querySelectorAll("[data-ranking]").forEach(enhanceRanking);

  function enhanceRanking(list) {
    const status = list.parentElement.querySelector("[data-ranking-status]");
    list.classList.add("is-enhanced");
    const items = () => Array.from(list.querySelectorAll(".rank-item"));
    const textOf = (item) => item.querySelector(".rank-text").textContent.trim();

    items().forEach((item) => {
      item.tabIndex = 0;
      item.setAttribute("aria-roledescription", "sortable item");
      const controls = document.createElement("span");
      controls.className = "rank-controls";
      controls.innerHTML =
        '<button type="button" class="small secondary rank-up" aria-label="Move up">↑</button>' +
        '<button type="button" class="small secondary rank-down" aria-label="Move down">↓</button>';
      item.appendChild(controls);
      const handle = document.createElement("span");
      handle.className = "rank-handle";
      handle.setAttribute("aria-hidden", "true");
      handle.textContent = "⠿";
      item.insertBefore(handle, item.firstChild);
      const place = document.createElement("span");
      place.className = "rank-place";
      place.setAttribute("aria-hidden", "true");
      item.insertBefore(place, handle.nextSibling);
      controls.querySelector(".rank-up").addEventListener("click", () => move(item, -1, true));
      controls.querySelector(".rank-down").addEventListener("click", () => move(item, 1, true));
      item.addEventListener("keydown", (event) => {
        if (event.target !== item) return;
        if ((event.altKey || event.ctrlKey) && (event.key === "ArrowUp" || event.key === "ArrowDown")) {
          event.preventDefault();
          move(item, event.key === "ArrowUp" ? -1 : 1, false);
        } else if (event.key === "ArrowUp" || event.key === "ArrowDown") {
          event.preventDefault();
          const all = items();
          const next = all[all.indexOf(item) + (event.key === "ArrowUp" ? -1 : 1)];
          if (next) next.focus();
        }
      });
      item.addEventListener("pointerdown", (event) => startDrag(event, item));
    });
    sync(false);

    function move(item, delta, fromButton) {
      const all = items();
      const index = all.indexOf(item);
      const target = index + delta;
      if (target < 0 || target >= all.length) return;
      if (delta < 0) list.insertBefore(item, all[target]);
      else list.insertBefore(item, all[target].nextSibling);
      sync(true, item);
      if (fromButton) {
        const button = item.querySelector(delta < 0 ? ".rank-up" : ".rank-down");
        (button.disabled ? item : button).focus();
      } else {
        item.focus();
      }
    }

    // The selects stay the form's truth, so the server reads one format with or without JS.
    function sync(announce, moved) {
      const all = items();
      all.forEach((item, i) => {
        item.querySelector(".rank-select").value = String(i + 1);
        item.querySelector(".rank-place").textContent = String(i + 1);
        item.querySelector(".rank-up").disabled = i === 0;
        item.querySelector(".rank-down").disabled = i === all.length - 1;
        item.setAttribute("aria-label", `${textOf(item)}, rank ${i + 1} of ${all.length}`);
      });
      if (announce && moved && status) {
        status.textContent = `${textOf(moved)} is now number ${all.indexOf(moved) + 1} of ${all.length}.`;
      }
    }

    function startDrag(event, item) {
      if (event.button !== 0 || event.target.closest("button, select")) return;
      event.preventDefault();
      // Capture on the list, not the item: the item moves in the DOM while dragged,
      // and a moved capture target loses the pointer.
      list.setPointerCapture(event.pointerId);
      item.classList.add("is-dragging");
      const onMove = (e) => {
        const others = items().filter((other) => other !== item);
        let before = null;
        for (const other of others) {
          const box = other.getBoundingClientRect();
          if (e.clientY < box.top + box.height / 2) {
            before = other;
            break;
          }
        }
        const next = item.nextElementSibling;
        if (before !== next) list.insertBefore(item, before);
      };
      const onUp = () => {
        item.classList.remove("is-dragging");
        list.removeEventListener("pointermove", onMove);
        list.removeEventListener("pointerup", onUp);
        list.removeEventListener("pointercancel", onUp);
        sync(true, item);
        item.focus();
      };
      list.addEventListener("pointermove", onMove);
      list.addEventListener("pointerup", onUp);
      list.addEventListener("pointercancel", onUp);
    }
  }
})();
