// Which chart helps: none for a dump of rows or an id axis; a second axis when two measures
// differ by orders of magnitude (orders ≈ 300 beside sales ≈ 300,000 would draw a flat line);
// the option rebuilt for another measure or axis; the chart's data as a table for reading.

import { newTable } from "./records.js";

const ID_COLUMN = /^(id|.*_id|id_.*|.*编号)$/i;
const SECOND_AXIS_RATIO = 20; // measures this far apart in size get an axis each
const DUMP_EXTRA_COLUMNS = 2; // this many columns neither axis nor measure: a list, not a chart

function rowValues(columns, row) {
  return columns.map((column, index) => (Array.isArray(row) ? row[index] : row?.[column]));
}

/** The categories and measures of an option: {axisName, names, series: [{name, data}]}. */
export function optionData(option) {
  const series = option?.series ?? [];
  if (series[0]?.type === "pie") {
    const data = series[0].data ?? [];
    return {
      axisName: "",
      names: data.map((d) => d.name),
      series: [{ name: series[0].name, data: data.map((d) => d.value) }],
    };
  }
  const axis = Array.isArray(option?.xAxis) ? option.xAxis[0] : option?.xAxis;
  return {
    axisName: axis?.name ?? "",
    names: axis?.data ?? [],
    series: series.map((s) => ({ name: s.name, data: s.data ?? [] })),
  };
}

/** Whether `option` is worth drawing for `records` (not a row dump, not an id axis). */
export function chartHelps(option, records) {
  const { axisName, series } = optionData(option);
  if (ID_COLUMN.test(String(axisName))) return false;
  if (series.some((s) => ID_COLUMN.test(String(s.name)))) return false;
  const columns = records?.columns ?? [];
  return columns.length - series.length - 1 < DUMP_EXTRA_COLUMNS;
}

function magnitude(data) {
  return Math.max(0, ...data.map((v) => Math.abs(Number(v)) || 0));
}

/** Give measures of very different sizes an axis each (bar and line options only). */
export function withSecondAxis(option) {
  const series = option?.series ?? [];
  if (series.length < 2 || series.some((s) => s.type === "pie")) return option;
  const sizes = series.map((s) => magnitude(s.data ?? []));
  const largest = Math.max(...sizes);
  const small = sizes.map((size) => size > 0 && largest / size >= SECOND_AXIS_RATIO);
  if (!small.some(Boolean)) return option;
  const names = (index) => series.filter((_, i) => small[i] === Boolean(index)).map((s) => s.name);
  return {
    ...option,
    legend: option.legend ?? { data: series.map((s) => s.name) },
    yAxis: [
      { type: "value", name: names(0).join(" / ") },
      { type: "value", name: names(1).join(" / "), splitLine: { show: false } },
    ],
    series: series.map((s, i) => ({ ...s, yAxisIndex: small[i] ? 1 : 0 })),
  };
}

/** The columns a person may pick as the axis (not numbers) and as measures (numbers). */
export function pickableColumns(records) {
  const columns = records?.columns ?? [];
  const rows = records?.rows ?? [];
  const numeric = columns.map((_, i) =>
    rows.length > 0 && rows.every((r) => {
      const v = rowValues(columns, r)[i];
      return v === null || typeof v === "number";
    }),
  );
  return {
    axes: columns.filter((c, i) => !numeric[i]),
    measures: columns.filter((c, i) => numeric[i] && !ID_COLUMN.test(c)),
  };
}

/** Build a bar/line option from the rows: `axis` as categories, `measures` as series. */
export function optionFromRecords(records, axis, measures, type = "bar") {
  const columns = records.columns;
  const rows = records.rows ?? [];
  const at = (name) => columns.indexOf(name);
  return withSecondAxis({
    tooltip: { trigger: "axis" },
    legend: { data: measures },
    grid: { containLabel: true, left: 8, right: 8 },
    xAxis: { type: "category", name: axis, data: rows.map((r) => rowValues(columns, r)[at(axis)]) },
    yAxis: { type: "value" },
    series: measures.map((name) => ({
      name,
      type,
      data: rows.map((r) => rowValues(columns, r)[at(name)]),
    })),
  });
}

/** The chart's data as a table (folded), for screen readers and anyone who wants the numbers. */
export function chartDataTable(option, caption) {
  const { axisName, names, series } = optionData(option);
  const details = document.createElement("details");
  details.className = "chart-data";
  details.dataset.testid = "chart-data";
  const summary = document.createElement("summary");
  summary.textContent = caption;
  const columns = [axisName || "", ...series.map((s) => s.name ?? "")];
  const rows = names.map((name, i) => [name, ...series.map((s) => s.data[i])]);
  details.append(summary, newTable(columns, rows, "chart-data-table"));
  return details;
}
