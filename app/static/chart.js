// The answer's chart: the ECharts option the service chose, drawn with the vendored ECharts.

let chart = null;

/** Show `block` and draw `option` in `container`; without an option, hide the block. */
export function drawChart(block, container, option) {
  clearChart(block);
  if (!option || !window.echarts) return false;
  block.hidden = false; // ECharts measures the container when it starts: show it first
  chart = window.echarts.init(container, null, { renderer: "canvas" });
  chart.setOption(option);
  return true;
}

/** Remove the chart and hide its block. */
export function clearChart(block) {
  chart?.dispose();
  chart = null;
  block.hidden = true;
}

window.addEventListener("resize", () => chart?.resize());
