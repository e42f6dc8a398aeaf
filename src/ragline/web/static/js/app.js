// Entry point: sign in/out, tabs, and wiring the views together.
import { Api, ApiError } from "./api.js";
import { $, announce, toast } from "./dom.js";
import { Collections } from "./collections.js";
import { DocumentsView } from "./documents.js";
import { ChatView } from "./chat.js";
import { PassageDialog } from "./passage.js";
import { Conversations } from "./conversations.js";
import { UsageView } from "./usage.js";
import { TransactionsView } from "./transactions.js";
import { parseTransactionsHash } from "./links.js";

// sessionStorage: the key lives as long as the tab, never in localStorage or a cookie.
const KEY_STORAGE = "ragline.key";

// One client for the page's lifetime; signing in sets its key.
const api = new Api(null);
let views = null;

function showSignIn(message = "") {
  $("#app-view").hidden = true;
  $("#signin-view").hidden = false;
  $("#signin-error").textContent = message;
  const input = $("#api-key");
  input.value = "";
  input.setAttribute("aria-invalid", message ? "true" : "false");
  input.focus();
}

function signOut(message = "") {
  sessionStorage.removeItem(KEY_STORAGE);
  api.key = null;
  views.documents.setCollection(null);
  views.chat.reset();
  views.transactions.reset();
  showSignIn(message);
  if (!message) announce("Signed out.");
}

/** Errors from any view: a 401 means the key was revoked, anything else is shown. */
function onError(err) {
  if (err instanceof ApiError && err.status === 401) {
    signOut("Your key is no longer accepted. Sign in again.");
  } else if (err.name !== "AbortError") {
    toast(err.message, { error: true });
  }
}

function buildViews() {
  const documents = new DocumentsView(api, { onError });
  const chat = new ChatView(api, { onError, passage: new PassageDialog(api, { onError }) });
  const conversations = new Conversations(api, chat, { onError });
  const collections = new Collections(api, {
    onError,
    onChange: (name) => {
      hasCollection = Boolean(name);
      showNoCollection();
      $("#main").classList.toggle("without-collection", !name);
      documents.setCollection(name);
      chat.setCollection(name);
      conversations.setCollection(name);
    },
  });
  return { documents, chat, conversations, collections, usage: new UsageView(api, { onError }),
    transactions: new TransactionsView(api, { onError, onImported: () => refreshCollections(collections) }) };
}

/** The collection list again (an import may have created the transactions' collection). */
async function refreshCollections(collections) {
  try {
    collections.render(await api.listCollections());
  } catch (err) {
    onError(err);
  }
}

// "Create your first collection" belongs to the views that need one: transactions and
// usage are the tenant's (or owner's) whatever the collections.
let hasCollection = false;
function showNoCollection() {
  const tab = $("#main").dataset.tab || "tab-ask";
  $("#no-collection").hidden = hasCollection || !["tab-ask", "tab-documents"].includes(tab);
}

async function signIn(key) {
  api.key = key;
  let list;
  try {
    list = await api.listCollections(); // doubles as the key check
  } catch (err) {
    api.key = null;
    throw err;
  }
  sessionStorage.setItem(KEY_STORAGE, key);
  views.chat.reset(); // another key may be another tenant: nothing of the last one stays
  views.transactions.reset();
  $("#signin-view").hidden = true;
  $("#app-view").hidden = false;
  selectTab("tab-ask", { focus: false });
  views.collections.render(list);
  views.conversations.probe();
  $("#question").focus();
  announce("Signed in.");
  if (parseTransactionsHash(window.location.hash)) followLink(window.location.hash);
}

// -- tabs (WAI-ARIA tabs pattern: arrow keys move between tabs) ---------------
const TABS = ["tab-ask", "tab-documents", "tab-transactions", "tab-usage"];

function selectTab(id, { focus = true, refresh = true } = {}) {
  for (const tabId of TABS) {
    const tab = document.getElementById(tabId);
    const selected = tabId === id;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    document.getElementById(tab.getAttribute("aria-controls")).hidden = !selected;
    if (selected && focus) tab.focus();
  }
  $("#main").dataset.tab = id;
  showNoCollection();
  // Another client (or the CLI) may have changed the documents since the last look.
  if (id === "tab-documents" && api.key) views.documents.refresh();
  if (id === "tab-usage" && api.key) views.usage.refresh();
  if (id === "tab-transactions" && api.key && refresh) views.transactions.refresh();
}

/**
 * A link into the Transactions view (an answer's source, a row's own anchor):
 * `#tx-<id>` shows that row, `#transactions?id=…` the rows an answer cites.
 */
function followLink(hash) {
  const target = parseTransactionsHash(hash);
  if (!target || !api.key) return false;
  const tab = document.getElementById("tab-transactions");
  if (tab.getAttribute("aria-selected") !== "true") selectTab("tab-transactions", { refresh: Boolean(target.all) });
  if (target.id) views.transactions.reveal(target.id);
  else if (target.ids) views.transactions.showIds(target.ids, target.label);
  return true;
}

function wireTabs() {
  for (const tabId of TABS) {
    const tab = document.getElementById(tabId);
    tab.addEventListener("click", () => selectTab(tabId));
    tab.addEventListener("keydown", (event) => {
      const i = TABS.indexOf(tabId);
      const moves = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: TABS.length - 1 };
      if (!(event.key in moves)) return;
      event.preventDefault();
      selectTab(TABS[(moves[event.key] + TABS.length) % TABS.length]);
    });
  }
}

function wireSignIn() {
  $("#signin-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("#api-key");
    const key = input.value.trim();
    const error = $("#signin-error");
    if (!key) {
      error.textContent = "Enter your API key.";
      input.setAttribute("aria-invalid", "true");
      input.focus();
      return;
    }
    const button = event.submitter || $("#signin-form button[type=submit]");
    button.disabled = true;
    error.textContent = "";
    try {
      await signIn(key);
    } catch (err) {
      const msg = err instanceof ApiError && err.status === 401
        ? "That key was not accepted. Check it and try again."
        : err.message;
      error.textContent = msg;
      input.setAttribute("aria-invalid", "true");
      input.focus();
    } finally {
      button.disabled = false;
    }
  });
  $("#signout-button").addEventListener("click", () => signOut());
}

/**
 * A sign-in link (`/#key=…`, as `make run` can print) signs in at once. The fragment
 * never reaches the server, and it is removed from the address bar right away.
 */
function keyFromLink() {
  const key = new URLSearchParams(window.location.hash.slice(1)).get("key");
  if (key) window.history.replaceState(null, "", window.location.pathname + window.location.search);
  return key;
}

async function start() {
  views = buildViews();
  wireTabs();
  wireSignIn();
  // Close buttons inside any dialog.
  for (const button of document.querySelectorAll("dialog [data-close]")) {
    button.addEventListener("click", () => button.closest("dialog").close());
  }
  window.addEventListener("hashchange", () => {
    const key = keyFromLink();
    if (key) signIn(key).catch((err) => signOut(err.status === 401 ? "That sign-in link's key was not accepted." : err.message));
    else followLink(window.location.hash);
  });
  // Our own links are followed here too, so that clicking the same one twice shows its row again.
  document.addEventListener("click", (event) => {
    const link = event.target.closest?.("a[href^='#']");
    if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    const hash = link.getAttribute("href");
    if (!parseTransactionsHash(hash)) return;
    event.preventDefault();
    if (window.location.hash !== hash) window.history.pushState(null, "", hash);
    followLink(hash);
  });
  const saved = keyFromLink() || sessionStorage.getItem(KEY_STORAGE);
  if (!saved) return showSignIn();
  try {
    await signIn(saved);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) signOut("Your key is no longer accepted. Sign in again.");
    else showSignIn(err.message);
  }
}

start();
