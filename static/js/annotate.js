// The caption labelling page: keyboard-first toggles, autosaved drafts, active time, zoom.
// State lives on the server: every change is saved as a draft, so a reload resumes.
// A submit answers with the next item (rendered by the server), shown without a page load.
// Every word shown comes from the page (#work-text), so it is translated with the templates.
(() => {
  "use strict";

  const stateEl = document.getElementById("work-state");
  if (!stateEl) return;
  let state = JSON.parse(stateEl.textContent);
  const root = document.getElementById("work");
  let rows = Array.from(root.querySelectorAll(".sentence"));
  const words = document.getElementById("work-text").dataset;
  const say = (name, value) => words[name].replace("%s", value === undefined ? "" : value);
  const statusEl = document.getElementById("save-status");
  const errorEl = document.getElementById("work-error");
  const submitBtn = document.getElementById("submit");
  const csrf = root.querySelector("[name=csrfmiddlewaretoken]").value;
  let byShortcut = new Map(state.categories.map((c) => [c.shortcut.toLowerCase(), c.key]));

  let current = 0;
  let dirty = false;
  let saving = null;
  let saveTimer = null;
  let finished = false;

  // A new item cannot be submitted for a moment after it appears: a quick second
  // Enter (or a held key) meant for the item before would otherwise submit this one
  // unseen, with no labels. The button stays disabled meanwhile, so it shows too.
  const SETTLE_MS = 800;
  let shownAt = performance.now();
  let settleTimer = null;
  function settle() {
    shownAt = performance.now();
    submitBtn.disabled = true;
    clearTimeout(settleTimer);
    settleTimer = setTimeout(() => { if (!finished) submitBtn.disabled = false; }, SETTLE_MS);
  }
  const settling = () => performance.now() - shownAt < SETTLE_MS;

  // ---- active time: counted only while the tab is visible and the person not idle ----
  const IDLE_MS = 120000;
  let activeMs = Math.round((state.activeSeconds || 0) * 1000);
  let lastTick = performance.now();
  let lastInput = performance.now();
  let savedActiveMs = activeMs;
  const markInput = () => { lastInput = performance.now(); };
  ["keydown", "pointerdown", "wheel", "touchstart", "scroll"].forEach((type) =>
    window.addEventListener(type, markInput, { passive: true, capture: true }));
  function tick(wasVisible = document.visibilityState === "visible") {
    const now = performance.now();
    if (wasVisible && now - lastInput < IDLE_MS) {
      activeMs += Math.min(now - lastTick, 5000);
    }
    lastTick = now;
  }
  setInterval(() => tick(), 1000);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") {
      tick(true);  // the time up to hiding counts, nothing after it
      saveNow({ keepalive: true });
    } else {
      lastTick = performance.now();
      lastInput = performance.now();
    }
  });
  const activeSeconds = () => { tick(); return Math.round(activeMs / 100) / 10; };

  // ---- labels ----
  function labels() {
    return rows.map((row) =>
      Array.from(row.querySelectorAll(".toggle[aria-pressed=true]")).map((b) => b.dataset.key));
  }

  function toggle(button) {
    cancelConfirm(false);  // the labels changed: ask again before submitting
    const pressed = button.getAttribute("aria-pressed") === "true";
    button.setAttribute("aria-pressed", pressed ? "false" : "true");
    dirty = true;
    unsaved.remember(labels());
    scheduleSave();
  }

  // ---- labels not yet confirmed by the server, kept in the browser ----
  // A reload right after a toggle can be answered before the save sent as the page
  // unloads arrives, and would show the draft before it. The labels are written to
  // localStorage at each change (synchronously, so they survive the reload) and
  // forgotten once the server confirms a save of them; a page that finds them for its
  // own draft shows them and saves them.
  const unsaved = {
    key: () => "chartroom:unsaved-draft:" + state.urls.draft,
    remember(marks) {
      try { localStorage.setItem(this.key(), JSON.stringify(marks)); } catch (e) { /* private mode */ }
    },
    recall() {
      try { return JSON.parse(localStorage.getItem(this.key()) || "null"); } catch (e) { return null; }
    },
    forget(ifSaved) {
      if (ifSaved && JSON.stringify(this.recall()) !== JSON.stringify(ifSaved)) return;
      try { localStorage.removeItem(this.key()); } catch (e) { /* private mode */ }
    },
  };
  function restoreUnsaved() {
    const marks = unsaved.recall();
    const shape = Array.isArray(marks) && marks.length === rows.length && marks.every(Array.isArray);
    if (!shape) { unsaved.forget(); return; }
    if (JSON.stringify(marks) === JSON.stringify(labels())) { unsaved.forget(); return; }
    rows.forEach((row, n) => row.querySelectorAll(".toggle").forEach((button) => {
      button.setAttribute("aria-pressed", marks[n].includes(button.dataset.key) ? "true" : "false");
    }));
    dirty = true;
    setStatus(say("draftRestored"));
    saveNow();
  }

  // ---- current sentence and focus (roving tabindex) ----
  function setCurrent(index, focusTarget) {
    index = Math.max(0, Math.min(rows.length - 1, index));
    const column = focusTarget === "same" ? focusedColumn() : -1;
    rows.forEach((row, n) => {
      const on = n === index;
      row.classList.toggle("current", on);
      row.tabIndex = on ? 0 : -1;
      row.querySelectorAll(".toggle").forEach((b) => { b.tabIndex = on ? 0 : -1; });
    });
    current = index;
    const row = rows[index];
    if (focusTarget === "row" || (focusTarget === "same" && column < 0)) row.focus();
    else if (column >= 0) row.querySelectorAll(".toggle")[column].focus();
    row.scrollIntoView({ block: "nearest" });
  }

  function focusedColumn() {
    const el = document.activeElement;
    if (!el || !el.classList.contains("toggle")) return -1;
    return Array.from(el.parentElement.children).indexOf(el);
  }

  // Delegated, so the rows of the next item work without binding anything again.
  root.addEventListener("focusin", (event) => {
    const row = event.target.closest(".sentence");
    const n = row ? rows.indexOf(row) : -1;
    if (n >= 0 && current !== n) setCurrent(n);
  });
  root.addEventListener("click", (event) => {
    const button = event.target.closest(".sentence .toggle");
    if (button) toggle(button);
  });

  // ---- saving drafts ----
  function setStatus(text) { statusEl.textContent = text; }
  function showError(text) {
    errorEl.hidden = !text;
    errorEl.textContent = text || "";
  }

  function scheduleSave() {
    clearTimeout(saveTimer);
    setStatus(say("saving"));
    saveTimer = setTimeout(() => saveNow(), 400);
  }

  async function send(url, method, body, options = {}) {
    const response = await fetch(url, {
      method,
      credentials: "same-origin",
      keepalive: Boolean(options.keepalive),
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf, Accept: "application/json" },
      body: JSON.stringify(body),
    });
    let data = {};
    try { data = await response.json(); } catch (e) { data = {}; }
    return { ok: response.ok, status: response.status, data };
  }

  function problem(result) {
    const errors = result.data && result.data.errors ? Object.values(result.data.errors).flat() : [];
    return errors[0] || (result.data && result.data.detail) || say("server", result.status);
  }

  async function saveNow(options = {}) {
    clearTimeout(saveTimer);
    if (finished) return;
    const seconds = activeSeconds();
    // A round's drafts keep labels only; on an item, active time is saved on its own.
    const worthSaving = () =>
      dirty || (state.assignment !== null && Math.abs(activeMs - savedActiveMs) >= 1000);
    if (!worthSaving()) return;
    if (saving && !options.keepalive) { await saving; if (!worthSaving()) return; }
    // Labels are sent only when they changed on this page: a page nobody touched (a
    // second tab) must not put its older labels over a draft saved since.
    const sentLabels = dirty ? labels() : null;
    dirty = false;
    const body = sentLabels ? { labels: sentLabels, active_seconds: seconds } : { active_seconds: seconds };
    const request = send(state.urls.draft, "PUT", body, options);
    saving = request;
    try {
      const result = await request;
      if (result.ok) {
        savedActiveMs = seconds * 1000;
        if (sentLabels) unsaved.forget(sentLabels);
        // A draft saved after the item's time ran out gives the item back its time.
        if (result.data.expires_at) { expires = new Date(result.data.expires_at).getTime(); showLease(); }
        const at = new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
        setStatus(say("saved", at));
        showError("");
      } else if (result.status === 409 || result.status === 404) {
        endWith(problem(result));
      } else {
        dirty = dirty || Boolean(sentLabels);
        setStatus(say("notSaved"));
        showError(problem(result));
      }
    } catch (e) {
      dirty = dirty || Boolean(sentLabels);
      setStatus(say("offline"));
      saveTimer = setTimeout(() => saveNow(), 5000);
    } finally {
      if (saving === request) saving = null;
    }
  }
  setInterval(() => saveNow(), 30000);
  window.addEventListener("pagehide", () => saveNow({ keepalive: true }));

  function endWith(message) {
    finished = true;
    setStatus("");
    showError(message);
    submitBtn.disabled = true;
    const link = document.createElement("a");
    link.href = state.urls.next;
    link.textContent = say("nextLink");
    errorEl.append(" ", link);
  }

  // ---- confirmation (qualification rounds): the first Enter or click asks, the second submits ----
  const confirmBox = document.getElementById("confirm-box");
  let confirming = false;
  function askConfirm() {
    confirming = true;
    confirmBox.hidden = false;
    document.getElementById("confirm-yes").focus();
  }
  function cancelConfirm(refocus) {
    if (!confirming) return;
    confirming = false;
    confirmBox.hidden = true;
    if (refocus) rows[current].focus();
  }
  if (confirmBox) {
    document.getElementById("confirm-yes").addEventListener("click", () => submit());
    document.getElementById("confirm-no").addEventListener("click", () => cancelConfirm(true));
  }

  async function submit() {
    if (finished || submitBtn.disabled || settling()) return;
    if (state.confirm && !confirming) { askConfirm(); return; }
    cancelConfirm(false);
    submitBtn.disabled = true;
    clearTimeout(saveTimer);
    if (saving) { try { await saving; } catch (e) { /* the submit carries the labels anyway */ } }
    setStatus(say("submitting"));
    try {
      const result = await send(state.urls.submit, "POST", { labels: labels(), active_seconds: activeSeconds() });
      if (result.ok) unsaved.forget();
      if (result.ok && result.data.rows) {
        advance(result.data);
        return;
      }
      if (result.ok) {
        // Nothing more here (done, paused) or a qualification round: the server's page says what next.
        finished = true;
        setStatus(say("loading"));
        window.location.assign(result.data.url || state.urls.next);
        return;
      }
      if (result.status === 409 || result.status === 404) { endWith(problem(result)); return; }
      setStatus("");
      showError(problem(result));
    } catch (e) {
      setStatus("");
      showError(say("unreachable"));
    }
    submitBtn.disabled = false;
  }
  submitBtn.addEventListener("click", submit);

  // ---- zoom ----
  const frame = document.getElementById("chart-frame");
  const chart = document.getElementById("chart");
  const zoomLevel = document.getElementById("zoom-level");
  let zoom = 1;
  function setZoom(value, origin) {
    if (!chart) return;
    const before = zoom;
    zoom = Math.max(1, Math.min(4, Math.round(value * 4) / 4));
    chart.style.width = `${zoom * 100}%`;
    frame.classList.toggle("zoomed", zoom > 1);
    zoomLevel.textContent = `${Math.round(zoom * 100)}%`;
    if (origin && before !== zoom) {
      frame.scrollLeft = origin.x * (zoom / before) - origin.dx;
      frame.scrollTop = origin.y * (zoom / before) - origin.dy;
    }
  }
  root.querySelectorAll("[data-zoom]").forEach((button) => button.addEventListener("click", () => {
    const step = button.dataset.zoom;
    setZoom(step === "in" ? zoom + 0.5 : step === "out" ? zoom - 0.5 : 1);
  }));
  if (chart) {
    chart.addEventListener("click", (event) => {
      const rect = frame.getBoundingClientRect();
      const dx = event.clientX - rect.left;
      const dy = event.clientY - rect.top;
      setZoom(zoom > 1 ? 1 : 2, { x: frame.scrollLeft + dx, y: frame.scrollTop + dy, dx, dy });
    });
  }

  // ---- definitions on hover and keyboard focus ----
  const tip = document.getElementById("tip");
  let keyboardMode = false;
  window.addEventListener("keydown", () => { keyboardMode = true; }, true);
  window.addEventListener("pointerdown", () => { keyboardMode = false; }, true);
  function showTip(button) {
    const def = document.getElementById(`def-${button.dataset.key}`);
    if (!def) return;
    tip.replaceChildren();
    const name = document.createElement("strong");
    name.textContent = say("tipName", def.dataset.name);
    const text = document.createElement("span");
    text.textContent = ` ${def.dataset.definition}`;
    tip.append(name, text);
    if (def.dataset.example) {
      const example = document.createElement("em");
      example.textContent = say("tipExample", def.dataset.example);
      tip.append(document.createElement("br"), example);
    }
    tip.hidden = false;
    const rect = button.getBoundingClientRect();
    const width = Math.min(360, window.innerWidth - 16);
    tip.style.maxWidth = `${width}px`;
    const left = Math.max(8, Math.min(rect.left, window.innerWidth - width - 8));
    tip.style.left = `${left + window.scrollX}px`;
    tip.style.top = `${rect.bottom + window.scrollY + 6}px`;
  }
  const hideTip = () => { tip.hidden = true; };
  // Delegated like the toggles' clicks. Touch screens fire hover on tap; there the
  // guidelines dialog explains the categories.
  root.addEventListener("pointerover", (event) => {
    const button = event.target.closest(".toggle");
    if (button && event.pointerType === "mouse") showTip(button);
  });
  root.addEventListener("pointerout", (event) => { if (event.target.closest(".toggle")) hideTip(); });
  root.addEventListener("focusin", (event) => {
    const button = event.target.closest(".toggle");
    if (button && keyboardMode) showTip(button);
  });
  root.addEventListener("focusout", (event) => { if (event.target.closest(".toggle")) hideTip(); });

  // ---- dialogs ----
  const guidelines = document.getElementById("guidelines-dialog");
  const skipDialog = document.getElementById("skip-dialog");
  function openDialog(dialog, focus) {
    hideTip();
    dialog.showModal();
    if (focus) focus.focus();
  }
  document.getElementById("guidelines-open").addEventListener("click", () => openDialog(guidelines));
  document.getElementById("skip-open").addEventListener("click", () =>
    openDialog(skipDialog, document.getElementById("skip-reason")));
  root.querySelectorAll("dialog [data-close]").forEach((button) =>
    button.addEventListener("click", () => button.closest("dialog").close()));
  document.getElementById("skip-form").addEventListener("submit", () => { finished = true; });

  // ---- keyboard ----
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (document.querySelector("dialog[open]")) return;  // dialogs keep their own keys
    const target = event.target;
    if (target.closest("input, textarea, select, [contenteditable]")) return;
    const key = event.key;
    if (confirming && key === "Escape") {
      event.preventDefault();
      cancelConfirm(true);
      return;
    }
    if (key === "Enter") {
      // Links and other buttons keep their own Enter; toggles and the page submit.
      if (target.closest("a")) return;
      if (target.closest("button") && !target.classList.contains("toggle") && target !== submitBtn) return;
      event.preventDefault();
      if (event.repeat) return;  // a held Enter submits once, never the items after it
      submit();
    } else if (key === "j" || key === "ArrowDown") {
      if (target === frame && zoom > 1) return;  // scroll the zoomed chart
      event.preventDefault();
      setCurrent(current + 1, "same");
    } else if (key === "k" || key === "ArrowUp") {
      if (target === frame && zoom > 1) return;
      event.preventDefault();
      setCurrent(current - 1, "same");
    } else if ((key === "ArrowRight" || key === "ArrowLeft") && target.classList.contains("toggle")) {
      event.preventDefault();
      const buttons = Array.from(target.parentElement.children);
      // The next toggle is the one the arrow points at: on the left in a right-to-left page.
      const rtl = getComputedStyle(target).direction === "rtl";
      const next = buttons.indexOf(target) + ((key === "ArrowRight") !== rtl ? 1 : -1);
      buttons[(next + buttons.length) % buttons.length].focus();
    } else if (key === "?") {
      event.preventDefault();
      openDialog(guidelines);
    } else if (key === "+" || key === "=") {
      event.preventDefault();
      setZoom(zoom + 0.5);
    } else if (key === "-") {
      event.preventDefault();
      setZoom(zoom - 0.5);
    } else if (key === "0") {
      event.preventDefault();
      setZoom(1);
    } else if (byShortcut.has(key.toLowerCase())) {
      event.preventDefault();
      const button = rows[current].querySelector(`.toggle[data-key="${byShortcut.get(key.toLowerCase())}"]`);
      if (button) {
        toggle(button);
        if (!rows[current].contains(document.activeElement)) rows[current].focus();
      }
    }
  });

  // Lease countdown: warn before the item goes back to the pool.
  const leaseEl = document.getElementById("lease");
  let expires = new Date(state.expiresAt).getTime();
  function showLease() {
    const minutes = Math.floor((expires - Date.now()) / 60000);
    if (minutes < 0) {
      // One short line in the page's header; the condition is in its tooltip.
      leaseEl.textContent = say("leaseExpired");
      leaseEl.title = say("leaseExpiredDetail");
      leaseEl.classList.add("warn");
    } else {
      leaseEl.removeAttribute("title");
      leaseEl.textContent = minutes < 1 ? say("leaseSoon") : say("leaseMinutes", minutes);
      leaseEl.classList.toggle("warn", minutes < 3);
    }
  }
  showLease();
  setInterval(showLease, 15000);

  // ---- the next item, from the submit's response ----
  const itemRows = document.getElementById("item-rows");
  function advance(data) {
    const next = data.state;
    if (!itemRows || Boolean(chart) !== Boolean(next.image)) {
      // A page without the swappable parts, or a chart pane of another kind: load it.
      finished = true;
      window.location.assign(next.urls.next);
      return;
    }
    state = next;
    stateEl.textContent = JSON.stringify(state);  // the page's record of its lease stays true
    itemRows.innerHTML = data.rows;  // rendered and escaped by the server's template
    document.getElementById("progress").innerHTML = data.progress;
    rows = Array.from(root.querySelectorAll(".sentence"));
    byShortcut = new Map(state.categories.map((c) => [c.shortcut.toLowerCase(), c.key]));
    if (chart) {
      chart.src = state.image;
      const link = document.getElementById("chart-link");
      if (link) link.href = state.image;
    }
    setZoom(1);
    frame.scrollTop = 0;
    document.getElementById("skip-form").action = state.urls.skip;
    activeMs = Math.round((state.activeSeconds || 0) * 1000);
    savedActiveMs = activeMs;
    lastTick = performance.now();
    dirty = false;
    finished = false;
    expires = new Date(state.expiresAt).getTime();
    showLease();
    hideTip();
    showError("");
    const restored = state.draft.some((keys) => keys.length);
    setStatus(restored ? say("draftRestored") : say("submitted"));
    // The banner of the request that loaded the page (e.g. "Skipped.") was about the item before.
    document.querySelectorAll(".messages").forEach((list) => list.remove());
    settle();
    setCurrent(0);
    rows[0].focus({ preventScroll: true });
    window.scrollTo({ top: 0 });
  }

  settle();
  setCurrent(0);
  rows[0].focus({ preventScroll: true });
  restoreUnsaved();
})();
