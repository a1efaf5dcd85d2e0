// Bundle the browser assets into ../static/build (git-ignored; `make` runs this at set-up).
import { build } from "esbuild";
import { cpSync, mkdirSync, rmSync } from "node:fs";

const out = new URL("../static/build/", import.meta.url).pathname;
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { editor: "src/editor.js", site: "src/site.js" },
  bundle: true,
  format: "esm",
  minify: true,
  sourcemap: false,
  target: ["es2020"],
  outdir: out,
  logLevel: "warning",
  legalComments: "linked",
});
// KaTeX's stylesheet and fonts, next to each other as katex.min.css expects.
cpSync("node_modules/katex/dist/katex.min.css", `${out}katex/katex.min.css`);
cpSync("node_modules/katex/dist/fonts", `${out}katex/fonts`, { recursive: true });
console.log(`built ${out}`);
