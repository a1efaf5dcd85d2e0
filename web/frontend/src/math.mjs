// Math in the pages: every `.math` element that web/learning/statements.py wrote, typeset with KaTeX
// (bundled, served from this site). `$...$` is written with the class "inline" and set inline;
// `$$...$$` is "display" (inside a paragraph) or "block" (on lines of its own), set as display math.
import katex from "katex";

export function isDisplayMath(element) {
  return !element.classList.contains("inline");
}

export function typesetMath(root) {
  root.querySelectorAll(".math").forEach((element) => {
    if (element.dataset.typeset) return;
    // renderToString, not render: the same call works under Node.js, where the tests run it.
    element.innerHTML = katex.renderToString(element.textContent, {
      displayMode: isDisplayMath(element),
      throwOnError: false,
    });
    element.dataset.typeset = "1";
  });
}
