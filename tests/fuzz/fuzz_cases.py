"""The fuzz corpus: bad and odd inputs generated from the presets, deterministically.

Every case is built here in code from a seed (a preset's scenario, an importer
fixture or a Flink plan made below) and a mutation; nothing is stored as data.
A :class:`Case` says what it runs and what must come of it:

- ``expect``: "error" (must be refused: exit 2 with one line naming the field),
  "ok" (must succeed) or "either" (may do either, but a refusal must still be
  one line naming the field and a success must not break);
- ``names``: the words one of which a refusal's line must contain (the field's
  path or name, the flag, the file).

The mutations are those issue 23 tried: wrong types (booleans for numbers,
strings, null), NaN / Infinity / 1e308 / -1 / 0, counts beyond the documented
limits (only ones that must be refused fast: nothing here may need gigabytes
to be answered), deep nesting (1,000 levels), unknown fields and references,
NUL / ANSI / whitespace-only ids, truncated and binary files, directories,
FIFOs, missing files, and bad flags.
"""

from __future__ import annotations

import copy
import json
import math
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel

from core import model as core_model
from core.model import MAX_COMPONENTS, MAX_EXECUTORS, MAX_NODES, MAX_SCENARIO_BYTES
from core.presets import preset_json
from core.registry import SCHEDULERS
from core.settings import MAX_RATES, MAX_REPLICAS, MAX_TUPLES, MIN_TUPLES

IMPORT_FIXTURES = Path(__file__).resolve().parent.parent / "importers" / "fixtures"

SEEDS = (
    "wordcount",
    "exclamation",
    "lf-diamond",
    "pageview",
    "rstorm-diamond",
    "nasiri-example",
    "aniello",
    "uniquevisitor",
)
# cheap schedulers, rotated over the schedule cases (optimal and slotscope search: a few only)
SCHEDULE_WITH = (
    "even",
    "rstorm",
    "aniello-offline",
    "aniello-online",
    "toss",
    "top-storm",
    "lf",
    "hetero",
)

DELETE = object()  # a mutation that removes the field
CPU_FILLED = ("cores", "ghz")  # node fields a cpu_model gives when not typed

# special file contents (written by the test, not stored)
DIRECTORY = "<directory>"
FIFO = "<fifo>"
MISSING = "<missing>"
DEV_ZERO = "<dev-zero>"
SPARSE_60MB = "<sparse 60 MB>"


@dataclass
class Case:
    """One fuzz case.

    Attributes
    ----------
    name : str
        The pytest id.
    command : str
        schedule, simulate, import, dashboard (the CLI), or upload, import-upload,
        edit, params, refresh (the dashboard's callbacks).
    args : list of str
        CLI arguments; ``{f0}``, ``{f1}``... stand for the case's files, ``{tmp}`` for
        its temporary folder.
    files : list of (str, Any)
        File name and content: bytes, or one of the special contents above.
    expect : str
        "error", "ok" or "either".
    names : tuple of str
        A refusal's line must contain one of these (case-insensitive).
    payload : Any
        The dashboard cases' input.
    """

    name: str
    command: str
    args: list[str] = field(default_factory=list)
    files: list[tuple[str, Any]] = field(default_factory=list)
    expect: str = "error"
    names: tuple[str, ...] = ()
    payload: Any = None


# JSON with NaN / Infinity tokens and huge integers, as a careless or hostile file has them


DEEP = re.compile(rb'"@@deep-(object|list)-(\d+)@@"')


def deep_text(depth: int, kind: str = "list") -> bytes:
    """``[[[...]]]`` or ``{"a": {"a": ... 1}}`` as text, ``depth`` levels."""
    if kind == "list":
        return b"[" * depth + b"]" * depth
    return b'{"a": ' * depth + b"1" + b"}" * depth


def nested(depth: int, kind: str = "object") -> str:
    """A stand-in for a value nested ``depth`` levels deep, which :func:`dumps` writes out
    (Python's own encoder cannot write 1,000 levels)."""
    return f"@@deep-{kind}-{depth}@@"


def dumps(doc: Any) -> bytes:
    """JSON text with NaN / Infinity tokens, huge integers and deep values as they stand."""
    text = json.dumps(doc, allow_nan=True).encode()
    return (
        DEEP.sub(lambda m: deep_text(int(m.group(2)), m.group(1).decode()), text)
        if b"@@deep-" in text
        else text
    )


# Paths into a scenario document


Path_ = tuple[Any, ...]


def dotted(path: Path_) -> str:
    """``("topology", "components", 1, "id")`` -> ``topology.components[1].id``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out


def names_for(path: Path_) -> tuple[str, ...]:
    """What a refusal of the field at ``path`` may say: its path, its list, its name."""
    names = [dotted(path), str(path[-1])]
    for k in range(len(path) - 1, 0, -1):
        if isinstance(path[k], int):
            names.append(dotted(path[:k]))
    return tuple(dict.fromkeys(names))


def set_at(doc: Any, path: Path_, value: Any) -> Any:
    """A copy of ``doc`` with ``value`` at ``path`` (DELETE removes the field)."""
    doc = copy.deepcopy(doc)
    target = doc
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return doc


# What to put in a number's place

INT_FIELDS = {
    "parallelism",
    "tuple_bytes",
    "keys",
    "workers",
    "ackers",
    "cores",
    "slots",
    "sockets",
    "max_spout_pending",
    "batch_size",
}
# numeric fields the model declares optional (``X | None``): null is theirs to take
OPTIONAL_FIELDS = {
    name
    for model in vars(core_model).values()
    if isinstance(model, type) and issubclass(model, BaseModel)
    for name, info in model.model_fields.items()
    if type(None) in get_args(info.annotation)
}


NUMBER_STRIDE = 3  # a field takes every third entry of number_values (rotated per field)
ALWAYS = {"true", "nan", "inf", "1e308"}  # ...and these, on every field


def number_values(field_name: str) -> list[tuple[str, Any, str]]:
    """(label, value, expectation) for a numeric field."""
    is_int = field_name in INT_FIELDS
    return [
        ("true", True, "error"),
        ("false", False, "error"),
        ("null", None, "either" if field_name in OPTIONAL_FIELDS else "error"),
        ("word", "abc", "error"),
        ("empty", "", "error"),
        ("numeric-string", "7", "either"),
        ("nan", math.nan, "error"),
        ("inf", math.inf, "error"),
        ("-inf", -math.inf, "error"),
        ("1e308", 1e308, "either"),
        ("-1", -1, "error"),
        ("0", 0, "either"),
        ("1.5", 1.5, "error" if is_int else "either"),
        ("2^64", 2**64, "either"),
        ("10^400", 10**400, "either"),
        ("list", [], "error"),
        ("object", {}, "error"),
    ]


# What to put in an id's place (ids must be printable and not blank)
ID_VALUES: list[tuple[str, Any, str]] = [
    ("nul", "a\x00b", "error"),
    ("ansi", "\x1b[31mred\x1b[0m", "error"),
    ("blank", "   ", "error"),
    ("empty", "", "error"),
    ("newline", "a\nb", "error"),
    ("tab", "a\tb", "error"),
    ("unicode", "wört-ß", "either"),
    ("long", "x" * 5000, "either"),
    ("number", 7, "error"),
    ("null", None, "error"),
    ("bool", True, "error"),
    ("list", ["a"], "error"),
]
TEXT_VALUES: list[tuple[str, Any, str]] = [
    ("nul", "a\x00b", "either"),
    ("ansi", "\x1b[31mred\x1b[0m", "either"),
    ("blank", "   ", "either"),
    ("number", 7, "error"),
    ("null", None, "either"),
    ("list", ["a"], "error"),
    ("nested", nested(1000), "error"),
]


def numeric_fields(doc: dict[str, Any]) -> list[Path_]:
    """Every numeric leaf of a scenario, plus the optional numbers it leaves out."""
    paths: list[Path_] = []

    def walk(node: Any, path: Path_) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, (*path, k))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, (*path, i))
        elif isinstance(node, int | float) and not isinstance(node, bool):
            paths.append(path)

    walk(doc, ())
    extra = [("topology", "workers"), ("cluster", "nodes", 0, "nic_gbps")]
    extra += [("cluster", "nodes", 0, "speed"), ("network", "same_rack_us")]
    if doc["topology"].get("streams"):
        extra += [("topology", "streams", 0, "keys"), ("topology", "streams", 0, "key_skew")]
    return paths + [p for p in extra if p not in paths]


def field_kind(path: Path_) -> str:
    """A numeric path's field name, the key the mutations are spread over."""
    return "/".join(str(p) for p in path if not isinstance(p, int))


@dataclass(frozen=True)
class Mutation:
    """A scenario document turned bad (or odd): ``doc`` or ``raw`` text."""

    label: str
    expect: str
    names: tuple[str, ...]
    doc: Any = None
    raw: bytes | None = None

    def text(self) -> bytes:
        return self.raw if self.raw is not None else dumps(self.doc)


def rename_component(doc: dict[str, Any], old: str, new: Any) -> dict[str, Any]:
    """The component ``old`` renamed everywhere (streams and profiling too)."""
    doc = copy.deepcopy(doc)
    for c in doc["topology"]["components"]:
        if c["id"] == old:
            c["id"] = new
    for s in doc["topology"].get("streams", []):
        s["from"] = new if s["from"] == old else s["from"]
        s["to"] = new if s["to"] == old else s["to"]
    per_type = doc.get("profiling", {}).get("per_type", {})
    if old in per_type and isinstance(new, str):
        per_type[new] = per_type.pop(old)
    return doc


def number_mutations(_rng: random.Random) -> Iterator[Mutation]:
    """Every numeric field name x every bad number, each on one seed and one occurrence."""
    by_kind: dict[str, list[tuple[str, Path_]]] = {}
    for seed in SEEDS:
        for path in numeric_fields(preset_json(seed)):
            by_kind.setdefault(field_kind(path), []).append((seed, path))
    for k, kind in enumerate(sorted(by_kind)):
        where = by_kind[kind]
        leaf = kind.rsplit("/", 1)[-1]
        values = number_values(leaf)
        for j, (label, value, expect) in enumerate(values):
            if (j + k) % NUMBER_STRIDE and label not in ALWAYS:
                continue  # each field takes every third bad number, the worst ones always
            # one generator per (field, value): a preset that gains or loses a field
            # moves no other case
            seed, path = random.Random(f"{kind}:{label}").choice(where)
            doc = set_at(preset_json(seed), path, value)
            names = names_for(path)
            if leaf == "ackers":  # ackers count toward the executors' limit
                names = (*names, "topology.components")
            yield Mutation(f"{seed}:{dotted(path)}={label}", expect, names, doc)


def id_mutations(rng: random.Random) -> Iterator[Mutation]:
    """Bad component and node ids (renamed consistently), and bad names, racks, types."""
    for label, value, expect in ID_VALUES:
        seed = rng.choice(SEEDS)
        doc = preset_json(seed)
        i = rng.randrange(len(doc["topology"]["components"]))
        old = doc["topology"]["components"][i]["id"]
        path = ("topology", "components", i, "id")
        names = (*names_for(path), "topology.streams")
        yield Mutation(
            f"{seed}:component-id={label}", expect, names, rename_component(doc, old, value)
        )
        seed = rng.choice(SEEDS)
        doc = preset_json(seed)
        j = rng.randrange(len(doc["cluster"]["nodes"]))
        path = ("cluster", "nodes", j, "id")
        yield Mutation(f"{seed}:node-id={label}", expect, names_for(path), set_at(doc, path, value))
    for label, value, expect in TEXT_VALUES:
        for path in (
            ("name",),
            ("topology", "name"),
            ("cluster", "nodes", 0, "rack"),
            ("cluster", "nodes", 0, "type"),
            ("description",),
        ):
            seed = rng.choice(SEEDS)
            doc = set_at(preset_json(seed), path, value)
            yield Mutation(f"{seed}:{dotted(path)}={label}", expect, names_for(path), doc)


def reference_mutations(rng: random.Random) -> Iterator[Mutation]:
    """Streams, profiles and observations that point at nothing, and bad groupings."""
    wc = preset_json("wordcount")
    streams = ("topology", "streams")
    for label, stream, expect in [
        ("from-unknown", {"from": "nope", "to": "split"}, "error"),
        ("to-unknown", {"from": "spout", "to": "nope"}, "error"),
        ("to-itself", {"from": "split", "to": "split"}, "error"),
        ("duplicate", {"from": "spout", "to": "split"}, "error"),
        ("cycle", {"from": "count", "to": "spout"}, "error"),
        ("grouping-random", {"from": "spout", "to": "count", "grouping": "random"}, "error"),
        ("grouping-upper", {"from": "spout", "to": "count", "grouping": "FIELDS"}, "error"),
        ("grouping-null", {"from": "spout", "to": "count", "grouping": None}, "error"),
        ("from-null", {"from": None, "to": "count"}, "error"),
        ("extra-field", {"from": "spout", "to": "count", "weight": 3}, "error"),
        ("as-list", ["spout", "count"], "error"),
        ("as-string", "spout->count", "error"),
    ]:
        doc = copy.deepcopy(wc)
        doc["topology"]["streams"].append(stream)
        n = len(doc["topology"]["streams"]) - 1
        names = (*names_for((*streams, n)), "topology.streams", "grouping", "weight")
        yield Mutation(f"wordcount:stream-{label}", expect, names, doc)
    per_type = ("profiling", "per_type")
    for label, profile, expect in [
        ("unknown-component", {"nope": {"t": {"e_ms": 1.0}}}, "error"),
        ("unknown-type", {"split": {"no-such-type": {"e_ms": 1.0}}}, "either"),
        ("nan", {"split": {"t": {"e_ms": math.nan}}}, "error"),
        ("negative", {"split": {"t": {"e_ms": -1.0}}}, "error"),
        ("bool", {"split": {"t": {"e_ms": True}}}, "error"),
        ("not-object", {"split": 3}, "error"),
        ("deep", {"split": nested(1000)}, "error"),
    ]:
        doc = set_at(wc, per_type, profile)
        yield Mutation(
            f"wordcount:per_type-{label}", expect, ("profiling.per_type", "split", "nope"), doc
        )
    obs = ("observations",)
    valid = {
        "traffic": [{"from": "spout#0", "to": "split#0", "rate": 100.0}],
        "executor_load_hz": {"split#0": 1e6},
        "node_cpu_util": {"i7-8c": 0.5},
    }
    yield Mutation("wordcount:observations-valid", "ok", ("observations",), set_at(wc, obs, valid))
    for label, part, value in [
        ("traffic-unknown-from", "traffic", [{"from": "nope#0", "to": "split#0", "rate": 1.0}]),
        ("traffic-unknown-to", "traffic", [{"from": "spout#0", "to": "split#99", "rate": 1.0}]),
        ("traffic-no-index", "traffic", [{"from": "spout", "to": "split#0", "rate": 1.0}]),
        ("traffic-nan", "traffic", [{"from": "spout#0", "to": "split#0", "rate": math.nan}]),
        ("traffic-inf", "traffic", [{"from": "spout#0", "to": "split#0", "rate": math.inf}]),
        ("traffic-negative", "traffic", [{"from": "spout#0", "to": "split#0", "rate": -5}]),
        ("traffic-bool", "traffic", [{"from": "spout#0", "to": "split#0", "rate": True}]),
        ("load-unknown", "executor_load_hz", {"nope#3": 1e6}),
        ("load-nan", "executor_load_hz", {"split#0": math.nan}),
        ("load-negative", "executor_load_hz", {"split#0": -1.0}),
        ("load-inf", "executor_load_hz", {"split#0": math.inf}),
        ("util-unknown", "node_cpu_util", {"no-node": 0.5}),
        ("util-nan", "node_cpu_util", {"i7-8c": math.nan}),
        ("util-above-1", "node_cpu_util", {"i7-8c": 1.5}),
        ("util-negative", "node_cpu_util", {"i7-8c": -0.1}),
        ("util-bool", "node_cpu_util", {"i7-8c": True}),
        ("util-string", "node_cpu_util", {"i7-8c": "half"}),
    ]:
        doc = set_at(wc, obs, {**valid, part: value})
        yield Mutation(
            f"wordcount:observations-{label}", "error", (f"observations.{part}", part), doc
        )


def structure_mutations(rng: random.Random) -> Iterator[Mutation]:
    """Unknown and missing fields, wrong shapes, deep nesting, sizes beyond the limits."""
    wc = preset_json("wordcount")
    for path in [
        ("colour",),
        ("topology", "colour"),
        ("cluster", "colour"),
        ("workload", "colour"),
        ("network", "colour"),
        ("topology", "components", 0, "colour"),
        ("cluster", "nodes", 1, "colour"),
    ]:
        yield Mutation(
            f"wordcount:unknown-{dotted(path)}", "error", names_for(path), set_at(wc, path, 1)
        )
        yield Mutation(
            f"wordcount:unknown-deep-{dotted(path)}",
            "error",
            names_for(path),
            set_at(wc, path, nested(1000)),
        )
    for path in [
        ("topology",),
        ("cluster",),
        ("topology", "components"),
        ("cluster", "nodes"),
        ("topology", "components", 1, "id"),
        ("topology", "components", 1, "parallelism"),
        ("cluster", "nodes", 2, "id"),
        ("cluster", "nodes", 2, "cores"),
        ("cluster", "nodes", 2, "ghz"),
        ("cluster", "nodes", 2, "slots"),
        ("topology", "streams", 0, "from"),
        ("topology", "streams", 0, "to"),
    ]:
        # a node's cpu_model fills cores and ghz: without it they are required
        base = set_at(wc, (*path[:3], "cpu_model"), DELETE) if path[-1] in CPU_FILLED else wc
        yield Mutation(
            f"wordcount:missing-{dotted(path)}",
            "error",
            names_for(path),
            set_at(base, path, DELETE),
        )
    for label, path, value in [
        ("components-empty", ("topology", "components"), []),
        ("nodes-empty", ("cluster", "nodes"), []),
        ("components-object", ("topology", "components"), {"spout": 1}),
        ("nodes-string", ("cluster", "nodes"), "n1"),
        ("topology-list", ("topology",), []),
        ("cluster-null", ("cluster",), None),
        ("workload-number", ("workload",), 5),
        ("streams-null", ("topology", "streams"), None),
        ("component-deep", ("topology", "components", 0), nested(1000)),
        ("components-deep-list", ("topology", "components"), nested(1000, "list")),
        ("no-slots", ("cluster", "nodes"), [{"id": "n1", "cores": 4, "ghz": 3.0, "slots": 0}]),
    ]:
        yield Mutation(f"wordcount:{label}", "error", names_for(path), set_at(wc, path, value))
    whole = ("scenario", "JSON object", "{f0}")
    for label, doc in [("array", [wc]), ("string", "wordcount"), ("number", 3), ("null", None)]:
        yield Mutation(f"document-{label}", "error", whole, doc)
    yield Mutation("document-deep-object", "error", whole, nested(1000))
    for depth in (1000, 100_000):
        yield Mutation(f"document-deep-list-{depth}", "error", whole, raw=deep_text(depth))
    # counts beyond the documented limits: refused before anything is built
    comps = [{"id": f"c{i}", "parallelism": 1} for i in range(MAX_COMPONENTS + 1)]
    yield Mutation(
        "components-over-limit",
        "error",
        ("topology.components",),
        set_at(wc, ("topology",), {"components": comps}),
    )
    nodes = [{"id": f"n{i}", "cores": 1, "ghz": 1.0, "slots": 1} for i in range(MAX_NODES + 1)]
    yield Mutation(
        "nodes-over-limit", "error", ("cluster.nodes",), set_at(wc, ("cluster", "nodes"), nodes)
    )
    for label, path, value in [
        ("parallelism-over-limit", ("topology", "components", 0, "parallelism"), MAX_EXECUTORS + 1),
        ("parallelism-2e9", ("topology", "components", 0, "parallelism"), 2_000_000_000),
        ("ackers-over-limit", ("topology", "ackers"), MAX_EXECUTORS + 1),
        ("ackers-1e12", ("topology", "ackers"), 10**12),
        ("slots-over-limit", ("cluster", "nodes", 0, "slots"), 257),
        ("workers-1e12", ("topology", "workers"), 10**12),
        ("max-spout-pending-1e18", ("workload", "max_spout_pending"), 10**18),
        ("batch-size-over", ("network", "batch_size"), 100_001),
    ]:
        names = (*names_for(path), "topology.components") if "ackers" in label else names_for(path)
        expect = "error" if "over" in label else "either"
        yield Mutation(f"wordcount:{label}", expect, names, set_at(wc, path, value))
    split = [{**c, "parallelism": MAX_EXECUTORS // 2 + 1} for c in wc["topology"]["components"][:2]]
    doc = set_at(wc, ("topology", "components"), split + wc["topology"]["components"][2:])
    yield Mutation("wordcount:executors-sum-over-limit", "error", ("topology.components",), doc)
    yield Mutation(
        "scenario-over-2MB",
        "error",
        ("{f0}", "bytes", "limit"),
        set_at(wc, ("description",), "x" * (MAX_SCENARIO_BYTES + 1)),
    )


def file_mutations(rng: random.Random) -> Iterator[Mutation]:
    """Truncated, binary and oddly encoded scenario files."""
    for seed in SEEDS[:4]:
        text = dumps(preset_json(seed))
        for _ in range(4):
            cut = rng.randrange(1, len(text) - 1)
            yield Mutation(f"{seed}:truncated-at-{cut}", "error", ("{f0}",), raw=text[:cut])
    for size in (1, 17, 1000, 100_000):
        blob = bytes(rng.randrange(256) for _ in range(size))
        yield Mutation(f"binary-{size}-bytes", "error", ("{f0}",), raw=blob)
    text = dumps(preset_json("wordcount"))
    yield Mutation("empty-file", "error", ("{f0}",), raw=b"")
    yield Mutation("whitespace-file", "error", ("{f0}",), raw=b" \n\t ")
    yield Mutation("nul-bytes", "error", ("{f0}",), raw=b"\x00" * 64)
    yield Mutation("utf8-bom", "either", ("{f0}",), raw=b"\xef\xbb\xbf" + text)
    yield Mutation("utf16", "either", ("{f0}",), raw=text.decode().encode("utf-16"))
    yield Mutation(
        "latin1-name", "error", ("{f0}",), raw=text.replace(b'"wordcount"', b'"w\xf6rd"', 1)
    )
    yield Mutation("trailing-garbage", "error", ("{f0}",), raw=text + b"}}}")
    yield Mutation("two-documents", "error", ("{f0}",), raw=text + b"\n" + text)
    yield Mutation("python-literal", "error", ("{f0}",), raw=b"{'topology': None}")


def scenario_mutations() -> list[Mutation]:
    """The whole scenario corpus, in a fixed order."""
    out: list[Mutation] = []
    for gen, seed in [
        (number_mutations, 1),
        (id_mutations, 2),
        (reference_mutations, 3),
        (structure_mutations, 4),
        (file_mutations, 5),
    ]:
        out.extend(gen(random.Random(seed)))
    # a file nested too deeply, or with NaN / Infinity (not JSON numbers), may be refused
    # as a whole, naming the file, before its fields are read
    whole = (b"[" * 100, b'{"a": ' * 100, b"NaN", b"Infinity")
    return [
        replace(m, names=(*m.names, "{f0}")) if any(w in m.text() for w in whole) else m
        for m in out
    ]


# The CLI's cases


def scenario_case(
    command: str, m: Mutation, args: Sequence[str], extra_names: Sequence[str] = ()
) -> Case:
    return Case(
        name=f"{command}:{m.label}",
        command=command,
        args=[command, "{f0}", *args],
        files=[("scenario.json", m.text())],
        expect=m.expect,
        names=(*m.names, *extra_names),
    )


def schedule_cases() -> list[Case]:
    """Every scenario mutation under `schedule`, the schedulers rotated; then its flags."""
    cases = []
    for i, m in enumerate(scenario_mutations()):
        sid = SCHEDULE_WITH[i % len(SCHEDULE_WITH)]
        cases.append(scenario_case("schedule", m, ["--scheduler", sid, "--json"], [sid]))
    # the scheduler flag and every parameter of every scheduler
    for label, args, names in [
        ("unknown-scheduler", ["--scheduler", "nope"], ("nope", "--scheduler")),
        ("empty-scheduler", ["--scheduler", ""], ("--scheduler", "scheduler")),
        ("ansi-scheduler", ["--scheduler", "\x1b[2Jeven"], ("--scheduler", "scheduler")),
        ("no-scheduler", [], ("--scheduler",)),
        ("unknown-flag", ["--scheduler", "even", "--nope"], ("--nope",)),
        ("param-no-equals", ["--scheduler", "top-storm", "--param", "alpha"], ("alpha", "--param")),
        ("param-no-key", ["--scheduler", "top-storm", "--param", "=1"], ("--param",)),
        ("param-on-even", ["--scheduler", "even", "--param", "alpha=1"], ("alpha", "--param")),
    ]:
        cases.append(
            Case(
                f"schedule:flag-{label}", "schedule", ["schedule", "wordcount", *args], names=names
            )
        )
    bad_values = [
        ("nan", "nan", "error"),
        ("inf", "inf", "error"),
        ("-1", "-1", "either"),
        ("1e308", "1e308", "either"),
        ("word", "abc", "either"),
        ("empty", "", "either"),
        ("true", "true", "either"),
        ("huge-int", str(10**30), "either"),
    ]
    for sid, spec in SCHEDULERS.items():
        for p in spec.params:
            if sid == "optimal" and p.name in (
                "time_limit", "limit", "chunks", "workers", "search_parallelism"
            ):  # fmt: skip
                continue  # valid huge values search for real: bench material, not fuzz
            for label, value, expect in bad_values[len(p.name) % 2 :: 2]:
                if sid == "slotscope" and p.name == "budget" and label in ("1e308", "huge-int"):
                    expect = "error"  # an unbounded local search must be refused
                cases.append(
                    Case(
                        f"schedule:param-{sid}-{p.name}={label}",
                        "schedule",
                        [
                            "schedule",
                            "nasiri-example",
                            "--scheduler",
                            sid,
                            "--param",
                            f"{p.name}={value}",
                        ],
                        expect=expect,
                        names=(p.name, "--param", sid),
                    )
                )
        cases.append(
            Case(
                f"schedule:param-{sid}-unknown",
                "schedule",
                ["schedule", "nasiri-example", "--scheduler", sid, "--param", "zzz=1"],
                names=("zzz", "--param"),
            )
        )
    cases += path_cases("schedule", ["--scheduler", "even"])
    cases += within_limit_cases()
    return cases


def path_cases(command: str, args: Sequence[str]) -> list[Case]:
    """The scenario argument as a directory, a FIFO, a device, a missing or huge file."""
    out = []
    for label, content, names in [
        ("directory", DIRECTORY, ("{f0}",)),
        ("fifo", FIFO, ("{f0}",)),
        ("missing", MISSING, ("{f0}",)),
        ("dev-zero", DEV_ZERO, ("/dev/zero",)),
        ("sparse-60MB", SPARSE_60MB, ("{f0}",)),
    ]:
        out.append(
            Case(
                f"{command}:path-{label}",
                command,
                [command, "{f0}", *args],
                [("x.json", content)],
                names=names,
            )
        )
    long_name = "y" * 5000 + ".json"
    out.append(
        Case(f"{command}:path-too-long", command, [command, long_name, *args], names=("y" * 20,))
    )
    return out


def within_limit_cases() -> list[Case]:
    """Large counts inside today's limits, on the cheapest scheduler: they must end inside the
    budget (or be refused by a lower documented limit)."""
    wc = preset_json("wordcount")
    out = []
    for label, path, value in [
        ("ackers-49000", ("topology", "ackers"), 49_000),
        ("parallelism-40000", ("topology", "components", 1, "parallelism"), 40_000),
        ("keys-1e9", ("topology", "streams", 1, "keys"), 10**9),
    ]:
        m = Mutation(f"wordcount:{label}", "either", names_for(path), set_at(wc, path, value))
        out.append(scenario_case("schedule", m, ["--scheduler", "even"]))
    nodes = [{"id": f"n{i}", "cores": 4, "ghz": 3.0, "slots": 4} for i in range(MAX_NODES)]
    m = Mutation(
        "wordcount:nodes-5000",
        "either",
        ("cluster.nodes",),
        set_at(wc, ("cluster", "nodes"), nodes),
    )
    out.append(scenario_case("schedule", m, ["--scheduler", "even"]))
    return out


def simulate_cases() -> list[Case]:
    """Flags of `simulate`, and a share of the scenario corpus (the simulations run in process)."""
    base = ["simulate", "nasiri-example", "--scheduler", "even", "--tuples", "100"]
    cases = []
    for label, args, expect, names in [
        ("ok", [], "ok", ()),
        ("ok-two-rates", ["--rate", "10", "--rate", "20", "--replicas", "2"], "ok", ()),
        ("ok-json", ["--json"], "ok", ()),
        ("rate-nan", ["--rate", "nan"], "error", ("--rate",)),
        ("rate-inf", ["--rate", "inf"], "error", ("--rate",)),
        ("rate--inf", ["--rate=-inf"], "error", ("--rate",)),
        ("rate-negative", ["--rate=-1"], "error", ("--rate",)),
        ("rate-zero", ["--rate", "0"], "error", ("--rate",)),
        ("rate-word", ["--rate", "abc"], "error", ("--rate",)),
        ("rate-empty", ["--rate", ""], "error", ("--rate",)),
        ("rate-1e308", ["--rate", "1e308"], "either", ("--rate",)),
        ("rate-1e-300", ["--rate", "1e-300"], "either", ("--rate",)),
        (
            "rates-over-limit",
            [a for _ in range(MAX_RATES + 1) for a in ("--rate", "5")],
            "error",
            ("--rate",),
        ),
        ("replicas-0", ["--replicas", "0"], "error", ("--replicas",)),
        ("replicas-over", ["--replicas", str(MAX_REPLICAS + 1)], "error", ("--replicas",)),
        ("replicas-negative", ["--replicas=-1"], "error", ("--replicas",)),
        ("replicas-word", ["--replicas", "abc"], "error", ("--replicas",)),
        ("replicas-float", ["--replicas", "1.5"], "error", ("--replicas",)),
        ("replicas-1e3", ["--replicas", "1e3"], "error", ("--replicas",)),
        ("replicas-huge", ["--replicas", str(10**30)], "error", ("--replicas",)),
        ("tuples-under", ["--tuples", str(MIN_TUPLES - 1)], "error", ("--tuples",)),
        ("tuples-over", ["--tuples", str(MAX_TUPLES + 1)], "error", ("--tuples",)),
        ("tuples-negative", ["--tuples=-5"], "error", ("--tuples",)),
        ("tuples-word", ["--tuples", "many"], "error", ("--tuples",)),
        ("tuples-huge", ["--tuples", str(10**30)], "error", ("--tuples",)),
        ("seed-negative", ["--seed=-1"], "error", ("--seed",)),
        ("seed-word", ["--seed", "abc"], "error", ("--seed",)),
        ("seed-float", ["--seed", "1.5"], "error", ("--seed",)),
        ("seed-huge", ["--seed", str(2**70)], "either", ("--seed",)),
        ("scheduler-unknown", ["--scheduler", "nope"], "error", ("nope", "--scheduler")),
        ("scheduler-empty", ["--scheduler", ""], "error", ("--scheduler", "scheduler")),
        ("master-empty", ["--master", ""], "error", ("--master",)),
        ("master-space", ["--master", "local [2]"], "error", ("--master",)),
        ("master-long", ["--master", "spark://" + "h" * 600], "error", ("--master",)),
        ("json-and-csv", ["--json", "--csv", "x.csv"], "error", ("--csv", "--json")),
        ("csv-directory", ["--csv", "{tmp}"], "error", ("--csv",)),
        ("csv-missing-dir", ["--csv", "{tmp}/no/such/dir/x.csv"], "error", ("--csv",)),
        ("unknown-flag", ["--nope"], "error", ("--nope",)),
    ]:
        cases.append(
            Case(f"simulate:flag-{label}", "simulate", base + args, expect=expect, names=names)
        )
    corpus = scenario_mutations()
    rng = random.Random(6)
    picked = sorted(rng.sample(range(len(corpus)), 120))
    for i in picked:
        # the simulator's own refusal (a trace over its hop limit) names the tuples
        args = ["--scheduler", "even", "--tuples", "100"]
        cases.append(scenario_case("simulate", corpus[i], args, ["tuples"]))
    cases += path_cases("simulate", ["--scheduler", "even", "--tuples", "100"])[:4]
    return cases


def dashboard_cli_cases() -> list[Case]:
    """`slotscope dashboard` with ports that cannot be served (refused before serving)."""
    return [
        Case(
            f"dashboard:port-{label}",
            "dashboard",
            ["dashboard", "--port", value],
            names=("--port",),
        )
        for label, value in [
            ("65536", "65536"),
            ("negative", "-1"),
            ("huge", str(10**20)),
            ("word", "http"),
        ]
    ]


# Imports: Storm UI responses (the importer tests' fixtures) and Flink plans made here


def flink_plan(parallelisms: Sequence[int], strategies: Sequence[str] = ()) -> dict[str, Any]:
    """A Flink ``get_execution_plan()`` chain: source -> operators -> sink."""
    nodes = []
    for i, p in enumerate(parallelisms):
        pact = (
            "Data Source" if i == 0 else "Data Sink" if i == len(parallelisms) - 1 else "Operator"
        )
        node: dict[str, Any] = {
            "id": i + 1,
            "type": f"op{i}",
            "pact": pact,
            "contents": f"op{i}",
            "parallelism": p,
        }
        if i:
            ship = strategies[i - 1] if i - 1 < len(strategies) else "REBALANCE"
            node["predecessors"] = [{"id": i, "ship_strategy": ship, "side": "second"}]
        nodes.append(node)
    return {"nodes": nodes}


def storm_docs() -> dict[str, Any]:
    """The three Storm UI responses of the importer tests (topology, visualization, nodes)."""
    read = lambda name: json.loads((IMPORT_FIXTURES / name).read_text())  # noqa: E731
    return {
        "topology": read("storm_ui_topology_detail.json"),
        "visualization": read("storm_ui_topology_visualization.json"),
        "supervisors": read("storm_ui_supervisor_summary.json"),
    }


def import_documents_corpus() -> list[tuple[str, list[tuple[str, bytes]], str, tuple[str, ...]]]:
    """(label, [(file name, bytes)], expect, names): the import corpus, CLI and dashboard alike."""
    out: list[tuple[str, list[tuple[str, bytes]], str, tuple[str, ...]]] = []
    plan = flink_plan([1, 4, 3, 1], ["REBALANCE", "HASH", "FORWARD"])
    out.append(("flink-ok", [("plan.json", dumps(plan))], "ok", ()))
    for label, value, expect in number_values("parallelism"):
        for k in (0, 2):
            doc = set_at(plan, ("nodes", k, "parallelism"), value)
            out.append(
                (
                    f"flink-parallelism[{k}]={label}",
                    [("plan.json", dumps(doc))],
                    expect,
                    ("parallelism", "plan.json"),
                )
            )
    for label, value, expect in [
        ("parallelism-2e6", 2_000_000, "error"),
        ("parallelism-1e9", 10**9, "error"),
        ("parallelism-limit+1", MAX_EXECUTORS + 1, "error"),
    ]:
        doc = set_at(plan, ("nodes", 1, "parallelism"), value)
        out.append(
            (
                f"flink-{label}",
                [("plan.json", dumps(doc))],
                expect,
                ("parallelism", "plan.json", "executors"),
            )
        )
    many = flink_plan([1] * (MAX_COMPONENTS + 2))
    out.append(
        (
            "flink-operators-over-limit",
            [("plan.json", dumps(many))],
            "error",
            ("plan.json", "components", "operators"),
        )
    )
    for label, path, value, expect in [
        ("ship-unknown", ("nodes", 2, "predecessors", 0, "ship_strategy"), "TELEPORT", "either"),
        ("ship-null", ("nodes", 2, "predecessors", 0, "ship_strategy"), None, "either"),
        ("pred-unknown", ("nodes", 2, "predecessors", 0, "id"), 999, "error"),
        ("pred-self", ("nodes", 2, "predecessors", 0, "id"), 3, "error"),
        ("pred-string-id", ("nodes", 2, "predecessors", 0, "id"), "two", "error"),
        ("pred-bool-id", ("nodes", 2, "predecessors", 0, "id"), True, "error"),
        ("pred-not-list", ("nodes", 2, "predecessors"), {"id": 2}, "error"),
        ("id-duplicate", ("nodes", 2, "id"), 2, "error"),
        ("id-nan", ("nodes", 1, "id"), math.nan, "error"),
        ("id-null", ("nodes", 1, "id"), None, "error"),
        ("contents-ansi", ("nodes", 1, "contents"), "\x1b[31mmap\x1b[0m", "either"),
        ("contents-nul", ("nodes", 1, "contents"), "a\x00b", "either"),
        ("contents-blank", ("nodes", 1, "contents"), "   ", "either"),
        ("contents-deep", ("nodes", 1, "contents"), nested(1000), "error"),
        ("type-number", ("nodes", 1, "type"), 5, "either"),
        ("nodes-empty", ("nodes",), [], "error"),
        ("nodes-object", ("nodes",), {"a": 1}, "error"),
        ("nodes-deep", ("nodes",), nested(1000, "list"), "error"),
        ("node-string", ("nodes", 1), "op", "error"),
        ("node-unknown-field", ("nodes", 1, "colour"), "red", "either"),
    ]:
        doc = set_at(plan, path, value)
        names = (*names_for(path), "plan.json", "itself")
        out.append((f"flink-{label}", [("plan.json", dumps(doc))], expect, names))
    cyc = set_at(plan, ("nodes", 1, "predecessors"), [{"id": 3, "ship_strategy": "HASH"}])
    out.append(
        ("flink-cycle", [("plan.json", dumps(cyc))], "error", ("plan.json", "cycle", "nodes"))
    )
    # Storm: topology, visualization, supervisors
    docs = storm_docs()
    files = lambda d: [(f"{k}.json", dumps(v)) for k, v in d.items()]  # noqa: E731
    out.append(("storm-ok", files(docs), "ok", ()))
    rng = random.Random(7)
    for label, value, expect in number_values("executors"):
        which = rng.choice(["spouts", "bolts"])
        d = copy.deepcopy(docs)
        d["topology"][which][0]["executors"] = value
        out.append(
            (
                f"storm-{which}-executors={label}",
                files(d),
                expect,
                ("executors", "topology.json", which),
            )
        )
    for key in ("executeLatency", "capacity", "emitted", "executed"):
        for label, value, expect in [
            ("word", "abc", "either"),
            ("nan-text", "NaN", "either"),
            ("nan", math.nan, "either"),
            ("negative", -1, "either"),
            ("1e308", 1e308, "either"),
            ("bool", True, "either"),
            ("deep", nested(1000), "either"),
        ]:
            d = copy.deepcopy(docs)
            d["topology"]["bolts"][0][key] = value
            out.append((f"storm-bolt-{key}={label}", files(d), expect, (key, "topology.json")))
    for key in ("slotsTotal", "totalMem", "totalCpu"):
        for label, value, expect in number_values(key)[:12]:
            if key != "slotsTotal":  # a bad memory or CPU figure is replaced, and said so
                expect = "either"
            d = copy.deepcopy(docs)
            d["supervisors"]["supervisors"][0][key] = value
            out.append(
                (f"storm-supervisor-{key}={label}", files(d), expect, (key, "supervisors", "slots"))
            )
    for label, value, expect in ID_VALUES:
        d = copy.deepcopy(docs)
        d["supervisors"]["supervisors"][1]["host"] = value
        out.append(
            (f"storm-supervisor-host={label}", files(d), expect, ("host", "supervisors.json"))
        )
        d = copy.deepcopy(docs)
        d["topology"]["bolts"][0]["boltId"] = value
        out.append(
            (
                f"storm-bolt-id={label}",
                files(d),
                expect,
                ("boltId", "topology.json", "visualization"),
            )
        )
    for label, mutate, expect, names in [
        (
            "viz-unknown-input",
            lambda d: d["visualization"]["count"][":inputs"].append(
                {":component": "nope", ":stream": "default", ":grouping": "shuffle"}
            ),
            "error",
            ("nope", "visualization"),
        ),
        (
            "viz-unknown-grouping",
            lambda d: d["visualization"]["count"][":inputs"][0].update({":grouping": "teleport"}),
            "either",
            ("grouping", "visualization"),
        ),
        (
            "viz-inputs-null",
            lambda d: d["visualization"]["count"].update({":inputs": None}),
            "error",
            (":inputs", "visualization"),
        ),
        (
            "viz-self-loop",
            lambda d: d["visualization"]["count"][":inputs"].append(
                {":component": "count", ":stream": "default", ":grouping": "shuffle"}
            ),
            "error",
            ("count", "visualization"),
        ),
        (
            "spouts-null",
            lambda d: d["topology"].update({"spouts": None}),
            "error",
            ("spouts", "topology.json"),
        ),
        (
            "bolts-string",
            lambda d: d["topology"].update({"bolts": "split"}),
            "error",
            ("bolts", "topology.json"),
        ),
        (
            "supervisors-empty",
            lambda d: d["supervisors"].update({"supervisors": []}),
            "either",
            ("supervisors",),
        ),
        (
            "supervisors-5001",
            lambda d: d["supervisors"].update(
                {
                    "supervisors": [
                        {**d["supervisors"]["supervisors"][0], "id": f"s{i}", "host": f"h{i}"}
                        for i in range(MAX_NODES + 1)
                    ]
                }
            ),
            "error",
            ("supervisors", "nodes"),
        ),
    ]:
        d = copy.deepcopy(docs)
        mutate(d)
        out.append((f"storm-{label}", files(d), expect, names))
    out.append(
        (
            "storm-visualization-alone",
            files({"visualization": docs["visualization"]}),
            "error",
            ("visualization.json", "topology"),
        )
    )
    out.append(
        (
            "two-flink-plans",
            [("a.json", dumps(plan)), ("b.json", dumps(plan))],
            "error",
            ("b.json", "a.json", "flink"),
        )
    )
    out.append(
        ("scenario-as-import", [("s.json", dumps(preset_json("wordcount")))], "error", ("s.json",))
    )
    for m in list(file_mutations(random.Random(8)))[:12]:
        out.append((f"import-{m.label}", [("x.json", m.text())], "error", ("x.json",)))
    out.append(("import-deep-1000", [("x.json", deep_text(1000))], "error", ("x.json",)))
    out.append(("import-deep-object", [("x.json", dumps(nested(1000)))], "error", ("x.json",)))
    out.append(
        (
            "import-over-2MB",
            [("x.json", dumps({"nodes": [], "pad": "x" * MAX_SCENARIO_BYTES}))],
            "error",
            ("x.json",),
        )
    )
    return out


def import_cases() -> list[Case]:
    """The import corpus as files, then URLs, timeouts, outputs and odd paths."""
    cases = []
    for label, files, expect, names in import_documents_corpus():
        refs = [f"{{f{i}}}" for i in range(len(files))]
        cases.append(
            Case(
                f"import:{label}",
                "import",
                ["import", *refs],
                files,
                expect,
                tuple(n.replace(".json", "") for n in names),
            )
        )
    plan = [("plan.json", dumps(flink_plan([1, 2, 1])))]
    closed = "http://127.0.0.1:9/api/v1/topology/x"  # the discard port: nothing listens
    for label, args, files, names in [
        ("url-empty-host", ["import", "http://"], [], ("http://", "URL", "host")),
        ("url-bad-ipv6", ["import", "http://[::1"], [], ("http://[::1", "URL")),
        (
            "url-port-out-of-range",
            ["import", "http://127.0.0.1:99999/x"],
            [],
            ("99999", "URL", "port"),
        ),
        ("url-port-word", ["import", "http://127.0.0.1:ab/x"], [], ("127.0.0.1:ab", "URL", "port")),
        ("url-closed-port", ["import", closed], [], ("127.0.0.1:9", "URL")),
        ("url-ansi", ["import", "http://127.0.0.1:9/\x1b[2J"], [], ("127.0.0.1:9", "URL")),
        ("timeout-zero", ["import", closed, "--timeout", "0"], [], ("--timeout",)),
        ("timeout-negative", ["import", closed, "--timeout=-1"], [], ("--timeout",)),
        ("timeout-nan", ["import", closed, "--timeout", "nan"], [], ("--timeout",)),
        ("timeout-inf", ["import", closed, "--timeout", "inf"], [], ("--timeout",)),
        ("timeout-1e308", ["import", closed, "--timeout", "1e308"], [], ("--timeout",)),
        ("timeout-word", ["import", closed, "--timeout", "abc"], [], ("--timeout",)),
        ("out-directory", ["import", "{f0}", "--out", "{tmp}"], plan, ("--out",)),
        ("out-missing-dir", ["import", "{f0}", "--out", "{tmp}/no/dir/x.json"], plan, ("--out",)),
        ("no-source", ["import"], [], ("source",)),
        ("five-files", ["import", "{f0}", "{f0}", "{f0}", "{f0}", "{f0}"], plan, ("plan", "flink")),
    ]:
        cases.append(Case(f"import:{label}", "import", args, files, "error", names))
    cases += path_cases("import", [])
    return cases


# The dashboard's callbacks


def upload_cases() -> list[Case]:
    """Scenario uploads (the Upload control) and Storm / Flink imports (the Import control)."""
    corpus = scenario_mutations()
    rng = random.Random(9)
    cases = []
    for i in sorted(rng.sample(range(len(corpus)), 120)):
        m = corpus[i]
        names = tuple(n.replace("{f0}", "upload.json") for n in m.names)
        cases.append(
            Case(
                f"upload:{m.label}",
                "upload",
                expect=m.expect,
                names=names,
                payload={"files": [("upload.json", m.text())]},
            )
        )
    for label, contents, filename, names in [
        ("not-base64", "data:application/json;base64,@@@@", "u.json", ("u.json",)),
        ("no-comma", "data:application/json;base64", "u.json", ("u.json",)),
        ("empty", "", "u.json", ("u.json",)),
        ("null", None, "u.json", ("u.json", "upload")),
        ("no-filename", "data:application/json;base64,e30=", None, ("upload",)),
        (
            "ansi-filename",
            "data:application/json;base64,e30=",
            "\x1b[31mx.json",
            ("x.json", "upload"),
        ),
        (
            "over-limit",
            "data:application/json;base64," + "A" * (4 * MAX_SCENARIO_BYTES // 3 + 8),
            "big.json",
            ("big.json",),
        ),
        ("number", 12, "u.json", ("u.json", "upload")),
    ]:
        cases.append(
            Case(
                f"upload:raw-{label}",
                "upload",
                names=names,
                payload={"contents": contents, "filename": filename},
            )
        )
    for label, files, expect, names in import_documents_corpus()[::2]:
        cases.append(
            Case(
                f"import-upload:{label}",
                "import-upload",
                expect=expect,
                names=names,
                payload={"files": files},
            )
        )
    cases.append(
        Case(
            "import-upload:five-files",
            "import-upload",
            names=("files", "import"),
            payload={"files": [("p.json", dumps(flink_plan([1, 1])))] * 5},
        )
    )
    cases.append(
        Case("import-upload:none", "import-upload", names=("file", "import"), payload={"files": []})
    )
    return cases


GRID_COLUMNS = {
    "nodes": (
        "id",
        "sockets",
        "cores",
        "threads",
        "ghz",
        "flops_per_cycle",
        "ram_gb",
        "slots",
        "rack",
        "type",
    ),
    "components": (
        "id",
        "parallelism",
        "cpu_us",
        "selectivity",
        "tuple_bytes",
        "cpu_pct",
        "memory_mb",
    ),
    "streams": ("from", "to", "grouping"),
}
SECTION = {
    "nodes": "cluster.nodes",
    "components": "topology.components",
    "streams": "topology.streams",
}


def edit_cases() -> list[Case]:
    """One cell of the editors (or W / ackers) set to a bad value, on a rotating preset."""
    cases = []
    rng = random.Random(10)
    text_columns = {"id", "rack", "type", "from", "to", "grouping"}
    for grid, columns in GRID_COLUMNS.items():
        for column in columns:
            values = ID_VALUES if column in text_columns else number_values(column)
            for j, (label, value, expect) in enumerate(values):
                if j % 2 != len(column) % 2 and label not in ALWAYS | {"nul", "ansi", "blank"}:
                    continue  # every other value per column (rotated), the worst ones always
                if column in ("rack", "type") or (
                    column in ("from", "to", "grouping") and label in ("unicode", "long")
                ):
                    expect = (
                        "either" if expect == "either" or label in ("unicode", "long") else expect
                    )
                if column == "type" and label == "null":
                    expect = "either"  # an empty cell: no type
                if column in ("rack", "type") and label in (
                    "nul",
                    "ansi",
                    "blank",
                    "newline",
                    "tab",
                ):
                    expect = "either"
                if value in ("", None) and column not in text_columns:
                    # an emptied cell drops the field: its default, or "required"
                    expect = "either"
                if value in ("", None):  # an emptied cell drops the field: its default
                    expect = "error" if column in ("id", "from", "to") else "either"
                seed = SEEDS[rng.randrange(len(SEEDS))]
                cases.append(
                    Case(
                        f"edit:{seed}:{grid}.{column}={label}",
                        "edit",
                        expect=expect,
                        names=(column, SECTION[grid]),
                        payload={"seed": seed, "grid": grid, "column": column, "value": value},
                    )
                )
    for which in ("workers", "ackers"):
        for label, value, expect in number_values(which):
            if value in ("", None):
                expect = "either"
            seed = SEEDS[rng.randrange(len(SEEDS))]
            cases.append(
                Case(
                    f"edit:{seed}:{which}={label}",
                    "edit",
                    expect=expect,
                    names=(which, "topology"),
                    payload={"seed": seed, "grid": None, "column": which, "value": value},
                )
            )
    return cases


def params_cases() -> list[Case]:
    """A scheduler parameter's input set to a bad value (the value in force must stay)."""
    values = [
        ("nan", math.nan),
        ("inf", math.inf),
        ("1e308", 1e308),
        ("-1", -1),
        ("word", "abc"),
        ("null", None),
        ("bool", True),
        ("list", ["x"]),
        ("huge-int", 10**30),
    ]
    cases = []
    for sid, spec in SCHEDULERS.items():
        for p in spec.params:
            for label, value in values[len(p.name) % 2 :: 2]:
                cases.append(
                    Case(
                        f"params:{sid}.{p.name}={label}",
                        "params",
                        expect="either",
                        names=(p.name,),
                        payload={"scheduler": sid, "param": p.name, "value": value},
                    )
                )
    return cases


def refresh_cases() -> list[Case]:
    """A valid but huge edit, then the placement panels refreshed: bounded in time and memory."""
    return [
        Case(
            f"refresh:parallelism-40000-{sid}",
            "refresh",
            expect="either",
            names=("parallelism", "executors", sid),
            payload={"seed": "wordcount", "component": 1, "parallelism": 40_000, "scheduler": sid},
        )
        for sid in ("even", "slotscope")
    ]


def all_cases() -> dict[str, list[Case]]:
    """Every case, by command."""
    return {
        "schedule": schedule_cases(),
        "simulate": simulate_cases(),
        "import": import_cases(),
        "dashboard": dashboard_cli_cases(),
        "upload": upload_cases(),
        "edit": edit_cases(),
        "params": params_cases(),
        "refresh": refresh_cases(),
    }
