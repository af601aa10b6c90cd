// What a window remembers across reloads (sessionStorage, per app): its session id, the sequence
// numbers it has applied, the last action ref it used and the access token; what the page URL brings (`?open=`, `?token=`);
// whether this window is a duplicated tab of another live window holding the same session; and the
// browser profile's device id (localStorage, shared by every window of the profile).
import { CHANNEL, CHANNEL_MSG, DEVICE_KEY, QUERY, STORAGE, TIMING } from "./protocol.js";

const SESSION_PATTERN = /^[0-9a-fA-F]{32}$/;
const DEVICE_PATTERN = /^[0-9a-f]{32}$/;

/** The page's localStorage, or null where it is unavailable (blocked, or no such thing). */
export function localStore(win) {
  try { return win.localStorage ?? null; } catch { return null; }
}

let pageDevice = null; // the id this page made: kept for the page's life if it cannot be stored

/**
 * The browser profile's device id, sent in every `hello`: 32 lowercase hex digits, made once with
 * crypto.getRandomValues and kept in localStorage, so every window and tab of the profile sends the
 * same. Without a usable localStorage, one per page load.
 */
export function deviceID(storage) {
  try {
    const stored = storage?.getItem(DEVICE_KEY);
    if (stored && DEVICE_PATTERN.test(stored)) return stored;
  } catch { /* unreadable: make one */ }
  pageDevice = pageDevice ?? randomHex(16);
  try { storage?.setItem(DEVICE_KEY, pageDevice); } catch { /* private mode: this page keeps it */ }
  return pageDevice;
}

/** `bytes` random bytes as lowercase hex. */
function randomHex(bytes) {
  const values = new Uint8Array(bytes);
  if (globalThis.crypto?.getRandomValues) globalThis.crypto.getRandomValues(values);
  else for (let i = 0; i < bytes; i += 1) values[i] = Math.floor(Math.random() * 256);
  return Array.from(values, (b) => b.toString(16).padStart(2, "0")).join("");
}

export class WindowMemory {
  constructor(app, storage) {
    this.app = app;
    this.storage = storage;
  }

  /** The stored session id, if it is well-formed (32 hex digits). */
  get session() {
    const value = this.load(STORAGE.session(this.app));
    return value && SESSION_PATTERN.test(value) ? value : null;
  }

  set session(value) {
    if (value) this.store(STORAGE.session(this.app), value);
    else this.remove(STORAGE.session(this.app));
  }

  /** The last applied sequence numbers, `{app: number}`, or null. */
  get seq() {
    const text = this.load(STORAGE.seq(this.app));
    if (!text) return null;
    try {
      const value = JSON.parse(text);
      return value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length > 0 ? value : null;
    } catch {
      return null;
    }
  }

  set seq(value) {
    if (value && typeof value === "object") this.store(STORAGE.seq(this.app), JSON.stringify(value));
    else this.remove(STORAGE.seq(this.app));
  }

  get token() {
    return this.load(STORAGE.token(this.app));
  }

  /** The last action `ref` this window used: refs grow over the session's life, reloads included. */
  get lastRef() {
    const value = Number(this.load(STORAGE.ref(this.app)));
    return Number.isSafeInteger(value) && value > 0 ? value : 0;
  }

  set lastRef(value) {
    this.store(STORAGE.ref(this.app), String(value));
  }

  /** Forgets the session and what was applied (the token stays). */
  forget() {
    this.session = null;
    this.seq = null;
  }

  /**
   * Reads `?open=` and `?token=` from the page URL, stores the token, and takes both out of the
   * address bar so a reload does not reuse the one-time token. Returns the open token or null.
   */
  readURL(win) {
    const url = new URL(win.location.href);
    const params = url.searchParams;
    const open = params.get(QUERY.open) || null;
    const token = params.get(QUERY.token);
    if (token) this.store(STORAGE.token(this.app), token);
    if (params.has(QUERY.open) || params.has(QUERY.token)) {
      params.delete(QUERY.open);
      params.delete(QUERY.token);
      win.history.replaceState(win.history.state, "", url.pathname + url.search + url.hash);
    }
    return open;
  }

  load(key) {
    try { return this.storage.getItem(key); } catch { return null; }
  }

  store(key, value) {
    try { this.storage.setItem(key, value); } catch { /* private mode: keep going without */ }
  }

  remove(key) {
    try { this.storage.removeItem(key); } catch { /* ignore */ }
  }
}

/**
 * Finds duplicated tabs. A duplicated tab (and a window.open'ed one) starts with a copy of its
 * opener's sessionStorage, so it would claim the same session. Before connecting, a window that
 * found a stored session asks on a BroadcastChannel whether a live window owns it; the owner
 * answers within TIMING.duplicateProbe ms, and the newcomer then connects as a new window.
 */
export class DuplicateGuard {
  constructor(win, app) {
    this.instance = Math.random().toString(36).slice(2);
    this.owned = null; // the session this window was welcomed with
    this.probe = null;
    this.channel = typeof win.BroadcastChannel === "function" ? new win.BroadcastChannel(CHANNEL(app)) : null;
    if (this.channel) this.channel.onmessage = (event) => this.received(event.data || {});
  }

  /** This window was welcomed with `session`: answer for it from now on. */
  own(session) {
    this.owned = session;
  }

  /** Calls `done(duplicate)` once it knows whether another live window holds `session`. */
  check(session, done) {
    if (!this.channel || !session) {
      done(false);
      return;
    }
    const finish = (duplicate) => {
      if (!this.probe) return;
      clearTimeout(this.probe.timer);
      this.probe = null;
      done(duplicate);
    };
    this.probe = { session, finish, timer: setTimeout(() => finish(false), TIMING.duplicateProbe) };
    this.channel.postMessage({ type: CHANNEL_MSG.who, session, from: this.instance });
  }

  received(data) {
    if (data.type === CHANNEL_MSG.who && data.from !== this.instance && this.owned && data.session === this.owned) {
      this.channel.postMessage({ type: CHANNEL_MSG.mine, session: data.session, to: data.from });
    } else if (data.type === CHANNEL_MSG.mine && data.to === this.instance && this.probe && data.session === this.probe.session) {
      this.probe.finish(true);
    }
  }
}
