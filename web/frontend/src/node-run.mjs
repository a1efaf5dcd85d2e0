// `practice/judge.py test N FILE --browser`: the browser's run, under Node.js, with the same Pyodide
// files (web/static/build/pyodide) and the same steps (pyodide-core.mjs) as the exercise page.
//
// Reads one JSON object on stdin: {pyodideDir, engineZip (base64), folder, files, codes: [...], seed,
// timeLimit} and prints one report per code, as one JSON line each, on stdout (authors' checks
// judge a whole catalogue with one Pyodide load). Like the page, it runs Python in a worker and
// terminates it when a run passes its time limit: that code is reported as TLE, the rest are not run.
// Unlike the page (a browser has no CPU clock), the limit is CPU time, as on the server: this
// process's, which the run's thread is nearly all of; a wall clock of WALL_FACTOR times the limit
// stops code that sleeps. So a busy machine (parallel tests, a CI runner) never makes a correct run
// a TLE: exercise 39's correct Gumbel-max sampler takes about 3.5 s of CPU here against 10 s.
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { pathToFileURL } from "node:url";
import * as core from "./pyodide-core.mjs";

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

const WALL_FACTOR = 3;
const CPU_WATCH_MS = 100;

if (isMainThread) {
  const job = await readStdin();
  const worker = new Worker(new URL(import.meta.url), { workerData: job });
  let timer = null;
  let watch = null;
  let stopping = false;
  const disarm = () => {
    clearTimeout(timer);
    clearInterval(watch);
  };
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    disarm();
    await worker.terminate();
    process.stdout.write(JSON.stringify(core.timeLimitReport(job.timeLimit)) + "\n");
    process.exit(0);
  };
  worker.on("message", (message) => {
    if (message.type === "started") {
      disarm();
      const cpuAtStart = process.cpuUsage();
      watch = setInterval(() => {
        const used = process.cpuUsage(cpuAtStart);
        if ((used.user + used.system) / 1e6 > job.timeLimit) stop();
      }, CPU_WATCH_MS);
      timer = setTimeout(stop, job.timeLimit * WALL_FACTOR * 1000);
    } else if (message.type === "report") {
      disarm();
      process.stdout.write(JSON.stringify(message.report) + "\n");
      if (message.index === job.codes.length - 1) process.exit(0);
    } else if (message.type === "error") {
      disarm();
      process.stderr.write(`browser run failed: ${message.message}\n`);
      process.exit(1);
    }
  });
  worker.on("error", (error) => {
    process.stderr.write(`browser run failed: ${error && error.stack || error}\n`);
    process.exit(1);
  });
} else {
  const job = workerData;
  try {
    const dir = job.pyodideDir.endsWith("/") ? job.pyodideDir : `${job.pyodideDir}/`;
    const { loadPyodide } = await import(pathToFileURL(`${dir}pyodide.mjs`).href);
    const pyodide = await loadPyodide({ indexURL: dir });
    await core.prepare(pyodide, Buffer.from(job.engineZip, "base64"));
    const exerciseDir = core.writeExercise(pyodide, job.folder, job.files);
    job.codes.forEach((code, index) => {
      parentPort.postMessage({ type: "started", index });
      parentPort.postMessage({ type: "report", index, report: core.judge(pyodide, exerciseDir, code, job.seed) });
    });
  } catch (error) {
    parentPort.postMessage({ type: "error", message: String(error && error.stack || error) });
  }
}
