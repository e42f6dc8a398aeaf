// The Transactions tab: one owner's bank transactions (GET /v1/transactions) with
// filters by month, category and text, each account's balance, and a category
// correction per row (POST /v1/transactions/categorize) that sticks. Each row has an
// anchor, #tx-<id>, that an answer's sources link to (links.js).
import { $, h, replace, announce, toast } from "./dom.js";
import { transactionHref } from "./links.js";

const PAGE = 100;
const SEARCH_DELAY_MS = 300;
const OWNER_STORAGE = "ragline.transactions.owner"; // + ".<tenant>"

// Where a category came from (the wire's category_source), as the row's marker says it.
export const CATEGORY_SOURCES = {
  bank: { text: "bank", title: "Category given by your bank" },
  inferred: { text: "inferred", title: "Category inferred by ragline from the description" },
  user: { text: "yours", title: "Category you set" },
};

export class TransactionsView {
  constructor(api, { onError, onImported = () => {} }) {
    this.api = api;
    this.onError = onError;
    this.onImported = onImported; // the first import creates the transactions' collection
    this.body = $("#tx-rows");
    this.filters = { month: "", category: "", text: "" };
    this.focusIds = null;      // {ids, label}: only the rows an answer cites
    this.rows = [];            // the transactions shown, in order
    this.more = false;         // the server has more rows for these filters
    this.generation = 0;       // bumps on every new listing so stale responses are dropped
    this.taxonomy = null;      // [{id, label}], fetched once
    this.used = [];            // the owner's categories (for the filter and the edit select)
    this.me = null;            // {owner} of the key, fetched once per sign-in
    this.owner = null;         // whose transactions: the key's owner, or the one named in the form
    this.searchTimer = null;
    this.wire();
  }

  /** Forget everything of the last key (sign-out, another sign-in). */
  reset() {
    this.generation += 1;
    this.me = null;
    this.owner = null;
    this.rows = [];
    this.focusIds = null;
    this.filters = { month: "", category: "", text: "" };
    $("#tx-month").value = "";
    $("#tx-search").value = "";
    replace(this.body);
    replace($("#tx-balances"));
    $("#tx-focus").hidden = true;
    $("#tx-import-status").textContent = "";
  }

  wire() {
    $("#tx-month").addEventListener("change", (e) => this.setFilter("month", e.target.value));
    $("#tx-category").addEventListener("change", (e) => this.setFilter("category", e.target.value));
    $("#tx-search").addEventListener("input", (e) => {
      window.clearTimeout(this.searchTimer);
      this.searchTimer = window.setTimeout(() => this.setFilter("text", e.target.value.trim()), SEARCH_DELAY_MS);
    });
    $("#tx-filters").addEventListener("submit", (e) => {
      e.preventDefault();
      window.clearTimeout(this.searchTimer);
      this.setFilter("text", $("#tx-search").value.trim());
    });
    $("#tx-more").addEventListener("click", () => this.load({ append: true }));
    $("#tx-show-all").addEventListener("click", () => this.showAll());
    $("#tx-owner-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const owner = $("#tx-owner").value.trim();
      if (!owner) return;
      if (this.me) sessionStorage.setItem(`${OWNER_STORAGE}.${this.me.tenant}`, owner);
      if (owner !== this.owner) { // another person's transactions: nothing of the last one's view stays
        this.focusIds = null;
        this.clearFilters();
      }
      this.owner = owner;
      this.refresh();
    });
    $("#tx-file").addEventListener("change", (e) => {
      const file = e.target.files[0];
      e.target.value = "";
      if (file) this.importFile(file);
    });
  }

  /** The tab was opened: whose transactions, then everything fresh. */
  async refresh() {
    if (!(await this.ensureOwner())) return;
    await Promise.all([this.loadMeta(), this.load()]);
  }

  /** True once an owner is known: the key's own, or one named in the owner form (tenant-wide keys). */
  async ensureOwner() {
    try {
      this.me ??= await this.api.me();
    } catch (err) {
      this.onError(err);
      return false;
    }
    const bound = this.me.owner || null;
    $("#tx-owner-form").hidden = Boolean(bound);
    if (bound) {
      this.owner = bound;
    } else {
      this.owner ??= sessionStorage.getItem(`${OWNER_STORAGE}.${this.me.tenant}`); // per tenant: names are theirs
      $("#tx-owner").value = this.owner || "";
    }
    $("#tx-content").hidden = !this.owner;
    $("#tx-import").hidden = !this.owner;
    $("#tx-who").textContent = this.owner ? `${this.owner}'s accounts` : "";
    return Boolean(this.owner);
  }

  // -- the list -------------------------------------------------------------------
  setFilter(name, value) {
    if (this.filters[name] === value && !this.focusIds) return;
    this.filters[name] = value;
    this.focusIds = null;
    this.load();
  }

  /** The query for the current filters (or the cited ids). */
  params() {
    if (this.focusIds) return { owner: this.owner, id: this.focusIds.ids };
    const { month, category, text } = this.filters;
    return { owner: this.owner, ...monthRange(month), category, text };
  }

  async load({ append = false } = {}) {
    if (!this.owner) return;
    const generation = ++this.generation;
    const offset = append ? this.rows.length : 0;
    const more = $("#tx-more");
    more.disabled = true;
    this.setBusy(true);
    try {
      const page = await this.api.listTransactions({ ...this.params(), limit: PAGE + 1, offset });
      if (generation !== this.generation) return;
      this.more = page.length > PAGE;
      this.rows = append ? [...this.rows, ...page.slice(0, PAGE)] : page.slice(0, PAGE);
      this.render();
    } catch (err) {
      if (generation === this.generation) this.onError(err);
    } finally {
      if (generation === this.generation) this.setBusy(false);
      more.disabled = false;
    }
  }

  setBusy(busy) {
    $("#tx-table").setAttribute("aria-busy", String(busy));
  }

  render() {
    replace(this.body, this.rows.map((tx) => this.row(tx)));
    $("#tx-empty").hidden = this.rows.length > 0;
    $("#tx-empty").textContent = this.focusIds || this.filters.month || this.filters.category || this.filters.text
      ? "No transactions match." : "No transactions yet. Import a statement from your bank (CSV, OFX or JSON).";
    $("#tx-table-wrap").hidden = this.rows.length === 0;
    $("#tx-more").hidden = !this.more;
    $("#tx-summary").textContent = this.summary();
    const focus = $("#tx-focus");
    focus.hidden = !this.focusIds;
    if (this.focusIds) {
      const n = this.rows.length;
      const what = this.focusIds.label ? ` behind “${this.focusIds.label}”` : "";
      $("#tx-focus-text").textContent = `Showing the ${n} transaction${n === 1 ? "" : "s"}${what}.`;
    }
  }

  summary() {
    const n = this.rows.length;
    const bits = [`${n}${this.more ? "+" : ""} transaction${n === 1 ? "" : "s"}`];
    if (!this.focusIds) {
      if (this.filters.month) bits.push(monthLabel(this.filters.month));
      if (this.filters.category) bits.push(this.filters.category);
      if (this.filters.text) bits.push(`matching “${this.filters.text}”`);
    }
    return bits.join(" · ");
  }

  row(tx) {
    const day = String(tx.timestamp).slice(0, 10);
    const merchant = tx.merchant_name || "";
    const amount = h("td", { class: `num tx-amount ${String(tx.amount).startsWith("-") ? "out" : "in"}`,
      "data-label": "Amount" }, formatAmount(tx.amount), " ", h("span", { class: "tx-currency" }, tx.currency));
    const tr = h("tr", { id: `tx-${tx.transaction_id}`, tabindex: "-1", dataset: { id: tx.transaction_id } },
      h("td", { class: "tx-date", "data-label": "Date" }, h("time", { datetime: day }, formatDay(day))),
      h("td", { class: "tx-merchant", "data-label": "Merchant" }, merchantCell(merchant, tx.description)),
      h("td", { class: "tx-category", "data-label": "Category" }, this.categoryCell(tx)),
      amount,
      h("td", { class: "tx-account", "data-label": "Account" }, tx.account_id),
      h("td", { class: "tx-id-cell", "data-label": "Id" },
        h("a", { class: "tx-id", href: transactionHref(tx.transaction_id),
          "aria-label": `Link to transaction ${tx.transaction_id}` }, tx.transaction_id)));
    return tr;
  }

  categoryCell(tx) {
    const source = CATEGORY_SOURCES[tx.category_source];
    const edit = h("button", { type: "button", class: "small tx-edit",
      "aria-label": `Change the category of ${describe(tx)}` }, "Change");
    const cell = h("div", { class: "tx-category-view" },
      h("span", { class: "tx-category-label" }, tx.transaction_category || "Uncategorised"),
      source ? h("span", { class: `tx-source tx-source-${tx.category_source}`, dataset: { source: tx.category_source },
        title: source.title }, source.text, h("span", { class: "visually-hidden" }, `: ${source.title}`)) : null,
      edit);
    edit.addEventListener("click", () => this.edit(tx, cell));
    return cell;
  }

  // -- correcting a category ----------------------------------------------------------
  /** Replace the row's category with a select of the taxonomy; Save sends the correction. */
  edit(tx, view) {
    const options = this.categoryOptions(tx.transaction_category);
    const select = h("select", { "aria-label": `Category for ${describe(tx)}` },
      options.map((label) => h("option", { value: label, selected: label === tx.transaction_category }, label)));
    const merchant = tx.merchant_name;
    const every = merchant ? h("input", { type: "checkbox", checked: true }) : null;
    const save = h("button", { type: "submit", class: "small primary" }, "Save");
    const cancel = h("button", { type: "button", class: "small" }, "Cancel");
    const form = h("form", { class: "tx-edit-form" }, select,
      every ? h("label", { class: "tx-every" }, every, ` every ${merchant} transaction`) : null,
      h("span", { class: "tx-edit-actions" }, save, cancel));
    const close = () => {
      form.replaceWith(view);
      view.querySelector(".tx-edit").focus();
    };
    cancel.addEventListener("click", close);
    form.addEventListener("keydown", (e) => {
      if (e.key === "Escape") {
        e.preventDefault();
        close();
      }
    });
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      save.disabled = true; // the same category saved is a confirmation: it becomes yours
      try {
        const target = every && every.checked ? merchant : tx.transaction_id;
        const result = await this.api.categorize(this.owner, target, select.value);
        await this.afterCorrection(tx, result);
      } catch (err) {
        save.disabled = false;
        this.onError(err);
      }
    });
    view.replaceWith(form);
    select.focus();
  }

  /** Show what the server changed: reload the rows, mark the corrected ones, say so. */
  async afterCorrection(tx, result) {
    const merchants = new Set(result.merchants || []);
    const changed = (t) => (result.kind === "merchant" ? merchants.has(t.merchant_name)
      : t.transaction_id === tx.transaction_id);
    await Promise.all([this.load(), this.loadMeta()]);
    for (const row of this.rows.filter(changed)) {
      document.getElementById(`tx-${row.transaction_id}`)?.classList.add("just-changed");
    }
    const n = result.updated;
    const who = result.kind === "merchant" ? `${[...merchants].join(", ") || result.target}` : describe(tx);
    const message = `${who}: ${result.category}` + (result.kind === "merchant"
      ? ` (${n} transaction${n === 1 ? "" : "s"} changed; later ones follow)` : "");
    toast(message);
    announce(message);
    document.getElementById(`tx-${tx.transaction_id}`)?.querySelector(".tx-edit")?.focus();
  }

  /** The taxonomy's labels, then the owner's own categories, then the current one. */
  categoryOptions(current) {
    const labels = (this.taxonomy || []).map((c) => c.label);
    for (const label of [...this.used, current]) {
      if (label && !labels.includes(label)) labels.push(label);
    }
    return labels;
  }

  // -- months, categories, balances ------------------------------------------------
  async loadMeta() {
    const owner = this.owner;
    try {
      const [taxonomy, months, categories, balances] = await Promise.all([
        this.taxonomy ? Promise.resolve(this.taxonomy) : this.api.categories(),
        this.api.aggregateTransactions("month", { owner }),
        this.api.aggregateTransactions("category", { owner }),
        this.api.balances(owner),
      ]);
      if (owner !== this.owner) return;
      this.taxonomy = taxonomy;
      this.used = unique(categories.map((g) => g.key).filter(Boolean)).sort();
      const monthKept = fillSelect($("#tx-month"), "All months", counted(months)
        .sort((a, b) => b.key.localeCompare(a.key)).map(({ key, count }) => [key, `${monthLabel(key)} (${count})`]),
      this.filters.month);
      const categoryKept = fillSelect($("#tx-category"), "All categories", counted(categories)
        .sort((a, b) => a.key.localeCompare(b.key)).map(({ key, count }) => [key, `${key} (${count})`]),
      this.filters.category);
      this.renderBalances(balances);
      if (!(monthKept && categoryKept)) { // e.g. the last row of the chosen category was corrected into another one
        this.filters.month = $("#tx-month").value;
        this.filters.category = $("#tx-category").value;
        await this.load();
      }
    } catch (err) {
      this.onError(err);
    }
  }

  renderBalances(balances) {
    $("#tx-balances-empty").hidden = balances.length > 0;
    replace($("#tx-balances"), balances.map((b) => h("li", { class: "balance" },
      h("span", { class: "balance-account" }, b.account),
      h("span", { class: "balance-amount" }, formatAmount(b.amount, { plus: false }), " ", h("span", { class: "tx-currency" }, b.currency)),
      h("span", { class: "balance-as-of hint" }, "as of ", h("time", { datetime: b.as_of }, formatDay(b.as_of)),
        ` · from ${SOURCE_NAMES[b.source] || b.source}`))));
  }

  // -- import ------------------------------------------------------------------------
  async importFile(file) {
    if (!(await this.ensureOwner())) return;
    const status = $("#tx-import-status");
    const currency = $("#tx-import-currency");
    if (!currency.checkValidity()) {
      status.textContent = "The currency is three letters, such as GBP or EUR.";
      currency.setAttribute("aria-invalid", "true");
      currency.focus();
      return;
    }
    currency.removeAttribute("aria-invalid");
    status.textContent = `Importing ${file.name}…`;
    try {
      const report = await this.api.importTransactions(file, this.owner,
        { currency: currency.value.trim().toUpperCase() });
      const bits = [`${report.added} added`, `${report.updated} updated`, `${report.unchanged} unchanged`];
      const failed = report.failed || [];
      let text = `${file.name}: ${bits.join(", ")}.`;
      if (failed.length) {
        text += ` ${failed.length} row${failed.length === 1 ? "" : "s"} skipped: `
          + failed.slice(0, 3).map((f) => `line ${f.line}: ${f.error}`).join("; ") + (failed.length > 3 ? "; …" : "");
      }
      status.textContent = text;
      announce(text);
      this.focusIds = null;
      await Promise.all([this.loadMeta(), this.load()]);
      this.onImported();
    } catch (err) {
      status.textContent = "";
      this.onError(err);
    }
  }

  // -- links from answers (#tx-<id>, #transactions?id=…) ----------------------------------
  /** Show one transaction's row: in the list already, or its month loaded around it. */
  async reveal(id) {
    if (!(await this.ensureOwner())) return;
    if (!this.rows.some((t) => t.transaction_id === id)) {
      let found;
      try {
        [found] = await this.api.listTransactions({ owner: this.owner, id: [id], limit: 1 });
      } catch (err) {
        this.onError(err);
        return;
      }
      if (!found) {
        toast(`Transaction ${id} is not among ${this.owner}'s transactions.`, { error: true });
        return;
      }
      this.focusIds = null;
      this.clearFilters();
      this.filters.month = String(found.timestamp).slice(0, 7);
      await Promise.all([this.loadMeta(), this.load()]);
      if (!this.rows.some((t) => t.transaction_id === id)) { // beyond the month's first page
        this.focusIds = { ids: [id], label: "" };
        await this.load();
      }
    }
    this.highlight(id);
  }

  /** Show only these transactions (the ones an answer's source cites). */
  async showIds(ids, label = "") {
    if (!(await this.ensureOwner())) return;
    this.focusIds = { ids, label };
    this.clearFilters(); // the cited rows, whatever month or category was chosen before
    await Promise.all([this.taxonomy ? null : this.loadMeta(), this.load()]);
  }

  /** Every transaction again: no cited set, no filter. */
  showAll() {
    this.focusIds = null;
    this.clearFilters();
    this.load();
    $("#tx-month").focus();
  }

  clearFilters() {
    this.filters = { month: "", category: "", text: "" };
    for (const id of ["#tx-month", "#tx-category", "#tx-search"]) $(id).value = "";
  }

  highlight(id) {
    for (const tr of this.body.querySelectorAll("tr.target")) tr.classList.remove("target");
    const tr = document.getElementById(`tx-${id}`);
    if (!tr) return;
    tr.classList.add("target");
    tr.scrollIntoView({ block: "center" });
    tr.focus({ preventScroll: true });
  }
}

// -- formatting -----------------------------------------------------------------------
const SOURCE_NAMES = { ofx: "the OFX file", csv: "the CSV file", json: "the JSON file", truelayer: "your bank",
  api: "the API" };

/** The merchant, with the bank's raw description one click (or a hover) away. */
function merchantCell(merchant, description) {
  if (!merchant || merchant === description) return h("span", { class: "tx-merchant-name" }, merchant || description);
  return h("details", { class: "tx-description" },
    h("summary", { title: description }, h("span", { class: "tx-merchant-name" }, merchant)),
    h("span", { class: "tx-raw" }, description));
}

function describe(tx) {
  return `${tx.merchant_name || tx.description}, ${formatDay(String(tx.timestamp).slice(0, 10))}`;
}

/** "-1234.5" → "-1,234.5" (money in: "+"): the server's exact decimal string, digits grouped, never a float. */
export function formatAmount(value, { plus = true } = {}) {
  const text = String(value);
  const sign = text.startsWith("-") ? "-" : plus ? "+" : "";
  const [whole, fraction] = text.replace(/^[+-]/, "").split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${sign}${grouped}${fraction !== undefined ? `.${fraction}` : ""}`;
}

const DAY = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
const MONTH = new Intl.DateTimeFormat(undefined, { month: "long", year: "numeric", timeZone: "UTC" });

function formatDay(day) {
  const date = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? day : DAY.format(date);
}

function monthLabel(month) {
  const date = new Date(`${month}-01T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? month : MONTH.format(date);
}

/** "2026-09" → {start: "2026-09-01", end: "2026-09-30"}; {} for all months. */
export function monthRange(month) {
  const match = /^(\d{4})-(\d{2})$/.exec(month || "");
  if (!match) return {};
  const last = new Date(Date.UTC(Number(match[1]), Number(match[2]), 0)).getUTCDate();
  return { start: `${month}-01`, end: `${month}-${String(last).padStart(2, "0")}` };
}

/** Aggregate groups (one per key and currency) as one count per key. */
function counted(groups) {
  const counts = new Map();
  for (const g of groups) if (g.key) counts.set(g.key, (counts.get(g.key) || 0) + g.count);
  return [...counts].map(([key, count]) => ({ key, count }));
}

function unique(list) {
  return [...new Set(list)];
}

/** Fill a filter's options, keeping `value` when it is still one; false when it is gone. */
function fillSelect(select, allLabel, options, value) {
  replace(select, h("option", { value: "" }, allLabel),
    options.map(([key, label]) => h("option", { value: key }, label)));
  const kept = !value || options.some(([key]) => key === value);
  select.value = kept ? value : "";
  return kept;
}
