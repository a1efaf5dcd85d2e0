// The picture of a failed check (a report's `figure`, docs/report.md): one renderer for the
// submission page (figures-page.js) and the browser's Run (run.js).
//
//   distribution: per outcome id (in the report's order), the target probability beside the
//                 observed frequency; the worst cells' bars in the "bad" colour AND labelled
//                 "▲ 17"; the pooled rest as the last bar; the axis in percent.
//   calibration:  per z, the exact coverage beside the observed share covered; a failed z the same way.
//
// A figure of another type draws nothing (a newer report on an older page), never an error.
// `texts` are the page's words (web/learning/figures.py figure_texts: the site puts them beside each
// figure, the Run page in its texts). The numbers as a table are the page's job on the site
// (server-rendered, web/templates/submissions/_figure.html); the Run builds the same with figureElement.
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Title, Tooltip } from "chart.js";
import { element } from "./dom.js";

Chart.register(BarController, BarElement, CategoryScale, Legend, LinearScale, Title, Tooltip);

const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

function fill(text, values) {
  return Object.entries(values).reduce((done, [name, value]) => done.replaceAll(`{${name}}`, String(value)), text);
}

function outcomeNoun(figure, texts) {
  const noun = figure.outcome || "token";
  return texts.lang === "zh" ? figure.outcome_zh || noun : noun;
}

const percent = (share) => Number((100 * share).toPrecision(3));
const count = (value) => (Number.isInteger(value) ? String(value) : value.toFixed(1));

// The figure's bars as rows: {label, target, observed (both shares), expectedCount, observedCount, marked};
// null for a figure this renderer does not know or cannot read.
export function figureRows(figure) {
  if (!figure || typeof figure !== "object" || !(figure.n > 0)) return null;
  const n = figure.n;
  if (figure.type === "distribution" && Array.isArray(figure.bars)) {
    const rows = figure.bars.map((bar) => ({
      label: String(bar.id), target: bar.target, observed: bar.observed / n,
      expectedCount: bar.expected, observedCount: bar.observed, marked: Boolean(bar.worst),
    }));
    if (figure.rest) {
      rows.push({ label: null, rest: figure.rest.count, target: figure.rest.target, observed: figure.rest.observed / n,
                  expectedCount: figure.rest.expected, observedCount: figure.rest.observed, marked: false });
    }
    return rows;
  }
  if (figure.type === "calibration" && Array.isArray(figure.levels)) {
    return figure.levels.map((level) => ({
      label: `z = ${level.z}`, target: level.expected, observed: level.covered / n,
      expectedCount: level.expected * n, observedCount: level.covered, marked: !level.passed,
    }));
  }
  return null;
}

function rowLabel(row, texts) {
  const label = row.label === null ? fill(texts.rest, { count: row.rest }) : row.label;
  return row.marked ? `${texts.mark} ${label}` : label;
}

// The figure's title (also the canvas's accessible name) and its one-line "how to read".
export function figureTitle(figure, texts) {
  return figure.type === "distribution"
    ? fill(texts.distribution_title, { outcome: outcomeNoun(figure, texts), n: figure.n })
    : fill(texts.calibration_title, { n: figure.n });
}

function figureHelp(figure, texts) {
  return figure.type === "distribution"
    ? fill(texts.distribution_help, { outcome: outcomeNoun(figure, texts) })
    : texts.calibration_help;
}

function colour(name, fallback) {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

// The legend: each series in its own colour (the observed one is coloured per bar, so Chart.js
// would take its first bar's), and the marked bars' colour with its words when any bar is marked.
function legend(chart, rows, observed, bad, texts, distribution) {
  const items = Chart.defaults.plugins.legend.labels.generateLabels(chart);
  items[1].fillStyle = items[1].strokeStyle = observed;
  if (rows.some((row) => row.marked)) {
    items.push({ text: `${texts.mark} ${distribution ? texts.worst : texts.missed}`, fillStyle: bad, strokeStyle: bad,
                 fontColor: items[0].fontColor, lineWidth: 0, hidden: false, datasetIndex: null });
  }
  return items;
}

// The Chart.js configuration of a figure; null for one it does not draw.
export function figureConfig(figure, texts) {
  const rows = figureRows(figure);
  if (!rows || !rows.length) return null;
  const distribution = figure.type === "distribution";
  const target = colour("--muted", "#5b6675");
  const observed = colour("--accent", "#1f5fbf");
  const bad = colour("--bad", "#b3261e");
  const ink = colour("--fg", "#1d232b");
  return {
    type: "bar",
    data: {
      labels: rows.map((row) => rowLabel(row, texts)),
      datasets: [
        { label: distribution ? texts.target : texts.exact_coverage, data: rows.map((row) => percent(row.target)),
          backgroundColor: target },
        { label: distribution ? texts.observed : texts.observed_coverage, data: rows.map((row) => percent(row.observed)),
          backgroundColor: rows.map((row) => (row.marked ? bad : observed)) },
      ],
    },
    options: {
      maintainAspectRatio: true,
      aspectRatio: 2.4,
      animation: reducedMotion.matches ? false : undefined,
      color: ink,
      scales: {
        x: { ticks: { color: (context) => (rows[context.index]?.marked ? bad : ink), autoSkip: false } },
        y: { beginAtZero: true, title: { display: true, text: `${texts.percent} (%)`, color: ink },
             ticks: { color: ink, callback: (value) => `${value} %` } },
      },
      plugins: {
        // The caption above the canvas says it already; kept as the chart's name for its readers.
        title: { display: false, text: figureTitle(figure, texts) },
        legend: { display: true,
                  // The marker's item names no series: clicking it hides nothing.
                  onClick(event, item, legendBox) {
                    if (item.datasetIndex !== null) Chart.defaults.plugins.legend.onClick.call(this, event, item, legendBox);
                  },
                  labels: { color: ink, generateLabels: (chart) => legend(chart, rows, observed, bad, texts, distribution) } },
        tooltip: { callbacks: { label: (context) => `${context.dataset.label}: ${context.parsed.y} %` } },
      },
    },
  };
}

// Draw `figure` on `canvas` (in the DOM, so it has a size); the Chart, or null when not drawn.
// The canvas becomes an image named by the figure's title.
export function drawFigure(canvas, figure, texts) {
  const config = figureConfig(figure, texts);
  if (!config) return null;
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", canvas.dataset.figureLabel || figureTitle(figure, texts));
  const existing = Chart.getChart(canvas);
  if (existing) existing.destroy();
  return new Chart(canvas, config);
}

// Draw every figure a page declares (a <canvas data-figure="ID"> and <script type="application/json"
// id="ID">{"figure": ..., "texts": ...}</script>, see _figure.html) under `root`, once each; where a
// chart drew, show its canvas and fold its table of numbers away (it stays one click open).
export function drawDeclaredFigures(root = document) {
  const drawn = [];
  for (const canvas of root.querySelectorAll("canvas[data-figure]")) {
    if (Chart.getChart(canvas)) continue;
    const source = document.getElementById(canvas.dataset.figure);
    let declared;
    try {
      declared = JSON.parse(source.textContent);
    } catch (error) {
      console.warn(`figure ${canvas.dataset.figure}: ${error.message}`);
      continue;
    }
    const holder = canvas.parentElement;
    holder.hidden = false;
    const chart = drawFigure(canvas, declared.figure, declared.texts);
    if (!chart) {
      holder.hidden = true;
      continue;
    }
    canvas.closest("figure")?.querySelector("details.figure-numbers")?.removeAttribute("open");
    drawn.push(chart);
  }
  return drawn;
}

// The same <figure> the site renders (caption, canvas, folded table of numbers), for a page that
// renders reports itself (the Run); null for a figure this renderer does not draw. Draw it with
// drawDeclaredFigures-like drawFigure once it is in the DOM: `figure.draw()`.
export function figureElement(figure, texts, check = "") {
  const rows = figureRows(figure);
  if (!rows || !rows.length) return null;
  const distribution = figure.type === "distribution";
  const title = figureTitle(figure, texts);
  const noun = distribution ? outcomeNoun(figure, texts) : "z";
  const columns = [noun, `${distribution ? texts.target : texts.exact_coverage} (%)`,
                   `${distribution ? texts.observed : texts.observed_coverage} (%)`,
                   texts.expected_count, texts.observed_count, texts.mark_column];
  const marker = `${texts.mark} ${distribution ? texts.worst : texts.missed}`;
  const canvas = element("canvas", { "data-figure-label": title });
  const table = element("table", { class: "listing figure-table" },
    element("caption", { class: "visually-hidden" }, title),
    element("thead", {}, element("tr", {}, columns.map((name, i) =>
      element("th", { scope: "col", class: i > 0 && i < 5 ? "number" : null }, name)))),
    element("tbody", {}, rows.map((row) => element("tr", { class: row.marked ? "marked" : null },
      element("th", { scope: "row" }, row.label === null ? fill(texts.rest, { count: row.rest }) : row.label),
      element("td", { class: "number" }, String(percent(row.target))),
      element("td", { class: "number" }, String(percent(row.observed))),
      element("td", { class: "number" }, count(row.expectedCount)),
      element("td", { class: "number" }, String(row.observedCount)),
      element("td", {}, row.marked ? marker : "")))));
  const node = element("figure", { class: "check-figure", "data-figure-type": figure.type },
    element("figcaption", {}, element("strong", {}, check ? `${check}: ${title}` : title), " ",
            element("span", { class: "figure-help" }, figureHelp(figure, texts))),
    element("div", { class: "figure-canvas" }, canvas),
    element("details", { class: "figure-numbers" }, element("summary", {}, texts.numbers), table));
  node.draw = () => drawFigure(canvas, figure, texts);
  return node;
}

// The figures a case of a report shows: its failed checks', never a hidden case's (web/learning/figures.py).
export function caseFigures(reportCase) {
  if (!reportCase || reportCase.suite === "hidden") return [];
  return (reportCase.checks || []).filter((check) => check && check.passed === false && check.figure)
    .map((check) => ({ check: check.label || "", figure: check.figure }));
}

export { Chart };  // for the tests (Chart.getChart(canvas))
