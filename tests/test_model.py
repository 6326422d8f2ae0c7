"""The scenario format: defaults, validation messages naming the field, schema."""

import json
import re

import pytest

from core.model import (
    MAX_EXECUTORS,
    ExecutorFlow,
    Observations,
    ScenarioError,
    parse_scenario,
    scenario_schema,
    validate_scenario,
    with_changes,
)
from core.presets import load_scenario, preset

DESIGN_EXAMPLE = {
    "name": "wordcount-on-5",
    "topology": {
        "name": "wordcount",
        "workers": 5,
        "components": [
            {"id": "spout", "parallelism": 5},
            {"id": "split", "parallelism": 8, "cpu_us": 8.0, "selectivity": 10.0},
            {"id": "count", "parallelism": 12, "cpu_us": 0.6, "selectivity": 0.0},
        ],
        "streams": [
            {"from": "spout", "to": "split", "grouping": "shuffle"},
            {"from": "split", "to": "count", "grouping": "fields"},
        ],
    },
    "cluster": {
        "nodes": [
            {"id": "n1", "cores": 8, "ghz": 3.4, "flops_per_cycle": 16, "ram_gb": 16, "slots": 4}
        ]
    },
    "workload": {"rate": 20000},
}


def minimal(**topology):
    return {
        "topology": {"components": [{"id": "a", "parallelism": 1}], **topology},
        "cluster": {"nodes": [{"id": "n1", "cores": 2, "ghz": 2.0, "slots": 1}]},
    }


def error_of(data) -> str:
    with pytest.raises(ScenarioError) as info:
        validate_scenario(data)
    return str(info.value)


def test_design_example_validates_with_documented_defaults():
    sc = validate_scenario(DESIGN_EXAMPLE)
    node = sc.cluster.nodes[0]
    assert (node.sockets, node.rack, node.flops_per_cycle) == (1, "default", 16)
    assert sc.topology.streams[1].grouping == "fields"
    assert sc.workers == 5
    assert sc.workload.rate == 20000


def test_workers_default_to_number_of_nodes():
    data = minimal()
    data["cluster"]["nodes"].append({"id": "n2", "cores": 1, "ghz": 1, "slots": 1})
    assert validate_scenario(data).workers == 2


def test_grouping_defaults_to_shuffle_and_spout_kind_is_derived():
    data = minimal(streams=[{"from": "a", "to": "b"}])
    data["topology"]["components"].append({"id": "b", "parallelism": 2})
    sc = validate_scenario(data)
    assert sc.topology.streams[0].grouping == "shuffle"


def test_unknown_component_in_stream_names_the_stream():
    data = json.loads(json.dumps(DESIGN_EXAMPLE))
    data["topology"]["streams"][1]["to"] = "cnt"
    assert error_of(data) == "topology.streams[1]: unknown component 'cnt' in 'to'"


def test_cycle_is_refused_with_its_path():
    data = json.loads(json.dumps(DESIGN_EXAMPLE))
    data["topology"]["streams"].append({"from": "count", "to": "split"})
    assert error_of(data) == "topology.streams: the topology has a cycle: split -> count -> split"


def test_duplicate_component_id():
    data = minimal()
    data["topology"]["components"].append({"id": "a", "parallelism": 2})
    assert error_of(data) == "topology.components[1].id: duplicate component id 'a'"


def test_duplicate_node_id():
    data = minimal()
    data["cluster"]["nodes"].append({"id": "n1", "cores": 1, "ghz": 1, "slots": 1})
    assert error_of(data) == "cluster.nodes[1].id: duplicate node id 'n1'"


@pytest.mark.parametrize(
    ("where", "value", "expected"),
    [
        (("topology", "components", 0, "parallelism"), 0, "topology.components[0].parallelism"),
        (("cluster", "nodes", 0, "cores"), 0, "cluster.nodes[0].cores"),
        (("cluster", "nodes", 0, "ghz"), -1.5, "cluster.nodes[0].ghz"),
        (("cluster", "nodes", 0, "slots"), -1, "cluster.nodes[0].slots"),
    ],
)
def test_out_of_range_numbers_name_the_field(where, value, expected):
    data = minimal()
    target = data
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    message = error_of(data)
    assert message.startswith(expected + ": ")
    assert repr(value) in message


def test_missing_required_field():
    data = minimal()
    del data["cluster"]["nodes"][0]["slots"]
    assert error_of(data) == "cluster.nodes[0].slots: required field is missing"


def test_no_nodes():
    data = minimal()
    data["cluster"]["nodes"] = []
    assert error_of(data).startswith("cluster.nodes: ")


def test_unknown_field_is_refused():
    data = minimal()
    data["cluster"]["nodes"][0]["gpus"] = 2
    assert error_of(data) == "cluster.nodes[0].gpus: unknown field"


def test_spout_with_input_is_refused():
    data = minimal(streams=[{"from": "a", "to": "b"}])
    data["topology"]["components"].append({"id": "b", "parallelism": 1, "kind": "spout"})
    assert error_of(data) == "topology.components[1].kind: spout 'b' has an input stream"


def test_executor_limit():
    data = minimal()
    data["topology"]["components"][0]["parallelism"] = MAX_EXECUTORS + 1
    assert "limit" in error_of(data)


def test_not_json_and_missing_file(tmp_path):
    with pytest.raises(ScenarioError, match="not valid JSON"):
        parse_scenario("{nope", source="x.json")
    with pytest.raises(ScenarioError, match="no such file or preset"):
        load_scenario(str(tmp_path / "missing.json"))
    with pytest.raises(ScenarioError, match="must be a JSON object"):
        parse_scenario("[1, 2]")


def test_file_round_trip(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(DESIGN_EXAMPLE))
    sc = load_scenario(str(path))
    assert validate_scenario(sc.to_json_dict()) == sc
    assert sc.to_json_dict()["topology"]["streams"][0]["from"] == "spout"


def test_schema_publishes_the_format():
    schema = scenario_schema()
    assert set(schema["required"]) == {"cluster"}  # and one of topology / topologies
    assert {"topology", "topologies"} <= set(schema["properties"])
    stream = schema["$defs"]["Stream"]
    assert set(stream["required"]) == {"from", "to"}
    assert set(schema["$defs"]["Node"]["required"]) == {"id", "cores", "ghz", "slots"}
    assert set(schema["$defs"]["Component"]["required"]) == {"id", "parallelism"}


def test_with_changes_takes_a_valid_part_as_it_is_and_still_checks_the_whole():
    sc = preset("lf-linear")
    obs = Observations(
        traffic=[ExecutorFlow(**{"from": "c1#0", "to": "c2#0", "rate": 5.0})],
        node_cpu_util={"n1": 0.5},
    )
    fast = with_changes(sc, observations=obs)
    slow = with_changes(sc, observations=obs.model_dump(by_alias=True))
    assert fast == slow and fast.observations is obs
    assert fast.topology is sc.topology
    bad = sc.topology.model_copy(update={"components": sc.topology.components[:1]})
    with pytest.raises(ScenarioError, match="topology.streams"):
        with_changes(sc, topology=bad)


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (
            ("cluster", "nodes", 0, "cores"),
            True,
            "cluster.nodes[0].cores: expected a number, got true",
        ),
        (("workload", "rate"), False, "workload.rate: expected a number, got false"),
        (("cluster", "nodes", 0, "ghz"), 1e308, "cluster.nodes[0].ghz: 1e+308 is too large"),
        (("cluster", "nodes", 0, "cores"), 10**400, "cluster.nodes[0].cores: 401 digits is too"),
        (("topology", "components", 0, "id"), "c\x1b[2J", "must be printable text"),
        (("cluster", "nodes", 0, "id"), " \t", "cluster.nodes[0].id: must not be blank"),
        (("topology", "name"), "a\nb", "topology.name: must be printable text"),
    ],
)
def test_numbers_are_finite_numbers_and_ids_printable(path, value, message):
    data = preset("lf-linear").to_json_dict()
    where = data
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    with pytest.raises(ScenarioError) as err:
        validate_scenario(data)
    assert message in str(err.value)
    assert "\n" not in str(err.value) and "\x1b" not in str(err.value)


def test_a_boolean_field_still_takes_a_boolean():
    data = preset("lf-linear").to_json_dict()
    data["topology"]["reliable_spouts"] = False
    assert validate_scenario(data).topology.reliable_spouts is False


@pytest.mark.parametrize(
    ("observations", "message"),
    [
        ({"traffic": [{"from": "nope#0", "to": "c2#0", "rate": 1}]}, "traffic[0].from: unknown"),
        ({"traffic": [{"from": "c1", "to": "c2#0", "rate": 1}]}, "traffic[0].from: unknown"),
        ({"executor_load_hz": {"c1#0": -1.0}}, "executor_load_hz.c1#0: a load cannot be negative"),
        ({"executor_load_hz": {"x#0": 1.0}}, "executor_load_hz.x#0: unknown executor"),
        ({"node_cpu_util": {"n1": 1.5}}, "node_cpu_util.n1: a utilisation is between 0 and 1"),
        ({"node_cpu_util": {"zz": 0.5}}, "node_cpu_util.zz: unknown node"),
    ],
)
def test_observations_name_executors_and_nodes_of_the_scenario(observations, message):
    data = preset("lf-linear").to_json_dict()
    data["observations"] = observations
    with pytest.raises(ScenarioError, match=re.escape("observations." + message)):
        validate_scenario(data)


def _set(*topologies, nodes=1):
    return {
        "topologies": list(topologies),
        "cluster": {
            "nodes": [{"id": f"n{i}", "cores": 2, "ghz": 2.0, "slots": 2} for i in range(nodes)]
        },
    }


def _topo(name, **fields):
    return {"name": name, "components": [{"id": "a", "parallelism": 2}], **fields}


def test_a_topology_set_qualifies_executor_ids_in_its_union():
    sc = validate_scenario(_set(_topo("x", priority=3, workers=1), _topo("y", workers=2)))
    assert sc.is_set and [t.name for t in sc.topology_set] == ["x", "y"]
    assert [t.priority for t in sc.topology_set] == [3, 29]  # Storm's default priority 29
    assert [c.id for c in sc.topology.components] == ["x/a", "y/a"]
    assert sc.topology.workers == 3  # the set's workers add up
    assert "topology" not in sc.to_json_dict()  # the union is derived, not stored
    assert validate_scenario(sc.to_json_dict()) == sc


def test_a_set_of_one_is_the_single_topology():
    single = validate_scenario(minimal())
    one = validate_scenario({**_set(), "topologies": [minimal()["topology"]], **{}})
    assert not one.is_set and one.topology_set == [one.topology]
    assert one.topology == single.topology


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (_set(_topo("x"), _topo("x")), "topologies[1].name: duplicate topology name 'x'"),
        (
            _set(_topo("x"), {"name": "y", "components": [{"id": "a", "parallelism": 0}]}),
            "topologies[1].components[0].parallelism: input should be greater than or equal "
            "to 1 (got 0)",
        ),
        (
            _set(_topo("x", streams=[{"from": "a", "to": "b"}])),
            "topologies[0].streams[0]: unknown component 'b' in 'to'",
        ),
        (
            _set(_topo("x", priority=-1)),
            "topologies[0].priority: input should be greater than or equal to 0 (got -1)",
        ),
        (
            {**_set(_topo("x")), "topology": _topo("x")},
            "topologies: give either 'topology' or 'topologies', not both",
        ),
        (
            {"cluster": _set()["cluster"]},
            "topology: required field is missing (or give 'topologies')",
        ),
        (
            {**_set(), "topologies": []},
            "topologies: list should have at least 1 item after validation, not 0",
        ),
    ],
)
def test_topology_set_validation_names_the_field(data, line):
    assert error_of(data) == line


def test_the_executor_limit_holds_across_the_set():
    half = {"name": "x", "components": [{"id": "a", "parallelism": MAX_EXECUTORS // 2 + 1}]}
    data = _set(half, {**half, "name": "y"})
    assert error_of(data) == (
        f"topologies: {2 * (MAX_EXECUTORS // 2 + 1)} executors in all, the limit is {MAX_EXECUTORS}"
    )


def test_replacing_the_topology_of_a_set_leaves_one():
    sc = validate_scenario(_set(_topo("x"), _topo("y")))
    one = with_changes(sc, topology=sc.topology_set[0])
    assert not one.is_set and one.topologies is None and one.topology.name == "x"
