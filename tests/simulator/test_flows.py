"""heaviest_flows keeps exactly the flows executor_flows keeps, in the same order."""

import numpy as np
import pytest

from core.model import validate_scenario
from core.presets import preset
from core.registry import run_scheduler
from core.simulator.capacity import Evaluator
from core.simulator.flows import heaviest_flows
from core.simulator.rates import executor_flows


def _placed(sc):
    ev = Evaluator(sc)
    return ev, ev.encode(run_scheduler(sc, "even").placement())


@pytest.mark.parametrize("name", ["wordcount", "lf-star-x10", "lf-diamond-x10-lsp"])
@pytest.mark.parametrize("limit", [1, 7, 500, 20_000])
def test_heaviest_flows_equal_the_sorted_selection(name, limit):
    ev, slots = _placed(preset(name))
    fast = heaviest_flows(ev.table, slots, 1000.0, limit)
    assert fast == executor_flows(ev.table, slots, 1000.0, limit=limit)
    assert len(fast) == min(limit, len(executor_flows(ev.table, slots, 1000.0)))


def test_ties_at_the_limit_go_to_the_first_in_stream_order():
    """All shuffle flows of one stream are equal: the limit cuts inside a tie."""
    sc = validate_scenario(
        {
            "topology": {
                "components": [
                    {"id": "s", "parallelism": 3},
                    {"id": "b", "parallelism": 4},
                ],
                "streams": [{"from": "s", "to": "b"}],
            },
            "cluster": {"nodes": [{"id": "n", "cores": 4, "ghz": 2.0, "slots": 2}]},
        }
    )
    ev, slots = _placed(sc)
    fast = heaviest_flows(ev.table, slots, 12.0, 5)
    assert fast == executor_flows(ev.table, slots, 12.0, limit=5)
    assert [(u, v) for u, v, _ in fast] == [
        ("s#0", "b#0"), ("s#0", "b#1"), ("s#0", "b#2"), ("s#0", "b#3"), ("s#1", "b#0")
    ]  # fmt: skip
    assert {r for _, _, r in fast} == {1.0}


def test_no_streams_no_flows():
    sc = validate_scenario(
        {
            "topology": {"components": [{"id": "s", "parallelism": 2}], "streams": []},
            "cluster": {"nodes": [{"id": "n", "cores": 1, "ghz": 1.0, "slots": 1}]},
        }
    )
    ev, slots = _placed(sc)
    assert heaviest_flows(ev.table, slots, 5.0, 3) == [] == executor_flows(ev.table, slots, 5.0)
    assert np.all(slots == 0)
