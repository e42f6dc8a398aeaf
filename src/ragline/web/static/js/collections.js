// The collection picker in the top bar and the "New collection" dialog.
import { namePattern } from "./api.js";
import { $, h, replace, announce } from "./dom.js";

const SELECTED_STORAGE = "ragline.collection";

export class Collections {
  constructor(api, { onChange, onError }) {
    this.api = api;
    this.onChange = onChange;
    this.onError = onError;
    this.select = $("#collection-select");
    this.dialog = $("#collection-dialog");
    this.form = $("#collection-form");
    this.current = null;

    this.select.addEventListener("change", () => this.choose(this.select.value));
    for (const id of ["#new-collection-button", "#first-collection-button"]) {
      $(id).addEventListener("click", () => this.openDialog());
    }
    this.form.addEventListener("submit", (event) => this.create(event));
  }

  /** Fill the picker from a list of collections and select the remembered one. */
  render(list) {
    const names = list.map((c) => (typeof c === "string" ? c : c.name)).filter(Boolean).sort();
    replace(this.select, names.map((name) => h("option", { value: name }, name)));
    this.select.disabled = names.length === 0;
    const remembered = sessionStorage.getItem(SELECTED_STORAGE);
    const pick = names.includes(this.current) ? this.current
      : names.includes(remembered) ? remembered : (names[0] || null);
    this.choose(pick, { force: true });
  }

  choose(name, { force = false } = {}) {
    if (name === this.current && !force) return;
    this.current = name;
    if (name) {
      this.select.value = name;
      sessionStorage.setItem(SELECTED_STORAGE, name);
    }
    this.onChange(name);
  }

  openDialog() {
    $("#collection-error").textContent = "";
    const input = $("#collection-name");
    input.value = "";
    input.removeAttribute("aria-invalid");
    this.dialog.showModal();
    input.focus();
  }

  async create(event) {
    event.preventDefault();
    const input = $("#collection-name");
    const error = $("#collection-error");
    const name = input.value.trim();
    const pattern = await namePattern();
    if (!name || !input.checkValidity() || (pattern && !pattern.test(name))) {
      error.textContent = name ? "Use letters, digits, dot, dash and underscore; start with a letter or digit."
        : "Enter a name.";
      input.setAttribute("aria-invalid", "true");
      input.focus();
      return;
    }
    const submit = this.form.querySelector("button[type=submit]");
    submit.disabled = true;
    try {
      await this.api.createCollection(name);
      const list = await this.api.listCollections();
      this.dialog.close();
      this.current = name;
      this.render(list);
      announce(`Collection ${name} created.`);
      this.select.focus();
    } catch (err) {
      if (err.status === 401) {
        this.dialog.close();
        this.onError(err);
      } else {
        error.textContent = err.message;
        input.setAttribute("aria-invalid", "true");
        input.focus();
      }
    } finally {
      submit.disabled = false;
    }
  }
}
