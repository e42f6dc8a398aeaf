// Rendering of one answer: streamed text, then citations as buttons, the source
// list, an abstain notice, and the context report + timings panel.
import { h, replace, formatMs, reflow } from "./dom.js";
import { recordsPanel } from "./records.js";
import { renderWithTables } from "./markdown.js";
import { transactionHref, transactionsHref } from "./links.js";

const MARKER = /\[(\d+(?:\s*,\s*\d+)*)\]/g;

/** One answer bubble. Call .append(text) while streaming, then .finish(answer). */
export class AnswerView {
  constructor({ onCite }) {
    this.onCite = onCite;
    this.streamed = "";
    this.status = h("p", { class: "answer-status" }, h("span", { class: "spinner", "aria-hidden": "true" }),
      "Searching your documents…");
    this.text = h("div", { class: "answer-text" });
    this.extra = h("div", { class: "answer-extra" });
    this.el = h("article", { class: "msg msg-answer", "aria-busy": "true", "aria-label": "Answer" },
      this.status, this.text, this.extra);
  }

  append(piece) {
    if (!this.streamed) this.status.hidden = true;
    this.streamed += piece;
    this.text.textContent = reflow(this.streamed);
  }

  /** The server dropped the text streamed so far (its fallback starts over). */
  restart() {
    this.streamed = "";
    this.text.textContent = "";
    this.status.hidden = false;
  }

  fail(message) {
    this.status.hidden = true;
    this.el.setAttribute("aria-busy", "false");
    this.el.classList.add("failed");
    replace(this.extra, h("p", { class: "answer-error", role: "alert" }, message));
  }

  finish(answer) {
    this.status.hidden = true;
    this.el.setAttribute("aria-busy", "false");
    const citations = new Map((answer.citations || []).map((c) => [Number(c.n), c]));
    const text = reflow(typeof answer.answer === "string" ? answer.answer : this.streamed);
    const claims = answer.abstained ? new Map() : claimsByCitation(text);
    // An exact answer (from the records) cites rows of its own table, not passages.
    const records = answer.records ? recordsPanel(answer.records) : null;
    const onCite = records ? (c) => records.show(c.n) : (c) => this.onCite(c, claims.get(Number(c.n)) || []);
    if (answer.abstained) {
      this.el.classList.add("abstained");
      replace(this.text,
        h("p", { class: "abstain-label" }, h("span", { "aria-hidden": "true" }, "∅ "),
          "Not found in your documents"),
        h("p", {}, text || "There is not enough support in this collection to answer that."));
    } else {
      // Markdown tables render as tables; [n] markers stay buttons, in cells too.
      replace(this.text, ...renderWithTables(h, text, (t) => linkCitations(t, citations, onCite)));
    }
    replace(this.extra,
      records ? records.el : null,
      citations.size ? sourceList([...citations.values()], onCite, answer.records?.sources) : null,
      reportPanel(answer));
  }
}

/** Split answer text on [n] markers; known markers become citation buttons. */
function linkCitations(text, citations, onCite) {
  const out = [];
  let last = 0;
  for (const match of text.matchAll(MARKER)) {
    const numbers = match[1].split(",").map((s) => Number(s.trim()));
    if (!numbers.every((n) => citations.has(n))) continue; // e.g. "[2019]" in the text itself
    out.push(text.slice(last, match.index));
    numbers.forEach((n, i) => {
      if (i) out.push(" ");
      out.push(citeButton(citations.get(n), onCite));
    });
    last = match.index + match[0].length;
  }
  out.push(text.slice(last));
  return out;
}

/**
 * For each citation number, the sentences of the answer that cite it (markers
 * removed): the passage dialog highlights where they came from.
 */
function claimsByCitation(text) {
  const claims = new Map();
  let start = 0;
  for (const match of text.matchAll(MARKER)) {
    const segment = text.slice(start, match.index).replace(MARKER, " ");
    start = match.index + match[0].length;
    const sentences = segment.split(/(?<=[.!?])\s+|\n+/).map((x) => x.replace(/^[\s.,;:!?]+|\s+$/g, "")).filter(Boolean);
    for (const n of match[1].split(",").map((x) => Number(x.trim()))) {
      claims.set(n, [...(claims.get(n) || []), ...sentences]);
    }
  }
  return claims;
}

function sourceLabel(c) {
  const page = c.page !== null && c.page !== undefined ? `, page ${c.page}` : "";
  // The section tells two passages of one file apart ("Overdraft policy › Unarranged overdrafts").
  const section = c.section ? lastSection(c.section, c.title) : "";
  return `${c.title || baseName(c.source) || c.doc_id}${section ? ` › ${section}` : ""}${page}`;
}

/** A section path's last part ("A \\> B" → "B"), unless it only repeats the title. */
function lastSection(section, title) {
  const parts = String(section).replace(/\\(.)/g, "$1").split(/\s+>\s+/);
  const last = parts[parts.length - 1];
  return last && last !== title ? last : "";
}

function baseName(path) {
  if (!path) return "";
  const parts = String(path).split(/[\\/]/);
  return parts[parts.length - 1];
}

function citeButton(c, onCite) {
  const b = h("button", { type: "button", class: "cite", "aria-label": `Source ${c.n}: ${sourceLabel(c)}`,
    "aria-haspopup": "dialog", title: sourceLabel(c) }, `[${c.n}]`);
  b.addEventListener("click", () => onCite(c, b));
  return b;
}

function sourceList(citations, onCite, recordSources) {
  const records = new Map((recordSources || []).map((s) => [Number(s.n), s]));
  const items = citations.sort((a, b) => a.n - b.n).map((c) => {
    const record = records.get(Number(c.n));
    const b = h("button", { type: "button", class: "source-link", "aria-haspopup": record ? null : "dialog" },
      h("span", { class: "source-n" }, `[${c.n}]`), " ", sourceLabel(c));
    b.addEventListener("click", () => onCite(c, b));
    return h("li", {}, b, record ? transactionsLink(record) : null);
  });
  return h("div", { class: "sources" }, h("h3", { class: "mini-heading" }, "Sources"), h("ol", {}, items));
}

/**
 * An exact answer's source names the transactions behind it: a link to the row of
 * the one transaction, or to the Transactions view showing the ones it lists (for an
 * aggregate, its largest; `count` says how many it sums).
 */
function transactionsLink(source) {
  const ids = Array.isArray(source.transaction_ids) ? source.transaction_ids.filter(Boolean) : [];
  if (!ids.length) return null;
  if (ids.length === 1 && source.count <= 1) {
    return h("a", { class: "source-tx", href: transactionHref(ids[0]),
      "aria-label": `Source ${source.n}: transaction ${ids[0]}, in Transactions` }, "see it in Transactions");
  }
  const count = Number(source.count) || ids.length;
  const text = count > ids.length ? `its ${ids.length} largest of ${count} transactions` : `its ${ids.length} transactions`;
  return h("a", { class: "source-tx", href: transactionsHref(ids, source.label),
    "aria-label": `Source ${source.n}: ${text}, in Transactions` }, text);
}

/** The "Context and timings" disclosure: what was kept/dropped and why, and stage times. */
function reportPanel(answer) {
  const ctx = answer.context || {};
  const timings = answer.timings_ms || {};
  const sections = [];
  sections.push(h("section", {}, h("h3", { class: "mini-heading" }, "Kept in context"), contextList(ctx.kept, "kept")));
  sections.push(h("section", {}, h("h3", { class: "mini-heading" }, "Left out"), contextList(groupDropped(ctx.dropped), "dropped")));
  const checked = claimList(answer.grounding);
  if (checked) sections.push(h("section", {}, h("h3", { class: "mini-heading" }, "Claims checked"), checked));
  const rows = Object.entries(timings).filter(([, v]) => Number.isFinite(Number(v)));
  sections.push(h("section", {}, h("h3", { class: "mini-heading" }, "Timings"),
    rows.length ? h("dl", { class: "timings" }, rows.map(([k, v]) => [h("dt", {}, k.replace(/_/g, " ")), h("dd", {}, formatMs(Number(v)))]))
      : h("p", { class: "hint" }, "none reported")));
  const facts = [];
  if (answer.route) facts.push(`Route: ${answer.route.name} (${answer.route.reason})`);
  const q = answer.query;
  if (q && q.followup && q.rewritten !== q.original) {
    facts.push(`Searched as: “${q.rewritten}” (${q.method === "llm" ? "rewritten by the model" : "earlier terms carried"})`);
  }
  if (q && q.carried_sources && q.carried_sources.length) facts.push(`Earlier sources weighed: ${q.carried_sources.length}`);
  if (answer.gate && !answer.gate.retrieve) facts.push(`No search: ${answer.gate.reason}`);
  if (answer.rag_context && answer.rag_context.source_messages?.length) {
    facts.push(`Your earlier messages used: ${answer.rag_context.source_messages.length}`);
  }
  if (answer.general) facts.push("General answer: not from your documents");
  if (answer.generator) facts.push(`Answered by: ${answer.generator}`);
  if (answer.fallback_reason) facts.push(`Fallback: ${answer.fallback_reason}`);
  if (Number.isFinite(Number(ctx.tokens))) facts.push(`Context: ${ctx.tokens} tokens`);
  const grounding = describeGrounding(answer.grounding);
  if (grounding) facts.push(`Grounding: ${grounding}`);
  return h("details", { class: "report" },
    h("summary", {}, "Context and timings"),
    h("div", { class: "report-grid" }, sections),
    facts.length ? h("p", { class: "report-facts" }, facts.join(" · ")) : null);
}

function contextList(items, kind) {
  if (items === undefined || items === null) return h("p", { class: "hint" }, "not reported");
  if (typeof items === "number") return h("p", {}, `${items} source${items === 1 ? "" : "s"}`);
  if (!Array.isArray(items) || !items.length) return h("p", { class: "hint" }, kind === "kept" ? "nothing" : "nothing left out");
  return h("ul", { class: "context-list" }, items.map(contextItem));
}

// The context builder's reasons (ragline.answer.context.DropReason) in plain words.
const DROP_REASONS = {
  threshold: "not relevant enough",
  duplicate: "repeats a kept source",
  budget: "no room left in the context",
};

/** "[1] Handbook p. 2 · 23 tokens, relevance 0.670" or "notes.txt · 4 passages — threshold". */
function contextItem(item) {
  if (typeof item !== "object" || item === null) return h("li", {}, String(item));
  const present = (v) => v !== undefined && v !== null;
  const name = [present(item.n) ? `[${item.n}]` : null, item.title || baseName(item.source) || item.doc_id || "source",
    present(item.page) ? `p. ${item.page}` : null].filter(Boolean).join(" ");
  const single = !(item.count > 1);
  const meta = [];
  if (!single) {
    meta.push(`${item.count} passages`);
  } else if (!item.detail) { // a detail already states the numbers that matter
    if (present(item.tokens)) meta.push(`${item.tokens} tokens`);
    if (item.truncated) meta.push("shortened to fit");
    if (present(item.relevance)) meta.push(`relevance ${Number(item.relevance).toFixed(3)}`);
    else if (present(item.score)) meta.push(`score ${Number(item.score).toFixed(3)}`);
  }
  const why = item.reason
    ? (DROP_REASONS[item.reason] || String(item.reason).replace(/_/g, " ")) + (single && item.detail ? ` (${item.detail})` : "")
    : "";
  return h("li", {}, name, meta.length ? h("span", { class: "hint" }, ` · ${meta.join(", ")}`) : null,
    why ? h("span", { class: "reason" }, ` — ${why}`) : null);
}

/** Dropped passages, one line per (document, reason): ten hits from one file read as one. */
function groupDropped(items) {
  if (!Array.isArray(items)) return items;
  const groups = new Map();
  for (const item of items) {
    if (typeof item !== "object" || item === null) continue;
    const key = `${item.doc_id || item.source}\u0000${item.reason || ""}`;
    const group = groups.get(key);
    if (group) group.count += 1;
    else groups.set(key, { ...item, count: 1 });
  }
  return [...groups.values()];
}

// A claim's verdict (ragline.answer.types.SentenceStatus) in plain words.
const CLAIM_STATUS = {
  supported: "supported",
  wrong_number: "wrong figure",
  wrong_entity: "figure or name of something else",
  wrong_citation: "cited the wrong source",
  unsupported: "not in the sources",
  uncited: "not from your documents",
};

/** The claims the check caught (or changed): verdict, sentence, why, and whether it shipped. */
function claimList(g) {
  const claims = (g && Array.isArray(g.claims) ? g.claims : []).filter((c) => c.status !== "supported" || c.note);
  if (!claims.length) return null;
  const actions = Array.isArray(g.action) && g.action.length ? h("p", { class: "hint" }, `Done: ${g.action.join(", ")}`) : null;
  return h("div", {}, actions, h("ul", { class: "context-list claims" }, claims.map((c) => h("li", {},
    h("strong", {}, CLAIM_STATUS[c.status] || c.status), ` (${c.shipped ? "shipped" : "not shipped"}): ${c.text}`,
    c.problem ? h("span", { class: "hint" }, ` — ${c.problem}`) : null))));
}

function describeGrounding(g) {
  if (g === undefined || g === null) return "";
  if (typeof g !== "object") return String(g);
  if (Array.isArray(g.claims) && g.claims.length) { // what shipped; what was caught is listed under "Claims checked"
    const shipped = g.claims.filter((c) => c.shipped);
    const ok = shipped.filter((c) => c.status === "supported").length;
    const caught = g.claims.length - shipped.length;
    const bits = [`${ok} of ${shipped.length} sentence${shipped.length === 1 ? "" : "s"} supported by the cited sources`];
    if (caught) bits.push(`${caught} caught and not shipped`);
    return bits.join(", ");
  }
  if (Number.isFinite(g.supported)) {
    const total = (g.supported || 0) + (g.unsupported || 0) + (g.uncited || 0);
    if (!total) return "";
    const bits = [`${g.supported} of ${total} sentence${total === 1 ? "" : "s"} supported by the cited sources`];
    if (g.unsupported) bits.push(`${g.unsupported} not supported`);
    if (g.uncited) bits.push(`${g.uncited} without a citation`);
    return bits.join(", ");
  }
  return Object.entries(g).filter(([, v]) => typeof v !== "object")
    .map(([k, v]) => `${k.replace(/_/g, " ")} ${typeof v === "number" ? +v.toFixed(3) : v}`).join(", ");
}
