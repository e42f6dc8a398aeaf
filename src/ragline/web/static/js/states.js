// Document and job states as the server reports them, normalised for the views.

export const STATE_LABELS = {
  uploading: "Uploading",
  queued: "Queued",
  parsing: "Parsing",
  parsed: "Parsed",
  embedding: "Embedding",
  embedded: "Embedded",
  indexed: "Indexed",
  failed: "Failed",
};

const TERMINAL = new Set(["indexed", "failed"]);

export function isActive(state) {
  return Boolean(state) && !TERMINAL.has(state);
}

const num = (v) => (v === null || v === undefined || v === "" ? NaN : Number(v));

function errorText(error) {
  if (!error) return "";
  if (typeof error === "string") return error;
  return error.message || error.code || JSON.stringify(error);
}

function baseName(path) {
  if (!path) return "";
  const parts = String(path).split(/[\\/]/);
  return parts[parts.length - 1] || String(path);
}

/** A job from `GET /v1/jobs/{id}` or an upload's 202 response. */
export function normalizeJob(job) {
  const progress = job.progress || {};
  return {
    id: job.job_id ?? job.id ?? null,
    jobId: job.job_id ?? job.id ?? null,
    docId: job.doc_id ?? job.document_id ?? null,
    name: job.filename || job.title || baseName(job.source) || "upload",
    state: String(job.state || job.status || "queued").toLowerCase(),
    done: num(progress.done ?? job.done) || 0,
    total: num(progress.total ?? job.total) || 0,
    eta: num(job.eta_s ?? job.eta_seconds ?? job.eta),
    error: errorText(job.error),
    tries: num(job.tries) || 0,
    retryable: job.retryable === true,
    created: num(job.created),
  };
}

/** A row of `GET /v1/collections/{name}/documents`. */
export function normalizeDocument(doc) {
  const job = doc.job || {};
  const progress = doc.progress || job.progress || {};
  const id = doc.doc_id ?? doc.id;
  return {
    id,
    jobId: doc.job_id ?? job.job_id ?? job.id ?? null,
    // The file name is what the user uploaded and recognises; the title comes second.
    name: baseName(doc.source) || doc.filename || doc.title || id,
    title: doc.title && doc.title !== baseName(doc.source) ? doc.title : "",
    state: String(doc.state || doc.status || job.state || "indexed").toLowerCase(),
    done: num(progress.done) || 0,
    total: num(progress.total) || 0,
    eta: num(doc.eta_s ?? job.eta_s ?? progress.eta_s),
    error: errorText(doc.error || job.error),
    tries: num(doc.tries ?? job.tries) || 0,
    // A retry can succeed (the job API says so); else the reason is all there is to show.
    retryable: job.retryable === true,
    // The list's order: when the upload was first made (its job's creation, which the
    // document keeps once indexed), so a document does not move when its job finishes.
    created: Math.min(...[num(doc.created), num(job.created)].filter(Number.isFinite)),
    chunks: num(doc.chunks ?? doc.chunk_count ?? doc.counts?.chunks),
  };
}

/** The Documents list's order, the same before and after a reload: newest first (to the
 * second: files uploaded together stay in name order), then by name, then by id. */
export function newestFirst(a, b) {
  const ta = Number.isFinite(a.created) ? Math.floor(a.created) : Infinity; // an upload in flight: newest
  const tb = Number.isFinite(b.created) ? Math.floor(b.created) : Infinity;
  if (ta !== tb) return tb - ta;
  return String(a.name).localeCompare(String(b.name))
    || String(a.id ?? a.jobId ?? "").localeCompare(String(b.id ?? b.jobId ?? ""));
}
