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
// `stacked` are optional. The canvas becomes role="img" with its data-chart-label as accessible
// name; the table of the same numbers (for screen readers, and for anyone without JavaScript) is
// the page's job. With prefers-reduced-motion nothing animates.
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
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

function axis(title, stacked, counts) {
  const scale = { stacked, title: { display: Boolean(title), text: title || "" } };
  // Counts of attempts or learners: whole-number ticks (no 0.1 … 1.0 axis for one learner).
  if (counts) Object.assign(scale, { beginAtZero: true, ticks: { precision: 0 } });
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
  const counts = spec.datasets.every((set) => Array.isArray(set.data) && set.data.every(Number.isInteger));
  return {
    type,
    data: { labels: spec.labels, datasets },
    options: {
      indexAxis: horizontal ? "y" : "x",
      maintainAspectRatio: true,
      // Horizontal bars: the height follows the number of bars, so one bar is not a wall.
      aspectRatio: horizontal ? Math.min(6, Math.max(1.2, 10 / (spec.labels.length * Math.max(1, datasets.length) + 1))) : 2,
      scales: {
        x: axis(spec.xTitle, stacked, horizontal && counts),
        y: axis(spec.yTitle, stacked, !horizontal && counts),
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
