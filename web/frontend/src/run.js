// "Run" on the exercise page: judge the editor's code in this browser (Pyodide in a Web Worker) on
// the exercise's browser variant, and show the report like a server verdict. No server round trip:
// the page fetches Pyodide, the engine and the exercise's public files from this site once.
//
// The button says what it is doing ("Loading Python…", "Running…", then its name again) and takes
// no second click meanwhile; the result goes in the pane under the buttons, scrolled into view. So
// that the first click is warm, Python loads in the background once the page is idle (once per
// page, and not when the browser asks to save data).
import { timeLimitReport } from "./pyodide-core.mjs";
import { element } from "./dom.js";

const button = document.getElementById("run-button");
const panel = document.getElementById("browser-result");

if (button && panel) {
  const config = panel.dataset;
  const texts = JSON.parse(document.getElementById("run-texts").textContent);
  const zh = document.documentElement.lang.startsWith("zh");
  const pick = (en, chinese) => (zh ? chinese || en : en) || "";
  const timeLimit = Number(config.timeLimit);
  let worker = null;
  let running = null;  // {id, timer, started}
  let runs = 0;
  let warm = false;  // this worker has Python and the exercise loaded
  let preloaded = false;
  const message = (type, extra = {}) => ({ type, folder: config.folder, pyodideUrl: config.pyodideUrl,
                                           engineUrl: config.engineUrl, filesUrl: config.filesUrl, ...extra });

  function label(text) {
    button.textContent = text;
  }

  // A case's diagnosis and message; for SK with a diagnosis (not available in the browser), that text alone.
  // A known mistake other than the report's headline one is "also consistent with" (docs/report.md).
  function caseNote(c, headline) {
    const diagnosis = pick(c.diagnosis, c.diagnosis_zh);
    if (c.verdict === "SK" && diagnosis) return element("div", { class: "diagnosis" }, diagnosis);
    const label = !headline || diagnosis === headline ? texts.likely_mistake : texts.also_consistent_with;
    return [diagnosis ? element("div", { class: "diagnosis" }, `${label}: ${diagnosis}`) : null,
            c.message ? element("div", { class: "message" }, c.message) : null];
  }

  const badge = (code) => element("span", { class: `verdict v-${code}`, title: texts.verdicts[code] || code }, code);

  function render(report, milliseconds) {
    const region = element("section", { class: "result", "aria-live": "polite", "data-status": "done" });
    const line = element("p", { class: "verdict-line" }, badge(report.verdict),
                         element("strong", {}, texts.verdicts[report.verdict] || report.verdict));
    // The code never reached a case (judge.verdicts.ran_no_case): what to fix, no "0/N cases passed".
    const cases = report.cases || [];
    const noneRan = cases.length > 0 && report.verdict !== "SK" && cases.every((c) => c.verdict === "SK");
    if (noneRan) {
      line.append(element("span", {}, report.verdict === "IE" ? texts.no_case_ran_judge : texts.no_case_ran));
    } else if (report.score && report.score.total) {
      line.append(element("span", {}, texts.cases_summary.replace("{passed}", report.score.passed)
                                                          .replace("{total}", report.score.total)));
    }
    line.append(element("span", { class: "muted" }, texts.in_browser.replace("{seconds}", (milliseconds / 1000).toFixed(2))));
    region.append(line);
    const diagnosis = pick(report.diagnosis, report.diagnosis_zh);
    // SK: the code needs an operation the browser's torch lacks ("not available in the browser:
    // Submit ..."), which is no mistake of the learner's: say it as it is, in the page's language.
    if (report.verdict === "SK" && diagnosis) region.append(element("p", { class: "diagnosis", role: "note" }, diagnosis));
    else if (diagnosis) region.append(element("p", { class: "diagnosis", role: "note" }, element("strong", {}, `${texts.likely_mistake}: `), diagnosis));
    const missing = report.not_implemented || [];
    if (missing.length && report.verdict !== "AC") {
      region.append(element("p", { class: "diagnosis not-implemented", role: "note" },
        element("strong", {}, texts.not_implemented_yet.replace("{functions}", missing.join(zh ? "、" : ", ")))));
    }
    const headline = report.verdict === "SK" ? null : diagnosis;
    // The engine's words in the page's language (message_zh); reports from before it have message alone.
    const message = pick(report.message, report.message_zh);
    if (message && report.verdict !== "AC" && !(report.verdict === "SK" && diagnosis)) {
      region.append(element("p", { class: "message" }, message));
    }
    const figureRows = [];  // [case, its row's successor]: where a failed case's figures go
    if (cases.length && !noneRan) {
      const rows = report.cases.flatMap((c) => [element("tr", { class: `case-${c.verdict}` },
        element("td", {}, element("span", { class: "case-title" }, pick(c.title, c.title_zh) || c.name), " ",
                element("code", { class: "muted" }, c.name),
                caseNote(c, headline)),
        element("td", {}, texts.suites[c.suite] || c.suite),
        element("td", {}, badge(c.verdict)),
        element("td", { class: "number" }, c.time_ms != null ? `${Math.round(c.time_ms)} ms` : ""),
        element("td", { class: "number" }, typeof c.p_value === "number" ? c.p_value.toPrecision(3) : "—")),
        figureRow(c, figureRows)]);
      // The table scrolls in its own box: a narrow panel never makes the page scroll sideways.
      // The box is focusable and named, so keyboard users can reach and scroll it.
      region.append(element("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": texts.cases_table }, element("table", { class: "cases" },
        element("thead", {}, element("tr", {}, ...texts.columns.map((name, i) => element("th", { scope: "col", class: i >= 3 ? "number" : null }, name)))),
        element("tbody", {}, rows))));
    }
    if (report.false_failure_budget) {
      region.append(element("p", { class: "muted small" }, texts.budget.replace("{total}", report.false_failure_budget.total.toExponential(0).replace("e-", "e-0"))));
    }
    show(region);
    if (figureRows.length) showFigures(figureRows);
  }

  // A failed case with a figure (a failed check's picture, docs/report.md) gets a row under it,
  // filled once the renderer (figures.js, the submission page's too) is loaded: only the reports
  // that have a figure load Chart.js.
  function figureRow(c, pending) {
    if (c.suite === "hidden" || !(c.checks || []).some((check) => check && check.passed === false && check.figure)) return null;
    const cell = element("td", { colspan: "5" });
    pending.push([c, cell]);
    return element("tr", { class: "case-figures", hidden: "" }, cell);
  }

  async function showFigures(pending) {
    let renderer;
    try {
      renderer = await import(config.figuresUrl);
    } catch (error) {
      console.warn(`figures: ${error.message}`);
      return;
    }
    for (const [c, cell] of pending) {
      const figures = renderer.caseFigures(c).map(({ check, figure }) => renderer.figureElement(figure, texts.figure, check))
        .filter(Boolean);
      if (!cell.isConnected || !figures.length) continue;
      cell.append(...figures);
      cell.parentElement.hidden = false;
      figures.forEach((figure) => figure.draw());
    }
  }

  // The result where the learner is looking: the pane scrolled into view, and focus on its heading
  // when it was on the button (a learner who went back to typing keeps the editor).
  function show(...content) {
    const heading = element("h3", { tabindex: "-1", id: "browser-result-heading" }, texts.heading);
    panel.replaceChildren(heading, ...content);
    const focused = document.activeElement;
    if (focused === button || focused === document.body || focused === null) heading.focus({ preventScroll: true });
    panel.scrollIntoView({ block: "nearest" });
  }

  function status(text) {
    panel.replaceChildren(element("h3", {}, texts.heading),
      element("p", { class: "pending", role: "status" }, element("span", { class: "spinner", "aria-hidden": "true" }), " ", text));
  }

  function finish() {
    if (running) clearTimeout(running.timer);
    running = null;
    button.removeAttribute("aria-disabled");  // aria-disabled, not disabled: the button keeps focus
    button.removeAttribute("aria-busy");
    label(texts.button_run);
  }

  function startWorker() {
    worker = new Worker(config.workerUrl, { type: "module" });
    warm = false;
    delete panel.dataset.warm;
    worker.onmessage = (event) => {
      const message = event.data;
      if (message.type === "warm") {
        warm = true;
        panel.dataset.warm = "true";  // for tests and the curious: the next click starts at once
      }
      if (!running || message.id !== running.id) return;
      if (message.type === "started") {
        warm = true;
        panel.dataset.warm = "true";
        label(texts.button_running);
        status(texts.running);
        running.started = performance.now();
        running.timer = setTimeout(() => {  // a run past its limit: stop Python by stopping the worker
          const elapsed = performance.now() - running.started;
          worker.terminate();
          worker = null;
          finish();
          render(timeLimitReport(timeLimit), elapsed);
        }, timeLimit * 1000);
      } else if (message.type === "report") {
        const elapsed = performance.now() - running.started;
        finish();
        render(message.report, elapsed);
      } else if (message.type === "error") {
        finish();
        show(element("p", { class: "flash error", role: "alert" }, `${texts.failed} ${message.message}`));
      }
    };
  }

  button.hidden = false;
  button.addEventListener("click", () => {
    if (running) return;
    const code = document.getElementById("code").value;
    if (!worker) startWorker();
    runs += 1;
    running = { id: runs, timer: null, started: performance.now() };
    button.setAttribute("aria-disabled", "true");
    button.setAttribute("aria-busy", "true");
    label(warm ? texts.button_running : texts.button_loading);
    status(warm ? texts.running : texts.loading);
    const seed = Math.floor(Math.random() * 2 ** 52);
    worker.postMessage(message("run", { id: runs, code, seed }));
  });

  // Warm up in idle time, once per page; not on a connection the browser asks to spare.
  function preload() {
    if (preloaded || worker) return;
    preloaded = true;
    startWorker();
    worker.postMessage(message("warm"));
  }
  const connection = navigator.connection;
  const spare = connection && (connection.saveData || /(^|-)2g$/.test(connection.effectiveType || ""));
  if (!spare) {
    if ("requestIdleCallback" in window) window.requestIdleCallback(preload, { timeout: 5000 });
    else window.setTimeout(preload, 2000);
  }
}
