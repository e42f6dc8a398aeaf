// The Documents tab: drag-and-drop upload, the list with live job progress,
// failures with their reason (and a retry button where a retry can succeed), and
// delete. The list is newest first (states.js newestFirst), the order a reload shows
// too, so a new upload appears at the top, scrolled into view, with its progress.
import { $, h, replace, announce, formatBytes } from "./dom.js";
import { normalizeDocument, normalizeJob, isActive, newestFirst, STATE_LABELS } from "./states.js";

const POLL_MS = 800;

export class DocumentsView {
  constructor(api, { onError }) {
    this.api = api;
    this.onError = onError;
    this.list = $("#documents");
    this.collection = null;
    this.rows = new Map();      // key → {li, parts, doc}
    this.jobs = new Map();      // job id → {name, docId} for uploads not yet listed
    this.files = new Map();     // file name → File uploaded in this session (to send again with a password)
    this.inflight = false;      // one poll at a time; `again` asks for another after it
    this.again = false;
    this.timer = null;
    this.generation = 0;        // bumps on collection change so stale polls are dropped
    this.pollErrors = 0;
    this.wireUpload();
  }

  setCollection(name) {
    this.stop();
    this.generation += 1;
    this.collection = name;
    this.rows.clear();
    this.jobs.clear();
    replace(this.list);
    this.updateSummary();
    if (name) this.refresh();
  }

  stop() {
    window.clearTimeout(this.timer);
    this.timer = null;
  }

  // -- upload ---------------------------------------------------------------
  wireUpload() {
    const zone = $("#dropzone");
    const input = $("#file-input");
    input.addEventListener("change", () => {
      if (input.files.length) this.upload([...input.files]);
      input.value = "";
    });
    // Highlight while dragging; a counter because dragenter/leave fire per child.
    let depth = 0;
    zone.addEventListener("dragenter", (e) => { e.preventDefault(); depth += 1; zone.classList.add("dragging"); });
    zone.addEventListener("dragover", (e) => { e.preventDefault(); e.dataTransfer.dropEffect = "copy"; });
    zone.addEventListener("dragleave", () => { depth = Math.max(0, depth - 1); if (!depth) zone.classList.remove("dragging"); });
    zone.addEventListener("drop", (e) => {
      e.preventDefault();
      depth = 0;
      zone.classList.remove("dragging");
      const files = [...(e.dataTransfer?.files || [])];
      if (files.length) this.upload(files);
    });
    // A file dropped beside the zone must not navigate away from the app.
    window.addEventListener("dragover", (e) => e.preventDefault());
    window.addEventListener("drop", (e) => e.preventDefault());
  }

  /** One request per file, so a rejected file (type, size) does not hold back the others. */
  async upload(files) {
    if (!this.collection) return;
    const generation = this.generation;
    const stamp = Date.now();
    const pending = files.map((file, i) => {
      const key = `upload:${stamp}:${i}`;
      this.upsert(key, { id: null, name: file.name, state: "uploading", detail: formatBytes(file.size) });
      return { key, file };
    });
    this.rows.get(pending[0].key)?.li.scrollIntoView({ block: "nearest" });
    announce(`Uploading ${files.length} file${files.length === 1 ? "" : "s"}.`);
    this.updateSummary();
    let next = 0;
    const worker = async () => {
      while (next < pending.length) {
        const { key, file } = pending[next++];
        await this.uploadOne(key, file, generation);
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    if (generation === this.generation) this.refresh();
  }

  async uploadOne(key, file, generation, password = null) {
    try {
      const result = await this.api.upload(this.collection, [file], password);
      if (generation !== this.generation) return;
      this.files.set(file.name, file);
      const wasInView = inView(this.rows.get(key)?.li);
      this.remove(key);
      for (const job of jobsFrom(result)) {
        const norm = normalizeJob(job);
        if (!norm.id) continue;
        // A poll running meanwhile may have listed the new document already: one card each.
        let row = [...this.rows.values()].find((r) => r.doc.jobId === norm.id || (norm.docId && r.doc.id === norm.docId));
        if (!row) {
          this.jobs.set(norm.id, norm);
          this.upsert(`job:${norm.id}`, norm);
          row = this.rows.get(`job:${norm.id}`);
        }
        if (wasInView) row.li.scrollIntoView({ block: "nearest" });
      }
    } catch (err) {
      if (generation !== this.generation) return;
      if (err.status === 401) return this.onError(err);
      const row = this.rows.get(key);
      this.upsert(key, { ...row.doc, state: "failed", error: err.message, detail: "", local: true });
    }
    // Show the server's row (same document) at once instead of waiting for the next poll.
    this.refresh();
  }

  // -- polling ----------------------------------------------------------------
  /** List now, then keep polling while anything is in progress. */
  async refresh() {
    if (this.inflight) {
      this.again = true;
      return;
    }
    this.stop();
    this.inflight = true;
    const generation = this.generation;
    let busy = false;
    try {
      busy = await this.poll(generation);
    } finally {
      this.inflight = false;
    }
    if (this.again) {
      this.again = false;
      return this.refresh();
    }
    if (busy && generation === this.generation) {
      this.timer = window.setTimeout(() => this.refresh(), this.pollErrors ? POLL_MS * 4 : POLL_MS);
    }
  }

  /** One round: the document list, plus any job whose document is not listed yet. Returns "keep polling". */
  async poll(generation) {
    if (!this.collection) return false;
    let relist = false;
    try {
      const docs = (await this.api.listDocuments(this.collection)).map(normalizeDocument);
      if (generation !== this.generation) return false;
      const seen = new Set();
      for (const doc of docs) {
        seen.add(`doc:${doc.id}`);
        this.upsert(`doc:${doc.id}`, doc);
      }
      for (const key of [...this.rows.keys()]) {
        if (key.startsWith("doc:") && !seen.has(key)) this.remove(key);
      }
      const listed = new Set(docs.flatMap((d) => [d.id, d.jobId]).filter(Boolean));
      for (const [jobId, job] of [...this.jobs]) {
        if (listed.has(jobId) || (job.docId && listed.has(job.docId))) {
          this.jobs.delete(jobId);
          this.remove(`job:${jobId}`);
          continue;
        }
        const fresh = normalizeJob(await this.api.getJob(jobId));
        if (generation !== this.generation) return false;
        if (fresh.state === "indexed") {
          // Done: its document shows up in the next listing.
          this.jobs.delete(jobId);
          this.remove(`job:${jobId}`);
          relist = true;
          continue;
        }
        this.upsert(`job:${jobId}`, fresh);
        if (fresh.state === "failed") this.jobs.delete(jobId); // the row stays, with its reason
        else this.jobs.set(jobId, fresh);
      }
      this.pollErrors = 0;
    } catch (err) {
      if (generation !== this.generation) return false;
      if (err.status === 401) {
        this.onError(err);
        return false;
      }
      // Report a failing poll once, then keep trying quietly (e.g. a server restart).
      if (this.pollErrors++ === 0) this.onError(err);
    }
    this.updateSummary();
    return relist || this.jobs.size > 0 || [...this.rows.values()].some((r) => isActive(r.doc.state));
  }

  // -- rows (updated in place so focus and screen-reader position survive polls) --
  upsert(key, doc) {
    let row = this.rows.get(key);
    if (!row) {
      row = this.createRow(key);
      this.rows.set(key, row);
    }
    const before = row.doc?.state;
    row.doc = doc;
    this.fill(row);
    this.place(row);
    if (before && before !== doc.state && (doc.state === "indexed" || doc.state === "failed")) {
      announce(doc.state === "indexed" ? `${doc.name} is indexed.` : `${doc.name} failed: ${doc.error || "unknown error"}`);
    }
  }

  /** Put a row where the order says, moving no other row (a moved row would lose focus). */
  place(row) {
    const sorted = [...this.rows.values()].sort((a, b) => newestFirst(a.doc, b.doc));
    const next = sorted[sorted.indexOf(row) + 1]?.li || null;
    if (row.li.parentNode !== this.list || row.li.nextElementSibling !== next) this.list.insertBefore(row.li, next);
  }

  remove(key) {
    const row = this.rows.get(key);
    if (!row) return;
    row.li.remove();
    this.rows.delete(key);
    this.updateSummary();
  }

  createRow(key) {
    const parts = {
      name: h("span", { class: "doc-name" }),
      state: h("span", { class: "state" }),
      detail: h("span", { class: "doc-detail hint" }),
      progress: h("progress", { max: "1", class: "doc-progress" }),
      error: h("p", { class: "doc-error" }),
      retry: h("button", { type: "button", class: "small" }, "Retry"),
      unlock: h("button", { type: "button", class: "small" }, "Enter password"),
      password: h("input", { type: "password", autocomplete: "off", class: "doc-password" }),
      remove: h("button", { type: "button", class: "small danger-quiet" }, "Delete"),
    };
    // An encrypted PDF fails with a message naming the password: the row offers to send
    // the same file again with one (kept for that job only, never stored).
    parts.unlockForm = h("form", { class: "doc-unlock", hidden: "" }, parts.password,
      h("button", { type: "submit", class: "small" }, "Open"));
    const li = h("li", { class: "doc", dataset: { key } },
      h("div", { class: "doc-main" }, parts.name, parts.state),
      h("div", { class: "doc-sub" }, parts.progress, parts.detail),
      parts.error,
      parts.unlockForm,
      h("div", { class: "doc-actions" }, parts.retry, parts.unlock, parts.remove));
    const row = { li, parts, doc: null, confirmTimer: null };
    parts.unlock.addEventListener("click", () => {
      parts.unlockForm.hidden = false;
      parts.password.focus();
    });
    parts.unlockForm.addEventListener("submit", (e) => {
      e.preventDefault();
      this.unlock(row);
    });
    parts.retry.addEventListener("click", () => this.retry(row));
    parts.remove.addEventListener("click", () => this.confirmDelete(row));
    return row;
  }

  fill(row) {
    const { doc, parts, li } = row;
    li.dataset.state = doc.state;
    parts.name.textContent = doc.name;
    parts.state.textContent = STATE_LABELS[doc.state] || doc.state;
    parts.state.className = `state state-${doc.state}`;
    const active = isActive(doc.state);
    // A queued job has no progress to show yet; an empty bar would suggest it is stuck.
    parts.progress.hidden = !active || doc.state === "queued";
    if (active && doc.total > 0) {
      parts.progress.max = doc.total;
      parts.progress.value = doc.done;
    } else {
      parts.progress.removeAttribute("value"); // indeterminate until totals are known
    }
    parts.progress.setAttribute("aria-label", `${doc.name} progress`);
    parts.detail.textContent = describe(doc);
    parts.error.textContent = doc.state === "failed" && doc.error ? doc.error : "";
    parts.error.hidden = !parts.error.textContent;
    // Retry only where it can succeed (the job API's `retryable`: transient errors, not a
    // file that cannot be parsed); a rejected upload has no document or job to retry.
    parts.retry.hidden = !(doc.state === "failed" && doc.retryable && (doc.id || doc.jobId) && !doc.local);
    parts.retry.setAttribute("aria-label", `Retry ${doc.name}`);
    const locked = doc.state === "failed" && /password/i.test(doc.error || "") && this.files.has(doc.name);
    parts.unlock.hidden = !locked;
    if (!locked) parts.unlockForm.hidden = true;
    parts.unlock.setAttribute("aria-label", `Enter the password for ${doc.name}`);
    parts.password.setAttribute("aria-label", `Password for ${doc.name}`);
    parts.remove.hidden = doc.state === "uploading";
    if (!row.confirmTimer) {
      parts.remove.textContent = doc.local ? "Dismiss" : "Delete";
      parts.remove.setAttribute("aria-label", `${doc.local ? "Dismiss" : "Delete"} ${doc.name}`);
    }
  }

  /** Send the failed file again with the password typed into its row. */
  async unlock(row) {
    const { doc, parts } = row;
    const file = this.files.get(doc.name);
    const password = parts.password.value;
    if (!file || !password) return;
    parts.password.value = "";
    parts.unlockForm.hidden = true;
    this.upsert(row.li.dataset.key, { ...doc, state: "uploading", error: "", done: 0, total: 0, local: true });
    announce(`Opening ${doc.name} with its password.`);
    await this.uploadOne(row.li.dataset.key, file, this.generation, password);
  }

  async retry(row) {
    const { doc } = row;
    row.parts.retry.disabled = true;
    try {
      const result = await this.api.reingest(doc.id);
      const job = normalizeJob(result || {});
      if (job.id && !doc.id) this.jobs.set(job.id, job);
      this.upsert(row.li.dataset.key, { ...doc, state: "queued", error: "", done: 0, total: 0 });
      announce(`Retrying ${doc.name}.`);
      this.refresh();
    } catch (err) {
      this.onError(err);
    } finally {
      row.parts.retry.disabled = false;
    }
  }

  /** Delete asks once more inline (the button turns into "Confirm delete" for a few seconds). */
  async confirmDelete(row) {
    const { doc, parts } = row;
    if (doc.local) return this.remove(row.li.dataset.key);
    if (!row.confirmTimer) {
      parts.remove.textContent = "Confirm delete";
      parts.remove.setAttribute("aria-label", `Confirm delete ${doc.name}`);
      parts.remove.classList.add("danger");
      row.confirmTimer = window.setTimeout(() => {
        row.confirmTimer = null;
        parts.remove.classList.remove("danger");
        this.fill(row);
      }, 4000);
      announce(`Press again to delete ${doc.name}.`);
      return;
    }
    window.clearTimeout(row.confirmTimer);
    row.confirmTimer = null;
    parts.remove.disabled = true;
    try {
      await this.api.deleteDocument(doc.id);
      this.remove(row.li.dataset.key);
      announce(`${doc.name} deleted.`);
      $("#documents-title").focus?.();
    } catch (err) {
      parts.remove.disabled = false;
      parts.remove.classList.remove("danger");
      this.fill(row);
      this.onError(err);
    }
  }

  updateSummary() {
    const docs = [...this.rows.values()].map((r) => r.doc).filter(Boolean);
    const active = docs.filter((d) => isActive(d.state)).length;
    const failed = docs.filter((d) => d.state === "failed").length;
    const indexed = docs.filter((d) => d.state === "indexed").length;
    $("#documents-empty").hidden = docs.length > 0 || !this.collection;
    const bits = [`${indexed} indexed`];
    if (active) bits.push(`${active} in progress`);
    if (failed) bits.push(`${failed} failed`);
    $("#documents-summary").textContent = docs.length ? bits.join(" · ") : "";
    const badge = $("#docs-badge");
    badge.hidden = active === 0;
    badge.textContent = String(active);
    badge.setAttribute("aria-label", `${active} in progress`);
  }
}

function inView(el) {
  if (!el) return false;
  const box = el.getBoundingClientRect();
  return box.bottom > 0 && box.top < window.innerHeight;
}

/** Upload responses: {jobs: [...]}, a bare list, or one job. */
function jobsFrom(result) {
  if (Array.isArray(result)) return result;
  if (result && Array.isArray(result.jobs)) return result.jobs;
  if (result && Array.isArray(result.documents)) return result.documents;
  return result ? [result] : [];
}

function describe(doc) {
  const bits = [];
  if (doc.state === "queued") bits.push("waiting to start");
  if (isActive(doc.state) && doc.total > 0) {
    bits.push(`${doc.done} / ${doc.total} chunks · ${Math.floor((100 * doc.done) / doc.total)} %`);
  }
  if (isActive(doc.state) && Number.isFinite(doc.eta) && doc.eta > 0) bits.push(`about ${Math.ceil(doc.eta)} s left`);
  if (doc.state === "indexed" && Number.isFinite(doc.chunks)) bits.push(`${doc.chunks} chunk${doc.chunks === 1 ? "" : "s"}`);
  if (doc.state === "failed" && doc.tries > 0) bits.push(`${doc.tries} tr${doc.tries === 1 ? "y" : "ies"}`);
  if (doc.title) bits.push(doc.title);
  if (doc.detail) bits.push(doc.detail);
  return bits.join(" · ");
}
