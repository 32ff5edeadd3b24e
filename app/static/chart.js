// A turn's chart: the ECharts option the service chose, drawn with the vendored ECharts; its
// type can be switched (bar, line, pie with percentages) and saved as a PNG.

import { label, t } from "./i18n.js";

const charts = new Set(); // every chart on the page, resized with the window
const TYPES = ["bar", "line", "pie"];

function categoriesOf(option) {
  const series = option.series ?? [];
  if (series[0]?.type === "pie") {
    const data = series[0].data ?? [];
    return { names: data.map((d) => d.name), series: [{ name: series[0].name, data: data.map((d) => d.value) }] };
  }
  return { names: option.xAxis?.data ?? [], series: series.map((s) => ({ name: s.name, data: s.data })) };
}

/** Return `option` drawn as `type`; a pie shows each slice's percentage. */
export function optionAs(option, type) {
  const { names, series } = categoriesOf(option);
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
  return {
    tooltip: { trigger: "axis" },
    legend: { data: series.map((s) => s.name) },
    grid: { containLabel: true, left: 8, right: 8 },
    xAxis: { type: "category", name: option.xAxis?.name, data: names },
    yAxis: { type: "value" },
    series: series.map((s) => ({ name: s.name, type, data: s.data })),
  };
}

/** Return a chart view for `option` (null when none); `partial` = {shown, total} or null. */
export function chartView(option, partial) {
  if (!option || !window.echarts) return null;
  const view = document.createElement("div");
  view.className = "chart-view";
  const bar = document.createElement("div");
  bar.className = "chart-bar";
  const select = document.createElement("select");
  select.dataset.testid = "chart-type";
  select.dataset.i18nAriaLabel = "chartType";
  select.setAttribute("aria-label", t("chartType"));
  const initial = option.series?.[0]?.type ?? "bar";
  for (const type of TYPES) {
    const choice = document.createElement("option");
    choice.value = type;
    label(choice, `chart${type[0].toUpperCase()}${type.slice(1)}`);
    select.append(choice);
  }
  select.value = TYPES.includes(initial) ? initial : "bar";
  const save = document.createElement("button");
  save.type = "button";
  save.className = "small";
  save.dataset.testid = "save-png";
  label(save, "savePng");
  bar.append(select, save);
  const box = document.createElement("div");
  box.className = "chart";
  box.dataset.testid = "chart";
  view.append(bar, box);
  if (partial) {
    const note = document.createElement("p");
    note.className = "note";
    note.dataset.testid = "chart-partial";
    label(note, "partialChart", partial);
    view.append(note);
  }
  let chart = null;
  const draw = (type) => {
    chart ??= window.echarts.init(box, null, { renderer: "canvas" });
    chart.setOption(type === initial && type !== "pie" ? option : optionAs(option, type), true);
  };
  // ECharts measures its box when it starts: draw once the view is in the page.
  requestAnimationFrame(() => {
    draw(select.value);
    charts.add(chart);
  });
  select.addEventListener("change", () => draw(select.value));
  save.addEventListener("click", () => {
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
