"""R-Storm micro-benchmarks (Peng et al., Middleware 2015): Linear, Diamond, Star.

Low / mid / high compute bolts on identical machines in two racks, as in
R-Storm's evaluation. Machine model, sizes and costs are ours (the paper is
not among the text copies we worked from): 4 cores at 3 GHz, 8 GB, 4 slots;
bolts do synthetic busy work per tuple, low 10 us, mid 100 us, high 500 us;
tuples carry ~500 B. Declared cpu_pct = the expected per-executor load at
the preset's rate with 25% headroom, rounded up to 5 (what a user would set
after profiling); memory_mb grows with the work (state, buffers): 128 / 256 / 512.

References
----------
.. [1] B. Peng, M. Hosseini, Z. Hong, R. Farivar, R. Campbell. R-Storm:
   Resource-Aware Scheduling in Storm. Middleware 2015. doi:10.1145/2814576.2814808
"""

from __future__ import annotations

from typing import Any

from core.presets.common import comp, node, scenario, stream

RSTORM_HW = {"cores": 4, "ghz": 3.0, "flops_per_cycle": 16, "ram_gb": 8}
RSTORM_COST_US = {"spout": 5.0, "low": 10.0, "mid": 100.0, "high": 500.0}
RSTORM_MEMORY_MB = {"spout": 128.0, "low": 128.0, "mid": 256.0, "high": 512.0}
# Between racks keep inter_node_us (250 us one way: half a datacenter round
# trip); within a rack, one switch hop less (estimate).
RSTORM_NETWORK = {"same_rack_us": 100.0}


def rstorm_nodes() -> list[dict[str, Any]]:
    return [node(f"{r}{i}", RSTORM_HW, 4, rack=f"rack-{r}") for r in "ab" for i in range(1, 7)]


def _rstorm_comp(cid: str, level: str, parallelism: int, rate: float, selectivity=1.0):
    """A micro-benchmark component at ``level``, receiving ``rate`` tuples/s in all."""
    cpu_us = RSTORM_COST_US[level]
    load_pct = 100.0 * rate / parallelism * cpu_us * 1e-6 * 1.25
    declared = {"cpu_pct": max(5.0, 5.0 * -(-load_pct // 5.0))}
    declared["memory_mb"] = RSTORM_MEMORY_MB[level]
    return comp(cid, parallelism, cpu_us, selectivity, 500, **declared)


def _rstorm(name: str, components: list, streams: list, rate: float) -> dict[str, Any]:
    topology = {"components": components, "streams": streams}
    # R-Storm (Middleware 2015) shipped as Storm 0.10.0's resource-aware scheduler; the
    # paper names no release, so ours: 0.10.0 (uniform shuffle, as every 0.x/1.x)
    return scenario(
        name, topology, rstorm_nodes(), rate, network=RSTORM_NETWORK, storm_version="0.10.0"
    )


def rstorm_linear(rate: float = 9000) -> dict[str, Any]:
    components = [
        _rstorm_comp("spout", "spout", 4, rate),
        _rstorm_comp("b1", "low", 4, rate),
        _rstorm_comp("b2", "mid", 4, rate),
        _rstorm_comp("b3", "high", 8, rate, selectivity=0.0),
    ]
    streams = [stream("spout", "b1"), stream("b1", "b2"), stream("b2", "b3")]
    return _rstorm("rstorm-linear", components, streams, rate)


def rstorm_diamond(rate: float = 9000) -> dict[str, Any]:
    # Every branch subscribes to the spout, so each gets all of its tuples and
    # the sink three times the spout's rate.
    branches = (("b1", "low", 2), ("b2", "mid", 4), ("b3", "high", 8))
    components = [_rstorm_comp("spout", "spout", 4, rate)]
    components += [_rstorm_comp(b, level, p, rate) for b, level, p in branches]
    components.append(_rstorm_comp("sink", "low", 4, 3 * rate, selectivity=0.0))
    streams = [stream("spout", b) for b, _, _ in branches]
    streams += [stream(b, "sink") for b, _, _ in branches]
    return _rstorm("rstorm-diamond", components, streams, rate)


def rstorm_star(rate: float = 4000) -> dict[str, Any]:
    # Three spouts (the rate is per spout) feed one hub, which every sink reads.
    spouts, hub_rate = ("s1", "s2", "s3"), 3 * rate
    sinks = (("k1", "low", 2), ("k2", "mid", 4), ("k3", "high", 12))
    components = [_rstorm_comp(s, "spout", 2, rate) for s in spouts]
    components.append(_rstorm_comp("hub", "mid", 6, hub_rate))
    components += [_rstorm_comp(k, level, p, hub_rate, selectivity=0.0) for k, level, p in sinks]
    streams = [stream(s, "hub") for s in spouts] + [stream("hub", k) for k, _, _ in sinks]
    return _rstorm("rstorm-star", components, streams, rate)


_DESCRIPTION = (
    "R-Storm micro-benchmark {} with declared CPU and memory, on 12 identical "
    "machines in two racks."
)


def presets() -> dict[str, tuple[str, Any]]:
    return {
        "rstorm-linear": (
            _DESCRIPTION.format("Linear (spout -> low -> mid -> high compute bolts)"),
            rstorm_linear,
        ),
        "rstorm-diamond": (
            _DESCRIPTION.format("Diamond (spout -> low/mid/high bolts -> sink)"),
            rstorm_diamond,
        ),
        "rstorm-star": (
            _DESCRIPTION.format("Star (3 spouts -> hub -> low/mid/high sinks)"),
            rstorm_star,
        ),
    }
