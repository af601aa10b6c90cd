// The component registry: one definition per node kind.
//
// A definition is {create(node, context) → element, update(element, props, previous, context, record),
// slot?(element) → where children go, mounted?(element, context, record) once in the document,
// destroy?(element, record), enter?/leave?(element) → Promise (insert/remove animations),
// settle?(element) (a move patch arrived: drop any drag offsets), showError?(element, message) → bool}.
import { KIND } from "../protocol.js";
import { h } from "../dom.js";
import * as chrome from "./chrome.js";
import * as table from "./table.js";
import * as form from "./form.js";
import * as content from "./content.js";
import * as overlays from "./overlays.js";
import * as chat from "./chat.js";

const registry = new Map([
  [KIND.window, chrome.windowView],
  [KIND.navigationBar, chrome.navigationBar],
  [KIND.barButton, chrome.barButton],
  [KIND.screen, chrome.screen],
  [KIND.tabBar, chrome.tabBar],
  [KIND.tab, chrome.tab],
  [KIND.overlay, chrome.overlay],
  [KIND.table, table.table],
  [KIND.section, table.section],
  [KIND.row, table.row],
  [KIND.form, form.form],
  [KIND.textField, form.textField],
  [KIND.label, form.label],
  [KIND.button, form.button],
  [KIND.image, content.image],
  [KIND.text, content.text],
  [KIND.emptyState, content.emptyState],
  [KIND.stack, content.stack],
  [KIND.alert, overlays.alert],
  [KIND.notice, overlays.notice],
  [KIND.split, chat.split],
  [KIND.messageList, chat.messageList],
  [KIND.message, chat.message],
  [KIND.composer, chat.composer],
]);

const warned = new Set();

/** A kind this renderer does not know: drawn as a plain column of its children. */
const unknown = {
  create: () => h("div", { class: "ss-unknown" }),
  update: () => {},
};

export function componentFor(kind) {
  const def = registry.get(kind);
  if (def) return def;
  if (!warned.has(kind)) {
    warned.add(kind);
    console.warn(`SceneSync: unknown node kind ${JSON.stringify(kind)}`);
  }
  return unknown;
}
