// The conversation list: new chat, switch, rename, delete. Shown when the server
// offers /v1/conversations (left of the chat on wide screens, above it on a phone);
// ChatView carries conversation_id on every ask, so follow-ups are understood
// from the conversation, and the list is refreshed after each answer.
//
// Titles are the first question cut at 60 characters (by the server), and the narrow
// list shows fewer, so questions that start alike look the same: those items show a
// second line with where their first questions differ ("…per month?"), read from the
// conversations.
import { apiSpec } from "./api.js";
import { $, h, replace, announce } from "./dom.js";

const ALIKE_CHARS = 24; // about what one line of the list shows of a title

export class Conversations {
  constructor(api, chat, { onError }) {
    this.api = api;
    this.chat = chat;
    this.onError = onError;
    this.enabled = false;
    this.collection = null;
    this.items = [];
    this.firstQuestions = new Map(); // conversation id → its first question (they never change)
    this.panel = $("#conversations");
    this.list = $("#conversation-list");
    $("#new-conversation-button").addEventListener("click", () => this.startNew());
    chat.onAnswered = () => this.load();
  }

  /** Show the panel only when the server's OpenAPI document lists the route. */
  async probe() {
    const spec = await apiSpec();
    this.enabled = Boolean(spec.paths && spec.paths["/v1/conversations"]);
    this.panel.hidden = !this.enabled;
    $("#ask-view").classList.toggle("with-conversations", this.enabled);
    if (this.enabled) this.load();
  }

  setCollection(name) {
    this.collection = name;
    if (this.enabled) this.load();
  }

  startNew() {
    this.chat.reset();
    this.render();
    $("#question").focus();
    announce("New chat.");
  }

  /** The owner's conversations of this collection, most recent first. */
  async load() {
    if (!this.enabled) return;
    if (!this.collection) return replace(this.list);
    try {
      const data = await this.api.request("GET", "/v1/conversations?limit=100");
      const all = Array.isArray(data) ? data : data.conversations || [];
      this.items = all.filter((c) => !c.collections?.length || c.collections.includes(this.collection));
      this.render();
    } catch (err) {
      this.onError(err);
    }
  }

  render() {
    if (!this.items.length) {
      return replace(this.list, h("li", { class: "hint conversation-empty" }, "No conversations yet."));
    }
    const differs = this.differences();
    replace(this.list, this.items.map((c) => this.item(c, differs.get(c.id))));
  }

  /** For items whose titles start alike (as far as the list shows them): id → where their
   * first question differs from the others' ("…per month?"). Fetches the first questions
   * it lacks, then renders again. */
  differences() {
    const groups = new Map();
    for (const c of this.items) {
      const shown = String(c.title).slice(0, ALIKE_CHARS);
      groups.set(shown, [...(groups.get(shown) || []), c]);
    }
    const out = new Map();
    const missing = [];
    for (const group of groups.values()) {
      if (group.length < 2) continue;
      const questions = group.map((c) => this.firstQuestions.get(c.id));
      if (questions.some((q) => q === undefined)) {
        missing.push(...group.filter((c) => !this.firstQuestions.has(c.id)));
        continue;
      }
      const start = commonStart(questions);
      group.forEach((c, i) => {
        // The same question asked in several conversations: which of them, oldest first.
        const same = group.filter((d, k) => questions[k] === questions[i]).sort((a, b) => a.created - b.created);
        const which = same.length > 1 ? ` (${same.indexOf(c) + 1} of ${same.length})` : "";
        out.set(c.id, `…${questions[i].slice(start)}${which}`);
      });
    }
    if (missing.length) this.fetchFirstQuestions(missing);
    return out;
  }

  async fetchFirstQuestions(conversations) {
    if (this.fetching) return;
    this.fetching = true;
    try {
      for (const c of conversations) {
        const data = await this.api.request("GET", `/v1/conversations/${encodeURIComponent(c.id)}`);
        const first = (data.history || []).find((m) => m.role === "user");
        this.firstQuestions.set(c.id, first ? String(first.content).split(/\s+/).join(" ").trim() : c.title);
      }
    } catch {  // the second line is a help, not worth an error: fall back to the title
      for (const c of conversations) if (!this.firstQuestions.has(c.id)) this.firstQuestions.set(c.id, c.title);
    } finally {
      this.fetching = false;
    }
    this.render();
  }

  item(c, differs) {
    const current = c.id === this.chat.conversationId;
    const questions = Math.ceil((c.messages || 0) / 2);
    const open = h("button", { type: "button", class: "conversation-link", "aria-current": current ? "true" : "false",
      title: this.firstQuestions.get(c.id) || c.title }, h("span", { class: "conversation-title" }, c.title || "Untitled chat"),
      differs ? h("span", { class: "conversation-differs" }, differs) : null,
      h("span", { class: "conversation-meta hint" },
        [`${questions} question${questions === 1 ? "" : "s"}`, when(c.updated)].filter(Boolean).join(" · ")));
    open.addEventListener("click", () => this.open(c.id));
    const rename = h("button", { type: "button", class: "icon-button conversation-action", "aria-label": `Rename “${c.title}”`,
      title: "Rename" }, "✎");
    rename.addEventListener("click", () => this.rename(c));
    const remove = h("button", { type: "button", class: "icon-button conversation-action danger-quiet",
      "aria-label": `Delete “${c.title}”`, title: "Delete" }, "×");
    remove.addEventListener("click", () => this.remove(c));
    return h("li", { class: `conversation${current ? " current" : ""}`, "data-id": c.id }, open, rename, remove);
  }

  async open(id) {
    try {
      const data = await this.api.request("GET", `/v1/conversations/${encodeURIComponent(id)}`);
      this.chat.reset();
      this.chat.conversationId = id;
      const history = data.history || [];
      for (let i = 0; i < history.length; i += 1) {
        const m = history[i];
        const next = history[i + 1];
        if (m.role === "user" && next && next.role === "assistant") {
          this.chat.addExchange(m.content, { ...next, answer: next.content, query: m.query, gate: m.gate });
          i += 1;
        }
      }
      this.render();
      this.chat.scrollToEnd();
      announce(`Opened “${data.title}”.`);
    } catch (err) {
      this.onError(err);
    }
  }

  async rename(c) {
    const title = window.prompt("Rename conversation", c.title);
    if (title === null || !title.trim() || title.trim() === c.title) return;
    try {
      await this.api.request("PATCH", `/v1/conversations/${encodeURIComponent(c.id)}`, { json: { title: title.trim() } });
      await this.load();
      announce("Renamed.");
    } catch (err) {
      this.onError(err);
    }
  }

  async remove(c) {
    if (!window.confirm(`Delete “${c.title}” and its messages?`)) return;
    try {
      await this.api.request("DELETE", `/v1/conversations/${encodeURIComponent(c.id)}`);
      if (this.chat.conversationId === c.id) this.chat.reset();
      await this.load();
      announce("Conversation deleted.");
    } catch (err) {
      this.onError(err);
    }
  }
}

/** Where texts that start alike begin to differ: the start of the first word not all
 * share (of the last word, when they are the same). */
function commonStart(texts) {
  let n = 0;
  while (n < texts[0].length && texts.every((t) => t[n] === texts[0][n])) n += 1;
  return n === 0 ? 0 : texts[0].lastIndexOf(" ", n - 1) + 1;
}

/** A conversation's last activity: the time today, else the date. */
function when(seconds) {
  if (!Number.isFinite(seconds)) return "";
  const date = new Date(seconds * 1000);
  const today = new Date().toDateString() === date.toDateString();
  return today ? date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : date.toLocaleDateString([], { day: "numeric", month: "short" });
}
