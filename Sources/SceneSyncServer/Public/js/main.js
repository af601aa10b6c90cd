// Wires the connection to the view. The page at /<app> loads this module; it starts by itself
// unless `globalThis.SceneSyncManualStart` is set (the test harness sets it and calls `start`
// with a fake transport).
import { ATTR, CLS, COMPONENTS_META, CONN, CONN_TEXT, ERROR, F, MSG, TEXT } from "./protocol.js";
import { Socket } from "./socket.js";
import { WindowLocation } from "./location.js";
import { View } from "./view.js";
import { OutOfStep } from "./render.js";
import { loadComponents } from "./components/index.js";

/** The app name: the first segment of the page's path (`/lootlogger` → "lootlogger"). */
export function appFromPath(pathname) {
  const first = pathname.split("/").filter(Boolean)[0] ?? "";
  try {
    return decodeURIComponent(first);
  } catch {
    return first;
  }
}

/** The optional components the page names (an app's `HostedApp.rendererModules`). */
export function componentsNamed(doc) {
  const content = doc.querySelector(`meta[name="${COMPONENTS_META}"]`)?.getAttribute("content") ?? "";
  return content.split(/\s+/).filter(Boolean);
}

/**
 * Starts the renderer.
 * @param {object} [options]
 * @param {HTMLElement} [options.root]  default #scenesync-root
 * @param {HTMLElement} [options.indicator]  default #scenesync-connection
 * @param {string} [options.app]  default from the page path
 * @param {string[]} [options.components]  optional components to import first; default those the page names
 * @param {(url: string) => WebSocket} [options.createTransport]  default a real WebSocket
 * @param {Window} [options.win]
 */
export function start(options = {}) {
  const win = options.win ?? window;
  const doc = win.document;
  const root = options.root ?? doc.getElementById("scenesync-root");
  const indicator = options.indicator ?? doc.getElementById("scenesync-connection");
  const app = options.app ?? appFromPath(win.location.pathname);
  let socket = null;
  const view = new View(root, (node, name, value) => socket.action(node, name, value));
  const location = new WindowLocation(win, app, (node, name, value) => view.send(node, name, value));
  view.onPath = (path, history) => location.show(path, history);

  // Not connected, with what the user did waiting to be sent: the indicator says so.
  const showState = (state, offline, waiting = 0) => {
    if (!indicator) return;
    indicator.setAttribute(ATTR.state, state);
    const text = waiting > 0 ? CONN_TEXT.waiting(waiting) : offline ? CONN_TEXT.offline : CONN_TEXT[state];
    if (indicator.textContent !== text) indicator.textContent = text;
    root.classList.toggle(CLS.offline, state !== CONN.connected);
  };

  const onMessage = (message) => {
    switch (message[F.type]) {
      case MSG.render:
        try {
          view.render(message[F.root]);
        } catch (error) {
          console.error("SceneSync: cannot draw the window", error);
          return;
        }
        socket.rendered(message[F.seq], message[F.route]);
        break;
      case MSG.patch:
        try {
          view.patch(message[F.ops]);
          socket.noteSeq(message[F.seq]);
        } catch (error) {
          if (!(error instanceof OutOfStep)) console.error("SceneSync: cannot apply a patch", error);
          else console.info(`SceneSync: out of step (${error.message}); redrawing`);
          socket.resync();
        }
        break;
      case MSG.resumed:
        if (view.isEmpty) {
          socket.resync(); // nothing on screen to keep
        } else {
          socket.resumed(message[F.seq]);
        }
        break;
      case MSG.ack:
        socket.settle(message[F.ref]);
        break;
      case MSG.error: {
        const ref = message[F.ref];
        const entry = ref === undefined || ref === null ? null : socket.settle(ref);
        const text = message[F.message] || message[F.code] || "Something went wrong.";
        // Nothing answered the action: the node went a moment ago, and its patch is on the way.
        // Not the user's doing, and nothing they can act on: for the developer's console only.
        if (message[F.code] === ERROR.notAnswered) {
          console.info(`SceneSync: ${text}`);
          break;
        }
        if (entry && view.has(entry.node)) view.showError(entry.node, text);
        else view.toast(text);
        break;
      }
      case MSG.open: {
        const url = message[F.url];
        if (typeof url !== "string") break;
        const opened = win.open(url, "_blank");
        if (opened) {
          try { opened.opener = null; } catch { /* cross-origin */ }
        } else {
          view.toast(TEXT.popupBlocked, { href: url, label: TEXT.openHere });
        }
        break;
      }
      default:
        console.warn(`SceneSync: unknown message ${JSON.stringify(message[F.type])}`);
    }
  };

  socket = new Socket({
    app,
    win,
    createTransport: options.createTransport,
    onMessage,
    onState: showState,
    // Deadlines (row countdowns) are on the server's clock: each connection's welcome says what it reads.
    onServerTime: (time) => view.countdowns.setServerTime(time),
    canSend: (node) => view.has(node),
  });
  // The page's optional components are in before anything is drawn: the window connects once
  // they are (they were preloaded with the page, so this is short).
  const components = options.components ?? componentsNamed(doc);
  if (components.length === 0) {
    socket.start();
  } else {
    loadComponents(components)
      .catch((error) => console.error("SceneSync: cannot load the renderer's components", error))
      .finally(() => socket.start());
  }
  return { app, view, socket };
}

if (!globalThis.SceneSyncManualStart) {
  globalThis.SceneSync = start();
}
