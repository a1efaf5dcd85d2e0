// Charts for the instructors' pages: Chart.js 4 (canvas, MIT), only the parts these charts use.
//
// A page declares a chart without any script of its own (the site's CSP is script-src 'self'):
//
//   <canvas data-chart="acceptance-data" data-chart-label="Acceptance rate per exercise"></canvas>
//   <script type="application/json" id="acceptance-data">
//     {"type": "bar", "labels": ["001", "039"],
//      "datasets": [{"label": "accepted", "data": [0.82, 0.41]}],
//      "xTitle": "exercise", "yTitle": "share of learners", "stacked": false}
//   </script>
//
// `type` is "line", "bar" or "horizontal-bar"; `labels` the categories; each dataset a `label`,
// its `data` (numbers, null for a gap) and, if it wants one, a `color`; the axis titles and
// `stacked` are optional (other keys, such as the page's `ranks`, are the table's). The canvas
// becomes role="img" with its data-chart-label as accessible name; the table of the same numbers
// (for screen readers, and for anyone without JavaScript) is the page's job. With
// prefers-reduced-motion nothing animates.
//
// What every chart holds to: a label is drawn whole, on as many lines as it needs (never cut);
// counts (every value a whole number) get whole-number ticks from 0 to the largest value drawn,
// so the longest bar spans the axis; equal values are equal bars (the order is the page's).
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Colors,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from "chart.js";

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  Colors,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
);

const TYPES = { line: "line", bar: "bar", "horizontal-bar": "bar" };
const LABEL_WIDTH = 30; // columns of one line of a category label (a CJK character takes two)
const ROW_PX = 26; // height of one bar, or of one line of a label, in a horizontal chart …
const TYPICAL_WIDTH_PX = 800; // … at the width such a chart usually gets (the main column)
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

const CJK = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef";
const TOKENS = new RegExp(`\\s*(?:[${CJK}]|[^\\s${CJK}]+)`, "gu");
const WIDE = new RegExp(`[${CJK}]`, "u");
const columns = (text) => [...text].reduce((sum, char) => sum + (WIDE.test(char) ? 2 : 1), 0);

// A label as the lines Chart.js draws (an array is one line per item): broken between words, or
// between CJK characters, each line at most `width` columns (a longer word is split); a short
// label stays a string. Every character but the spaces at a break is kept.
export function wrapLabel(label, width = LABEL_WIDTH) {
  const text = String(label ?? "");
  if (columns(text) <= width) return text;
  const lines = [];
  let line = "";
  for (const token of text.match(TOKENS) || []) {
    if (line && columns(line + token) > width) {
      lines.push(line);
      line = "";
    }
    let rest = line ? token : token.trimStart();
    while (columns(rest) > width) {
      const head = [...rest].slice(0, width).join("");
      lines.push(head);
      rest = rest.slice(head.length);
    }
    line += rest;
  }
  if (line) lines.push(line);
  return lines;
}

// The largest value drawn: of all datasets, or of the sums per category when stacked.
function largest(datasets, stacked) {
  const values = stacked
    ? datasets[0].data.map((_, index) => datasets.reduce((sum, set) => sum + (set.data[index] || 0), 0))
    : datasets.flatMap((set) => set.data.filter((value) => value != null));
  return Math.max(0, ...values);
}

function axis(title, stacked, countsUpTo) {
  const scale = { stacked, title: { display: Boolean(title), text: title || "" } };
  // Counts of attempts or learners: whole-number ticks (no 0.1 … 1.0 axis for one learner), from
  // 0 to the largest count (an axis of 1 when every count is 0), so the longest bar spans it.
  if (countsUpTo != null) Object.assign(scale, { min: 0, max: Math.max(1, countsUpTo), ticks: { precision: 0 } });
  return scale;
}

// The Chart.js configuration of one declared chart; throws on a declaration it cannot draw.
export function chartConfig(spec) {
  const type = TYPES[spec.type];
  if (!type) throw new Error(`unknown chart type ${JSON.stringify(spec.type)}`);
  if (!Array.isArray(spec.labels) || !Array.isArray(spec.datasets)) throw new Error("labels and datasets must be lists");
  const horizontal = spec.type === "horizontal-bar";
  const stacked = Boolean(spec.stacked);
  const datasets = spec.datasets.map((set) => {
    const drawn = { label: String(set.label ?? ""), data: set.data };
    if (set.color) Object.assign(drawn, { backgroundColor: set.color, borderColor: set.color });
    return drawn;
  });
  const counts =
    datasets.length > 0 && spec.datasets.every((set) => Array.isArray(set.data) && set.data.every((v) => v == null || Number.isInteger(v)));
  const upTo = counts ? largest(datasets, stacked) : null;
  const labels = spec.labels.map((label) => wrapLabel(label));
  // Horizontal bars: the height follows the rows drawn (bars, or a label's lines where more), so
  // one bar is not a wall and a long label has room for its lines; 60 px for the axis and legend.
  const rows = labels.reduce((sum, label) => sum + Math.max(datasets.length, Array.isArray(label) ? label.length : 1), 0);
  const categories = { ticks: { autoSkip: false } }; // every diagnosis and case drawn, none skipped for room
  return {
    type,
    data: { labels, datasets },
    options: {
      indexAxis: horizontal ? "y" : "x",
      maintainAspectRatio: true,
      aspectRatio: horizontal ? Math.min(6, Math.max(0.5, TYPICAL_WIDTH_PX / (rows * ROW_PX + 60))) : 2,
      scales: {
        x: horizontal ? axis(spec.xTitle, stacked, upTo) : axis(spec.xTitle, stacked, null),
        y: horizontal ? { ...axis(spec.yTitle, stacked, null), ...categories } : axis(spec.yTitle, stacked, upTo),
      },
      plugins: { legend: { display: datasets.length > 1 } },
    },
  };
}

// Draw the chart a canvas declares; a declaration that is missing or broken is said on the console.
export function drawChart(canvas) {
  const source = document.getElementById(canvas.dataset.chart);
  if (!source) {
    console.warn(`chart: no <script type="application/json" id="${canvas.dataset.chart}">`);
    return null;
  }
  let config;
  try {
    config = chartConfig(JSON.parse(source.textContent));
  } catch (error) {
    console.warn(`chart ${canvas.dataset.chart}: ${error.message}`);
    return null;
  }
  canvas.setAttribute("role", "img");
  if (canvas.dataset.chartLabel) canvas.setAttribute("aria-label", canvas.dataset.chartLabel);
  return new Chart(canvas, config);
}

export { Chart };  // for a page's own script, and for the tests (Chart.getChart(canvas))

export function drawCharts(root = document) {
  return [...root.querySelectorAll("canvas[data-chart]")].map(drawChart).filter(Boolean);
}

// Every chart takes its animation from the defaults: none while the reader asks for reduced
// motion, following the setting if it changes while the page is open.
const motion = Chart.defaults.animation;
const followMotion = () => {
  Chart.defaults.animation = reducedMotion.matches ? false : motion;
};
followMotion();
reducedMotion.addEventListener?.("change", followMotion);

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => drawCharts());
} else {
  drawCharts();
}
