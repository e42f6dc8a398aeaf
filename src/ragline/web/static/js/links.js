// Links into the Transactions view, shared by the answers that cite transactions and
// the view itself: `#tx-<id>` is one row (its anchor), `#transactions?id=…&id=…`
// the rows an answer's source cites.

const ONE = "#tx-";
const MANY = "#transactions";

/** The anchor of one transaction's row. */
export function transactionHref(id) {
  return ONE + encodeURIComponent(id);
}

/** A link to the view showing only these transactions; `label` says what they are. */
export function transactionsHref(ids, label = "") {
  const params = new URLSearchParams();
  for (const id of ids) params.append("id", id);
  if (label) params.set("label", label);
  return `${MANY}?${params}`;
}

/**
 * What a location hash asks of the Transactions view: `{id}` (one row),
 * `{ids, label}` (a set of rows), `{all: true}` (the view) or null (not ours).
 */
export function parseTransactionsHash(hash) {
  const value = String(hash || "");
  if (value.startsWith(ONE) && value.length > ONE.length) {
    try {
      return { id: decodeURIComponent(value.slice(ONE.length)) };
    } catch {
      return null; // a malformed escape: not a link we made
    }
  }
  if (value === MANY) return { all: true };
  if (value.startsWith(`${MANY}?`)) {
    const params = new URLSearchParams(value.slice(MANY.length + 1));
    const ids = params.getAll("id").filter(Boolean);
    return ids.length ? { ids, label: params.get("label") || "" } : { all: true };
  }
  return null;
}
