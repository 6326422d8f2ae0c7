"""Regenerate core/presets/data/storm_large_clusters.json.gz from an apache/storm checkout.

Usage::

    .venv/bin/python -m bench.storm_corpus STORM_REPO [--commit SHA]

``STORM_REPO`` is a git directory of apache/storm (a bare mirror works). The script
reads storm-server/src/test/resources/clusterconf/largeCluster01..03 at the commit
(default HEAD) with ``git archive``, decodes every NAME-stormcode.ser / NAME-stormconf.ser
pair with core.importers.stormser, and keeps what the schedulers need: components
(kind, parallelism or null where the file leaves the hint unset, resource keys of the
json_conf, upstream components with their groupings) and the conf keys of
``CONF_KEYS``. Pairs that cannot be used (one topology of largeCluster02 has no
executors) are listed under ``skipped``.
The supervisor distributions are TestLargeCluster.SupervisorDistribution's tables.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from core.importers.stormser import StormSerError, read_stormser

CLUSTERS = ("largeCluster01", "largeCluster02", "largeCluster03")
BASE = "storm-server/src/test/resources/clusterconf"
OUT = Path(__file__).resolve().parent.parent / "core" / "presets" / "data"
OUT_FILE = OUT / "storm_large_clusters.json.gz"


def _dist01() -> list[list]:
    """getSupervisorDistribution01: [count, rack, slots, memory MB, cpu %]."""
    rows = []
    per_rack, ports = 82, 50
    even = per_rack // 2
    odd = per_rack - even
    for racks, cpu, mem in (
        (range(0, 12), 3600, 178_000),
        (range(12, 14), 2400, 118_100),
        (range(14, 16), 1200, 42_480),
    ):
        for rack in racks:
            rid = f"r{rack:03d}"
            rows.append([even, rid, ports, mem, cpu])
            rows.append([odd, rid, ports, mem, cpu - 100])
    return rows


DIST02 = [
    [78, "r001", 12, 42461, 1100],
    [146, "r002", 36, 181362, 3500],
    [18, "r003", 36, 181362, 3500],
    [120, "r004", 36, 181362, 3500],
    [24, "r005", 36, 181362, 3500],
    [16, "r005", 48, 177748, 4700],
    [12, "r006", 18, 88305, 1800],
    [368, "r006", 36, 181205, 3500],
    [62, "r007", 48, 177748, 4700],
    [50, "r008", 36, 181348, 3500],
    [64, "r008", 48, 177748, 4700],
    [74, "r009", 48, 177748, 4700],
    [74, "r010", 48, 177748, 4700],
    [10, "r011", 48, 177748, 4700],
    [78, "r012", 24, 120688, 2300],
    [150, "r013", 48, 177748, 4700],
    [76, "r014", 36, 181362, 3500],
    [38, "r015", 48, 174431, 4700],
    [78, "r016", 36, 181375, 3500],
    [72, "r017", 36, 181362, 3500],
    [80, "r018", 36, 181362, 3500],
    [76, "r019", 36, 181362, 3500],
    [78, "r020", 24, 120696, 2300],
    [80, "r021", 24, 120696, 2300],
]
DIST03 = [[40, "r001", 12, 58829, 1100], [40, "r002", 12, 58829, 1100]]


def reduce_topology(path: Path) -> dict:
    """One stormser pair as a compact dict."""
    topo = read_stormser(path)
    comps = []
    for c in topo.components:
        inputs = sorted({(i.component, i.grouping) for i in c.inputs})
        # parallelism null: the hint is unset in the file (Nimbus runs 1, TestLargeCluster 0)
        par = c.parallelism if c.hint_set else None
        comps.append([c.id, c.kind, par, dict(c.conf), [list(x) for x in inputs]])
    shared = {
        k: [v.on_heap, v.off_heap_worker, v.off_heap_node] for k, v in topo.shared_memory.items()
    }
    return {"name": topo.name, "conf": dict(topo.conf), "components": comps, "shared": shared}


def build(repo: str, commit: str) -> dict:
    """The corpus document."""
    sha = subprocess.run(
        ["git", "-C", repo, "rev-parse", commit], check=True, capture_output=True, text=True
    ).stdout.strip()
    tar = subprocess.run(
        ["git", "-C", repo, "archive", sha, BASE], check=True, capture_output=True
    ).stdout
    doc = {
        "source": {
            "repository": "https://github.com/apache/storm",
            "commit": sha,
            "paths": [f"{BASE}/{c}" for c in CLUSTERS]
            + [
                "storm-server/src/test/java/org/apache/storm/scheduler/resource/"
                "strategies/scheduling/TestLargeCluster.java"
            ],
        },
        "clusters": {},
    }
    dists = {"largeCluster01": _dist01(), "largeCluster02": DIST02, "largeCluster03": DIST03}
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
            archive.extractall(tmp, filter="data")
        for name in CLUSTERS:
            folder = Path(tmp) / BASE / name
            topos, skipped = [], []
            for code in sorted(folder.glob("*code.ser")):
                try:
                    topos.append(reduce_topology(code))
                except StormSerError as err:
                    skipped.append(f"{code.name}: {str(err).split(': ', 1)[-1]}")
            doc["clusters"][name] = {
                "supervisors": dists[name],
                "topologies": topos,
                "skipped": skipped,
            }
    return doc


def main(argv: list[str] | None = None) -> int:
    """Write the corpus file and print its size."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo")
    ap.add_argument("--commit", default="HEAD")
    args = ap.parse_args(argv)
    doc = build(args.repo, args.commit)
    OUT.mkdir(parents=True, exist_ok=True)
    raw = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()
    OUT_FILE.write_bytes(gzip.compress(raw, compresslevel=9, mtime=0))
    for name, c in doc["clusters"].items():
        ex = sum(comp[2] or 1 for t in c["topologies"] for comp in t["components"])
        print(f"{name}: {len(c['topologies'])} topologies, {ex} executors, skipped {c['skipped']}")
    print(f"{OUT_FILE}: {OUT_FILE.stat().st_size} bytes (json {len(raw)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
