"""The dashboard's memoised way into the core: each step once per scenario hash."""

from __future__ import annotations

import json
import multiprocessing

import pytest

from core.metrics import placement_metrics
from core.presets import preset
from core.registry import PAPER_SCHEDULERS, run_scheduler, with_observations
from core.simulator import MAX_OBSERVED_FLOWS, analyze, observe
from dashboard import compute


@pytest.fixture
def lf_diamond() -> tuple[str, float]:
    """A cold cache and the canonical text of lf-diamond, with its offered rate."""
    compute.clear_caches()
    sc = preset("lf-diamond")
    return compute.canonical(sc.to_json_dict()), sc.workload.rate


def test_a_scheduler_that_reads_no_observations_runs_once_for_every_rate(lf_diamond):
    text, rate = lf_diamond
    a = compute.evaluate(text, "lf", "{}", rate)
    b = compute.evaluate(text, "lf", "{}", 2 * rate)
    assert a.schedule is b.schedule and a.graph is b.graph
    assert compute.placed.cache_info().misses == 1
    assert b.analysis.rate == 2 * rate and a.analysis.rate == rate


def test_schedulers_that_keep_the_parallelism_share_one_graph(lf_diamond):
    text, rate = lf_diamond
    graphs = [compute.evaluate(text, s, "{}", rate).graph for s in ("even", "lf", "top-storm")]
    assert graphs[0] is graphs[1] is graphs[2]
    assert compute.graph_of.cache_info().misses == 1


def test_defaults_spelled_out_share_the_entry_of_no_parameters(lf_diamond):
    text, rate = lf_diamond
    a = compute.evaluate(text, "top-storm", "{}", rate)
    b = compute.evaluate(text, "top-storm", '{"alpha": 0.8}', rate)
    assert a.schedule is b.schedule
    assert compute.placed.cache_info().misses == 1


def test_a_bad_parameter_is_an_error_value_not_an_exception(lf_diamond):
    text, rate = lf_diamond
    ev = compute.evaluate(text, "top-storm", '{"alpha": 7}', rate)
    assert ev.schedule is None and "alpha" in ev.error


def test_aniello_online_observes_the_aniello_offline_panel_placement_once(lf_diamond):
    text, rate = lf_diamond
    offline = compute.evaluate(text, "aniello-offline", "{}", rate)
    online = compute.evaluate(text, "aniello-online", "{}", rate)
    compute.evaluate(text, "aniello-online", "{}", rate)
    # aniello-offline once (its panel, reused for the observations), aniello-online once
    assert compute.placed.cache_info().misses == 2
    sc = compute.scenario_of(text)
    expected = observe(sc, offline.schedule, rate)
    # the observations handed over as values (compute.MEASURED_RUNS), not as models
    got = compute.measured(text, rate, "aniello-online")
    assert got.flows == [(f.source, f.target, f.rate) for f in expected.traffic]
    assert got.executor_load_hz == expected.executor_load_hz
    assert got.node_cpu_util == expected.node_cpu_util
    assert compute.observed.cache_info().misses == 0  # no observed scenario built
    # the same placement a comparison at this rate gets
    alone = run_scheduler(with_observations(sc, rate, "aniello-offline"), "aniello-online")
    assert online.schedule.placement() == alone.placement()
    assert online.schedule.decisions == alone.decisions
    assert online.schedule.details == alone.details


@pytest.mark.parametrize("edit", ["parallelism", "cores"])
def test_aniello_online_on_20000_observed_flows_places_as_a_comparison(edit):
    """lf-star-x10 after an edit: the observations are cut at MAX_OBSERVED_FLOWS; the
    page's placement from values is the comparison's from models, decision for decision."""
    compute.clear_caches()
    data = preset("lf-star-x10").to_json_dict()
    if edit == "parallelism":
        data["topology"]["components"][1]["parallelism"] += 1
    else:
        data["cluster"]["nodes"][0]["cores"] -= 1
    text, rate = compute.canonical(data), float(data["workload"]["rate"])
    online = compute.evaluate(text, "aniello-online", "{}", rate).schedule
    assert len(compute.measured(text, rate, "aniello-online").flows) == MAX_OBSERVED_FLOWS
    sc = compute.scenario_of(text)
    alone = run_scheduler(with_observations(sc, rate, "aniello-offline"), "aniello-online")
    assert online.placement() == alone.placement()
    assert (online.decisions, online.details) == (alone.decisions, alone.details)


def test_aniello_online_reads_a_scenario_s_own_observations_as_they_are(lf_diamond):
    text, rate = lf_diamond
    data = json.loads(text)
    spout, bolt = data["topology"]["components"][0]["id"], data["topology"]["components"][1]["id"]
    data["observations"] = {"traffic": [{"from": f"{spout}#0", "to": f"{bolt}#0", "rate": 9.0}]}
    text = compute.canonical(data)
    online = compute.evaluate(text, "aniello-online", "{}", rate).schedule
    assert compute.measured.cache_info().misses == 0  # nothing simulated
    assert online.details["observed_pairs"] == 1
    alone = run_scheduler(compute.scenario_of(text), "aniello-online")
    assert online.placement() == alone.placement() and online.details == alone.details


def test_aniello_online_is_observed_again_at_another_rate(lf_diamond):
    text, rate = lf_diamond
    compute.evaluate(text, "aniello-online", "{}", rate)
    compute.evaluate(text, "aniello-online", "{}", rate / 2)
    assert compute.measured.cache_info().misses == 2
    assert compute.placed.cache_info().misses == 3  # offline once, online at each rate


def test_starting_placements_are_the_page_s_paper_placements(lf_diamond):
    text, rate = lf_diamond
    starts = compute.starting_placements(text)
    assert set(starts) == set(PAPER_SCHEDULERS)
    assert starts["lf"] is compute.evaluate(text, "lf", "{}", rate).schedule
    assert starts["aniello-online"] is compute.evaluate(text, "aniello-online", "{}", rate).schedule
    assert all(s.ok for s in starts.values())


@pytest.mark.parametrize("params", ["{}", '{"choose_parallelism": true}'])
def test_slotscope_starts_from_the_page_s_placements_and_places_the_same(lf_diamond, params):
    text, rate = lf_diamond
    search = compute.evaluate(text, "slotscope", params, rate).schedule
    for sid in PAPER_SCHEDULERS:
        compute.evaluate(text, sid, "{}", rate)
    # every paper scheduler once (shared with its panel), slotscope once; hetero's entry
    # points to the one it shares with every parallelism (compute.PARALLELISM_FREE)
    shared = len(compute.PARALLELISM_FREE)
    assert compute.placed.cache_info().misses == len(PAPER_SCHEDULERS) + 1 + shared
    alone = run_scheduler(compute.scenario_of(text), "slotscope", json.loads(params))
    assert search.placement() == alone.placement()
    assert search.parallelism == alone.parallelism
    assert search.decisions == alone.decisions
    assert search.details == alone.details


def test_headline_of_a_placed_scenario_has_its_figures(lf_diamond):
    text, rate = lf_diamond
    h = compute.headline(compute.evaluate(text, "even", "{}", rate))
    assert h["rate"] == rate and h["nodes_used"] == 8 and h["slots_used"] == 8
    assert h["throughput"] > 0 and h["latency_estimate_ms"] > 0


def test_the_ranking_s_and_the_panel_s_parameter_texts_share_one_evaluation(lf_diamond):
    text, rate = lf_diamond
    panel = compute.evaluate(text, "top-storm", compute.resolved_params("top-storm", "{}"), rate)
    assert compute.evaluate(text, "top-storm", "{}", rate) is panel  # no second analysis
    assert compute.evaluated.cache_info().misses == 1


def test_a_parameter_text_that_is_no_json_object_is_an_error_value(lf_diamond):
    text, rate = lf_diamond
    ev = compute.evaluate(text, "top-storm", "[1, 2]", rate)
    assert ev.schedule is None and ev.error


@pytest.fixture
def one_process():
    """Evaluations in one evaluation process, then in this one again."""
    compute.clear_caches()
    yield compute.start_processes(1)
    compute.start_processes(0)


def test_an_evaluation_process_places_and_analyses_as_this_process_does(one_process):
    sc = preset("lf-diamond")
    text, rate = compute.canonical(sc.to_json_dict()), sc.workload.rate
    remote = {s: compute.evaluate(text, s, "{}", rate) for s in ("aniello-online", "slotscope")}
    compute.start_processes(0)
    compute.clear_caches()
    for sid, ev in remote.items():
        here = compute.evaluate(text, sid, "{}", rate)
        assert ev.schedule.placement() == here.schedule.placement()
        assert ev.analysis.max_rate == pytest.approx(here.analysis.max_rate, rel=1e-12)


def test_a_killed_evaluation_process_is_replaced_and_its_evaluation_done_here(one_process):
    sc = preset("lf-linear")
    text, rate = compute.canonical(sc.to_json_dict()), sc.workload.rate
    assert compute.evaluate(text, "even", "{}", rate).schedule.ok  # the process runs
    (child,) = multiprocessing.active_children()
    child.kill()
    child.join(10)
    assert compute.evaluate(text, "lf", "{}", rate).schedule.ok  # here, the process lost
    assert compute.evaluate(text, "toss", "{}", rate).schedule.ok  # in a new process
    assert len(multiprocessing.active_children()) == 1


def test_an_evaluation_process_starts_no_processes_of_its_own(monkeypatch):
    monkeypatch.setattr(multiprocessing, "parent_process", lambda: object())
    assert compute.start_processes(2) is None


@pytest.mark.parametrize(("text", "count"), [("2", 2), ("", 0), ("two", 0), ("-1", 0)])
def test_the_count_of_evaluation_processes_comes_from_the_environment(monkeypatch, text, count):
    monkeypatch.setenv(compute.PROCESSES_ENV, text)
    assert compute.processes_from_env() == count


def test_static_metrics_are_computed_when_first_read_and_equal_the_core_s(lf_diamond):
    text, rate = lf_diamond
    ev = compute.evaluate(text, "even", "{}", rate)
    assert ev.complete and "_metrics" not in ev.__dict__  # not computed by the refresh
    assert ev.metrics == placement_metrics(ev.graph, ev.schedule.placement())
    assert ev.metrics is ev.metrics  # computed once
    failed = compute.Evaluation("even", None, None, None, error="no")
    assert failed.metrics is None and failed == compute.Evaluation(
        "even", None, None, None, error="no"
    )


@pytest.mark.parametrize("name", ["lf-diamond", "nasiri-example", "aniello"])
def test_hetero_after_a_parallelism_edit_is_the_placement_it_makes_of_the_edited_scenario(name):
    compute.clear_caches()
    data = preset(name).to_json_dict()
    edited = json.loads(json.dumps(data))
    for k, component in enumerate(edited["topology"]["components"]):
        component["parallelism"] += k % 3
    key = compute.resolved_params("hetero", "{}")
    first = compute.placed(compute.canonical(data), "hetero", key, None)
    text = compute.canonical(edited)
    shared = compute.placed(text, "hetero", key, None)
    own = run_scheduler(compute.scenario_of(text), "hetero", {})
    assert shared.schedule is first.schedule  # run once for both parallelisms
    assert shared.schedule.assignments == own.assignments
    assert shared.schedule.parallelism == own.parallelism
    assert shared.schedule.decisions == own.decisions
    assert shared.schedule.details == own.details
    assert shared.graph is compute.graph_of(text, tuple(sorted(own.parallelism.items())))
    assert shared.complete
    rate = float(data["workload"]["rate"])
    first_ev = compute.evaluate(compute.canonical(data), "hetero", "{}", rate)
    ev = compute.evaluate(text, "hetero", "{}", rate)
    assert ev.analysis is first_ev.analysis  # analysed once for both parallelisms
    assert ev.analysis == analyze(compute.scenario_of(text), own, rate=rate)


def test_a_topology_set_is_not_keyed_without_its_parallelism():
    one = preset("wordcount").to_json_dict()
    data = {
        "name": "two-apps",
        "topologies": [dict(one["topology"], name="a"), dict(one["topology"], name="b")],
        "cluster": one["cluster"],
    }
    assert compute.scenario_of(compute.canonical(data)).is_set
    assert compute.parallelism_free(compute.canonical(data)) is None
