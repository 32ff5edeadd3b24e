// Draws a chart's ECharts option as an SVG string off the page's main thread (ECharts'
// server-side mode needs no DOM), so a long thread's charts never cost the reader a frame.
// A classic worker: the page posts {id, script, option, width, height}, gets {id, svg} back.
/* global echarts */

function loadEcharts(script) {
  if (self.echarts) return;
  importScripts(script);
  // Text widths from an offscreen canvas: ECharts' own measure needs a document.
  const context = new OffscreenCanvas(1, 1).getContext("2d");
  echarts.setPlatformAPI({
    measureText(text, font) {
      context.font = font || "12px sans-serif";
      return context.measureText(text);
    },
  });
}

function svgOf(option, width, height) {
  const chart = echarts.init(null, null, { renderer: "svg", ssr: true, width, height });
  try {
    chart.setOption({ ...option, animation: false });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

self.onmessage = (event) => {
  const { id, script, option, width, height } = event.data;
  try {
    loadEcharts(script);
    self.postMessage({ id, svg: svgOf(option, width, height) });
  } catch (error) {
    self.postMessage({ id, error: String(error) });
  }
};
