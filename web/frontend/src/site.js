// What every page gets: math typeset with KaTeX (served from this site), and live submission status.
import { typesetMath } from "./math.mjs";

// A pending submission's result region names a URL that answers the same region re-rendered,
// waiting on the server until the verdict is in (its ?wait=): ask at once, and again until then.
// The server renders the HTML, so nothing is duplicated here.
// While it runs, a stopwatch counts the seconds since this page first saw it running (the server
// never tells a learner when a grading started: web/access/presenting.py says why).
function followSubmission(region) {
  const url = region.dataset.pollUrl;
  let delay = 0;
  let runningSince = null;
  const showElapsed = () => {
    const clock = region.querySelector("[data-elapsed]");
    if (region.dataset.status !== "running" || !clock) return;
    runningSince ??= Date.now();
    const seconds = Math.floor((Date.now() - runningSince) / 1000);
    clock.textContent = ` · ${clock.dataset.elapsed.replace("{seconds}", seconds)}`;
  };
  const stopwatch = setInterval(() => {
    if (!region.dataset.pollUrl) clearInterval(stopwatch);
    else showElapsed();
  }, 1000);
  showElapsed();
  let last = null;
  const tick = async () => {
    let moved = false;
    try {
      const response = await fetch(url, { headers: { Accept: "text/html" }, credentials: "same-origin" });
      if (response.ok) {
        const html = await response.text();
        moved = last !== null && html !== last;  // the server answered with news (it waits for it)
        last = html;
        const holder = document.createElement("div");
        holder.innerHTML = html;
        const fresh = holder.firstElementChild;
        if (fresh) {
          region.replaceWith(fresh);
          region = fresh;
          typesetMath(region);
          // For what draws inside the region (figures-page.js: a failed check's picture).
          document.dispatchEvent(new CustomEvent("probjudge:swapped", { detail: region }));
          if (!fresh.dataset.pollUrl) return;  // done: the verdict is shown
          showElapsed();
        }
      }
    } catch { /* a dropped connection: try again */ }
    // News: ask again soon. No news (a busy server answers at once) or no answer: back off.
    delay = moved ? 250 : Math.min(Math.max(delay * 1.5, 500), 3000);
    setTimeout(tick, delay);
  };
  setTimeout(tick, delay);
}

typesetMath(document);
document.querySelectorAll("[data-poll-url]").forEach(followSubmission);
