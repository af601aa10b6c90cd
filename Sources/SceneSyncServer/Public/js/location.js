// The page's URL follows the window (PROTOCOL.md, "A URL for every screen"). The server names the
// place the window shows with the window node's `path`; it becomes the URL /<app>/<path>, a new
// history entry when the user went there (`history` "push"), else in place of the current one.
// Back and Forward, and a page opened at a place of the app, send `navigate` with the URL's path,
// and the server shows that place.
import { ACTION, NODE_ID } from "./protocol.js";

/** `path` with each segment decoded, to compare paths however they were percent-encoded. */
function decoded(path) {
  return path.split("/").filter(Boolean).map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  }).join("/");
}

export class WindowLocation {
  /**
   * @param {Window} win
   * @param {string} app
   * @param {(node: string, name: string, value: string) => void} send  sends an action
   */
  constructor(win, app, send) {
    this.win = win;
    this.base = `/${encodeURIComponent(app)}`;
    this.send = send;
    // The place the page was opened at, asked for once the first render names another.
    this.opened = this.current();
    win.addEventListener("popstate", () => this.send(NODE_ID.window, ACTION.navigate, this.current()));
  }

  /** The path under the app that the page's URL names now. */
  current() {
    const pathname = this.win.location.pathname;
    if (pathname !== this.base && !pathname.startsWith(`${this.base}/`)) return "";
    return pathname.slice(this.base.length).split("/").filter(Boolean).join("/");
  }

  /** The window was drawn, or its `path` changed: the URL says so. */
  show(path, history) {
    if (typeof path !== "string") return;
    if (this.opened !== null) {
      const opened = this.opened;
      this.opened = null;
      if (opened !== "" && decoded(opened) !== decoded(path)) {
        // A URL of a place opened: the server goes there, and its answer names it.
        this.send(NODE_ID.window, ACTION.navigate, opened);
        return;
      }
    }
    if (decoded(this.current()) === decoded(path) && this.win.location.pathname.startsWith(this.base)) return;
    const url = this.base + (path ? `/${path}` : "") + this.win.location.search;
    if (history === "push") this.win.history.pushState(null, "", url);
    else this.win.history.replaceState(null, "", url);
  }
}
