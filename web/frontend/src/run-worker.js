// The exercise page's Web Worker (a module worker): Python (Pyodide) judging the editor's code on
// the exercise's browser variant. It keeps Pyodide loaded between runs; the page terminates it
// when a run passes its time limit and starts a fresh one.
import * as core from "./pyodide-core.mjs";

let pyodide = null;
const exercises = new Map();  // folder -> its directory in Pyodide's file system

async function fetchOk(url, kind) {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return kind === "json" ? response.json() : response.arrayBuffer();
}

async function ensurePyodide(message) {
  if (pyodide) return;
  const { loadPyodide } = await import(`${message.pyodideUrl}pyodide.mjs`);
  pyodide = await loadPyodide({ indexURL: message.pyodideUrl });
  await core.prepare(pyodide, await fetchOk(message.engineUrl, "bytes"));
}

self.onmessage = async (event) => {
  const message = event.data;
  if (message.type !== "run") return;
  try {
    await ensurePyodide(message);
    if (!exercises.has(message.filesUrl)) {
      const files = await fetchOk(message.filesUrl, "json");
      exercises.set(message.filesUrl, core.writeExercise(pyodide, message.folder, files));
    }
    self.postMessage({ type: "started", id: message.id });  // the time limit counts from here
    const report = core.judge(pyodide, exercises.get(message.filesUrl), message.code, message.seed);
    self.postMessage({ type: "report", id: message.id, report });
  } catch (error) {
    self.postMessage({ type: "error", id: message.id, message: String(error && error.message || error) });
  }
};
