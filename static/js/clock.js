// The trial page's clock: the time left, counted down in the browser between answers
// (no request to the server). The server draws the words and the figures on
// [data-time-left]: the seconds left, the limit in minutes and each wording in its
// singular and plural form. The rule here is the server's (studies/selectors/timing.py,
// time_left_statement): under a minute the seconds, else the minutes rounded up, and
// the limit only while some of it is used and more than a minute is left.
// Without JavaScript the server's words stay as the page was drawn.
"use strict";

(function () {
  const clock = document.querySelector("[data-time-left][data-seconds-left]");
  if (!clock || !window.Intl || !Intl.PluralRules) return;
  let texts;
  try {
    texts = JSON.parse(clock.dataset.texts);
  } catch (error) {
    return; // the server's words stay
  }
  const limit = parseInt(clock.dataset.limit, 10);
  const plural = new Intl.PluralRules(document.documentElement.lang || undefined);
  const separator = (clock.textContent.match(/^\s*\S+\s*/) || [" · "])[0];
  let end = 0;

  // The languages the pages speak have a singular ("one") and a plural form.
  function form(name, count) {
    const [one, other] = texts[name];
    return plural.select(count) === "one" ? one : other;
  }

  function words(secondsLeft) {
    if (secondsLeft < 60) return form("second", secondsLeft).replace("%(seconds)d", secondsLeft);
    const left = Math.ceil(secondsLeft / 60);
    if (left === 1 || left >= limit) return form("minute", left).replace("%(left)d", left);
    return form("about", limit).replace("%(left)d", left).replace("%(limit)d", limit);
  }

  function tick() {
    // From the page's own monotonic clock, so a wrong system clock or a tab left in
    // the background does not skew it.
    const secondsLeft = Math.max(0, Math.ceil((end - performance.now()) / 1000));
    const text = separator + words(secondsLeft);
    if (clock.textContent !== text) clock.textContent = text;
  }

  function reset() {
    const seconds = parseInt(clock.dataset.secondsLeft, 10);
    if (Number.isNaN(seconds)) return;
    end = performance.now() + seconds * 1000;
    tick();
  }

  clock.addEventListener("clock-reset", reset);
  reset();
  setInterval(tick, 1000);
})();
