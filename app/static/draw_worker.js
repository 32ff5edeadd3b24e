// Drawing work kept off the page's main thread, so a long thread's drawing never costs the
// reader a frame: a chart's ECharts option made an SVG string (ECharts' server-side mode needs
// no DOM) and SQL laid out by sql-formatter and coloured by highlight.js. A classic worker: the
// page posts {id, kind, scripts, ...} and gets {id, ...the result} or {id, error} back.
/* global echarts, hljs, sqlFormatter */

const loaded = new Set(); // the scripts already imported

function load(scripts) {
  for (const script of scripts) {
    if (loaded.has(script)) continue;
    importScripts(script);
    loaded.add(script);
  }
  if (self.echarts && !self.measuring) {
    // Text widths from an offscreen canvas: ECharts' own measure needs a document.
    self.measuring = new OffscreenCanvas(1, 1).getContext("2d");
    echarts.setPlatformAPI({
      measureText(text, font) {
        self.measuring.font = font || "12px sans-serif";
        return self.measuring.measureText(text);
      },
    });
  }
}

function chartSvg({ option, width, height }) {
  const chart = echarts.init(null, null, { renderer: "svg", ssr: true, width, height });
  try {
    chart.setOption({ ...option, animation: false });
    return { svg: chart.renderToSVGString() };
  } finally {
    chart.dispose();
  }
}

function sqlHtml({ sql }) {
  let formatted;
  try {
    formatted = sqlFormatter.format(sql, { language: "sql", keywordCase: "upper" });
  } catch {
    return { formatted: null }; // a statement the formatter does not know: the page lays it out
  }
  return { formatted, html: hljs.highlight(formatted, { language: "sql", ignoreIllegals: true }).value };
}

const KINDS = { chart: chartSvg, sql: sqlHtml };

self.onmessage = (event) => {
  const { id, kind, scripts } = event.data;
  try {
    load(scripts);
    self.postMessage({ id, ...KINDS[kind](event.data) });
  } catch (error) {
    self.postMessage({ id, error: String(error) });
  }
};
