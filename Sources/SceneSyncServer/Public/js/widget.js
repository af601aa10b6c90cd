// The widget page, /<app>/widget: the summary last seen, from this browser's storage, in the
// first frame; then the server's, fetched with If-None-Match and drawn only if it changed; then
// every change, live (Server-Sent Events). While the server cannot be reached, the summary stays,
// marked stale with its age. A classic script, not a module, so that it runs before the first paint.
(function () {
  "use strict";
  const app = location.pathname.split("/")[1];
  const key = "scenesync.widget." + app;
  const title = document.getElementById("sw-title");
  const list = document.getElementById("sw-lines");
  const status = document.getElementById("sw-status");
  let shown = null; // {summary, etag, confirmedAt}
  let stale = false;

  function read() {
    try {
      const cached = JSON.parse(localStorage.getItem(key));
      return cached && cached.summary && Array.isArray(cached.summary.lines) ? cached : null;
    } catch (_) {
      return null;
    }
  }

  function keep(entry) {
    try { localStorage.setItem(key, JSON.stringify(entry)); } catch (_) { /* storage full or off */ }
  }

  function value(line) {
    if (typeof line.time !== "number") return line.text;
    const at = new Date(line.time).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    return line.text + " at " + at;
  }

  function age(milliseconds) {
    const seconds = Math.max(0, Math.floor(milliseconds / 1000));
    if (seconds < 60) return seconds + " s";
    if (seconds < 3600) return Math.floor(seconds / 60) + " min";
    if (seconds < 86400) return Math.floor(seconds / 3600) + " h";
    return Math.floor(seconds / 86400) + " d";
  }

  // Redraws in place: the same elements, only their text changes, so the layout does not move.
  function draw() {
    if (!shown) return;
    const summary = shown.summary;
    document.title = summary.title;
    title.textContent = summary.title;
    while (list.children.length > summary.lines.length * 2) list.lastElementChild.remove();
    summary.lines.forEach(function (line, index) {
      let label = list.children[index * 2];
      let text = list.children[index * 2 + 1];
      if (!label) {
        label = list.appendChild(document.createElement("dt"));
        text = list.appendChild(document.createElement("dd"));
      }
      label.textContent = line.label;
      text.textContent = value(line);
    });
    document.body.dataset.state = stale ? "stale" : "current";
    drawStatus();
    document.body.dataset.drawings = String(Number(document.body.dataset.drawings || 0) + 1);
  }

  function drawStatus() {
    status.textContent = stale && shown ? "Offline · from " + age(Date.now() - shown.confirmedAt) + " ago" : "";
  }

  function show(summary, etag) {
    const changed = !shown || shown.etag !== etag || stale;
    shown = { summary: summary, etag: etag, confirmedAt: Date.now() };
    keep(shown);
    stale = false;
    if (changed) draw();
  }

  function markStale() {
    if (stale || !shown) return;
    stale = true;
    draw();
  }

  shown = read();
  draw();

  const headers = shown ? { "If-None-Match": shown.etag } : {};
  fetch("/" + app + "/widget.json", { headers: headers, cache: "no-store" })
    .then(function (response) {
      if (response.status === 304 && shown) {
        shown.confirmedAt = Date.now();
        keep(shown);
        return null;
      }
      if (!response.ok) throw new Error("status " + response.status);
      const etag = response.headers.get("ETag") || "";
      return response.json().then(function (summary) { show(summary, etag); });
    })
    .catch(markStale)
    .finally(follow);

  function follow() {
    const events = new EventSource("/" + app + "/widget/events");
    events.addEventListener("summary", function (event) {
      try { show(JSON.parse(event.data), event.lastEventId); } catch (_) { /* not a summary */ }
    });
    // EventSource reconnects by itself; until it does, what is shown is stale.
    events.addEventListener("error", markStale);
  }

  setInterval(function () { if (stale) drawStatus(); }, 15000);
})();
