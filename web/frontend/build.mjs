// Bundle the browser assets into ../static/build (git-ignored; `make` runs this at set-up).
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, readFileSync, rmSync } from "node:fs";

const out = new URL("../static/build/", import.meta.url).pathname;
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: {
    editor: "src/editor.js",
    site: "src/site.js",
    run: "src/run.js",
    "run-worker": "src/run-worker.js",
    charts: "src/charts.js",
    figures: "src/figures-page.js",
  },
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
// Pyodide: the five files a page needs, copied as published, each checked against the pinned
// checksums in pyodide.sha256 (npm ci has verified the tarball's integrity already).
mkdirSync(`${out}pyodide`, { recursive: true });
for (const line of readFileSync("pyodide.sha256", "utf8").trim().split("\n")) {
  const [expected, name] = line.split(/\s+/);
  const bytes = readFileSync(`node_modules/pyodide/${name}`);
  const actual = createHash("sha256").update(bytes).digest("hex");
  if (actual !== expected) {
    console.error(`pyodide/${name}: sha256 ${actual} does not match the pinned ${expected}`);
    process.exit(1);
  }
  cpSync(`node_modules/pyodide/${name}`, `${out}pyodide/${name}`);
}
console.log(`built ${out}`);
