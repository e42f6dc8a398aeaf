// The Usage tab: the signed-in tenant's tokens embedded, questions asked, LLM tokens
// in and out and the estimated cost (GET /v1/usage), in total and per model.
import { $, h, replace } from "./dom.js";
import { ApiError } from "./api.js";

const TOTALS = [
  ["questions", "Questions asked"],
  ["texts_embedded", "Texts embedded"],
  ["tokens_embedded", "Tokens embedded"],
  ["llm_input_tokens", "LLM tokens in"],
  ["llm_output_tokens", "LLM tokens out"],
];

const number = new Intl.NumberFormat();

export class UsageView {
  constructor(api, { onError }) {
    this.api = api;
    this.onError = onError;
  }

  async refresh() {
    const body = $("#usage-body");
    try {
      const usage = await this.api.usage();
      replace(body, totals(usage), byModel(usage), unpriced(usage));
    } catch (err) {
      if (err instanceof ApiError && err.status === 403) {
        replace(body, h("p", { class: "hint" }, "Usage is shown to keys of the whole tenant, not to a user's key."));
      } else {
        replace(body);
        this.onError(err);
      }
    }
  }
}

function money(value, currency) {
  return `${Number(value).toFixed(4)} ${currency}`;
}

function totals(usage) {
  const items = TOTALS.map(([key, label]) => [h("dt", {}, label), h("dd", { class: "num" }, number.format(usage[key]))]);
  items.push([h("dt", {}, "Estimated cost"), h("dd", { class: "num", id: "usage-cost" }, money(usage.cost, usage.currency))]);
  return h("dl", { class: "usage-totals", "aria-label": "Totals" }, items);
}

function byModel(usage) {
  if (!usage.by_model.length) return h("p", { class: "hint" }, "Nothing used yet.");
  // On a phone each row is a card of "column: value" lines (style.css .stack-table).
  const columns = ["Use", "Model", "Count", "Tokens in", "Tokens out", "Cost"];
  const rows = usage.by_model.map((r) => h("tr", {},
    [r.kind === "ask" ? "answers" : "embedding", r.model, number.format(r.events), number.format(r.input_tokens),
      number.format(r.output_tokens), money(r.cost, usage.currency)]
      .map((value, i) => h("td", { class: i >= 2 ? "num" : null, "data-label": columns[i] }, value))));
  const head = columns.map((c, i) => h("th", { scope: "col", class: i >= 2 ? "num" : null }, c));
  return h("table", { class: "usage-table stack-table" }, h("caption", {}, "By model"),
    h("thead", {}, h("tr", {}, head)), h("tbody", {}, rows));
}

function unpriced(usage) {
  if (!usage.unpriced.length) return null;
  return h("p", { class: "hint" }, `No price set for ${usage.unpriced.join(", ")}: counted as 0.`);
}
