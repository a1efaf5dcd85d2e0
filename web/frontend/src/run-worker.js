// The exercise page's Web Worker (a module worker): Python (Pyodide) judging the editor's code on
// the exercise's browser variant. It keeps Pyodide loaded between runs; the page terminates it
// when a run passes its time limit and starts a fresh one.
import * as core from "./pyodide-core.mjs";

//
// Messages: {type: "warm"} loads Python, the engine and the exercise's files ahead of a run (the
// page sends it in idle time) and answers {type: "warm"}; {type: "run"} judges. Loading is shared:
// a run that arrives while a warm-up loads waits for that load, never starts a second one.
let pyodide = null;
let loading = null;  // the promise of Python and the engine, once asked for
const exercises = new Map();  // files URL -> the promise of its directory in Pyodide's file system

async function fetchOk(url, kind) {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return kind === "json" ? response.json() : response.arrayBuffer();
}

function ensurePyodide(message) {
  loading ??= (async () => {
    const { loadPyodide } = await import(`${message.pyodideUrl}pyodide.mjs`);
    const loaded = await loadPyodide({ indexURL: message.pyodideUrl });
    await core.prepare(loaded, await fetchOk(message.engineUrl, "bytes"));
    pyodide = loaded;
  })().catch((error) => { loading = null; throw error; });  // a failed load is tried again next time
  return loading;
}

async function ensureExercise(message) {
  await ensurePyodide(message);
  if (!exercises.has(message.filesUrl)) {
    const written = fetchOk(message.filesUrl, "json").then((files) => core.writeExercise(pyodide, message.folder, files));
    written.catch(() => exercises.delete(message.filesUrl));
    exercises.set(message.filesUrl, written);
  }
  return exercises.get(message.filesUrl);
}

self.onmessage = async (event) => {
  const message = event.data;
  if (message.type === "warm") {
    try {
      await ensureExercise(message);
      self.postMessage({ type: "warm" });
    } catch { /* the first run loads it again, and says what fails */ }
    return;
  }
  if (message.type !== "run") return;
  try {
    const directory = await ensureExercise(message);
    self.postMessage({ type: "started", id: message.id });  // the time limit counts from here
    const report = core.judge(pyodide, directory, message.code, message.seed);
    self.postMessage({ type: "report", id: message.id, report });
  } catch (error) {
    self.postMessage({ type: "error", id: message.id, message: String(error && error.message || error) });
  }
};
