// One request per answer: with JavaScript, the trial form answers through the JSON flow
// (POST /api/v1/participate/sessions/<token>/responses/), whose reply carries the next
// trial, and the next trial is drawn into this page without a page load. The next
// chart is fetched while the participant answers the current one, after a short random
// pause: a class answering together would otherwise also fetch its next charts together,
// and every answer would wait behind them.
//
// Every text shown comes from the page (data-*-text attributes, the answer <template>
// elements the server drew) or from the server's replies: nothing here is in English.
// Whatever this file cannot handle (a trial already answered elsewhere, an ended
// session, the end of the study) goes to the session page, which the server draws;
// a lost connection falls back to posting the form, with the same idempotency key.
"use strict";

(function () {
  const section = document.querySelector("[data-trial-flow]");
  const form = section && section.querySelector("form[data-trial-form]");
  if (!form || !window.fetch || !("content" in document.createElement("template"))) return;

  const slot = form.querySelector("[data-answer-slot]");
  const errorBox = form.querySelector("[data-flow-error]");
  const figure = section.querySelector("figure.chart");
  const img = figure.querySelector("img");
  const countText = section.dataset.countText;
  let answerType = section.dataset.answerType;
  // Far shorter than anyone takes to read a chart and answer (bench/participants_page.py
  // mirrors it); if the answer comes first, the chart loads as it is shown.
  const PRELOAD_PAUSE_MS = [500, 2500];
  let preloaded = null; // {url, image}: the next chart, fetched ahead
  let waiting = null; // {url, timer}: the next chart, before its pause is over
  const NOTICE_KEY = "chartroom:trial-notice"; // see keepNotice

  preload(section.dataset.preload);
  const notice = takeNotice(); // an answer another tab had already given
  if (notice) {
    errorBox.textContent = notice;
    errorBox.hidden = false;
  }

  form.addEventListener("submit", (event) => {
    // participant.js runs first: a repeated or incomplete Next is already stopped.
    if (event.defaultPrevented) return;
    event.preventDefault();
    offline.clear(); // Next pressed again while waiting for the connection: this is the send
    send(0);
  });

  function field(name) {
    return form.querySelector(`input[name=${name}]`);
  }

  function number(name) {
    const value = parseInt(field(name).value, 10);
    return Number.isFinite(value) ? value : null;
  }

  // The answer as the JSON flow takes it, from the same inputs the form would post.
  function readAnswer() {
    if (answerType === "multiple_choice") {
      const checked = form.querySelector("input[name=choice]:checked");
      return checked ? parseInt(checked.value, 10) : "";
    }
    if (answerType === "ranking") {
      const placed = Array.from(slot.querySelectorAll(".rank-item"))
        .map((item) => ({ rank: parseInt(item.querySelector("select").value, 10), item }))
        .filter((entry) => entry.rank > 0)
        .sort((a, b) => a.rank - b.rank);
      return placed.map((entry) => entry.item.querySelector(".rank-text").textContent.trim());
    }
    const input = form.querySelector("input[name=number], input[name=proportion]");
    return input ? input.value : "";
  }

  function send(attempt) {
    const body = {
      position: number("position"),
      answer: readAnswer(),
      idempotency_key: field("key").value,
      client_ms: number("client_ms"),
      interactions: number("interactions"),
      first_interaction_ms: number("first_interaction_ms"),
    };
    let answered = false; // a reply came, whatever it says
    fetch(section.dataset.answerUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
    })
      .then((response) => {
        answered = true;
        return response.json().then((data) => ({ status: response.status, data }));
      })
      .then(({ status, data }) => {
        offline.clear();
        if (status === 200 || status === 201) {
          if (data.next_trial) show(data.next_trial);
          else goToSession();
        } else if (status === 400) {
          refused(data.detail);
        } else if (status >= 500 && attempt < 1) {
          setTimeout(() => send(attempt + 1), 1000);
        } else if (status >= 500) {
          form.submit();
        } else {
          // 404, 409, 410: the session page says where things stand. A 409 is a chart
          // answered in another tab: the page it leads to says so once (keepNotice).
          if (status === 409) keepNotice(data.detail);
          goToSession();
        }
      })
      .catch(() => {
        // The same answer again is harmless: its idempotency key stores it once.
        if (attempt < 1) setTimeout(() => send(attempt + 1), 1000);
        else if (answered) form.submit(); // a reply that is not ours (a proxy's page)
        else offline.wait(() => send(0)); // no reply: the page would only fail to load
      });
  }

  // No connection: the participant stays on the trial with their answer, is told it is
  // not saved yet, and it is sent again when the browser is back online (or every few
  // seconds, or when they press Next). A plain form post here showed the browser's own
  // "no internet" page, with nothing to say the answer was not saved.
  const offline = {
    timer: null,
    retry: null,
    wait(retry) {
      this.clear();
      this.retry = retry;
      errorBox.textContent = section.dataset.offlineText;
      errorBox.hidden = false;
      form.allowResend();
      this.timer = setTimeout(() => this.again(), 5000);
    },
    again() {
      const retry = this.retry;
      this.clear();
      if (retry) retry();
    },
    clear() {
      clearTimeout(this.timer);
      this.timer = null;
      this.retry = null;
    },
  };
  window.addEventListener("online", () => { if (offline.retry) offline.again(); });

  // A message for the page the session leads to, shown once (sessionStorage may be
  // off: then the page simply shows the current trial, as it would anyway).
  function keepNotice(message) {
    try {
      if (message) window.sessionStorage.setItem(NOTICE_KEY, message);
    } catch (error) {
      /* storage blocked */
    }
  }
  function takeNotice() {
    try {
      const message = window.sessionStorage.getItem(NOTICE_KEY);
      window.sessionStorage.removeItem(NOTICE_KEY);
      return message;
    } catch (error) {
      return null;
    }
  }

  function goToSession() {
    window.location.assign(section.dataset.sessionUrl);
  }

  function refused(message) {
    errorBox.textContent = message || "";
    errorBox.hidden = !message;
    form.allowResend();
  }

  // Also calls off a fetch still waiting (show() runs this synchronously, before any timer).
  function preload(url) {
    callOffPreload();
    if (!url || (preloaded && preloaded.url === url)) return;
    const [shortest, longest] = PRELOAD_PAUSE_MS;
    const pause = shortest + Math.random() * (longest - shortest);
    const timer = setTimeout(() => {
      waiting = null;
      const image = new Image();
      image.src = url;
      preloaded = { url, image };
    }, pause);
    waiting = { url, timer };
  }

  // The answer came before the pause was over: the chart is loaded as it is shown.
  function callOffPreload() {
    if (!waiting) return;
    clearTimeout(waiting.timer);
    waiting = null;
  }

  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function show(trial) {
    answerType = trial.answer_type;
    section.dataset.answerType = answerType;
    field("position").value = String(trial.position);
    field("key").value = newKey();
    field("client_ms").value = "";
    errorBox.hidden = true;
    showChart(trial);
    showMeta(trial);
    const widget = drawAnswer(trial);
    slot.replaceChildren(widget);
    form.startTrial();
    if (window.Chartroom && window.Chartroom.enhanceRanking) {
      slot.querySelectorAll("[data-ranking]").forEach(window.Chartroom.enhanceRanking);
    }
    document.dispatchEvent(new CustomEvent("chartroom:trial", { detail: { root: slot } }));
    window.scrollTo(0, 0);
    const first = slot.querySelector("[autofocus]") || slot.querySelector("#trial-prompt");
    if (first) {
      if (!first.matches("input, select, button")) first.tabIndex = -1;
      first.focus({ preventScroll: true });
    }
    preload(trial.preload_image_url);
    section.dataset.shownPosition = String(trial.position); // for tests that drive the page
  }

  function showChart(trial) {
    const url = trial.image_url;
    figure.hidden = !url;
    section.classList.toggle("has-chart", Boolean(url));
    if (!url) {
      img.removeAttribute("src");
      return;
    }
    img.alt = trial.alt || section.dataset.altText;
    if (trial.width) {
      img.width = trial.width;
      img.height = trial.height;
    } else {
      img.removeAttribute("width");
      img.removeAttribute("height");
    }
    // A chart fetched ahead is in the document's image cache: no second request.
    img.src = url;
  }

  function showMeta(trial) {
    const progress = section.querySelector("progress");
    progress.max = trial.trial_count;
    progress.value = trial.position;
    const count = section.querySelector("[data-trial-count]");
    const before = count.textContent;
    const text = countText.replace("{number}", trial.number).replace("{total}", trial.trial_count);
    count.textContent = text;
    document.title = document.title.replace(before, text);
    const left = section.querySelector("[data-time-left]");
    const separator = left.textContent.match(/^\s*\S+\s*/);
    if (trial.time_left) {
      left.textContent = (separator ? separator[0] : " · ") + trial.time_left;
    }
    if (trial.seconds_left !== null && trial.seconds_left !== undefined && left.dataset.limit) {
      // static/js/clock.js counts on from the server's figure.
      left.dataset.secondsLeft = trial.seconds_left;
      left.dispatchEvent(new Event("clock-reset"));
    }
  }

  function setLines(element, text) {
    const lines = String(text).split("\n");
    element.replaceChildren();
    lines.forEach((line, i) => {
      if (i) element.appendChild(document.createElement("br"));
      element.appendChild(document.createTextNode(line));
    });
  }

  // The answer input for the trial, from the server's sample of its type.
  function drawAnswer(trial) {
    const template = section.querySelector(`template[data-answer-template="${trial.answer_type}"]`);
    const root = document.createElement("div");
    root.appendChild(template.content.cloneNode(true));
    setLines(root.querySelector("#trial-prompt"), trial.prompt);
    const choice = root.querySelector(".choice");
    if (choice) {
      trial.options.forEach((option, index) => {
        const copy = choice.cloneNode(true);
        copy.querySelector("input").value = String(index);
        copy.querySelector("span").textContent = option;
        choice.parentNode.appendChild(copy);
      });
      choice.remove();
    }
    const item = root.querySelector(".rank-item");
    if (item) drawRanking(item, trial.items);
    const fragment = document.createDocumentFragment();
    fragment.append(...root.childNodes);
    return fragment;
  }

  function drawRanking(sample, items) {
    const select = sample.querySelector("select");
    const rankSample = select.querySelector('option[value="1"]');
    rankSample.remove();
    items.forEach((entry, i) => {
      const option = rankSample.cloneNode(true);
      option.value = String(i + 1);
      option.textContent = String(i + 1);
      select.appendChild(option);
    });
    items.forEach((entry) => {
      const copy = sample.cloneNode(true);
      const name = `rank_${entry.index}`;
      copy.dataset.index = String(entry.index);
      const label = copy.querySelector("label");
      label.htmlFor = name;
      label.textContent = entry.text;
      const choose = copy.querySelector("select");
      choose.name = name;
      choose.id = name;
      sample.parentNode.appendChild(copy);
    });
    sample.remove();
  }
})();
