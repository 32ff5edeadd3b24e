// The heavy libraries (ECharts, sql-formatter, highlight.js) are loaded on the first
// answer that needs them, not before the page starts; charts and grids are drawn only once
// they scroll into view, so a long thread does not draw what nobody looks at.

const LIBRARIES = {
  echarts: { script: "vendor/echarts/echarts.min.js", global: "echarts" },
  sqlFormatter: { script: "vendor/sql-formatter/sql-formatter.min.js", global: "sqlFormatter" },
  hljs: {
    script: "vendor/highlight/highlight.min.js",
    style: "vendor/highlight/github.min.css",
    global: "hljs",
  },
};
const loading = new Map(); // name → Promise of the library's global
// Paths are this module's neighbours: right on the page and on another site's (<sql-agent-chat>).
const here = (path) => new URL(path, import.meta.url).href;

function addStyle(href) {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = here(href);
  // Before the page's own style, so app.css still wins where both set a property.
  const own = document.querySelector('link[href$="app.css"]');
  if (own) own.before(link);
  else document.head.append(link);
}

const styled = new Set(); // libraries whose style sheet is on the page

/** Put library `name`'s style sheet on the page (once), without its script. */
export function loadStyle(name) {
  const library = LIBRARIES[name];
  if (!library.style || styled.has(name)) return;
  styled.add(name);
  addStyle(library.style);
}

/** Return a Promise of library `name`'s global (one load however many ask; null if it fails). */
export function loadLibrary(name) {
  const library = LIBRARIES[name];
  if (window[library.global]) return Promise.resolve(window[library.global]);
  if (!loading.has(name)) {
    loading.set(
      name,
      new Promise((resolve) => {
        loadStyle(name);
        const script = document.createElement("script");
        script.src = here(library.script);
        script.async = true;
        script.onload = () => resolve(window[library.global] ?? null);
        script.onerror = () => resolve(null); // the page shows the plain text instead
        document.head.append(script);
      }),
    );
  }
  return loading.get(name);
}

/** Return the library's global if it is already loaded (else undefined). */
export function loaded(name) {
  return window[LIBRARIES[name].global];
}

let observer = null;
const queue = []; // drawings due, one per idle moment so a scroll's frames stay short
let draining = false;

async function drawNext() {
  // One drawing per idle callback, each finished (its library loaded) before the next: a
  // library's arrival must not draw every waiting chart in the one frame.
  const next = queue.shift();
  try {
    await next?.();
  } finally {
    if (queue.length) requestIdle(drawNext);
    else draining = false;
  }
}

// Charts and grids still off screen are drawn too, newest first, one per idle moment when
// nothing else waits: a reader who then scrolls finds them drawn (a draw during the scroll
// costs a long frame on a slow phone).
const offScreen = [];
let backgroundOn = false;

function drawOffScreen(deadline) {
  if (draining || deadline.timeRemaining() < 8) {
    requestIdle(drawOffScreen, false);
    return;
  }
  const el = offScreen.pop();
  const todo = el && waiting.get(el);
  if (todo && el.isConnected) {
    observer.unobserve(el);
    waiting.delete(el);
    drawWhenIdle(todo);
  }
  if (offScreen.length) requestIdle(drawOffScreen, false);
  else backgroundOn = false;
}

function requestIdle(callback, urgent = true) {
  if (!urgent && "requestIdleCallback" in window) {
    window.requestIdleCallback(callback);
    return;
  }
  if ("requestIdleCallback" in window) window.requestIdleCallback(callback, { timeout: 500 });
  else setTimeout(() => callback({ timeRemaining: () => 16 }), 16);
}

function drawWhenIdle(draw) {
  queue.push(draw);
  if (draining) return;
  draining = true;
  requestIdle(drawNext);
}
const waiting = new WeakMap(); // element → what to do when it first shows

/** Call `draw()` once `el` comes near the screen (at once where IntersectionObserver is missing). */
export function whenVisible(el, draw) {
  if (!("IntersectionObserver" in window)) {
    requestAnimationFrame(draw);
    return;
  }
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        observer.unobserve(entry.target);
        const todo = waiting.get(entry.target);
        waiting.delete(entry.target);
        if (todo) drawWhenIdle(todo);
      }
    },
    { rootMargin: "800px 0px" }, // start a screen or so before it shows
  );
  waiting.set(el, draw);
  observer.observe(el);
  offScreen.push(el);
  if (!backgroundOn) {
    backgroundOn = true;
    requestIdle(drawOffScreen, false);
  }
}
