// The page's one drawing worker (draw_worker.js) and its requests: a chart as SVG, SQL laid out
// and coloured. Where no worker can be made (a host page's policy), `offThread` answers null
// and the caller does the work on the main thread as before.

const here = (path) => new URL(path, import.meta.url).href;
const pending = new Map(); // request id → resolve
let worker; // undefined: not tried; null: none can be made
let nextId = 0;

function finish(id, result) {
  pending.get(id)?.(result);
  pending.delete(id);
}

function makeWorker() {
  try {
    return new Worker(here("draw_worker.js"));
  } catch {
    // Another site's page may not start a worker from this service's address: a blob of
    // its own that loads the worker's script (when the site's policy allows blob: workers).
    try {
      const source = `importScripts(${JSON.stringify(here("draw_worker.js"))});`;
      return new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
    } catch {
      return null;
    }
  }
}

function drawWorker() {
  if (worker !== undefined) return worker;
  worker = makeWorker();
  if (!worker) return null;
  worker.onmessage = ({ data }) => finish(data.id, data.error ? null : data);
  worker.onerror = (event) => {
    event.preventDefault();
    worker = null;
    for (const id of [...pending.keys()]) finish(id, null);
  };
  return worker;
}

/**
 * Return a Promise of the worker's answer to `kind` with `payload` (null: do it here), the
 * vendored `scripts` (paths under static/) loaded there first.
 */
export function offThread(kind, payload, scripts) {
  const drawer = drawWorker();
  if (!drawer) return Promise.resolve(null);
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    drawer.postMessage({ id, kind, scripts: scripts.map(here), ...payload });
  });
}
