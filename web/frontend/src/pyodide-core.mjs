// Judging inside Pyodide: shared by the exercise page's Web Worker and by the Node.js runner of
// `practice/judge.py test N FILE --browser`, so both run exactly the same steps.
//
// 1. load Pyodide (the five files of the pinned npm package, from this site or from disk);
// 2. unpack the engine bundle (judge/..., pure Python) and install the torch subset as `torch`;
// 3. write the exercise's browser files; 4. run judge.browser.run.run_browser_variant.

export const ROOT = "/home/pyodide/probjudge";

// `engineZip`: the zip of judge/... as an ArrayBuffer or a typed array (a Node.js Buffer too).
export async function prepare(pyodide, engineZip) {
  const bytes = engineZip instanceof ArrayBuffer ? engineZip : Uint8Array.from(engineZip).buffer;
  pyodide.unpackArchive(bytes, "zip", { extractDir: ROOT });
  pyodide.runPython(`
import sys
if ${JSON.stringify(ROOT)} not in sys.path:
    sys.path.insert(0, ${JSON.stringify(ROOT)})
import judge.browser.torchlike as _subset
_subset.install()
`);
}

function mkdirs(pyodide, path) {
  let current = "";
  for (const part of path.split("/").filter(Boolean)) {
    current += "/" + part;
    if (!pyodide.FS.analyzePath(current).exists) pyodide.FS.mkdir(current);
  }
}

// `files`: relative path -> text (exercise.toml and the exercise's [browser] files).
export function writeExercise(pyodide, folder, files) {
  const base = `${ROOT}/exercises/${folder}`;
  for (const [relative, text] of Object.entries(files)) {
    const path = `${base}/${relative}`;
    mkdirs(pyodide, path.slice(0, path.lastIndexOf("/")));
    pyodide.FS.writeFile(path, text, { encoding: "utf8" });
  }
  return base;
}

// The judge's report (docs/report.md) as an object.
export function judge(pyodide, exerciseDir, code, seed) {
  const run = pyodide.runPython("from judge.browser.run import run_browser_variant\nrun_browser_variant");
  try {
    return JSON.parse(run(exerciseDir, code, seed ?? null));
  } finally {
    run.destroy();
  }
}

// The report of a run stopped at its time limit (the worker was terminated, so Python said nothing).
export function timeLimitReport(seconds) {
  return {
    schema: 1, verdict: "TLE", score: { passed: 0, total: 0 }, cases: [], sandbox: "browser",
    message: `the run took longer than ${seconds} s and was stopped (an endless loop, or code far too slow ` +
             "for the browser; the server's time limits are per case)",
    diagnosis: null, diagnosis_zh: null,
  };
}
