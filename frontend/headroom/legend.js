/**
 * Legends on narrow charts: a wrapping HTML list under the chart instead of
 * Chart.js's canvas legend, which cuts long labels off at the canvas edge
 * (scenario names such as "2008 R2 · SMB 2.1 · high performance power · read"
 * on a phone).
 *
 * Load after headroom/charts.js; it registers the Chart.js plugin
 * `headroomNarrowLegend`. A chart whose legend is shown and whose canvas is
 * narrower than NARROW px when it is made gets the list instead: the same
 * items (the chart's own `legend.labels.generateLabels`, so custom colours
 * stay), each a button that hides or shows its dataset, as the canvas legend
 * does. Headroom.downloadPng draws the list's items under the image
 * (`Headroom.legendItems(chart)`), so a PNG made on a phone keeps its legend.
 */
(function (global) {
  "use strict";

  const NARROW = 560;

  /** The items a narrow chart lists (visible or not), or [] when it has the canvas legend. */
  function legendItems(chart) {
    if (!chart.$narrowLegend) {
      return [];
    }
    const labels = chart.options.plugins.legend.labels;
    const items = labels.generateLabels(chart);
    return labels.filter ? items.filter(function (item) { return labels.filter(item, chart.data); }) : items;
  }

  function swatch(item) {
    const box = document.createElement("span");
    box.className = "chart-legend-swatch";
    box.style.background = typeof item.fillStyle === "string" ? item.fillStyle : "transparent";
    box.style.borderColor = typeof item.strokeStyle === "string" ? item.strokeStyle : "currentColor";
    if (item.lineDash && item.lineDash.length) {
      box.style.borderStyle = "dashed";
    }
    box.setAttribute("aria-hidden", "true");
    return box;
  }

  function toggle(chart, item) {
    if (item.datasetIndex !== undefined) {
      chart.setDatasetVisibility(item.datasetIndex, !chart.isDatasetVisible(item.datasetIndex));
    } else if (item.index !== undefined) {
      chart.toggleDataVisibility(item.index);
    }
    chart.update();
  }

  function render(chart) {
    let list = chart.$narrowLegend;
    if (!list.isConnected) {
      const box = chart.canvas.parentNode;
      box.parentNode.insertBefore(list, box.nextSibling);
    }
    list.replaceChildren.apply(list, legendItems(chart).map(function (item) {
      const button = document.createElement("button");
      button.type = "button";
      button.setAttribute("aria-pressed", item.hidden ? "false" : "true");
      button.title = (item.hidden ? "Show " : "Hide ") + item.text;
      button.append(swatch(item), document.createTextNode(item.text));
      button.addEventListener("click", function () { toggle(chart, item); });
      const entry = document.createElement("li");
      entry.append(button);
      return entry;
    }));
  }

  const plugin = {
    id: "headroomNarrowLegend",
    afterInit: function (chart) {
      const legend = chart.options.plugins && chart.options.plugins.legend;
      if (!legend || !legend.display || chart.width >= NARROW || !chart.canvas.parentNode) {
        return;
      }
      legend.display = false; // written through to the chart's own options
      const list = document.createElement("ul");
      list.className = "chart-legend";
      list.setAttribute("aria-label", "Legend");
      chart.$narrowLegend = list;
    },
    afterUpdate: function (chart) {
      if (chart.$narrowLegend) {
        render(chart);
      }
    },
    afterDestroy: function (chart) {
      if (chart.$narrowLegend) {
        chart.$narrowLegend.remove();
        chart.$narrowLegend = null;
      }
    },
  };

  if (typeof global.Chart === "function") {
    global.Chart.register(plugin);
  }
  global.Headroom = global.Headroom || {};
  global.Headroom.legendItems = legendItems;
})(typeof window !== "undefined" ? window : this);
