// The one piece of markdown answers use that reads badly as text: tables. An answer
// is split into text runs and pipe tables; a table becomes a real <table> (cells as
// text nodes, never HTML), the rest stays text for the caller to render.

const ROW = /^\s*\|.*\|\s*$/;
const RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** [{type: "text", text}, {type: "table", header: [...], rows: [[...]]}] */
export function splitTables(text) {
  const lines = String(text).split("\n");
  const out = [];
  let buffer = [];
  const flush = () => {
    if (buffer.length) out.push({ type: "text", text: buffer.join("\n") });
    buffer = [];
  };
  for (let i = 0; i < lines.length; i += 1) {
    if (ROW.test(lines[i]) && i + 1 < lines.length && RULE.test(lines[i + 1])) {
      const header = cells(lines[i]);
      const rows = [];
      let j = i + 2;
      while (j < lines.length && ROW.test(lines[j])) rows.push(cells(lines[j++]));
      flush();
      out.push({ type: "table", header, rows });
      i = j - 1;
    } else {
      const inline = collapsedTable(lines[i]);
      if (!inline) {
        buffer.push(lines[i]);
        continue;
      }
      if (inline.before.trim()) buffer.push(inline.before);
      flush();
      out.push(inline.table);
      if (inline.after.trim()) buffer.push(inline.after);
    }
  }
  flush();
  return out;
}

// A table whose line breaks were lost (an extractive answer quotes a source's table
// as one sentence): "| A | B | | --- | --- | | a | b | | c | d |".
const INLINE_RULE = /\|(\s*:?-{3,}:?\s*\|)+/;

function collapsedTable(line) {
  const rule = INLINE_RULE.exec(line);
  if (!rule) return null;
  const n = (rule[0].match(/-{3,}/g) || []).length;
  const head = line.slice(0, rule.index);
  const headCells = head.split("|");
  // "…text | A | B " → header cells are the last n between pipes.
  if (headCells.length < n + 1) return null;
  const header = headCells.slice(-n - 1, -1).map((c) => c.trim());
  const before = headCells.slice(0, -n - 1).join("|");
  const rest = line.slice(rule.index + rule[0].length);
  const last = rest.lastIndexOf("|");
  if (last < 0) return null;
  const cellsAfter = rest.slice(0, last).split("|").map((c) => c.trim()).filter(Boolean);
  if (!header.every(Boolean) || !cellsAfter.length) return null;
  const rows = [];
  for (let k = 0; k < cellsAfter.length; k += n) rows.push(cellsAfter.slice(k, k + n));
  return { before, after: rest.slice(last + 1), table: { type: "table", header, rows } };
}

function cells(line) {
  return line.trim().replace(/^\|/, "").replace(/\|$/, "").split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
}

/**
 * Render text with its tables: `inline(text)` gives the nodes of a text run or a
 * cell (e.g. citation buttons), so [n] markers inside tables still open sources.
 */
export function renderWithTables(h, text, inline) {
  return splitTables(text).map((part) => {
    if (part.type === "text") return inline(part.text);
    const head = h("thead", {}, h("tr", {}, part.header.map((c) => h("th", { scope: "col" }, inline(c)))));
    const body = h("tbody", {}, part.rows.map((r) => h("tr", {}, part.header.map((_, k) => h("td", {}, inline(r[k] ?? ""))))));
    return h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Table" },
      h("table", { class: "answer-table" }, head, body));
  });
}
