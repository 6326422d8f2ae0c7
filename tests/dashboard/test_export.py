"""Exports that say what they show: results with their scenario, rate and figures' legend;
a panel image's caption (scheduler, scenario, rate, key figures) and legend."""

from __future__ import annotations

import csv
import io
import json

import pytest
from dash.exceptions import PreventUpdate

from core.figures import FIGURES, Latency, Result, Traffic
from core.presets import preset_json
from dashboard import charts, ids
from dashboard.compute import canonical, evaluate
from dashboard.export import (
    ask_image,
    caption,
    download_doc,
    image_request,
    legend,
    results_csv,
    results_doc,
    results_json,
)
from dashboard.figures import empty_figure
from dashboard.ranking import standing


def _row(scheduler: str, p99: float) -> dict:
    lat, no = Latency(1.0, 1.5, p99, 1.2, 2 * p99), Traffic(0.0, 0.0, 0.0)
    result = Result(
        scheduler,
        100.0,
        0,
        420.0,
        42.0,
        500.0,
        False,
        "node a CPU",
        lat,
        2,
        3,
        {"a": 0.5},
        {"a": 256.0},
        no,
        no,
        0.7,
    )
    return result.to_json()


def _store() -> dict:
    data = preset_json("wordcount")
    return {
        "scenario": canonical(data),
        "offered": 100.0,
        "engine": {"master": "local[2]", "tasks": 2, "wall_s": 1.5},
        "results": [_row("even", 2.5), _row("lf", 3.0)],
    }


def test_the_results_csv_carries_the_scenario_and_offered_rate_on_every_line():
    download = download_doc(_store(), "csv")
    assert download["filename"] == "slotscope-results.csv"
    table = list(csv.reader(io.StringIO(download["content"])))
    assert table[0][:5] == ["scenario", "offered", "scheduler", "rate", "replica"]
    assert [line[:3] for line in table[1:]] == [
        ["wordcount", "100.0", "even"],
        ["wordcount", "100.0", "lf"],
    ]
    assert table[1][table[0].index("latency_ms.p99")] == "2.5"
    # without a scenario it is the CLI's CSV, unchanged
    assert results_csv({"results": [_row("even", 2.5)]}).startswith("scheduler,rate,replica,")


def test_the_results_json_carries_the_scenario_document_and_the_figures_legend():
    doc = json.loads(download_doc(_store(), "json")["content"])
    assert doc["scenario"] == "wordcount" and doc["offered"] == 100.0
    assert doc["scenario_doc"]["topology"]["name"] == preset_json("wordcount")["topology"]["name"]
    assert [r["scheduler"] for r in doc["results"]] == ["even", "lf"]
    legend = doc["figures"]
    assert legend["latency_ms.p99"] == {
        "label": "p99 latency",
        "unit": "ms",
        "better": "lower",
        "description": FIGURES["latency_ms.p99"].description,
    }
    assert "latency_estimate_ms" not in legend  # analytic only: never in a result row
    assert (
        json.loads(results_json({"results": []}))["figures"]["max_rate"]["label"] == "Max rate R*"
    )
    assert results_doc({"results": []})["scenario"] == ""


def _wordcount():
    data = preset_json("wordcount")
    text, rate = canonical(data), float(data["workload"]["rate"])
    asked = {c["id"]: c["parallelism"] for c in data["topology"]["components"]}
    return data, text, rate, asked


def test_a_panel_caption_names_scheduler_scenario_rate_and_the_panel_figures():
    data, text, rate, asked = _wordcount()
    ev = evaluate(text, "even", "{}", rate)
    s = standing(ev, asked)
    lines = caption(ev, "wordcount", 5, rate, asked)
    assert lines[0] == "even: Storm default (EvenScheduler)"
    assert lines[1] == f"Scenario wordcount · {rate:,.0f} tuples/s offered per spout"
    r_star = f"R* {s.max_rate:,.0f} tuples/s ({s.max_rate / rate:.1f}x offered)"
    assert lines[2].split(" · ") == [
        r_star,
        f"latency (est.) {s.latency_ms:,.2f} ms",
        f"nodes used {s.nodes_used} of 5",
        f"slots used {s.slots_used}",
        f"bottleneck {s.bottleneck}",
    ]
    assert len(lines) == 3  # even runs the topology as given: not shown apart
    simulated = caption(ev, "wordcount", 5, rate, asked, p99_ms=2.43)
    assert simulated[2].split(" · ")[1] == "p99 2.43 ms (simulated)"


def test_a_placement_shown_apart_says_why_in_its_caption():
    data, text, rate, asked = _wordcount()
    ev = evaluate(text, "hetero", "{}", rate)
    lines = caption(ev, "wordcount", 5, rate, asked)
    assert lines[-1] == f"Shown apart in the ranking: {standing(ev, asked).apart()}"
    assert lines[-1].startswith("Shown apart in the ranking: hetero raised the executors from 25")


def test_the_legend_of_a_map_and_of_a_topology():
    data, text, rate, _ = _wordcount()
    ev = evaluate(text, "even", "{}", rate)
    components = ["spout", "split", "count", "__acker"]
    assert [i.label for i in legend(ev, "dag")] == components
    labels = [(i.label, i.mark) for i in legend(ev, "map")]
    assert labels[:4] == [(c, "dot") for c in components]
    assert labels[4:] == [
        ("inter-node traffic", "line"),
        ("inter-worker, same node", "dash"),
        ("idle slot", "box"),
    ]


def test_an_image_request_names_the_graph_file_and_caption():
    data, text, rate, _ = _wordcount()
    request = image_request(data, "lf", "map", "png", {}, rate)
    assert request["filename"] == "slotscope-lf-map.png"
    assert json.loads(request["element"]) == ids.map_id("lf")
    assert request["lines"][0].startswith("lf: ")
    assert request["legend"][0] == {
        "label": "spout",
        "color": request["legend"][0]["color"],
        "mark": "dot",
    }


def test_a_menu_choice_asks_for_its_image_and_a_forged_one_for_none():
    data, _, rate, _ = _wordcount()
    choice = {"sched": "lf", "graph": "dag", "fmt": "svg", "at": 1}
    assert ask_image(choice, data, {}, rate, None)["filename"] == "slotscope-lf-dag.svg"
    for forged in ({**choice, "sched": "nope"}, {**choice, "fmt": "gif"}, "x", None):
        with pytest.raises(PreventUpdate):
            ask_image(forged, data, {}, rate, None)


def test_a_chart_export_is_named_after_scenario_and_chart_and_titled_with_the_scenario():
    card = charts._graph(ids.CHART_LATENCY, empty_figure(""), "wordcount")
    assert card.children.config["toImageButtonOptions"]["filename"] == "slotscope-wordcount-latency"
    fig = empty_figure("")
    fig.update_layout(title_text="Memory per node<br><span>worker heaps</span>")
    assert charts.signed(fig, "wordcount").layout.title.text.endswith(
        "worker heaps · scenario wordcount</span>"
    )
