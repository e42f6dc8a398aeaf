// An exact answer's evidence (answer.records): the plan in words, a bar chart of its
// figures and the table behind them. Its citations point at table rows: show(n)
// highlights the row of source n and lists the transactions behind that figure (their
// ids, as the records keep them); clicking a row does the same. Bars of different
// currencies are never drawn on one scale.
import { h } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const BAR_HEIGHT = 22;
const GAP = 8;
const LABEL_WIDTH = 150;
const VALUE_WIDTH = 110;
const WIDTH = 560;

/** `{el, show(n)}` for an answer's `records` ({table, chart, sources}). */
export function recordsPanel(records) {
  const table = records.table || { columns: [], rows: [] };
  const rows = table.rows.map((row, i) => h("tr", { dataset: { row: String(i) } },
    row.map((cell, j) => h("td", { class: numeric(table, j) ? "num" : null }, String(cell)))));
  const tableEl = table.rows.length ? h("div", { class: "records-table-wrap" },
    h("table", { class: "records-table" },
      h("thead", {}, h("tr", {}, table.columns.map((c, j) => h("th", { scope: "col", class: numeric(table, j) ? "num" : null }, c)))),
      h("tbody", {}, rows))) : null;
  const charts = records.chart && Array.isArray(records.chart.bars) ? barCharts(records.chart) : [];
  const stated = records.stated ? h("p", { class: "records-plan" }, `Computed: ${records.stated}`) : null;
  const ids = h("p", { class: "records-ids", "aria-live": "polite" });
  const el = h("section", { class: "records", "aria-label": "The figures behind this answer" },
    stated, charts, tableEl, ids);
  const sources = new Map((records.sources || []).map((s) => [Number(s.n), s]));
  const byRow = new Map((records.sources || []).filter((s) => s.row !== null && s.row !== undefined)
    .map((s) => [Number(s.row), s]));
  const show = (source) => {
    rows.forEach((tr) => tr.classList.remove("highlight"));
    const tr = source && source.row !== null && source.row !== undefined ? rows[source.row] : null;
    if (!tr) return;
    tr.classList.add("highlight");
    tr.scrollIntoView({ block: "nearest" });
    const list = source.transaction_ids || [];
    ids.textContent = list.length
      ? `[${source.n}] ${source.label}: ${list.length} transaction${list.length === 1 ? "" : "s"} — ${list.join(", ")}`
      : "";
  };
  rows.forEach((tr, i) => {
    if (!byRow.has(i)) return;
    tr.classList.add("linked");
    tr.addEventListener("click", () => show(byRow.get(i)));
  });
  return { el, show(n) { show(sources.get(Number(n))); } };
}

/** A column is numeric when every non-empty cell is a number (or a percentage). */
function numeric(table, j) {
  const cells = table.rows.map((r) => r[j]).filter((c) => c !== "" && c !== null && c !== undefined);
  return cells.length > 0 && cells.every((c) => typeof c === "number" || /^[+-]?\d+(\.\d+)?%?$/.test(String(c)));
}

/** One horizontal bar chart per currency, bars scaled to that currency's largest value. */
function barCharts(chart) {
  const byCurrency = new Map();
  for (const bar of chart.bars) {
    const list = byCurrency.get(bar.currency) || [];
    list.push(bar);
    byCurrency.set(bar.currency, list);
  }
  return [...byCurrency.entries()].map(([currency, bars]) => {
    const title = `${chart.title} (${currency})`;
    return h("figure", { class: "records-chart" }, svgBars(bars, title), h("figcaption", {}, title));
  });
}

function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  for (const child of children) el.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  return el;
}

function svgBars(bars, title) {
  const values = bars.map((b) => Math.max(0, Number(b.value) || 0));
  const top = Math.max(...values, 0) || 1;
  const span = WIDTH - LABEL_WIDTH - VALUE_WIDTH;
  const height = bars.length * (BAR_HEIGHT + GAP);
  const svg = s("svg", { viewBox: `0 0 ${WIDTH} ${height}`, role: "img", "aria-label": title, class: "bars" });
  bars.forEach((bar, i) => {
    const y = i * (BAR_HEIGHT + GAP);
    const width = Math.max(1, (values[i] / top) * span);
    svg.appendChild(s("text", { x: LABEL_WIDTH - 8, y: y + BAR_HEIGHT * 0.7, "text-anchor": "end", class: "bar-label" },
      clip(bar.label, 22)));
    svg.appendChild(s("rect", { x: LABEL_WIDTH, y, width, height: BAR_HEIGHT, rx: 3, class: "bar" },
      s("title", {}, `${bar.label}: ${bar.value} ${bar.currency}`)));
    svg.appendChild(s("text", { x: LABEL_WIDTH + width + 6, y: y + BAR_HEIGHT * 0.7, class: "bar-value" },
      String(bar.value)));
  });
  return svg;
}

function clip(text, n) {
  const value = String(text);
  return value.length > n ? `${value.slice(0, n - 1)}…` : value;
}
