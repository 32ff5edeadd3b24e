// A chart as a picture: its SVG is made in a worker (chart_worker.js) and shown as an <img>,
// so the page's main thread neither runs ECharts nor gets ECharts' wheel and mouse handlers
// (each cost a 50–90 ms frame on a slow phone when a scroll passed over a live chart).
// Where no worker can be made (a host page's policy), `svgOf` answers null and the caller
// draws a live chart instead.

const here = (path) => new URL(path, import.meta.url).href;
const pending = new Map(); // request id → resolve
let worker; // undefined: not tried; null: none can be made
let nextId = 0;

function finish(id, svg) {
  pending.get(id)?.(svg);
  pending.delete(id);
}

function failAll() {
  worker = null;
  for (const id of [...pending.keys()]) finish(id, null);
}

function makeWorker() {
  try {
    return new Worker(here("chart_worker.js"));
  } catch {
    // Another site's page may not start a worker from this service's address: a blob of
    // its own that loads the worker's script (when the site's policy allows blob: workers).
    try {
      const source = `importScripts(${JSON.stringify(here("chart_worker.js"))});`;
      return new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
    } catch {
      return null;
    }
  }
}

function chartWorker() {
  if (worker !== undefined) return worker;
  worker = makeWorker();
  if (!worker) return null;
  worker.onmessage = ({ data }) => finish(data.id, data.error ? null : data.svg);
  worker.onerror = (event) => {
    event.preventDefault();
    failAll();
  };
  return worker;
}

/** Return a Promise of `option` drawn as an SVG string of `width`×`height` (null: draw live). */
export function svgOf(option, width, height) {
  const drawer = chartWorker();
  if (!drawer) return Promise.resolve(null);
  const id = nextId++;
  const script = here("vendor/echarts/echarts.min.js");
  return new Promise((resolve) => {
    pending.set(id, resolve);
    drawer.postMessage({ id, script, option, width, height });
  });
}

/** Return an <img> of `svg`, decoded before it is shown (no decoding inside a scroll's frame). */
export async function svgImage(svg, width, height) {
  const image = new Image(width, height);
  image.alt = ""; // the chart's data table says the same in words
  image.draggable = false;
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  try {
    await image.decode();
  } catch {
    return null;
  }
  return image;
}

/** Return `image` as a PNG data URL at twice its size, on white. */
export function pngOf(image) {
  const canvas = document.createElement("canvas");
  canvas.width = image.width * 2;
  canvas.height = image.height * 2;
  const context = canvas.getContext("2d");
  context.fillStyle = "#fff";
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(image, 0, 0, canvas.width, canvas.height);
  return canvas.toDataURL("image/png");
}
