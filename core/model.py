"""The scenario format: a topology, a cluster and how to run them.

A scenario is one JSON document validated by the pydantic models below; its
JSON Schema is what ``slotscope schema`` prints. Every field carries its unit
in its name or description and a documented default. :func:`parse_scenario`
(and ``core.presets.load_scenario``, a preset name or a file) turns any bad
input into a :class:`ScenarioError` whose ``path`` names the field
(``topology.streams[3]``), never a traceback. This module imports nothing of
the project.

Units: CPU time in microseconds (``_us``) or milliseconds (``_ms``), rates in
tuples per second, sizes in bytes, MB or GB as named, clock in GHz.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any, Literal, get_args, get_origin

import networkx as nx
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from core import cpus  # the CPU table: data only, imports nothing of the project
from core.settings import MAX_SCENARIO_BYTES  # the limits' one home; re-exported

# Size limits: a scenario beyond them is refused with a message naming the
# field, so one upload cannot exhaust the server (bench uses 10,000 executors
# on 1,000 nodes, so the limits sit comfortably above that).
MAX_COMPONENTS = 500
MAX_EXECUTORS = 50_000
MAX_NODES = 5_000
MAX_SLOTS_PER_NODE = 256
# Count fields that size arrays get an upper bound too (issue 23: every command under 2 GB
# within the limits). A fields stream's key table is 48 bytes a key while the rates are
# built (1e9 keys passed 6 GB); past a million keys on 50,000 executors each executor's
# share differs from the same key set's at a million by its hash noise only.
MAX_KEYS = 1_000_000
MAX_WORKERS = MAX_NODES * MAX_SLOTS_PER_NODE  # W above every slot there can be changes nothing
MAX_SPOUT_PENDING = 1_000_000  # trees in flight per spout executor (Storm's default: none)

ACKER_ID = "__acker"  # Storm's acker component id
STORM_DEFAULT_PRIORITY = 29  # Storm's defaults.yaml topology.priority
MAX_TOPOLOGIES = 1_000  # topologies in one set (Storm's largest test cluster has 50)
QUALIFIER = "/"  # "topology/component#i": executor ids of a set of several topologies

Grouping = Literal["shuffle", "fields", "local-or-shuffle", "all", "global"]
GROUPINGS: tuple[str, ...] = ("shuffle", "fields", "local-or-shuffle", "all", "global")


class ScenarioError(ValueError):
    """Bad input, with the path of the offending field.

    ``str(error)`` is the one line users see: ``topology.streams[3]: unknown
    component 'cnt'``.
    """

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


# Any number a scenario gives is at most this large: past it products of clocks, cores
# and rates leave float's range (1e308 GHz gave inf in ``schedule --json``).
MAX_MAGNITUDE = 1e15


@cache
def _admits(annotation: Any, kind: type) -> bool:
    """Whether a field's type accepts values of ``kind`` (bool in ``bool | None``)."""
    if annotation is kind:
        return True
    return any(_admits(arg, kind) for arg in get_args(annotation))


def _plain_number(value: Any, annotation: Any) -> None:
    """Refuse what JSON would let through a number field: a boolean (``true`` is not 1)
    or a number too large for the model's arithmetic."""
    numeric = _admits(annotation, int) or _admits(annotation, float)
    if isinstance(value, bool):
        if numeric and not _admits(annotation, bool):
            raise ValueError(f"expected a number, got {str(value).lower()}")
    elif isinstance(value, int | float) and abs(value) > MAX_MAGNITUDE:
        shown = f"{value:.6g}" if isinstance(value, float) else f"{len(str(abs(value)))} digits"
        raise ValueError(f"{shown} is too large (at most {MAX_MAGNITUDE:g})")


class _Plain(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True, allow_inf_nan=False
    )  # every float finite: NaN and Infinity are refused where they are read


class _Model(_Plain):
    @field_validator("*", mode="before")
    @classmethod
    def _numbers_are_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, str | None):  # the common case: nothing to check
            return value
        annotation = cls.model_fields[info.field_name].annotation
        if isinstance(value, Mapping) and get_origin(annotation) is dict:
            for item in value.values():
                _plain_number(item, get_args(annotation)[1])
        else:
            _plain_number(value, annotation)
        return value


def _printable_id(value: str) -> str:
    """An id or name as users see it in one line: printable, not blank."""
    if not value.strip():
        raise ValueError("must not be blank")
    if not value.isprintable():
        raise ValueError(f"must be printable text (got {value!r})")
    return value


Name = Annotated[str, AfterValidator(_printable_id)]


class Component(_Model):
    """A spout (source) or bolt (operator) of the topology."""

    id: Name = Field(min_length=1, description="Unique component id.")
    parallelism: int = Field(
        ge=1, description=f"Number of executors (threads); at most {MAX_EXECUTORS:,} in all."
    )
    kind: Literal["spout", "bolt"] | None = Field(
        None, description="spout or bolt; default: spout when it has no input stream."
    )
    cpu_us: float = Field(
        10.0,
        ge=0,
        description="CPU time to process one tuple on the reference core, microseconds.",
    )
    selectivity: float = Field(
        1.0, ge=0, description="Tuples emitted per tuple processed (may be fractional or > 1)."
    )
    tuple_bytes: int = Field(200, ge=1, description="Size of each emitted tuple, bytes.")
    cpu_pct: float = Field(
        10.0, ge=0, description="Declared CPU need (R-Storm), percent of one core."
    )
    memory_mb: float = Field(128.0, ge=0, description="Declared on-heap memory need (R-Storm), MB.")
    offheap_mb: float = Field(
        0.0,
        ge=0,
        description="Declared off-heap memory need, MB (Storm's "
        "topology.component.resources.offheap.memory.mb; defaults.yaml 0). Storm 2's "
        "resource-aware strategies (ras-*) count it toward node memory, not toward the "
        "worker heap limit.",
    )


class Stream(_Model):
    """A stream from one component to another, with Storm's grouping."""

    source: str = Field(alias="from", min_length=1, description="Upstream component id.")
    target: str = Field(alias="to", min_length=1, description="Downstream component id.")
    grouping: Grouping = Field("shuffle", description="How tuples are routed to executors.")
    key_skew: float = Field(
        0.0,
        ge=0,
        description="fields grouping: Zipf exponent s of the key popularity (0 = uniform).",
    )
    keys: int = Field(
        10_000,
        ge=1,
        le=MAX_KEYS,
        description=f"fields grouping: number of distinct keys (at most {MAX_KEYS:,}).",
    )


class Topology(_Model):
    name: Name = Field("topology", description="Topology name.")
    workers: int | None = Field(
        None,
        ge=1,
        le=MAX_WORKERS,
        description="Worker slots requested (W); default: number of nodes.",
    )
    ackers: int = Field(
        0,
        ge=0,
        description="Storm acker executors (__acker), fed by every component; 0 = none "
        f"(they count towards the {MAX_EXECUTORS:,} executors).",
    )
    acker_cpu_us: float = Field(1.0, ge=0, description="Acker CPU per ack, microseconds.")
    acker_cpu_pct: float = Field(
        10.0,
        ge=0,
        description="Declared CPU need of one acker executor, percent of one core (Storm's "
        "topology.acker.cpu.pcore.percent, else the topology's component default; "
        "defaults.yaml 10). Read by ras-*.",
    )
    acker_memory_mb: float = Field(
        128.0,
        ge=0,
        description="Declared on-heap memory of one acker executor, MB (Storm's "
        "topology.acker.resources.onheap.memory.mb, else the component default; "
        "defaults.yaml 128). Read by ras-*.",
    )
    acker_offheap_mb: float = Field(
        0.0,
        ge=0,
        description="Declared off-heap memory of one acker executor, MB (Storm's "
        "topology.acker.resources.offheap.memory.mb, else the component default; "
        "defaults.yaml 0). Read by ras-*.",
    )
    reliable_spouts: bool = Field(
        True,
        description=(
            "Spouts emit with a message id, so the ackers track every tuple tree (Storm's "
            "guaranteed processing). False for unreliable spouts (e.g. storm-starter's "
            "RandomSentenceSpout): the acker executors run and take memory but get no acks."
        ),
    )
    components: list[Component] = Field(min_length=1)
    streams: list[Stream] = Field(default_factory=list)
    worker_used_heap_mb: float | None = Field(
        None,
        gt=0,
        le=1_048_576,
        description=(
            "Heap one worker of this topology was measured to use, MB (a paper's "
            "measurement); memory violations then charge it per worker in use. Unset: "
            "the executors' declared on-heap memory (memory_mb). A worker's -Xmx "
            "(network.worker_heap_mb) is a ceiling and only warns."
        ),
    )
    worker_max_heap_mb: float | None = Field(
        None,
        gt=0,
        le=1_048_576,
        description=(
            "Storm's topology.worker.max.heap.size.mb for this topology: the most on-heap "
            "memory rstorm and Storm 2's resource-aware strategies (ras-*) put in one of its "
            "workers, MB; default: Storm's 768 (rstorm: network.worker_heap_mb)."
        ),
    )
    priority: int = Field(
        STORM_DEFAULT_PRIORITY,
        ge=0,
        le=1_000_000,
        description=(
            "Storm's topology.priority: in a topology set, lower is scheduled first "
            f"(0 = most important; Storm's default {STORM_DEFAULT_PRIORITY})."
        ),
    )
    scheduler_params: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description=(
            "Per-topology scheduler parameters in a topology set: scheduler id -> "
            "{parameter: value}, over the parameters the run was given."
        ),
    )


class Node(_Model):
    """A machine (Storm supervisor)."""

    id: Name = Field(min_length=1)
    cpu_model: str | None = Field(
        None,
        max_length=100,
        description="A processor of slotscope's CPU table (core/cpus.py: i7-6700, i5-4460, "
        "i5-M460, E5-2620v3): cores, threads and ghz default to its values, all_core_ghz and "
        "per_clock to its all-core turbo and microarchitecture's work per clock.",
    )
    cores: int = Field(gt=0, description="Physical cores per socket; default: cpu_model's.")
    ghz: float = Field(
        gt=0, description="Base clock, GHz (TOP-Storm's Eq. 1 input); default: cpu_model's."
    )
    slots: int = Field(ge=0, le=MAX_SLOTS_PER_NODE, description="Worker slots offered.")
    sockets: int = Field(1, ge=1, description="CPU sockets.")
    flops_per_cycle: float = Field(
        16,
        gt=0,
        description="Double-precision FLOPs per cycle per core (TOP-Storm's ranking "
        "input, Eq. 1; does not scale service times).",
    )
    ram_gb: float = Field(16, gt=0, description="Memory, GB.")
    rack: Name = Field("default", description="Rack name.")
    type: str | None = Field(None, description="Node type: key into per-type profiling data.")
    nic_gbps: float | None = Field(
        None, gt=0, description="NIC bandwidth, Gbit/s; default: network.bandwidth_gbps."
    )
    speed: float | None = Field(
        None,
        gt=0,
        description=(
            "Single-thread speed relative to the reference core on which cpu_us is "
            "measured (1 = as fast; overrides the clock and per_clock); default: "
            "all_core_ghz x per_clock / profiling.reference_ghz."
        ),
    )
    all_core_ghz: float | None = Field(
        None,
        gt=0,
        description="Clock with every core busy (all-core turbo), GHz; default: cpu_model's "
        "when its source gives it, else ghz.",
    )
    per_clock: float | None = Field(
        None,
        gt=0,
        description="Work per clock relative to a Skylake core (the reference core of "
        "cpu_us = 1.0); default: cpu_model's microarchitecture's factor, else 1.",
    )
    threads: int | None = Field(
        None,
        gt=0,
        description="Hardware threads per socket (SMT, e.g. Hyper-Threading), at least "
        "cores; default: cpu_model's threads per core x cores, else cores (no SMT).",
    )
    smt_yield: float | None = Field(
        None,
        ge=0,
        le=1,
        description="Throughput one extra hardware thread adds, in cores (0 = none, 1 = a "
        "whole core); default: 0.3 (Intel's up-to-30% Hyper-Threading figure) when threads "
        "> cores, else 0. Node capacity = cores + (threads - cores) x smt_yield per socket.",
    )

    @model_validator(mode="before")
    @classmethod
    def _from_cpu_table(cls, data: Any) -> Any:
        """Cores, threads and base clock from ``cpu_model``'s entry where not typed."""
        name = data.get("cpu_model") if isinstance(data, Mapping) else None
        if not isinstance(name, str) or not cpus.known(name):
            return data  # no model, or an unknown one (its field validator says so)
        cpu = cpus.lookup(name)
        filled = {"ghz": cpu.base_ghz, **data}
        if "cores" not in data:
            filled.setdefault("cores", cpu.cores)
        if isinstance(filled["cores"], int) and not isinstance(filled["cores"], bool):
            filled.setdefault("threads", filled["cores"] * cpu.threads // cpu.cores)
        return filled

    @field_validator("cpu_model")
    @classmethod
    def _known_cpu(cls, name: str | None) -> str | None:
        if name is not None:
            cpus.lookup(name)  # raises, naming the models the table has
        return name


class Cluster(_Model):
    nodes: list[Node] = Field(min_length=1)


class Workload(_Model):
    rate: float = Field(
        1000.0, gt=0, description="Offered input rate per spout component, tuples/s."
    )
    service_cv: float = Field(
        1.0, ge=0, description="Coefficient of variation of service times (1 = exponential)."
    )
    max_spout_pending: int = Field(
        1000,
        ge=1,
        le=MAX_SPOUT_PENDING,
        description=(
            "Storm's topology.max.spout.pending: tuple trees in flight per spout "
            "executor; a spout at the limit waits for one to complete."
        ),
    )


class TypeProfile(_Model):
    """Measured cost of one component on one node type (Nasiri et al.)."""

    e_ms: float = Field(ge=0, description="Average execution time of one tuple, ms.")
    met_pct: float = Field(0.0, ge=0, description="Fixed CPU overhead, percent of the machine.")
    ir: float | None = Field(
        None,
        gt=0,
        le=MAX_MAGNITUDE,
        description=(
            "Input rate at which e_ms and met_pct were measured, tuples/s (the profiling "
            "point; optional). hetero starts its search there."
        ),
    )


class Profiling(_Model):
    reference_ghz: float = Field(
        3.0, gt=0, description="Clock of the reference core on which cpu_us is measured, GHz."
    )
    reference_flops_per_cycle: float = Field(
        16,
        gt=0,
        description="FLOPs per cycle of the reference core (informative: FLOPs never "
        "scale service times; core speed is node.speed or ghz / reference_ghz).",
    )
    per_type: dict[str, dict[str, TypeProfile]] = Field(
        default_factory=dict,
        description="component id -> node type -> measured cost; overrides cpu_us there.",
    )


class Network(_Model):
    """Transfer costs (Storm defaults.yaml, Storm 2.0 notes, datacenter latency tables)."""

    intra_worker_us: float = Field(1.0, ge=0, description="Hand-off inside one worker, us.")
    inter_worker_us: float = Field(100.0, ge=0, description="Between workers of one node, us.")
    inter_node_us: float = Field(250.0, ge=0, description="Between nodes, one way, us.")
    serialize_us: float = Field(2.0, ge=0, description="CPU to serialise a 200 B tuple, us.")
    deserialize_us: float = Field(3.0, ge=0, description="CPU to deserialise a 200 B tuple, us.")
    bandwidth_gbps: float = Field(1.0, gt=0, description="Default NIC bandwidth, Gbit/s.")
    worker_heap_mb: float = Field(768.0, gt=0, description="Worker JVM max heap, MB.")
    same_rack_us: float | None = Field(
        None, ge=0, description="Between nodes of one rack, us; default inter_node_us."
    )
    batch_size: int = Field(
        1,
        ge=1,
        le=100_000,
        description=(
            "Tuples per queue batch (Storm 1.x topology.disruptor.batch.size: 100; "
            "Storm 2.x topology.producer.batch.size: 1, no batching)."
        ),
    )
    batch_flush_ms: float = Field(
        1.0,
        gt=0,
        le=1000,
        description=(
            "Period of a worker's flush timer for partial batches, ms (Storm 1.x "
            "topology.disruptor.batch.timeout.millis: 1); used when batch_size > 1."
        ),
    )
    transfer_sleep_ms: float = Field(
        1.0,
        ge=0,
        le=1000,
        description=(
            "Storm 2.x: a worker's transfer thread sleeps this long whenever it finds "
            "its queue empty (WorkerTransfer's loop, 1 ms), so a tuple leaving its "
            "worker waits for the thread's next wake-up. 0 = no wait, as in Storm 0.x "
            "and 1.x, whose transfer thread blocks on its queue; unused when "
            "batch_size > 1 (the Storm 1.x model)."
        ),
    )
    spout_sleep_ms: float = Field(
        1.0,
        ge=0,
        le=1000,
        description=(
            "A spout executor whose nextTuple emitted nothing sleeps this long (Storm "
            "0.9-1.x SleepSpoutWaitStrategy and Storm 2.x WaitStrategyProgressive: 1 ms). "
            "With ackers, the acker's message waits for the spout's next wake-up, where "
            "Storm takes the complete latency. 0 = the spout is always awake."
        ),
    )
    worker_cpu_cores: float = Field(
        0.0,
        ge=0,
        le=64,
        description=(
            "CPU a worker JVM takes whatever its tuples (its timers, heartbeats, queue "
            "flushers, GC), cores; charged once per worker in use on its node. 0 = not "
            "modelled; the Storm 1.2.3 presets carry the value fitted by bench.calibrate."
        ),
    )


class ExecutorFlow(_Plain):
    # tens of thousands per observed scenario: checked in pydantic's core alone (a strict
    # number: no boolean, no text), without _Model's per-field Python validator
    source: str = Field(alias="from", description="Sending executor id, e.g. 'split#0'.")
    target: str = Field(alias="to", description="Receiving executor id.")
    rate: float = Field(ge=0, le=MAX_MAGNITUDE, strict=True, description="Tuples per second.")


class Observations(_Model):
    """Runtime measurements of a previous run (Aniello online, TOSS)."""

    traffic: list[ExecutorFlow] = Field(
        default_factory=list, description="Executor-to-executor tuple rates, tuples/s."
    )
    executor_load_hz: dict[str, float] = Field(
        default_factory=dict, description="CPU load of each executor, Hz (cycles per second)."
    )
    node_cpu_util: dict[str, float] = Field(
        default_factory=dict, description="CPU utilisation of each node, 0..1."
    )


class Scenario(_Model):
    """One topology, or a set of them, on one cluster, with its workload and cost model.

    ``topology`` (one) or ``topologies`` (a set; one of them is a set of one) is given.
    :attr:`topology_set` is the set either way. For a set of several, ``topology`` is
    their union, each component id qualified by its topology's name
    (``name/component``, so executor ids stay unique across the set), so every
    single-topology view (the simulator, the graph) sees the whole cluster's load.
    """

    name: Name = Field("scenario", description="Scenario name.")
    description: str = Field("", description="What the scenario shows and where it comes from.")
    topology: Topology = Field(
        None,  # type: ignore[assignment]  # set from ``topologies`` when that is given
        description="The one topology (or give 'topologies', a set).",
    )
    topologies: list[Topology] | None = Field(
        None,
        min_length=1,
        max_length=MAX_TOPOLOGIES,
        description=(
            "A topology set sharing the cluster (Storm's many topologies per cluster), "
            "instead of 'topology'; names unique. Executor ids are qualified "
            "'topology/component#i' when there are several."
        ),
    )
    cluster: Cluster
    workload: Workload = Field(default_factory=Workload)
    profiling: Profiling = Field(default_factory=Profiling)
    network: Network = Field(default_factory=Network)
    observations: Observations | None = None
    storm_version: str | None = Field(
        None,
        pattern=r"^\d{1,3}(\.\d{1,3}){0,2}$",
        description=(
            "Storm release the scenario runs, e.g. '1.2.3' or '2.0.0'. From 2.0 a shuffle "
            "stream is locality-first (LoadAwareShuffleGrouping: a sender keeps its tuples "
            "in its own worker while its targets there keep up); before 2.0, and when "
            "unset, shuffle is uniform."
        ),
    )

    @model_validator(mode="after")
    def _one_topology_field(self) -> Scenario:
        """``topology`` from ``topologies`` (the one, or the union of several)."""
        if self.topologies is None:
            if self.topology is None:
                raise ValueError("give 'topology' (one) or 'topologies' (a set)")
        elif self.topology is not None and "topology" in self.model_fields_set:
            raise ValueError("give either 'topology' or 'topologies', not both")
        else:
            union = self.topologies[0] if len(self.topologies) == 1 else union_of(self.topologies)
            object.__setattr__(self, "topology", union)  # frozen: set once, here
        return self

    @property
    def topology_set(self) -> list[Topology]:
        """Every topology of the scenario: ``topologies``, or ``[topology]``."""
        return list(self.topologies) if self.topologies is not None else [self.topology]

    @property
    def is_set(self) -> bool:
        """Whether the scenario holds several topologies."""
        return self.topologies is not None and len(self.topologies) > 1

    @property
    def workers(self) -> int:
        """W: the requested worker count (default: one per node)."""
        return self.topology.workers or len(self.cluster.nodes)

    def component(self, component_id: str) -> Component:
        for c in self.topology.components:
            if c.id == component_id:
                return c
        raise KeyError(component_id)

    def to_json_dict(self) -> dict[str, Any]:
        """The scenario as a JSON-ready dict (aliases, no unset optionals)."""
        exclude = {"topology"} if self.topologies is not None else None
        return self.model_dump(by_alias=True, exclude_none=True, mode="json", exclude=exclude)


def qualified(topology_name: str, component_id: str) -> str:
    """A component's id in a set of several topologies: ``topology/component``."""
    return f"{topology_name}{QUALIFIER}{component_id}"


def union_of(topologies: list[Topology]) -> Topology:
    """Several topologies as one (ids qualified by topology name), unvalidated: each
    topology is checked on its own (:func:`validate_scenario`); the union's components
    may exceed one topology's limit. Workers add up (unset when any is unset), ackers
    add up into one ``__acker`` component."""
    components, streams = [], []
    for t in topologies:
        components += [c.model_copy(update={"id": qualified(t.name, c.id)}) for c in t.components]
        streams += [
            s.model_copy(
                update={
                    "source": qualified(t.name, s.source),
                    "target": qualified(t.name, s.target),
                }
            )
            for s in t.streams
        ]
    workers = [t.workers for t in topologies]
    return Topology.model_construct(
        name=f"{len(topologies)} topologies",
        workers=None if None in workers else min(MAX_WORKERS, sum(w or 0 for w in workers)),
        ackers=sum(t.ackers for t in topologies),
        acker_cpu_us=max(t.acker_cpu_us for t in topologies),
        reliable_spouts=any(t.reliable_spouts for t in topologies),
        components=components,
        streams=streams,
        worker_used_heap_mb=None,
        worker_max_heap_mb=None,
        priority=min(t.priority for t in topologies),
        scheduler_params={},
    )


def scenario_schema() -> dict[str, Any]:
    """JSON Schema of the scenario format."""
    schema = Scenario.model_json_schema(by_alias=True)
    schema["title"] = "slotscope scenario"
    return schema


# Loading and validation


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _first_error(err: ValidationError) -> ScenarioError:
    e = err.errors(include_url=False)[0]
    loc = tuple(p for p in e["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    msg = e["msg"]
    if e["type"] == "missing":
        msg = "required field is missing"
    elif e["type"] == "extra_forbidden":
        msg = "unknown field"
    elif e["type"] == "value_error":  # our own validators say what they got
        msg = msg.removeprefix("Value error, ")
    elif "input" in e and not isinstance(e["input"], dict | list):
        msg = f"{msg[0].lower()}{msg[1:]} (got {e['input']!r})"
    else:
        msg = f"{msg[0].lower()}{msg[1:]}"
    return ScenarioError(_path(loc), msg)


def _check_topology(topo: Topology, where: str = "topology") -> None:
    if len(topo.components) > MAX_COMPONENTS:
        raise ScenarioError(
            f"{where}.components",
            f"{len(topo.components)} components, the limit is {MAX_COMPONENTS}",
        )
    index: dict[str, int] = {}
    for i, c in enumerate(topo.components):
        if c.id in index:
            raise ScenarioError(f"{where}.components[{i}].id", f"duplicate component id '{c.id}'")
        if c.id == ACKER_ID:
            raise ScenarioError(
                f"{where}.components[{i}].id", f"'{ACKER_ID}' is reserved: use topology.ackers"
            )
        index[c.id] = i
    executors = sum(c.parallelism for c in topo.components) + topo.ackers
    if executors > MAX_EXECUTORS:
        raise ScenarioError(
            f"{where}.components", f"{executors} executors in all, the limit is {MAX_EXECUTORS}"
        )
    seen: set[tuple[str, str]] = set()
    graph = nx.DiGraph()
    graph.add_nodes_from(index)
    for i, s in enumerate(topo.streams):
        for field, cid in (("from", s.source), ("to", s.target)):
            if cid not in index:
                raise ScenarioError(
                    f"{where}.streams[{i}]", f"unknown component {cid!r} in '{field}'"
                )
        if s.source == s.target:
            raise ScenarioError(f"{where}.streams[{i}]", f"stream from '{s.source}' to itself")
        if (s.source, s.target) in seen:
            raise ScenarioError(
                f"{where}.streams[{i}]", f"duplicate stream '{s.source}' -> '{s.target}'"
            )
        seen.add((s.source, s.target))
        graph.add_edge(s.source, s.target)
    try:
        cycle = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        cycle = None
    if cycle:
        names = " -> ".join([u for u, _ in cycle] + [cycle[0][0]])
        raise ScenarioError(f"{where}.streams", f"the topology has a cycle: {names}")
    for i, c in enumerate(topo.components):
        has_input = graph.in_degree(c.id) > 0
        if c.kind == "spout" and has_input:
            raise ScenarioError(
                f"{where}.components[{i}].kind", f"spout '{c.id}' has an input stream"
            )
        if c.kind == "bolt" and not has_input:
            raise ScenarioError(
                f"{where}.components[{i}].kind", f"bolt '{c.id}' has no input stream"
            )


def _check_cluster(cluster: Cluster) -> None:
    if len(cluster.nodes) > MAX_NODES:
        raise ScenarioError(
            "cluster.nodes", f"{len(cluster.nodes)} nodes, the limit is {MAX_NODES}"
        )
    seen: set[str] = set()
    for i, n in enumerate(cluster.nodes):
        if n.id in seen:
            raise ScenarioError(f"cluster.nodes[{i}].id", f"duplicate node id '{n.id}'")
        seen.add(n.id)
        if n.threads is not None and n.threads < n.cores:
            raise ScenarioError(
                f"cluster.nodes[{i}].threads",
                f"{n.threads} hardware threads, fewer than its {n.cores} cores",
            )
    if sum(n.slots for n in cluster.nodes) == 0:
        raise ScenarioError("cluster.nodes", "no node offers a worker slot")


def _check_topology_set(topologies: list[Topology]) -> None:
    """Each topology as one, names unique, executors within the limit across the set."""
    names: set[str] = set()
    for i, t in enumerate(topologies):
        if t.name in names:
            raise ScenarioError(f"topologies[{i}].name", f"duplicate topology name '{t.name}'")
        names.add(t.name)
        _check_topology(t, f"topologies[{i}]")
    executors = sum(sum(c.parallelism for c in t.components) + t.ackers for t in topologies)
    if executors > MAX_EXECUTORS:
        raise ScenarioError(
            "topologies", f"{executors} executors in all, the limit is {MAX_EXECUTORS}"
        )


def _check_references(sc: Scenario) -> None:
    ids = {c.id for t in sc.topology_set for c in t.components} | {
        c.id for c in sc.topology.components
    }  # in a set: a bare id (any topology's) or a qualified one
    for cid in sc.profiling.per_type:
        if cid not in ids:
            raise ScenarioError(f"profiling.per_type.{cid}", f"unknown component {cid!r}")
    if sc.observations is not None:
        _check_observations(sc, sc.observations)


def _executor_exists(parallelism: Mapping[str, int], executor: str) -> bool:
    """Whether ``comp#i`` names an executor of the scenario (i below its parallelism;
    observations describe a run of the scenario's own topology)."""
    component, sep, index = executor.rpartition("#")
    return bool(sep) and index.isdigit() and int(index) < parallelism.get(component, 0)


def _check_observations(sc: Scenario, obs: Observations) -> None:
    parallelism = {c.id: c.parallelism for c in sc.topology.components}
    parallelism[ACKER_ID] = sc.topology.ackers
    named = {f.source for f in obs.traffic} | {f.target for f in obs.traffic}
    unknown = {e for e in named if not _executor_exists(parallelism, e)}
    for i, flow in enumerate(obs.traffic if unknown else ()):  # the first one, by its path
        for field, executor in (("from", flow.source), ("to", flow.target)):
            if executor in unknown:
                raise ScenarioError(
                    f"observations.traffic[{i}].{field}", f"unknown executor {executor!r}"
                )
    for executor, hz in obs.executor_load_hz.items():
        where = f"observations.executor_load_hz.{executor}"
        if not _executor_exists(parallelism, executor):
            raise ScenarioError(where, f"unknown executor {executor!r}")
        if hz < 0:
            raise ScenarioError(where, f"a load cannot be negative (got {hz:g})")
    nodes = {n.id for n in sc.cluster.nodes}
    for node, util in obs.node_cpu_util.items():
        where = f"observations.node_cpu_util.{node}"
        if node not in nodes:
            raise ScenarioError(where, f"unknown node {node!r}")
        if not 0.0 <= util <= 1.0:
            raise ScenarioError(where, f"a utilisation is between 0 and 1 (got {util:g})")


def validate_scenario(data: Mapping[str, Any] | Scenario) -> Scenario:
    """Validate a scenario given as a dict (parsed JSON) or a model.

    Raises
    ------
    ScenarioError
        The first problem found, with the path of the field.
    """
    if isinstance(data, Scenario):
        sc = data
    else:
        if not isinstance(data, Mapping):
            raise ScenarioError("", "a scenario must be a JSON object")
        given = [data.get(key) is not None for key in ("topology", "topologies")]
        if not any(given):
            raise ScenarioError("topology", "required field is missing (or give 'topologies')")
        if all(given):
            raise ScenarioError("topologies", "give either 'topology' or 'topologies', not both")
        try:
            sc = Scenario.model_validate(dict(data))
        except ValidationError as err:
            raise _first_error(err) from None
    if sc.topologies is None:
        _check_topology(sc.topology)
    else:
        _check_topology_set(sc.topologies)
    _check_cluster(sc.cluster)
    _check_references(sc)
    return sc


def parse_scenario(text: str | bytes, source: str = "scenario") -> Scenario:
    """Parse and validate scenario JSON text."""
    if len(text) > MAX_SCENARIO_BYTES:
        raise ScenarioError(source, f"{len(text)} bytes, the limit is {MAX_SCENARIO_BYTES}")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ScenarioError(source, f"not valid JSON ({err})") from None
    return validate_scenario(data)


_PART_TYPES = {
    "topology": Topology,
    "cluster": Cluster,
    "workload": Workload,
    "profiling": Profiling,
    "network": Network,
    "observations": Observations,
}  # the top-level fields that hold a model


def with_changes(scenario: Scenario, **changes: Any) -> Scenario:
    """A validated copy of ``scenario`` with top-level fields replaced.

    Parts given as models of their field's type are valid already: they are
    put in as they are and only the cross-field checks run again (dumping and
    re-validating 20,000 observed flows cost more than the scheduler reading them).

    >>> from core.presets import preset
    >>> sc = preset("lf-linear")
    >>> with_changes(sc, observations=Observations(node_cpu_util={"n1": 0.5})).observations
    Observations(traffic=[], executor_load_hz={}, node_cpu_util={'n1': 0.5})
    """
    if "topology" in changes and scenario.topologies is not None:
        changes = {**changes, "topologies": None}  # one topology replaces the set
    if all(isinstance(v, _PART_TYPES.get(k, ())) for k, v in changes.items()):
        return validate_scenario(scenario.model_copy(update=changes))
    data = scenario.to_json_dict()
    for key, value in changes.items():
        data[key] = (
            value.model_dump(by_alias=True, exclude_none=True, mode="json")
            if isinstance(value, BaseModel)
            else value
        )
    return validate_scenario(data)
