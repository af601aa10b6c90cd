// The connection: one WebSocket per window to /ws/<app>. Says hello (with the browser profile's
// device id), keeps the session, sequence numbers and access token in sessionStorage, reconnects
// with jittered backoff, reports visibility, pings, numbers actions (refs grow over the session's
// life), sends again those a lost connection left unanswered, says how many of the user's actions
// wait for a connection, and passes on each welcome's server time (the clock deadlines are read
// on). The transport is injectable (a WebSocket-like object), so a harness can drive it.
import { ACTION, CONN, F, MAX_MESSAGE_SIZE, MSG, TIMING, VERSION, WS_PATH } from "./protocol.js";
import { DuplicateGuard, WindowMemory, deviceID, localStore } from "./session.js";
const OPEN = 1; // WebSocket.OPEN

export class Socket {
  /**
   * @param {object} o
   * @param {string} o.app
   * @param {(url: string) => WebSocket} [o.createTransport]
   * @param {(message: object) => void} o.onMessage  render, patch, resumed, ack, error, open
   * @param {(state: string, offline: boolean, waiting: number) => void} [o.onState]  `waiting`: as the getter, 0 when connected
   * @param {(time: number) => void} [o.onServerTime]  each welcome's `time`: the server's clock as it sent it
   * @param {(node: string) => boolean} [o.canSend]  whether a queued action's node is still shown
   * @param {Window} [o.win]
   * @param {Storage} [o.storage]  where the session lives; default sessionStorage
   * @param {Storage|null} [o.deviceStorage]  where the device id lives; default localStorage (null: none, one per page load)
   */
  constructor(o) {
    this.app = o.app;
    this.win = o.win ?? window;
    this.doc = this.win.document;
    this.memory = new WindowMemory(o.app, o.storage ?? this.win.sessionStorage);
    this.deviceStorage = o.deviceStorage === undefined ? localStore(this.win) : o.deviceStorage;
    this.guard = new DuplicateGuard(this.win, o.app);
    this.createTransport = o.createTransport ?? ((url) => new this.win.WebSocket(url));
    this.onMessage = o.onMessage;
    this.onState = o.onState ?? (() => {});
    this.onServerTime = o.onServerTime ?? (() => {});
    this.canSend = o.canSend ?? (() => true);
    this.transport = null;
    this.generation = 0;
    this.attempt = 0;
    this.everConnected = false;
    this.synced = false; // the server drew (or resumed) this window on this connection
    this.route = null; // in memory only: after a reload nothing is on screen, so the server must draw
    this.openToken = null;
    this.nextRef = this.memory.lastRef;
    this.pending = new Map(); // ref -> {node, name, message, sent, resend}, in ref order
    this.queue = []; // actions made while not connected
    this.retryAfter = null;
    this.timers = { reconnect: 0, ping: 0, silence: 0 };
    this.lastHeard = 0;
    this.lastVisibility = null;
    this.started = false;
    this.notBefore = 0;
  }

  // MARK: - Lifecycle

  /** Reads the page URL, finds out whether this is a duplicated tab, then connects. */
  start() {
    this.openToken = this.memory.readURL(this.win);
    this.listen();
    if (this.openToken) {
      // A window opened with a one-time token is a new window, whatever sessionStorage it inherited.
      this.memory.forget();
      this.connect();
      return;
    }
    this.guard.check(this.memory.session, (duplicate) => {
      // Another live window holds this session: this one is a duplicate and becomes a new window.
      if (duplicate) this.memory.forget();
      this.connect();
    });
  }

  listen() {
    const win = this.win;
    const report = () => {
      this.sendVisibility();
      // Background tabs throttle timers: a window coming back reconnects at once.
      if (this.doc.visibilityState === "visible" && this.started && !this.transport && Date.now() >= this.notBefore) this.reconnectNow();
    };
    this.doc.addEventListener("visibilitychange", report);
    win.addEventListener("focus", report);
    win.addEventListener("blur", report);
    win.addEventListener("pagehide", (event) => {
      if (event.persisted === false) this.send({ [F.type]: MSG.closing });
    });
    win.addEventListener("pageshow", (event) => {
      if (event.persisted && !this.isOpen) this.reconnectNow();
    });
    win.addEventListener("online", () => { if (this.started && !this.isOpen && Date.now() >= this.notBefore) this.reconnectNow(); });
    win.addEventListener("offline", () => this.reportState());
  }

  // MARK: - Connecting

  get url() {
    const loc = this.win.location;
    const scheme = loc.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${loc.host}${WS_PATH}${encodeURIComponent(this.app)}`;
  }

  get isOpen() {
    return this.transport !== null && this.transport.readyState === OPEN;
  }

  connect() {
    this.started = true;
    clearTimeout(this.timers.reconnect);
    this.generation += 1;
    const generation = this.generation;
    this.synced = false;
    this.welcomed = false;
    this.reportState();
    let transport;
    try {
      transport = this.createTransport(this.url);
    } catch (error) {
      console.warn("SceneSync: cannot connect", error);
      this.scheduleReconnect();
      return;
    }
    this.transport = transport;
    const current = () => generation === this.generation;
    transport.onopen = () => { if (current()) this.opened(); };
    transport.onmessage = (event) => { if (current()) this.received(event.data); };
    transport.onclose = () => { if (current()) this.closed(); };
    transport.onerror = () => { if (current()) this.closed(); };
  }

  opened() {
    this.lastHeard = Date.now();
    this.sendHello();
    clearInterval(this.timers.ping);
    this.timers.ping = setInterval(() => this.send({ [F.type]: MSG.ping }), TIMING.pingInterval);
    clearInterval(this.timers.silence);
    this.timers.silence = setInterval(() => {
      if (Date.now() - this.lastHeard > TIMING.silenceTimeout) this.drop();
    }, TIMING.pingInterval);
  }

  sendHello() {
    const hello = { [F.type]: MSG.hello };
    const session = this.memory.session;
    if (session) hello[F.session] = session;
    const seq = this.memory.seq;
    if (seq) hello[F.seq] = seq;
    if (this.route !== null && session) hello[F.route] = this.route;
    if (this.openToken) hello[F.open] = this.openToken;
    const token = this.memory.token;
    if (token) hello[F.token] = token;
    // Read again for every hello: the first window of a profile to make one wins, and the rest follow.
    hello[F.device] = deviceID(this.deviceStorage);
    Object.assign(hello, this.visibility());
    this.lastVisibility = JSON.stringify(this.visibility());
    this.send(hello);
  }

  /** The connection ended or failed: stop the timers and try again later. */
  closed() {
    this.generation += 1; // a close after an error (or the other way round) is one event
    this.transport = null;
    this.synced = false;
    clearInterval(this.timers.ping);
    clearInterval(this.timers.silence);
    this.markUnanswered();
    this.scheduleReconnect();
  }

  /**
   * Actions sent on the connection that ended and not answered may or may not have been done: the
   * next connection sends them again, under the same refs, and the server does each at most once.
   */
  markUnanswered() {
    for (const entry of this.pending.values()) {
      if (entry.sent) {
        entry.sent = false;
        entry.resend = true;
      }
    }
  }

  /** Closes a connection that went quiet; `closed` reconnects. */
  drop() {
    const transport = this.transport;
    this.generation += 1; // ignore whatever the old transport still says
    try { transport?.close(); } catch { /* already closed */ }
    this.closed();
  }

  scheduleReconnect() {
    clearTimeout(this.timers.reconnect);
    let delay;
    if (this.retryAfter !== null) {
      delay = this.retryAfter + Math.random() * 250;
      this.retryAfter = null;
      this.notBefore = Date.now() + delay; // the server asked for this much quiet
    } else {
      const base = Math.min(TIMING.backoffMax, TIMING.backoffInitial * 2 ** this.attempt);
      // Full jitter: the windows of a node that died reconnect spread over the whole interval,
      // not in one instant, and each retry's interval doubles.
      delay = Math.random() * base;
      this.attempt += 1;
    }
    this.reportState();
    this.timers.reconnect = setTimeout(() => this.connect(), delay);
  }

  reconnectNow() {
    clearTimeout(this.timers.reconnect);
    if (this.transport) {
      const transport = this.transport;
      this.generation += 1;
      this.transport = null;
      try { transport.close(); } catch { /* already closed */ }
    }
    this.markUnanswered();
    this.connect();
  }

  /** The window is out of step: reconnect without `route`, so the server draws it afresh. */
  resync() {
    this.route = null;
    this.reconnectNow();
  }

  reportState() {
    let state;
    if (this.synced || (this.isOpen && this.welcomed)) state = CONN.connected;
    else state = this.everConnected ? CONN.reconnecting : CONN.connecting;
    const offline = this.win.navigator && this.win.navigator.onLine === false;
    this.onState(state, offline && state !== CONN.connected, state === CONN.connected ? 0 : this.waiting);
  }

  /**
   * What the user did that waits for a connection: actions made while disconnected, and those a
   * lost connection left unanswered. Drafts (text still being typed) are not counted.
   */
  get waiting() {
    let count = this.queue.filter((m) => m[F.name] !== ACTION.draft).length;
    for (const entry of this.pending.values()) if (entry.resend && entry.name !== ACTION.draft) count += 1;
    return count;
  }

  // MARK: - Messages

  received(data) {
    this.lastHeard = Date.now();
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      console.warn("SceneSync: a message that is not JSON");
      return;
    }
    if (message[F.v] !== undefined && message[F.v] !== VERSION) {
      console.warn(`SceneSync: protocol version ${message[F.v]}, expected ${VERSION}`);
    }
    switch (message[F.type]) {
      case MSG.welcome:
        this.welcomed = true;
        this.everConnected = true;
        this.attempt = 0;
        this.openToken = null; // used
        if (typeof message[F.session] === "string") {
          this.memory.session = message[F.session];
          this.guard.own(message[F.session]);
        }
        this.onServerTime(message[F.time]);
        this.reportState();
        break;
      case MSG.shutdown:
        this.retryAfter = Math.max(0, Number(message[F.retryAfter]) || 0);
        this.synced = false;
        this.welcomed = false;
        this.reportState();
        // The server closes the socket; if it does not, stop listening to it after the delay anyway.
        clearTimeout(this.timers.reconnect);
        this.timers.reconnect = setTimeout(() => this.drop(), this.retryAfter + 1000);
        break;
      case MSG.pong:
        break;
      default:
        this.onMessage(message);
    }
  }

  /** A render arrived and was drawn. */
  rendered(seq, route) {
    this.noteSeq(seq);
    this.route = typeof route === "string" ? route : null;
    this.markSynced();
  }

  /** The server resumed the window without drawing. */
  resumed(seq) {
    this.noteSeq(seq);
    this.markSynced();
  }

  /** A patch was applied. */
  noteSeq(seq) {
    if (seq && typeof seq === "object") this.memory.seq = seq;
  }

  markSynced() {
    const first = !this.synced;
    this.synced = true;
    this.everConnected = true;
    this.attempt = 0;
    if (first) this.reportState();
    // First what a lost connection left unanswered, in order, whether or not its node is still
    // shown: the server answers one done already with `ack`, and refuses the others it cannot do.
    for (const entry of this.pending.values()) {
      if (!entry.resend) continue;
      if (!this.send({ ...entry.message, [F.resend]: true })) return;
      entry.resend = false;
      entry.sent = true;
    }
    const queued = this.queue;
    this.queue = [];
    for (const message of queued) {
      const entry = this.pending.get(message[F.ref]);
      if (this.canSend(message[F.node]) && this.send(message)) {
        if (entry) entry.sent = true;
      } else {
        this.pending.delete(message[F.ref]);
      }
    }
  }

  /**
   * Sends what the user did; returns its `ref`, or null when the message is too large to send.
   * Made while disconnected, it waits for the next connection (a draft replaces an older draft).
   */
  action(node, name, value) {
    const ref = Math.max(this.nextRef, this.memory.lastRef) + 1;
    const message = { [F.type]: MSG.action, [F.ref]: ref, [F.node]: node, [F.name]: name };
    if (value !== undefined) message[F.value] = value;
    if (byteLength(this.encode(message)) > MAX_MESSAGE_SIZE) return null;
    this.nextRef = ref;
    this.memory.lastRef = ref;
    const entry = { node, name, message, sent: false, resend: false };
    this.pending.set(ref, entry);
    if (this.pending.size > 500) this.pending.delete(this.pending.keys().next().value);
    if (this.isOpen && this.synced && this.send(message)) {
      entry.sent = true;
    } else {
      if (name === ACTION.draft) {
        const older = this.queue.filter((m) => m[F.node] === node && m[F.name] === name);
        for (const m of older) this.pending.delete(m[F.ref]);
        this.queue = this.queue.filter((m) => !older.includes(m));
      }
      this.queue.push(message);
      this.reportState();
    }
    return ref;
  }

  /** The action `ref` was handled or refused: what it was about. */
  settle(ref) {
    const entry = this.pending.get(ref);
    this.pending.delete(ref);
    return entry ? { node: entry.node, name: entry.name } : undefined;
  }

  visibility() {
    return {
      [F.visible]: this.doc.visibilityState === "visible",
      [F.focused]: typeof this.doc.hasFocus === "function" ? this.doc.hasFocus() : true,
    };
  }

  sendVisibility() {
    const state = this.visibility();
    const key = JSON.stringify(state);
    if (key === this.lastVisibility) return;
    if (this.send({ [F.type]: MSG.visibility, ...state })) this.lastVisibility = key;
  }

  encode(message) {
    return JSON.stringify({ ...message, [F.v]: VERSION });
  }

  send(message) {
    if (!this.isOpen) return false;
    try {
      this.transport.send(this.encode(message));
      return true;
    } catch (error) {
      console.warn("SceneSync: send failed", error);
      return false;
    }
  }
}

const encoder = new TextEncoder();
const byteLength = (text) => (text.length * 3 <= MAX_MESSAGE_SIZE ? text.length : encoder.encode(text).length);
