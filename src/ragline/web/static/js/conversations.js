// The conversation list. Chat memory arrives in a later issue; until the server
// offers /v1/conversations this panel stays hidden and the chat is one-off.
// The layout already has its place (left of the chat on wide screens, above it
// on a phone), and ChatView carries conversation_id on every ask.
import { $, h, replace } from "./dom.js";

export class Conversations {
  constructor(api, chat, { onError }) {
    this.api = api;
    this.chat = chat;
    this.onError = onError;
    this.enabled = false;
    this.collection = null;
    this.panel = $("#conversations");
    this.list = $("#conversation-list");
    $("#new-conversation-button").addEventListener("click", () => {
      this.chat.reset();
      $("#question").focus();
    });
  }

  /** Show the panel only when the server's OpenAPI document lists the route. */
  async probe() {
    try {
      const response = await fetch("/openapi.json");
      const spec = response.ok ? await response.json() : {};
      this.enabled = Boolean(spec.paths && spec.paths["/v1/conversations"]);
    } catch {
      this.enabled = false;
    }
    this.panel.hidden = !this.enabled;
    $("#ask-view").classList.toggle("with-conversations", this.enabled);
    if (this.enabled) this.load();
  }

  setCollection(name) {
    this.collection = name;
    if (this.enabled) this.load();
  }

  async load() {
    if (!this.collection) return replace(this.list);
    try {
      const path = `/v1/conversations?collection=${encodeURIComponent(this.collection)}`;
      const data = await this.api.request("GET", path);
      const items = Array.isArray(data) ? data : data.conversations || data.items || [];
      replace(this.list, items.map((c) => {
        const button = h("button", { type: "button", class: "conversation-link" }, c.title || "Untitled chat");
        button.addEventListener("click", () => this.open(c.id ?? c.conversation_id));
        return h("li", {}, button);
      }));
    } catch (err) {
      this.onError(err);
    }
  }

  async open(id) {
    try {
      const data = await this.api.request("GET", `/v1/conversations/${encodeURIComponent(id)}`);
      this.chat.reset();
      this.chat.conversationId = id;
      for (const turn of data.turns || data.messages || []) {
        if (turn.question && turn.answer) this.chat.addExchange(turn.question, turn.answer);
      }
    } catch (err) {
      this.onError(err);
    }
  }
}
