// An exact answer's evidence (answer.records): the plan in words, a bar chart of its
// figures and the table behind them. Its citations point at table rows: show(n)
// highlights the row of source n and lists the transactions behind that figure (their
// ids, as the records keep them); clicking a row does the same. Bars of different
// currencies are never drawn on one scale.
//
// The chart is drawn at the width it has on screen (and again when that changes), one
// SVG unit to one CSS pixel, so its labels keep their CSS size on a phone instead of
// shrinking with a fixed drawing scaled down. On a phone the table's rows are cards
// (style.css): each cell carries its column's name in data-label.
import { h } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const BAR_HEIGHT = 22;
const GAP = 8;
const MAX_WIDTH = 640;       // wider bars read no better
const CHAR_PX = 7.5;         // about one character of the 13 px labels (style.css)

/** `{el, show(n)}` for an answer's `records` ({table, chart, sources}). */
export function recordsPanel(records) {
  const table = records.table || { columns: [], rows: [] };
  const rows = table.rows.map((row, i) => h("tr", { dataset: { row: String(i) } },
    row.map((cell, j) => h("td", { class: numeric(table, j) ? "num" : null, "data-label": table.columns[j] ?? "" },
      String(cell)))));
  const tableEl = table.rows.length ? h("div", { class: "records-table-wrap" },
    h("table", { class: "records-table stack-table" },
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
    const figure = h("figure", { class: "records-chart" }, h("figcaption", {}, title));
    let drawn = 0;
    const draw = () => {
      // Not on the page yet (width 0): drawn at full width now, again once it is.
      const width = Math.min(MAX_WIDTH, Math.floor(figure.clientWidth) || MAX_WIDTH);
      if (width === drawn) return;
      drawn = width;
      figure.querySelector("svg")?.remove();
      figure.prepend(svgBars(bars, title, width));
    };
    draw();
    new ResizeObserver(draw).observe(figure);
    return figure;
  });
}

function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  for (const child of children) el.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  return el;
}

/** Horizontal bars `width` CSS pixels wide: labels left, each value right of its bar. */
function svgBars(bars, title, width) {
  const values = bars.map((b) => Math.max(0, Number(b.value) || 0));
  const top = Math.max(...values, 0) || 1;
  const valueWidth = Math.max(...bars.map((b) => String(b.value).length), 1) * CHAR_PX + 10;
  const labelWidth = Math.round(Math.min(170, Math.max(80, width * 0.34)));
  const span = Math.max(20, width - labelWidth - valueWidth);
  const height = bars.length * (BAR_HEIGHT + GAP);
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": title,
    class: "bars" });
  const fits = Math.max(6, Math.floor((labelWidth - 8) / CHAR_PX));
  bars.forEach((bar, i) => {
    const y = i * (BAR_HEIGHT + GAP);
    const barWidth = Math.max(1, (values[i] / top) * span);
    svg.appendChild(s("text", { x: labelWidth - 8, y: y + BAR_HEIGHT * 0.7, "text-anchor": "end", class: "bar-label" },
      clip(bar.label, fits)));
    svg.appendChild(s("rect", { x: labelWidth, y, width: barWidth, height: BAR_HEIGHT, rx: 3, class: "bar" },
      s("title", {}, `${bar.label}: ${bar.value} ${bar.currency}`)));
    svg.appendChild(s("text", { x: labelWidth + barWidth + 6, y: y + BAR_HEIGHT * 0.7, class: "bar-value" },
      String(bar.value)));
  });
  return svg;
}

function clip(text, n) {
  const value = String(text);
  return value.length > n ? `${value.slice(0, n - 1)}…` : value;
}
