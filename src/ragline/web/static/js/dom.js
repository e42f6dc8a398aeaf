// Tiny DOM helpers. Every string passed as a child becomes a text node, so text
// from the server is never parsed as HTML (no innerHTML anywhere in the app).

/**
 * Create an element: h("button", {class: "x", onclick: fn}, "label", child).
 * Attributes starting with "on" become listeners; `false`/`null` values are skipped;
 * children may be strings, numbers, nodes, arrays or null.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** Replace all children of `el`. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export const $ = (selector, root = document) => root.querySelector(selector);

/** Say something to screen-reader users through the polite live region. */
export function announce(message) {
  const region = document.getElementById("announcer");
  if (!region) return;
  // Clearing first makes repeated identical messages be read again.
  region.textContent = "";
  window.setTimeout(() => { region.textContent = message; }, 50);
}

/** Show a transient message in the toast area (errors stay until dismissed). */
export function toast(message, { error = false } = {}) {
  const area = document.getElementById("toasts");
  const close = h("button", { type: "button", class: "icon-button", "aria-label": "Dismiss" }, "×");
  const item = h("div", { class: error ? "toast toast-error" : "toast", role: error ? "alert" : "status" },
    h("span", {}, message), close);
  close.addEventListener("click", () => item.remove());
  area.appendChild(item);
  if (!error) window.setTimeout(() => item.remove(), 5000);
}

export function formatBytes(n) {
  if (!Number.isFinite(n)) return "";
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function formatMs(ms) {
  if (!Number.isFinite(ms)) return "–";
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

/**
 * Undo hard line wraps for display: PDF lines and wrapped Markdown/text paragraphs
 * read as running text, while blank lines, list items, headings, table rows and
 * short lines (titles) keep their line breaks.
 */
export function reflow(text) {
  const lines = String(text).replace(/\r\n?/g, "\n").split("\n");
  let out = lines[0];
  for (let i = 1; i < lines.length; i += 1) {
    const prev = lines[i - 1].trim();
    const line = lines[i];
    const join = prev.length >= 30 && line.trim() !== "" && !/:$/.test(prev)
      && !/^\s*([-*+•>|#]|\d+[.)])\s/.test(line);
    out += (join ? " " : "\n") + (join ? line.trimStart() : line);
  }
  return out;
}
