// The submission page's figures (web/templates/submissions/_figure.html): drawn when the page
// opens, and again in the result region the page's polling swaps in (site.js announces each swap
// with a "probjudge:swapped" event on the document, the new region as its detail).
import { drawDeclaredFigures } from "./figures.js";

// What the browser's Run imports of this bundle when a report of its has a figure (run.js).
export { Chart, caseFigures, drawDeclaredFigures, figureElement } from "./figures.js";

document.addEventListener("probjudge:swapped", (event) => drawDeclaredFigures(event.detail || document));

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => drawDeclaredFigures());
} else {
  drawDeclaredFigures();
}
