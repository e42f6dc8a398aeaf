// The Ask tab: a chat-style list of questions and streamed, cited answers. Every ask
// carries the conversation's id, so follow-ups ("and what does it cost?") are
// understood from the earlier turns; conversations.js lists and reopens them.
import { $, h, announce } from "./dom.js";
import { AnswerView } from "./answer.js";

export class ChatView {
  constructor(api, { onError, passage }) {
    this.api = api;
    this.onError = onError;
    this.passage = passage;
    this.collection = null;
    this.conversationId = null;   // the current conversation (set by the first answer, or conversations.js)
    this.onAnswered = null;       // conversations.js refreshes its list
    this.controller = null;
    this.messages = $("#messages");
    this.empty = $("#chat-empty");
    this.form = $("#ask-form");
    this.input = $("#question");
    this.button = $("#ask-button");

    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (this.controller) return this.controller.abort();
      this.ask(this.input.value);
    });
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        // While an answer streams, Enter must not stop it (only the Stop button does).
        if (!this.controller) this.form.requestSubmit();
      }
    });
  }

  setCollection(name) {
    if (name !== this.collection) this.reset();
    this.collection = name;
    this.input.disabled = !name;
    this.button.disabled = !name;
  }

  /** Clear the conversation (new chat, sign out, another collection). */
  reset() {
    this.controller?.abort();
    this.conversationId = null;
    for (const el of [...this.messages.children]) if (el !== this.empty) el.remove();
    this.empty.hidden = false;
  }

  /** Scroll so the end of `el` sits just above the sticky question box, not behind it. */
  reveal(el, behavior = "smooth") {
    el.style.scrollMarginBottom = `${this.form.offsetHeight + 12}px`;
    el.scrollIntoView({ block: "end", behavior });
  }

  scrollToEnd() {
    const last = this.messages.lastElementChild;
    if (last && last !== this.empty) this.reveal(last, "auto");
  }

  /** Show a past exchange (used when a conversation is reopened). */
  addExchange(question, answer) {
    this.empty.hidden = true;
    this.messages.appendChild(questionBubble(question));
    this.newAnswer(question).finish(answer);
  }

  /** An answer bubble; its citations highlight the words of `question` in the passage. */
  newAnswer(question) {
    const view = new AnswerView({ onCite: (citation, claims) => this.passage.open(citation, { claims, question }) });
    this.messages.appendChild(view.el);
    return view;
  }

  async ask(raw) {
    const question = raw.trim();
    if (!question || !this.collection) return;
    this.empty.hidden = true;
    this.messages.appendChild(questionBubble(question));
    const view = this.newAnswer(question);
    this.reveal(view.el);
    this.input.value = "";
    this.setBusy(true);
    const controller = new AbortController();
    this.controller = controller;
    try {
      const answer = await this.api.ask(this.collection, question, {
        signal: controller.signal,
        conversationId: this.conversationId,
        onDelta: (text) => view.append(text),
        onRestart: () => view.restart(),
      });
      if (answer.conversation_id) this.conversationId = answer.conversation_id;
      view.finish(answer);
      this.reveal(view.el, "auto");  // its sources and report too, above the question box
      this.onAnswered?.(answer);
      announce(answer.abstained ? "No answer found in your documents." : "Answer ready.");
    } catch (err) {
      if (err.name === "AbortError") {
        view.fail("Stopped before the answer was complete.");
      } else {
        view.fail(`Could not answer: ${err.message}`);
        if (err.status === 401) this.onError(err);
      }
    } finally {
      if (this.controller === controller) this.controller = null;
      this.setBusy(false);
      this.input.focus({ preventScroll: true });
    }
  }

  setBusy(busy) {
    this.button.textContent = busy ? "Stop" : "Ask";
    this.button.classList.toggle("primary", !busy);
    this.form.setAttribute("aria-busy", String(busy));
  }
}

/** The question is a heading, so screen-reader users can jump from question to question. */
function questionBubble(text) {
  return h("div", { class: "msg msg-question" },
    h("h2", { class: "question-text" }, h("span", { class: "visually-hidden" }, "You asked: "), text));
}
