// Participant pages: client-side timing, a one-click submit, and the ranking widget.
// Everything works without this file; it only adds comfort and the client's clock.
"use strict";

(function () {
  document.documentElement.classList.add("has-js");
  // Shared with trial_flow.js, which draws later trials into the same page.
  const chartroom = (window.Chartroom = window.Chartroom || {});

  // --- answer form: how the answer was given, how long the chart was on screen, one submit
  const ENTER_MEANT_FOR_PREVIOUS_MS = 600;
  document.querySelectorAll("form[data-trial-form]").forEach((form) => {
    let sent = false;
    let shownAt = performance.now();
    const countField = form.querySelector("input[name=interactions]");
    const firstField = form.querySelector("input[name=first_interaction_ms]");
    // Restored after a refused answer, so the actions made before it still count.
    let count = parseInt(countField && countField.value, 10) || 0;
    // Someone may answer before this script has loaded (a slow connection): those
    // actions went unseen, so nothing is reported rather than a count that is wrong.
    let unseen = Array.from(form.elements).some(
      (el) =>
        (el.type === "text" && el.value !== el.defaultValue) ||
        (el.type === "radio" && el.checked !== el.defaultChecked) ||
        (el.tagName === "SELECT" && Array.from(el.options).some((o) => o.selected !== o.defaultSelected))
    );
    form.noteInteraction = () => {
      if (unseen || !countField) return;
      count += 1;
      countField.value = String(count);
      if (firstField && firstField.value === "") {
        firstField.value = String(Math.round(performance.now() - shownAt));
      }
    };
    const button = form.querySelector("button[type=submit]");
    // The answer was refused or could not be sent: the same trial takes another Next.
    form.allowResend = () => {
      sent = false;
      if (button) {
        button.removeAttribute("aria-disabled");
        button.classList.remove("is-sending");
      }
    };
    // A new trial was drawn into the form (trial_flow.js): its clock and counts start now.
    form.startTrial = () => {
      shownAt = performance.now();
      count = 0;
      unseen = false;
      if (countField) countField.value = "";
      if (firstField) firstField.value = "";
      form.allowResend();
    };
    form.addEventListener("change", (event) => {
      if (event.target.matches("input[type=radio]")) form.noteInteraction();
    });
    form.addEventListener("input", (event) => {
      if (event.target.matches("input[type=text]")) form.noteInteraction();
    });
    // An Enter held down, or pressed again just as the next chart appears, was meant for
    // the chart before: it must not send this one's untouched answer (and show its error).
    form.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" || !event.target.matches("input, button[type=submit]")) return;
      // (A test may lengthen the moment, data-enter-grace-ms, to be sure of its timing.)
      const grace = Number(form.dataset.enterGraceMs) || ENTER_MEANT_FOR_PREVIOUS_MS;
      const justShown = performance.now() - shownAt < grace;
      if (event.repeat || (justShown && count === 0 && !unseen)) event.preventDefault();
    });
    form.addEventListener("submit", (event) => {
      if (sent) {
        event.preventDefault();
        return;
      }
      const ranking = form.querySelector("[data-ranking]");
      if (ranking && ranking.rankingIncomplete && ranking.rankingIncomplete()) {
        event.preventDefault();
        return;
      }
      sent = true;
      const field = form.querySelector("input[name=client_ms]");
      if (field) field.value = String(Math.round(performance.now() - shownAt));
      if (button) {
        button.setAttribute("aria-disabled", "true");
        button.classList.add("is-sending");
      }
    });
    // Coming back through the browser's cache must not leave the form stuck.
    window.addEventListener("pageshow", () => {
      sent = false;
    });
    form.dataset.ready = "true"; // for tests that drive the page: the listeners are in place
  });

  // --- copy the completion code
  document.querySelectorAll("[data-copy]").forEach((button) => {
    const target = document.querySelector(button.dataset.copy);
    if (!target || !navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener("click", () => {
      navigator.clipboard.writeText(target.textContent.trim()).then(() => {
        button.textContent = button.dataset.copiedText;
      });
    });
  });

  // --- ranking: one list; every item starts unplaced with a Place button in its rank slot.
  // Placed items stand first, numbered in the participant's order, and may be reordered;
  // the items still to place follow them. One list keeps the whole question in view.
  document.querySelectorAll("[data-ranking]").forEach(enhanceRanking);
  chartroom.enhanceRanking = enhanceRanking;

  function enhanceRanking(list) {
    const form = list.closest("form");
    const fieldset = list.parentElement;
    const status = fieldset.querySelector("[data-ranking-status]");
    const missing = fieldset.querySelector("[data-ranking-missing]");
    const all = Array.from(list.querySelectorAll(".rank-item"));
    const textOf = (item) => item.querySelector(".rank-text").textContent.trim();
    // The words come translated from the template (data-say-* on the list), with {placeholders}.
    const say = (name, vars = {}) =>
      (list.dataset[name] || "").replace(/\{(\w+)\}/g, (whole, key) => (key in vars ? String(vars[key]) : whole));
    const note = () => form && form.noteInteraction && form.noteInteraction();
    const count = document.createElement("p");
    count.className = "rank-count";
    count.setAttribute("aria-hidden", "true"); // the live status below says the same
    list.classList.add("is-enhanced");
    list.before(count);

    all.forEach((item) => {
      item.setAttribute("aria-roledescription", "sortable item");
      const slot = span("rank-slot", "");
      slot.append(
        span("rank-handle", "⠿", true),
        span("rank-place", "", true),
        button("rank-add", say("sayPlace"), say("sayPlaceItem", { item: textOf(item) }))
      );
      item.insertBefore(slot, item.firstChild);
      const controls = span("rank-controls", "");
      controls.append(
        button("rank-up", "↑", say("sayMoveUp")),
        button("rank-down", "↓", say("sayMoveDown")),
        button("rank-remove", "✕", say("sayRemoveItem", { item: textOf(item) }))
      );
      item.appendChild(controls);
      slot.querySelector(".rank-add").addEventListener("click", () => placeNext(item));
      controls.querySelector(".rank-up").addEventListener("click", () => move(item, -1, true));
      controls.querySelector(".rank-down").addEventListener("click", () => move(item, 1, true));
      controls.querySelector(".rank-remove").addEventListener("click", () => unplace(item));
      item.addEventListener("click", (event) => {
        if (!isPlaced(item) && !event.target.closest("button")) placeNext(item);
      });
      item.addEventListener("keydown", (event) => onKey(event, item));
      item.addEventListener("pointerdown", (event) => startDrag(event, item));
    });

    // A refused answer comes back with its ranks: those items start placed, in that order.
    const rankOf = (item) => parseInt(item.querySelector(".rank-select").value, 10) || 0;
    const placedFirst = all.filter((item) => rankOf(item) > 0).sort((a, b) => rankOf(a) - rankOf(b));
    placedFirst.forEach((item) => item.classList.add("is-placed"));
    placedFirst.concat(all.filter((item) => rankOf(item) === 0)).forEach((item) => list.appendChild(item));
    sync(false);

    list.rankingIncomplete = () => {
      const left = poolItems().length;
      if (!left) return false;
      showMissing(left);
      poolItems()[0].querySelector(".rank-add").focus();
      return true;
    };

    // The message for a refused Next takes the count's line, so the list does not move
    // down and Next stays where it was; it follows what is still to place.
    function showMissing(left) {
      missing.textContent = say("sayMissing", { left });
      missing.hidden = left === 0;
      count.hidden = left > 0;
    }

    function span(className, text, hidden = false) {
      const element = document.createElement("span");
      element.className = className;
      element.textContent = text;
      if (hidden) element.setAttribute("aria-hidden", "true");
      return element;
    }

    function button(className, text, label) {
      const element = document.createElement("button");
      element.type = "button";
      element.className = `small secondary ${className}`;
      element.textContent = text;
      element.setAttribute("aria-label", label);
      return element;
    }

    function isPlaced(item) {
      return item.classList.contains("is-placed");
    }

    function placedItems() {
      return Array.from(list.querySelectorAll(".rank-item.is-placed"));
    }

    function poolItems() {
      return Array.from(list.querySelectorAll(".rank-item:not(.is-placed)"));
    }

    // Where a placed item may go last: before the first item still to place.
    function firstUnplaced() {
      return list.querySelector(".rank-item:not(.is-placed)");
    }

    function placeNext(item) {
      const pool = poolItems();
      const next = pool[pool.indexOf(item) + 1] || pool[0];
      item.classList.add("is-placed");
      list.insertBefore(item, firstUnplaced());
      note();
      sync(true, item);
      const focusTarget = next && next !== item ? next.querySelector(".rank-add") : item;
      focusTarget.focus();
    }

    function unplace(item) {
      item.classList.remove("is-placed");
      list.appendChild(item);
      note();
      sync(true, item);
      item.querySelector(".rank-add").focus();
    }

    function move(item, delta, fromButton) {
      const placed = placedItems();
      const index = placed.indexOf(item);
      const target = index + delta;
      if (index < 0 || target < 0 || target >= placed.length) return;
      if (delta < 0) list.insertBefore(item, placed[target]);
      else list.insertBefore(item, placed[target].nextSibling);
      note();
      sync(true, item);
      if (fromButton) {
        const control = item.querySelector(delta < 0 ? ".rank-up" : ".rank-down");
        (control.disabled ? item : control).focus();
      } else {
        item.focus();
      }
    }

    function onKey(event, item) {
      if (event.target !== item) return;
      const placed = isPlaced(item);
      if (!placed && (event.key === "Enter" || event.key === " ")) {
        event.preventDefault();
        placeNext(item);
      } else if (placed && (event.altKey || event.ctrlKey) && /^Arrow(Up|Down)$/.test(event.key)) {
        event.preventDefault();
        move(item, event.key === "ArrowUp" ? -1 : 1, false);
      } else if (event.key === "ArrowUp" || event.key === "ArrowDown") {
        event.preventDefault();
        const siblings = placed ? placedItems() : poolItems();
        const next = siblings[siblings.indexOf(item) + (event.key === "ArrowUp" ? -1 : 1)];
        if (next) next.focus();
      }
    }

    // The selects stay the form's truth, so the server reads one format with or without JS:
    // a placed item has its place, an item still to place has none.
    function sync(announce, moved) {
      const placed = placedItems();
      const n = all.length;
      placed.forEach((item, i) => {
        item.tabIndex = 0;
        item.querySelector(".rank-select").value = String(i + 1);
        item.querySelector(".rank-place").textContent = String(i + 1);
        item.querySelector(".rank-up").disabled = i === 0;
        item.querySelector(".rank-down").disabled = i === placed.length - 1;
        item.setAttribute("aria-label", say("sayItemPlaced", { item: textOf(item), place: i + 1, n }));
      });
      poolItems().forEach((item) => {
        item.tabIndex = -1;
        item.querySelector(".rank-select").value = "";
        item.querySelector(".rank-place").textContent = "";
        item.setAttribute("aria-label", say("sayItemUnplaced", { item: textOf(item) }));
      });
      const left = poolItems().length;
      count.textContent = left ? say("sayCount", { placed: placed.length, n }) : say("sayAllPlaced", { n });
      count.classList.toggle("is-complete", left === 0);
      // An error shown for a refused Next follows what is still to place.
      if (missing && !missing.hidden) showMissing(left);
      if (announce && moved && status) {
        const where = placed.indexOf(moved);
        status.textContent =
          where < 0
            ? say("sayMovedBack", { item: textOf(moved) })
            : `${say("sayMovedTo", { item: textOf(moved), place: where + 1, n })} ${left ? say("sayStillLeft", { left }) : say("sayAllDone")}`;
      }
    }

    function startDrag(event, item) {
      if (!isPlaced(item)) return;
      if (event.button !== 0 || event.target.closest("button, select")) return;
      event.preventDefault();
      // Capture on the list, not the item: the item moves in the DOM while dragged,
      // and a moved capture target loses the pointer.
      list.setPointerCapture(event.pointerId);
      item.classList.add("is-dragging");
      const startIndex = placedItems().indexOf(item);
      const onMove = (e) => {
        const others = placedItems().filter((other) => other !== item);
        // Dropped below the placed items, it goes last among them, never among those to place.
        let before = firstUnplaced();
        for (const other of others) {
          const box = other.getBoundingClientRect();
          if (e.clientY < box.top + box.height / 2) {
            before = other;
            break;
          }
        }
        if (before !== item.nextElementSibling) list.insertBefore(item, before);
      };
      const onUp = () => {
        item.classList.remove("is-dragging");
        list.removeEventListener("pointermove", onMove);
        list.removeEventListener("pointerup", onUp);
        list.removeEventListener("pointercancel", onUp);
        if (placedItems().indexOf(item) !== startIndex) note();
        sync(true, item);
        item.focus();
      };
      list.addEventListener("pointermove", onMove);
      list.addEventListener("pointerup", onUp);
      list.addEventListener("pointercancel", onUp);
    }
  }
})();
