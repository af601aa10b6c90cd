// Content: image, text, emptyState, stack.
import { P, TEXT_STYLE } from "../protocol.js";
import { h, setAttr, setText, show } from "../dom.js";

export const image = {
  create: () => h("img", { class: "ss-image", loading: "lazy", decoding: "async", alt: "" }),
  update(el, props) {
    const src = props[P.src];
    if (src && el.getAttribute("src") !== src) el.setAttribute("src", src);
    if (!src) el.removeAttribute("src");
    setAttr(el, "alt", props[P.alt] ?? "");
  },
};

const STYLES = Object.values(TEXT_STYLE);

export const text = {
  create: () => h("p", { class: "ss-text" }),
  update(el, props) {
    setText(el, props[P.text] ?? "");
    const style = STYLES.includes(props[P.style]) ? props[P.style] : TEXT_STYLE.body;
    for (const name of STYLES) el.classList.toggle(`ss-text-${name}`, name === style);
    setAttr(el, "role", style === TEXT_STYLE.title ? "heading" : null);
    setAttr(el, "aria-level", style === TEXT_STYLE.title ? "2" : null);
  },
};

export const emptyState = {
  create() {
    const title = h("h2", { class: "ss-empty-title" });
    const message = h("p", { class: "ss-empty-message", hidden: true });
    const el = h("div", { class: "ss-empty" }, title, message);
    el._ss = { title, message };
    return el;
  },
  update(el, props) {
    setText(el._ss.title, props[P.title] ?? "");
    show(el._ss.message, Boolean(props[P.message]));
    setText(el._ss.message, props[P.message] ?? "");
  },
};

export const stack = {
  create: () => h("div", { class: "ss-stack" }),
  update() {},
};
