// A turn's chart: the ECharts option the service chose, drawn as a picture in a worker once it
// comes near the screen (chart_image.js) and made a live ECharts chart when clicked; its type,
// measure and axis can be switched, it can be saved as a PNG, and its data is there as a table
// for screen readers.

import {
  chartDataTable,
  chartHelps,
  optionData,
  optionFromRecords,
  pickableColumns,
  withSecondAxis,
} from "./chart_choice.js";
import { label, t } from "./i18n.js";
import { pngOf, svgImage, svgOf } from "./chart_image.js";
import { loadLibrary, whenVisible } from "./lazy.js";

const charts = new Set(); // every drawn chart's redraw, called after the window resizes
const TYPES = ["bar", "line", "pie"];
const ALL = ""; // the measure picker's "all measures"

/** Return `option` drawn as `type`; a pie shows each slice's percentage. */
export function optionAs(option, type) {
  const { names, series } = optionData(option);
  if (type === "pie") {
    const first = series[0] ?? { name: "", data: [] };
    return {
      tooltip: { trigger: "item", formatter: "{b}: {c} ({d}%)" },
      legend: { type: "scroll", bottom: 0 },
      series: [{
        name: first.name,
        type: "pie",
        radius: "60%",
        label: { formatter: "{b}: {d}%" },
        data: names.map((name, i) => ({ name, value: first.data[i] })),
      }],
    };
  }
  return withSecondAxis({
    tooltip: { trigger: "axis" },
    legend: { data: series.map((s) => s.name) },
    grid: { containLabel: true, left: 8, right: 8 },
    xAxis: { type: "category", name: option.xAxis?.name, data: names },
    yAxis: { type: "value" },
    series: series.map((s) => ({ name: s.name, type, data: s.data })),
  });
}

function picker(testId, key, choices) {
  const select = document.createElement("select");
  select.dataset.testid = testId;
  select.dataset.i18nAriaLabel = key;
  select.setAttribute("aria-label", t(key));
  for (const [value, text, textKey] of choices) {
    const choice = document.createElement("option");
    choice.value = value;
    if (textKey) label(choice, textKey);
    else choice.textContent = text;
    select.append(choice);
  }
  return select;
}

/** Return the bar over a chart: its type, measure and axis pickers and its save button. */
function chartControls(option, records) {
  const bar = document.createElement("div");
  bar.className = "chart-bar";
  const initial = option.series?.[0]?.type ?? "bar";
  const type = picker("chart-type", "chartType", TYPES.map((name) => [name, "", `chart${name[0].toUpperCase()}${name.slice(1)}`]));
  type.value = TYPES.includes(initial) ? initial : "bar";
  bar.append(type);
  // Measure and axis pickers, when the rows offer a choice.
  const { axes, measures } = records?.rows?.length ? pickableColumns(records) : { axes: [], measures: [] };
  const shown = optionData(option);
  const measure = picker("chart-measure", "chartMeasure", [[ALL, "", "chartAll"], ...measures.map((m) => [m, m])]);
  const axis = picker("chart-axis", "chartAxis", axes.map((a) => [a, a]));
  if (measures.length > 1) bar.append(measure);
  if (axes.length > 1 && axes.includes(shown.axisName)) {
    axis.value = shown.axisName;
    bar.append(axis);
  }
  const save = document.createElement("button");
  save.type = "button";
  save.className = "small";
  save.dataset.testid = "save-png";
  label(save, "savePng");
  bar.append(save);
  return { bar, type, measure, axis, save, initial, shown, measures };
}

/**
 * Return a chart view for `option` (null when none, or when a chart would not help `records`);
 * `partial` = {shown, total} or null.
 */
export function chartView(option, partial, records = null) {
  if (!option || !chartHelps(option, records)) return null;
  const view = document.createElement("div");
  view.className = "chart-view";
  const { bar, type, measure, axis, save, initial, shown, measures } = chartControls(option, records);
  const box = document.createElement("div");
  box.className = "chart";
  box.dataset.testid = "chart";
  box.setAttribute("aria-hidden", "true"); // the table below says the same in words
  view.append(bar, box);
  if (partial) {
    const note = document.createElement("p");
    note.className = "note";
    note.dataset.testid = "chart-partial";
    label(note, "partialChart", partial);
    view.append(note);
  }
  let table = chartDataTable(option, t("chartData"));
  view.append(table);
  let chart = null; // the live ECharts chart, once a person clicks the picture
  let image = null; // the chart as a picture (chart_image.js), until then
  // The option for the pickers' choice: the service's own until a person picks something else.
  const current = () => {
    const picked = measure.value !== ALL || (axis.isConnected && axis.value !== shown.axisName);
    if (!picked) return option;
    const chosen = measure.value === ALL ? shown.series.map((s) => s.name).filter((n) => measures.includes(n)) : [measure.value];
    return optionFromRecords(records, axis.isConnected ? axis.value : shown.axisName, chosen.length ? chosen : measures);
  };
  const chosenOption = () => {
    const base = current();
    const fresh = chartDataTable(base, t("chartData"));
    table.replaceWith(fresh);
    table = fresh;
    return type.value === initial && type.value !== "pie" && base === option
      ? withSecondAxis(option)
      : optionAs(base, type.value);
  };
  const goLive = async (next) => {
    if (!(await loadLibrary("echarts"))) return;
    image = null;
    if (!chart) {
      box.replaceChildren();
      chart = window.echarts.init(box, null, { renderer: "canvas" });
      charts.add(() => chart.resize());
    }
    // No entry animation: it repaints for a second, on every chart a long thread draws.
    chart.setOption({ ...next, animation: false }, true);
  };
  const draw = async () => {
    const next = chosenOption();
    if (chart) return goLive(next);
    const width = box.clientWidth;
    const height = box.clientHeight;
    const svg = await svgOf(next, width, height);
    const picture = svg && (await svgImage(svg, width, height));
    if (chart) return goLive(chosenOption()); // a click made it live meanwhile
    if (!picture) return goLive(next);
    image = picture;
    box.replaceChildren(picture);
  };
  // Drawn once the view comes near the screen; a click or tap makes it a live chart (values
  // on hover, a legend to switch series).
  whenVisible(box, async () => {
    await draw();
    if (!chart) charts.add(() => !chart && box.isConnected && box.clientWidth !== image?.width && draw());
  });
  box.dataset.i18nTitle = "chartExplore";
  box.title = t("chartExplore");
  box.addEventListener("click", () => chart || goLive(chosenOption()), { once: true });
  for (const select of [type, measure, axis]) select.addEventListener("change", draw);
  save.addEventListener("click", () => {
    const url = chart ? chart.getDataURL({ type: "png", pixelRatio: 2, backgroundColor: "#fff" })
      : image && pngOf(image);
    if (!url) return;
    const link = document.createElement("a");
    link.href = url;
    link.download = "chart.png";
    link.click();
  });
  return view;
}

// After a resize, each drawn chart again at its box's new width (once the resizing stops).
let resizing = 0;
window.addEventListener("resize", () => {
  clearTimeout(resizing);
  resizing = setTimeout(() => {
    for (const redraw of charts) redraw();
  }, 200);
});
