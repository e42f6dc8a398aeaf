// The conversation list: new chat, switch, rename, delete. Shown when the server
// offers /v1/conversations (left of the chat on wide screens, above it on a phone);
// ChatView carries conversation_id on every ask, so follow-ups are understood
// from the conversation, and the list is refreshed after each answer.
import { apiSpec } from "./api.js";
import { $, h, replace, announce } from "./dom.js";

export class Conversations {
  constructor(api, chat, { onError }) {
    this.api = api;
    this.chat = chat;
    this.onError = onError;
    this.enabled = false;
    this.collection = null;
    this.items = [];
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
    replace(this.list, this.items.map((c) => this.item(c)));
  }

  item(c) {
    const current = c.id === this.chat.conversationId;
    const open = h("button", { type: "button", class: "conversation-link", "aria-current": current ? "true" : "false",
      title: c.title }, h("span", { class: "conversation-title" }, c.title || "Untitled chat"),
      h("span", { class: "conversation-meta hint" }, `${Math.ceil((c.messages || 0) / 2)} question${c.messages === 2 ? "" : "s"}`));
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
