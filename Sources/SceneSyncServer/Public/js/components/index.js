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
import { split } from "./split.js";

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
  [KIND.paneBar, chrome.paneBar],
  [KIND.split, split],
]);

// Components only some apps draw, by the name an app's page gives them (HostedApp.RendererModule):
// imported only when the page names them, before the first drawing.
const optional = {
  chat: async () => {
    const chat = await import("./chat.js");
    return [
      [KIND.messageList, chat.messageList],
      [KIND.message, chat.message],
      [KIND.composer, chat.composer],
    ];
  },
};

/** Imports and registers the optional components named in `names`; an unknown name is skipped, with a warning. */
export async function loadComponents(names) {
  const loads = names.map((name) => {
    if (Object.hasOwn(optional, name)) return optional[name]();
    console.warn(`SceneSync: unknown renderer module ${JSON.stringify(name)}`);
    return [];
  });
  for (const definitions of await Promise.all(loads)) {
    for (const [kind, definition] of definitions) registry.set(kind, definition);
  }
}

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
