// A turn's chart: the ECharts option the service chose (ECharts loads with the first chart and
// draws once the chart scrolls into view); its type, measure and axis can be switched, it can be
// saved as a PNG, and its data is there as a table for screen readers.

import {
  chartDataTable,
  chartHelps,
  optionData,
  optionFromRecords,
  pickableColumns,
  withSecondAxis,
} from "./chart_choice.js";
import { label, t } from "./i18n.js";
import { loadLibrary, whenVisible } from "./lazy.js";

const charts = new Set(); // every chart on the page, resized with the window
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

/**
 * Return a chart view for `option` (null when none, or when a chart would not help `records`);
 * `partial` = {shown, total} or null.
 */
export function chartView(option, partial, records = null) {
  if (!option || !chartHelps(option, records)) return null;
  const view = document.createElement("div");
  view.className = "chart-view";
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
  let chart = null;
  // The option for the pickers' choice: the service's own until a person picks something else.
  const current = () => {
    const picked = measure.value !== ALL || (axis.isConnected && axis.value !== shown.axisName);
    if (!picked) return option;
    const chosen = measure.value === ALL ? shown.series.map((s) => s.name).filter((n) => measures.includes(n)) : [measure.value];
    return optionFromRecords(records, axis.isConnected ? axis.value : shown.axisName, chosen.length ? chosen : measures);
  };
  const draw = () => {
    const base = current();
    const next = type.value === initial && type.value !== "pie" && base === option
      ? withSecondAxis(option)
      : optionAs(base, type.value);
    const fresh = chartDataTable(base, t("chartData"));
    table.replaceWith(fresh);
    table = fresh;
    if (!window.echarts) return;
    chart ??= window.echarts.init(box, null, { renderer: "canvas" });
    // No entry animation: it repaints for a second, on every chart a long thread draws.
    chart.setOption({ ...next, animation: false }, true);
  };
  // ECharts (loaded on the first chart) measures its box: draw once the view is on screen.
  whenVisible(box, async () => {
    if (!(await loadLibrary("echarts"))) return;
    draw();
    charts.add(chart);
  });
  for (const select of [type, measure, axis]) select.addEventListener("change", draw);
  save.addEventListener("click", () => {
    if (!chart) return;
    const link = document.createElement("a");
    link.href = chart.getDataURL({ type: "png", pixelRatio: 2, backgroundColor: "#fff" });
    link.download = "chart.png";
    link.click();
  });
  return view;
}

window.addEventListener("resize", () => {
  for (const chart of charts) chart?.resize();
});
