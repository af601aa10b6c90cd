// A row's "More actions" menu: a button that opens a small menu of named actions
// (such as "Open in New Window"). Keyboard: Enter/Space/ArrowDown open, arrows move, Escape closes.
import { TEXT } from "../protocol.js";
import { focusQuietly, h, icon, setAttr, show, uid } from "../dom.js";

export class Menu {
  constructor(choose) {
    this.choose = choose;
    this.items = [];
    this.key = "";
    const listId = uid("menu");
    this.button = h("button", {
      type: "button", class: "ss-row-more", "aria-label": TEXT.moreActions, "aria-haspopup": "menu",
      "aria-expanded": "false", "aria-controls": listId, hidden: true,
    }, icon("more"));
    this.list = h("div", { class: "ss-menu", role: "menu", id: listId, hidden: true });
    this.button.addEventListener("click", () => (this.isOpen ? this.close(true) : this.open()));
    this.button.addEventListener("keydown", (event) => {
      if (event.key === "ArrowDown" && !event.altKey) {
        event.preventDefault();
        this.open();
      }
    });
    this.list.addEventListener("keydown", (event) => this.keydown(event));
    this.outside = (event) => {
      if (!this.list.contains(event.target) && !this.button.contains(event.target)) this.close(false);
    };
  }

  get isEmpty() {
    return this.items.length === 0;
  }

  get isOpen() {
    return !this.list.hidden;
  }

  /** Sets the menu's items: [{name, label}]. */
  setItems(items, title) {
    const key = JSON.stringify(items);
    setAttr(this.button, "title", items.length ? `${TEXT.moreActions}${title ? ` for ${title}` : ""}` : null);
    if (key === this.key) return;
    this.key = key;
    this.items = items;
    this.list.replaceChildren(...items.map((item) => {
      const button = h("button", { type: "button", class: "ss-menu-item", role: "menuitem", tabindex: "-1" }, item.label);
      button.addEventListener("click", () => {
        this.close(true);
        this.choose(item.name);
      });
      return button;
    }));
    show(this.button, items.length > 0);
    if (!items.length) this.close(false);
  }

  open() {
    if (this.isEmpty) return;
    show(this.list, true);
    setAttr(this.button, "aria-expanded", "true");
    focusQuietly(this.list.firstElementChild);
    document.addEventListener("pointerdown", this.outside, true);
  }

  close(refocus) {
    if (!this.isOpen) return;
    show(this.list, false);
    setAttr(this.button, "aria-expanded", "false");
    document.removeEventListener("pointerdown", this.outside, true);
    if (refocus && this.button.isConnected && !this.button.hidden) focusQuietly(this.button);
  }

  keydown(event) {
    const items = [...this.list.children];
    const index = items.indexOf(document.activeElement);
    let next = null;
    if (event.key === "ArrowDown") next = (index + 1) % items.length;
    else if (event.key === "ArrowUp") next = (index - 1 + items.length) % items.length;
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = items.length - 1;
    else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      this.close(true);
      return;
    } else if (event.key === "Tab") {
      this.close(false);
      return;
    }
    if (next !== null) {
      event.preventDefault();
      event.stopPropagation();
      focusQuietly(items[next]);
    }
  }
}
