// What every page gets: math typeset with KaTeX (served from this site), and live submission status.
import { typesetMath } from "./math.mjs";

// A pending submission's result region names a URL that answers the same region re-rendered,
// waiting on the server until the verdict is in (its ?wait=): ask at once, and again until then.
// The server renders the HTML, so nothing is duplicated here.
function followSubmission(region) {
  const url = region.dataset.pollUrl;
  let delay = 0;
  const tick = async () => {
    try {
      const response = await fetch(url, { headers: { Accept: "text/html" }, credentials: "same-origin" });
      if (response.ok) {
        const html = await response.text();
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
        }
      }
    } catch { /* a dropped connection: try again */ }
    delay = Math.min(Math.max(delay * 1.5, 500), 3000);  // a busy or unreachable server: back off
    setTimeout(tick, delay);
  };
  setTimeout(tick, delay);
}

typesetMath(document);
document.querySelectorAll("[data-poll-url]").forEach(followSubmission);
