// The dialog that opens a cited passage: document title, page, and the chunk text
// with the words of the question highlighted.
import { $, h, replace, reflow } from "./dom.js";

// Words too common to be worth highlighting.
const STOP = new Set(("a an and are as at be by can do does for from has have how i in is it its of on or " +
  "that the their there this to was were what when where which who why will with you your").split(" "));

export class PassageDialog {
  constructor(api, { onError }) {
    this.api = api;
    this.onError = onError;
    this.dialog = $("#passage-dialog");
    this.title = $("#passage-title");
    this.meta = $("#passage-meta");
    this.body = $("#passage-body");
    this.request = 0;
    // Click on the backdrop closes, like Escape does.
    this.dialog.addEventListener("click", (event) => {
      if (event.target === this.dialog) this.dialog.close();
    });
  }

  /**
   * Open the dialog for a citation; closing it returns focus to the opener (native <dialog>).
   * `claims` are the answer's sentences citing it (highlighted where found in the passage);
   * without a match the words of `question` are highlighted instead.
   */
  async open(citation, { claims = [], question = "" } = {}) {
    const request = ++this.request;
    this.title.textContent = `[${citation.n}] ${citation.title || baseName(citation.source) || "Source"}`;
    this.meta.textContent = metaLine(citation);
    replace(this.body, h("p", { class: "hint" }, "Loading the passage…"));
    if (!this.dialog.open) this.dialog.showModal();
    this.body.focus();
    try {
      const passage = await this.api.getPassage(citation.doc_id, citation.chunk_id);
      if (request !== this.request) return;
      this.render(citation, passage, claims, question);
    } catch (err) {
      if (request !== this.request) return;
      replace(this.body, h("p", { class: "field-error", role: "alert" }, `Could not load the passage: ${err.message}`));
      if (err.status === 401) {
        this.dialog.close();
        this.onError(err);
      }
    }
  }

  render(citation, passage, claims, question) {
    const title = passage.title || passage.document_title || baseName(passage.source) || baseName(citation.source);
    this.title.textContent = `[${citation.n}] ${title}`;
    this.meta.textContent = metaLine({ ...citation, ...passage });
    const text = reflow(passage.text || "");
    let ranges = claimRanges(text, claims);
    const quoted = ranges.length > 0;
    if (!quoted) ranges = termRanges(text, termsOf(question));
    const parts = [h("p", { class: "hint passage-legend" }, quoted
      ? "Highlighted: the part of this passage the answer relies on."
      : ranges.length ? "Highlighted: words from your question." : "")];
    parts.push(h("blockquote", { class: "passage-text", cite: passage.source || undefined },
      marked(text, ranges)));
    replace(this.body, ...parts);
  }
}

function baseName(path) {
  if (!path) return "";
  const parts = String(path).split(/[\\/]/);
  return parts[parts.length - 1];
}

function metaLine(c) {
  const bits = [];
  if (c.page !== null && c.page !== undefined) bits.push(`Page ${c.page}`);
  if (c.section && c.section !== c.title) bits.push(c.section);
  if (c.source && c.title && baseName(c.source) !== c.title) bits.push(baseName(c.source)); // the file, beside its title
  return bits.join(" · ");
}

function termsOf(question) {
  const words = (question.toLowerCase().match(/[\p{L}\p{N}]+/gu) || []).filter((w) => w.length > 2 && !STOP.has(w));
  return [...new Set(words)];
}

/** [start, end) ranges where each claim's words occur in order (any punctuation/space between). */
function claimRanges(text, claims) {
  const ranges = [];
  for (const claim of claims) {
    const words = claim.match(/[\p{L}\p{N}]+/gu) || [];
    if (words.length < 3) continue; // too short to be a meaningful quote
    const pattern = new RegExp(words.map(escapeRe).join("[^\\p{L}\\p{N}]+"), "iu");
    const match = pattern.exec(text);
    if (match) ranges.push([match.index, match.index + match[0].length]);
  }
  return ranges;
}

function termRanges(text, terms) {
  if (!terms.length) return [];
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(${terms.map(escapeRe).join("|")})\\p{L}{0,3}(?![\\p{L}\\p{N}])`, "giu");
  return [...text.matchAll(pattern)].map((m) => [m.index, m.index + m[0].length]);
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Text with the ranges wrapped in <mark> (built as nodes, never HTML). */
function marked(text, ranges) {
  const sorted = ranges.slice().sort((a, b) => a[0] - b[0]);
  const out = [];
  let last = 0;
  for (const [start, end] of sorted) {
    if (end <= last) continue;
    const from = Math.max(start, last);
    out.push(text.slice(last, from), h("mark", {}, text.slice(from, end)));
    last = end;
  }
  out.push(text.slice(last));
  return out;
}
