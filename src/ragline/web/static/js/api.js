// The REST client: the only module that knows URLs and the wire format.
// Errors from the server arrive as {"error": {"code", "message"}} and are thrown
// as ApiError so the views can show the message as-is.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const enc = encodeURIComponent;

let spec = null;

/** The server's OpenAPI document, fetched once (it needs no key): the routes the server
 * offers and the rules of its names; `{}` when it cannot be read. */
export function apiSpec() {
  spec ??= fetch("/openapi.json").then((r) => (r.ok ? r.json() : {})).catch(() => ({}));
  return spec;
}

/** The server's rule for a collection name (the one definition: ragline.models.NAME_PATTERN),
 * as a RegExp; null when the schema cannot be read (the server still checks). */
export async function namePattern() {
  const source = (await apiSpec()).components?.schemas?.CollectionIn?.properties?.name?.pattern;
  return source ? new RegExp(source) : null;
}

export class Api {
  /** @param {string} key tenant API key, sent as a Bearer token */
  constructor(key, base = "") {
    this.key = key;
    this.base = base;
  }

  async request(method, path, { json, body, signal } = {}) {
    const headers = { Authorization: `Bearer ${this.key}`, Accept: "application/json" };
    if (json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(json);
    }
    let response;
    try {
      response = await fetch(this.base + path, { method, headers, body, signal });
    } catch (exc) {
      if (exc.name === "AbortError") throw exc;
      throw new ApiError(0, "network", "Cannot reach the server. Is it running?");
    }
    if (!response.ok) throw await errorFrom(response);
    if (response.status === 204) return null;
    const type = response.headers.get("Content-Type") || "";
    return type.includes("json") ? response.json() : response.text();
  }

  // -- collections ------------------------------------------------------------
  async listCollections() {
    const data = await this.request("GET", "/v1/collections");
    return listOf(data, "collections");
  }
  createCollection(name) { return this.request("POST", "/v1/collections", { json: { name } }); }

  // -- documents and jobs -----------------------------------------------------
  async listDocuments(collection) {
    const data = await this.request("GET", `/v1/collections/${enc(collection)}/documents`);
    return listOf(data, "documents");
  }
  /** Upload files; `password` opens encrypted PDFs (used for this upload's jobs only). */
  upload(collection, files, password = null) {
    const form = new FormData();
    for (const file of files) form.append("files", file, file.name);
    if (password) form.append("password", password);
    return this.request("POST", `/v1/collections/${enc(collection)}/documents`, { body: form });
  }
  getJob(id) { return this.request("GET", `/v1/jobs/${enc(id)}`); }
  deleteDocument(id) { return this.request("DELETE", `/v1/documents/${enc(id)}`); }
  reingest(id) { return this.request("POST", `/v1/documents/${enc(id)}/reingest`); }

  // -- usage ------------------------------------------------------------------
  /** The tenant's usage and estimated cost: {questions, tokens_embedded, llm_input_tokens, …, by_model}. */
  usage() { return this.request("GET", "/v1/usage"); }

  // -- who am I ---------------------------------------------------------------
  /** {tenant, key_id, owner}: `owner` only for a key bound to one user. */
  me() { return this.request("GET", "/v1/me"); }

  // -- transactions (one owner's; an owner-bound key needs no owner) ------------
  /** `params`: {owner, start, end, category, text, id: [ids], limit, offset}; returns the list. */
  async listTransactions(params) {
    const data = await this.request("GET", `/v1/transactions?${query(params)}`);
    return listOf(data, "transactions");
  }
  /** Count and exact sum per group: [{key, currency, count, total, first, last}]. */
  async aggregateTransactions(by, params) {
    const data = await this.request("GET", `/v1/transactions/aggregate?${query({ ...params, by })}`);
    return listOf(data, "groups");
  }
  /** The latest balance of each account: [{account, amount, currency, as_of, source}]. */
  async balances(owner) {
    const data = await this.request("GET", `/v1/transactions/balances?${query({ owner })}`);
    return listOf(data, "balances");
  }
  /** The category taxonomy: [{id, label}]. */
  async categories() {
    const data = await this.request("GET", "/v1/transactions/categories");
    return listOf(data, "categories");
  }
  /** A correction that sticks: `target` is a transaction id or a merchant. */
  categorize(owner, target, category) {
    return this.request("POST", "/v1/transactions/categorize", { json: { owner: owner || undefined, target, category } });
  }
  /** Import a statement file (CSV, OFX/QFX, JSON; `currency` for a file that names none); resolves with the report. */
  importTransactions(file, owner, { currency } = {}) {
    const form = new FormData();
    form.append("file", file, file.name);
    if (owner) form.append("owner", owner);
    if (currency) form.append("currency", currency);
    return this.request("POST", "/v1/transactions/import", { body: form });
  }

  // -- passages ---------------------------------------------------------------
  /** One cited chunk: {id, doc_id, source, title, text, page, section, start, end}. */
  getPassage(docId, chunkId) {
    return this.request("GET", `/v1/documents/${enc(docId)}/chunks/${enc(chunkId)}`);
  }

  // -- ask ----------------------------------------------------------------------
  /**
   * Ask with streaming. Calls onDelta(text) for each piece of the answer (and
   * onRestart() when the server discards the text so far, e.g. a provider failed
   * mid-answer and the fallback starts over); resolves with the `done` payload.
   */
  async ask(collection, question, { onDelta, onRestart, signal, conversationId } = {}) {
    const payload = { collection, question, stream: true };
    if (conversationId) payload.conversation_id = conversationId;
    let response;
    try {
      response = await fetch(this.base + "/v1/ask", {
        method: "POST",
        headers: {
          Authorization: `Bearer ${this.key}`,
          "Content-Type": "application/json",
          Accept: "text/event-stream",
        },
        body: JSON.stringify(payload),
        signal,
      });
    } catch (exc) {
      if (exc.name === "AbortError") throw exc;
      throw new ApiError(0, "network", "Cannot reach the server. Is it running?");
    }
    if (!response.ok) throw await errorFrom(response);
    // A server may answer a stream request with plain JSON; accept that too.
    if (!(response.headers.get("Content-Type") || "").includes("text/event-stream")) {
      const answer = await response.json();
      if (onDelta && answer.answer) onDelta(answer.answer);
      return answer;
    }
    let final = null;
    for await (const event of readEvents(response.body)) {
      if (event.event === "delta") {
        const data = parseJson(event.data);
        if (onDelta && data && typeof data.text === "string") onDelta(data.text);
      } else if (event.event === "restart") {
        if (onRestart) onRestart();
      } else if (event.event === "done") {
        final = parseJson(event.data);
      } else if (event.event === "error") {
        const data = parseJson(event.data) || {};
        const err = data.error || data;
        throw new ApiError(500, err.code || "stream_error", err.message || "The answer stream failed.");
      }
    }
    if (!final) throw new ApiError(0, "stream_incomplete", "The answer stream ended early. Please ask again.");
    return final;
  }
}

/** A query string from an object: arrays repeat the key; empty values are left out. */
export function query(params) {
  const out = new URLSearchParams();
  for (const [key, value] of Object.entries(params || {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== null && item !== undefined && item !== "") out.append(key, String(item));
    }
  }
  return out.toString();
}

/** Accept either a bare list or {key: [...]} (or {items: [...]}) from list endpoints. */
function listOf(data, key) {
  if (Array.isArray(data)) return data;
  if (data && Array.isArray(data[key])) return data[key];
  if (data && Array.isArray(data.items)) return data.items;
  return [];
}

function parseJson(text) {
  try { return JSON.parse(text); } catch { return null; }
}

async function errorFrom(response) {
  let code = `http_${response.status}`;
  let message = `${response.status} ${response.statusText || "error"}`;
  try {
    const data = await response.json();
    if (data && data.error) {
      code = data.error.code || code;
      message = data.error.message || message;
    } else if (data && typeof data.detail === "string") {
      message = data.detail;
    }
  } catch { /* not JSON: keep the status line */ }
  if (response.status === 413 && message.startsWith("413")) message = "The upload is too large.";
  return new ApiError(response.status, code, message);
}

/**
 * Parse a server-sent event stream from a fetch body (EventSource cannot POST).
 * Yields {event, data} per event; `data` lines are joined with newlines.
 */
export async function* readEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let carry = ""; // a chunk ending in "\r" may be half of a "\r\n"
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      let text = carry + value;
      carry = text.endsWith("\r") ? "\r" : "";
      if (carry) text = text.slice(0, -1);
      buffer += text.replace(/\r\n?/g, "\n");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event = parseBlock(block);
        if (event) yield event;
      }
    }
    const last = parseBlock(buffer + (carry ? "\n" : ""));
    if (last) yield last;
  } finally {
    reader.releaseLock();
  }
}

function parseBlock(block) {
  let event = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return data.length ? { event, data: data.join("\n") } : null;
}
