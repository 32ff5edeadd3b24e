// A chart as a picture: its SVG is made in a worker (draw_worker.js) and shown as an <img>,
// so the page's main thread neither runs ECharts nor gets ECharts' wheel and mouse handlers
// (each cost a 50–90 ms frame on a slow phone when a scroll passed over a live chart).
// Where no worker can be made (a host page's policy), `svgOf` answers null and the caller
// draws a live chart instead.

import { offThread } from "./offthread.js";

/** Return a Promise of `option` drawn as an SVG string of `width`×`height` (null: draw live). */
export async function svgOf(option, width, height) {
  const drawn = await offThread("chart", { option, width, height }, ["vendor/echarts/echarts.min.js"]);
  return drawn?.svg ?? null;
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
