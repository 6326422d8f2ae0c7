"""``python -m bench``: run every benchmark and print its figures.

``python -m bench schedulers simulator`` runs only the named ones.
"""

import importlib
import sys
import time

BENCHMARKS = {
    "schedulers": "bench.bench_schedulers",
    "simulator": "bench.bench_simulator",
    "spark": "bench.bench_spark",
    "optimal": "bench.bench_optimal",
    "dashboard": "bench.bench_dashboard",
    "cluster_view": "bench.bench_cluster_view",  # the Cluster view on storm-large-cluster-02
    "memory": "bench.bench_memory",
    "ras": "bench.bench_ras",  # Storm 2 strategies on the three TestLargeCluster clusters
    "topology_set": "bench.bench_topology_set",  # every scheduler on storm-large-cluster-02
    "sweep": "bench.bench_sweep",  # storm-large-cluster-01, every scheduler, local[1]/[2]
    "load": "bench.load",  # 20 users on a local server for 2 minutes (issue 23)
    "refresh": "bench.bench_refresh",  # CPU of a placement refresh after an edit, in process
}


def main(names: list[str]) -> int:
    for name in names or list(BENCHMARKS):
        if name not in BENCHMARKS:
            print(f"unknown benchmark '{name}' (valid: {', '.join(BENCHMARKS)})", file=sys.stderr)
            return 2
        print(f"\n== {name} ==", flush=True)
        start = time.perf_counter()
        importlib.import_module(BENCHMARKS[name]).main()
        print(f"({name}: {time.perf_counter() - start:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
