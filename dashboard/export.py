"""Exports that say what they show: results as CSV or JSON, and a panel's graph as an image.

Results (the CLI's formats, :func:`core.report.results_csv`) carry the scenario
and offered rate with every row, and the JSON the meaning, unit and better way of
every figure (:data:`core.figures.FIGURES`). A panel's map or topology exported as
PNG or SVG carries a caption above the graph (scheduler, scenario, offered rate and
the panel's key figures, by the names the page uses) and its legend below: the
server writes the caption (:func:`caption`), the browser draws the graph with it
(cytoscape's own ``png``/``svg``, composed on a canvas or in an SVG document).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from dash import Input, Output, State, callback, clientside_callback, dcc, html
from dash.exceptions import PreventUpdate

from core import report
from core.figures import FIGURES
from core.registry import SCHEDULERS
from dashboard import ids
from dashboard.colors import TRAFFIC_COLORS, component_colors
from dashboard.compute import Evaluation, canonical, evaluate, scenario_of
from dashboard.jobs import panel_key, panel_ready
from dashboard.ranking import simulated_p99, standing

IMAGE_REQUEST = "export-image-request"  # the caption and legend of the image to draw
IMAGE_DONE = "export-image-done"  # what the browser drew (file name), for tests
CONTEXT_KEYS = ("scenario", "offered")  # the columns results carry before their own


def results_csv(doc: Mapping[str, Any]) -> str:
    """One line per result row; nested fields flattened (``latency_ms.p99``, ``cpu_util.n1``),
    after the scenario's name and the offered rate when ``doc`` names them.

    The columns and values of ``slotscope simulate --csv`` (:func:`core.report.results_csv`).

    >>> skipped = {"scheduler": "optimal", "rate": 10.0, "replica": 0, "status": "refused",
    ...            "message": "too big", "placement_ms": 0.0}
    >>> print(results_csv({"results": [skipped]}).strip())
    scheduler,rate,replica,status,message,placement_ms
    optimal,10.0,0,refused,too big,0.0
    >>> print(results_csv({"scenario": "wc", "offered": 10.0, "results": [skipped]}).strip())
    scenario,offered,scheduler,rate,replica,status,message,placement_ms
    wc,10.0,optimal,10.0,0,refused,too big,0.0
    """
    text = report.results_csv(doc.get("results", []))
    context = [k for k in CONTEXT_KEYS if k in doc]
    if not context:
        return text
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for i, line in enumerate(csv.reader(io.StringIO(text))):
        writer.writerow([*(context if i == 0 else [doc[k] for k in context]), *line])
    return out.getvalue()


def legend_of_figures() -> dict[str, dict[str, str | None]]:
    """Every figure a result row holds: label, unit, which way is better, what it is."""
    return {
        f.key: {"label": f.label, "unit": f.unit, "better": f.better, "description": f.description}
        for f in FIGURES.values()
        if f.where != "analysis"
    }


def results_json(doc: Mapping[str, Any]) -> str:
    """The results with the figures' legend (:func:`legend_of_figures`) after them."""
    return json.dumps({**doc, "figures": legend_of_figures()}, indent=2, sort_keys=False)


def results_doc(results: Mapping[str, Any]) -> dict[str, Any]:
    """What a results download holds: the scenario's name and document, the offered rate
    (tuples/s per spout component), the engine and the rows (the results store's)."""
    text = results.get("scenario")
    scenario = json.loads(text) if isinstance(text, str) and text else None
    name = (scenario or {}).get("name", "")
    return {
        "scenario": name,
        "offered": results.get("offered"),
        "engine": results.get("engine", {}),
        "results": results.get("results", []),
        "scenario_doc": scenario,
    }


@dataclass(frozen=True)
class LegendItem:
    """One legend entry of an exported graph: how it is drawn, its colour and its words."""

    label: str
    color: str
    mark: str = "dot"  # "dot", "line", "dash" or "box"


def legend(ev: Evaluation, graph: str) -> list[LegendItem]:
    """The legend of a panel's map (components, traffic, idle slot) or topology graph."""
    order = list(ev.graph.order) if ev.graph is not None else []
    items = [LegendItem(c, color) for c, color in component_colors(order).items()]
    if graph == "map":
        items += [
            LegendItem("inter-node traffic", TRAFFIC_COLORS["inter_node"], "line"),
            LegendItem("inter-worker, same node", TRAFFIC_COLORS["inter_worker"], "dash"),
            LegendItem("idle slot", "#d1d5db", "box"),
        ]
    return items


def _number(value: float | None, spec: str) -> str:
    return "—" if value is None or not math.isfinite(value) else format(value, spec)


def caption(
    ev: Evaluation,
    scenario_name: str,
    nodes_total: int,
    rate: float,
    asked: Mapping[str, int] | None = None,
    p99_ms: float | None = None,
) -> list[str]:
    """The lines above an exported graph: who placed it, what, at which rate, and the
    panel's key figures by their page names (R* with its headroom, the simulated p99 or
    the latency estimate, nodes and slots used, the bottleneck), then why it is shown apart
    when it is."""
    spec = SCHEDULERS.get(ev.scheduler)
    who = f"{ev.scheduler}: {spec.name}" if spec is not None else ev.scheduler
    lines = [who, f"Scenario {scenario_name} · {rate:,.0f} tuples/s offered per spout"]
    s = standing(ev, asked, p99_ms)
    if s.max_rate is None and s.nodes_used is None:
        return [*lines, ev.error or "No placement."]
    r_star, p99, est = (
        FIGURES["max_rate"],
        FIGURES["latency_ms.p99"],
        FIGURES["latency_estimate_ms"],
    )
    headroom = f" ({s.max_rate / rate:.1f}x offered)" if s.max_rate and rate else ""
    latency = (
        f"{p99.short} {p99.format(p99_ms)} {p99.unit} (simulated)"
        if p99_ms is not None
        else f"{est.short} {_number(s.latency_ms, ',.2f')} {est.unit}"
    )
    figures = [
        f"{r_star.short} {r_star.format(s.max_rate)} {r_star.unit}{headroom}",
        latency,
        f"nodes used {_number(s.nodes_used, ',.0f')} of {nodes_total}",
        f"slots used {_number(s.slots_used, ',.0f')}",
    ]
    if s.bottleneck:
        figures.append(f"bottleneck {s.bottleneck}")
    lines.append(" · ".join(figures))
    apart = s.apart()
    if apart:
        lines.append(f"Shown apart in the ranking: {apart}")
    return lines


def image_request(
    scenario_data: Mapping[str, Any],
    scheduler: str,
    graph: str,
    fmt: str,
    params: Mapping[str, Mapping[str, Any]] | None,
    rate: float,
    results: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What the browser needs to draw an exported image: the panel's graph (its scheduler
    and ``graph``, "map" or "dag"), the format, file name, caption lines and legend."""
    text = canonical(scenario_data)
    scenario = scenario_of(text)
    kind = ids.MAP_TYPE if graph == "map" else ids.DAG_TYPE
    request = {
        "sched": scheduler,
        "graph": graph,
        "element": json.dumps({"sched": scheduler, "type": kind}, separators=(",", ":")),
        "fmt": fmt,
        "filename": f"slotscope-{scheduler}-{graph}.{fmt}",
        "lines": [scheduler, f"Scenario {scenario.name}"],
        "legend": [],
    }
    if not panel_ready(text, scheduler, params, rate):
        return request | {"lines": [*request["lines"], "Still being placed."]}
    ev = evaluate(text, scheduler, panel_key(text, scheduler, params, rate)[2], rate)
    asked = {c.id: c.parallelism for c in scenario.topology.components}
    p99 = simulated_p99(results, text, scheduler, rate)
    lines = caption(ev, scenario.name, len(scenario.cluster.nodes), rate, asked, p99)
    return request | {"lines": lines, "legend": [asdict(item) for item in legend(ev, graph)]}


# A panel's export menu: (graph, format, label) of each item.
EXPORT_ITEMS = (
    ("map", "png", "Placement PNG"),
    ("map", "svg", "Placement SVG"),
    ("dag", "png", "Topology PNG"),
    ("dag", "svg", "Topology SVG"),
)
# A panel's export item clicked (its scheduler, graph and format; set by assets/menus.js:
# the menus are display-only HTML, not nine panels' worth of buttons for dash-renderer).
EXPORT_CHOICE = "export-choice"


def stores() -> html.Div:
    """The image export's stores, for the page's layout."""
    return html.Div(
        [dcc.Store(id=EXPORT_CHOICE), dcc.Store(id=IMAGE_REQUEST), dcc.Store(id=IMAGE_DONE)],
        hidden=True,
    )


@callback(
    Output(IMAGE_REQUEST, "data"),
    Input(EXPORT_CHOICE, "data"),
    State(ids.SCENARIO_STORE, "data"),
    State(ids.PARAMS_STORE, "data"),
    State(ids.RATE, "value"),
    State(ids.RESULTS_STORE, "data"),
    prevent_initial_call=True,
)
def ask_image(choice, scenario_data, params, rate, results):
    """A click on a panel's export item: the caption and legend for the browser to draw."""
    if not isinstance(choice, dict) or not scenario_data or not rate or float(rate) <= 0:
        raise PreventUpdate
    sched, graph, fmt = (choice.get(k) for k in ("sched", "graph", "fmt"))
    if sched not in SCHEDULERS or (graph, fmt) not in {(g, f) for g, f, _ in EXPORT_ITEMS}:
        raise PreventUpdate
    return image_request(scenario_data, sched, graph, fmt, params, float(rate), results)


# Draws the requested panel graph with its caption above and its legend below, and
# downloads it: PNG on a canvas, SVG as one document holding cytoscape's SVG.
clientside_callback(
    """
    function (req) {
        const nothing = window.dash_clientside.no_update;
        if (!req) { return nothing; }
        const box = document.getElementById(req.element);
        const cy = box && box._cyreg && box._cyreg.cy;
        if (!cy) { return nothing; }
        const font = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
        const lineH = 22, pad = 16, legendH = 26;
        const headH = pad + lineH * req.lines.length + 8;
        const save = function (blob) {
            const a = document.createElement("a");
            a.href = URL.createObjectURL(blob);
            a.download = req.filename;
            document.body.appendChild(a);
            a.click();
            setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
        };
        const legendRows = function (width) {
            const rows = [[]];
            let x = pad;
            for (const item of req.legend) {
                const w = 34 + 7.5 * item.label.length;
                if (x + w > width - pad && rows[rows.length - 1].length) { rows.push([]); x = pad; }
                rows[rows.length - 1].push({item: item, x: x});
                x += w;
            }
            return req.legend.length ? rows : [];
        };
        const esc = function (s) {
            return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
        };
        if (req.fmt === "svg") {
            let inner = cy.svg({full: true, bg: "#ffffff"});
            inner = inner.replace(/^<\\?xml[^>]*>\\s*/, "").replace(/<!DOCTYPE[^>]*>\\s*/, "");
            const gw = parseFloat((inner.match(/width="([0-9.]+)/) || [0, 600])[1]);
            const gh = parseFloat((inner.match(/height="([0-9.]+)/) || [0, 400])[1]);
            const width = Math.max(gw, 900);
            const rows = legendRows(width);
            const height = headH + gh + pad + rows.length * legendH + pad;
            let out = '<svg xmlns="http://www.w3.org/2000/svg" '
                + 'xmlns:xlink="http://www.w3.org/1999/xlink" width="' + width
                + '" height="' + height + '" viewBox="0 0 ' + width + " " + height + '">'
                + '<rect width="100%" height="100%" fill="#ffffff"/>';
            req.lines.forEach(function (line, i) {
                out += '<text x="' + pad + '" y="' + (pad + lineH * (i + 0.75))
                    + '" font-family=\\'' + font + '\\' font-size="' + (i ? 14 : 17)
                    + '" font-weight="' + (i ? 400 : 700) + '" fill="#111827">'
                    + esc(line) + "</text>";
            });
            out += '<g transform="translate(0,' + headH + ')">' + inner + "</g>";
            rows.forEach(function (row, r) {
                const y = headH + gh + pad + r * legendH + 13;
                for (const cell of row) {
                    const c = cell.item.color, x = cell.x;
                    if (cell.item.mark === "dot") {
                        out += '<circle cx="' + (x + 7) + '" cy="' + y + '" r="6" fill="'
                            + c + '"/>';
                    } else if (cell.item.mark === "box") {
                        out += '<rect x="' + x + '" y="' + (y - 6) + '" width="14" height="12" '
                            + 'fill="#ffffff" stroke="' + c + '"/>';
                    } else {
                        out += '<line x1="' + x + '" y1="' + y + '" x2="' + (x + 18) + '" y2="' + y
                            + '" stroke="' + c + '" stroke-width="3"'
                            + (cell.item.mark === "dash" ? ' stroke-dasharray="4 3"' : "") + "/>";
                    }
                    out += '<text x="' + (x + 24) + '" y="' + (y + 5) + '" font-family=\\''
                        + font + '\\' font-size="13" fill="#374151">' + esc(cell.item.label)
                        + "</text>";
                }
            });
            out += "</svg>";
            save(new Blob([out], {type: "image/svg+xml;charset=utf-8"}));
            return req.filename;
        }
        const scale = 2;
        const uri = cy.png({full: true, scale: scale, bg: "#ffffff", output: "base64uri"});
        const img = new Image();
        img.onload = function () {
            const gw = img.width / scale, gh = img.height / scale;
            const width = Math.max(gw, 900);
            const rows = legendRows(width);
            const height = headH + gh + pad + rows.length * legendH + pad;
            const canvas = document.createElement("canvas");
            canvas.width = width * scale;
            canvas.height = height * scale;
            const g = canvas.getContext("2d");
            g.scale(scale, scale);
            g.fillStyle = "#ffffff";
            g.fillRect(0, 0, width, height);
            req.lines.forEach(function (line, i) {
                g.font = (i ? "400 14px " : "700 17px ") + font;
                g.fillStyle = "#111827";
                g.fillText(line, pad, pad + lineH * (i + 0.75));
            });
            g.drawImage(img, 0, headH, gw, gh);
            rows.forEach(function (row, r) {
                const y = headH + gh + pad + r * legendH + 13;
                for (const cell of row) {
                    const c = cell.item.color, x = cell.x;
                    g.strokeStyle = c;
                    g.fillStyle = c;
                    g.setLineDash(cell.item.mark === "dash" ? [4, 3] : []);
                    if (cell.item.mark === "dot") {
                        g.beginPath(); g.arc(x + 7, y, 6, 0, 2 * Math.PI); g.fill();
                    } else if (cell.item.mark === "box") {
                        g.lineWidth = 1; g.strokeRect(x, y - 6, 14, 12);
                    } else {
                        g.lineWidth = 3; g.beginPath(); g.moveTo(x, y); g.lineTo(x + 18, y);
                        g.stroke();
                    }
                    g.setLineDash([]);
                    g.font = "400 13px " + font;
                    g.fillStyle = "#374151";
                    g.fillText(cell.item.label, x + 24, y + 5);
                }
            });
            canvas.toBlob(save, "image/png");
        };
        img.src = uri;
        return req.filename;
    }
    """,
    Output(IMAGE_DONE, "data"),
    Input(IMAGE_REQUEST, "data"),
    prevent_initial_call=True,
)


def download_doc(results: Mapping[str, Any], fmt: str) -> dict[str, str]:
    """A results download (``dcc.Download`` data) in ``fmt``: "csv" (the scenario's name
    and the offered rate on every line) or "json" (the scenario document too, and the
    figures' legend)."""
    doc = results_doc(results)
    if fmt == "csv":
        flat = {k: v for k, v in doc.items() if k != "scenario_doc"}
        return {
            "content": results_csv(flat),
            "filename": "slotscope-results.csv",
            "type": "text/csv",
        }
    return {
        "content": results_json(doc),
        "filename": "slotscope-results.json",
        "type": "application/json",
    }
