"""The import layering of core/ and dashboard/: no cycles, ground floors import nothing above.

Read from the source (the ast of every module), never by importing it: a
cycle that happens to import fine today is still a cycle.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "dashboard")

# Function-level imports allowed, each for a heavy optional part loaded only when used:
# (importing module, imported module).
ALLOWED_LATE_IMPORTS = {
    ("core.search.optimal", "core.search.cpsat"),  # OR-Tools, ~1 s, only to solve
    ("core.search.optimal", "core.search.cpsat_counts"),  # the same
    ("core.spark", "pyspark.sql"),  # the JVM's Python side, only when a session starts
    ("dashboard.cli", "dashboard.app"),  # Dash and Flask, only for `slotscope dashboard`
    # Storm's accounting and strategies, only to size the cluster of a Nimbus import:
    # core.ras imports core.importers.stormser, which runs this package's __init__ first,
    # so a top-level import back would fail when core.ras is imported first
    ("core.importers", "core.ras.model"),
    ("core.importers", "core.ras.scenario"),
    ("core.importers", "core.ras.schedule"),
    # Storm's request resolution (request_from_conf), only to read a conf's requests:
    # core.ras's package runs core.ras.schedule, which imports this module back
    ("core.importers.stormser", "core.ras.model"),
    # numpy's private LAPACK gufuncs, tried once (np.linalg.solve when absent or changed)
    ("core.simulator.spill", "numpy.linalg"),
}


@cache
def modules() -> dict[str, Path]:
    """Dotted name -> file of every module of core/ and dashboard/."""
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def _is_package(name: str) -> bool:
    return modules()[name].name == "__init__.py"


def _imports(name: str, text: str | None = None) -> list[tuple[str, bool]]:
    """(imported name, at module level) for every import statement of a module.

    ``from pkg import x`` names ``pkg.x`` when that is a module (importing a
    submodule), else ``pkg`` (a name from the package's ``__init__``).
    Relative imports are resolved against the module's package.
    """
    tree = ast.parse(modules()[name].read_text() if text is None else text)
    top = {id(node) for node in tree.body}
    package = name if _is_package(name) else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(alias.name, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                out.append((sub if sub in modules() else base, id(node) in top))
    return out


def _project(imported: str) -> str | None:
    """The project module an import name refers to (its longest known prefix), or None."""
    parts = imported.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules():
            return candidate
    return None


@cache
def import_graph() -> nx.DiGraph:
    """Module -> project module it imports (explicitly; the implicit parent packages aside)."""
    graph = nx.DiGraph()
    graph.add_nodes_from(modules())
    for name in modules():
        for imported, _ in _imports(name):
            target = _project(imported)
            if target is not None and target != name:
                graph.add_edge(name, target)
    return graph


def _loaded_by(name: str) -> set[str]:
    """Every project module importing ``name`` runs: its imports, theirs, and the parent
    package of each (Python runs ``pkg/__init__.py`` before ``pkg.sub``)."""
    graph = import_graph().copy()
    for module in modules():
        parent = module.rpartition(".")[0]
        if parent in modules():
            graph.add_edge(module, parent)
    return nx.descendants(graph, name)


def test_the_graph_sees_the_known_edges():
    graph = import_graph()
    assert graph.has_edge("core.comparison", "core.registry")
    assert graph.has_edge("core.registry", "core.schedulers")
    assert graph.has_edge("core.registry", "core.search.slotscope")
    assert graph.has_edge("core.cli", "core.spark")
    assert graph.has_edge("dashboard.cli", "core.cli")  # the console script, above both
    assert graph.has_edge("dashboard.cli", "dashboard.app")  # `slotscope dashboard`
    assert {"core.placement", "core.schedulers", "core.search", "dashboard.app"} <= set(modules())


def test_no_import_cycles():
    cycles = sorted(" -> ".join(c) for c in nx.simple_cycles(import_graph()))
    assert cycles == []


def test_a_submodule_importing_its_package_back_is_a_cycle():
    # core/schedulers/__init__.py imports even (fine); even importing a name of the
    # package's __init__ would close a circle, a submodule of it would not
    [(back, _)] = _imports("core.schedulers.even", "from core.schedulers import PAPER_SCHEDULERS")
    [(sub, _)] = _imports("core.schedulers.even", "from core.schedulers import base")
    [(rel, _)] = _imports("core.search.optimal", "from . import cpsat")
    assert (back, sub, rel) == ("core.schedulers", "core.schedulers.base", "core.search.cpsat")
    graph = import_graph().copy()
    graph.add_edge("core.schedulers.even", back)
    assert ["core.schedulers", "core.schedulers.even"] in map(sorted, nx.simple_cycles(graph))


def test_model_imports_nothing_of_the_project_but_the_ground_floor():
    # core.settings (limits) and core.cpus (the CPU table, data only) import nothing of
    # the project: the model stays on the ground floor with them
    assert set(import_graph().successors("core.model")) <= {"core.settings", "core.cpus"}
    assert sorted(import_graph().successors("core.settings")) == []
    assert sorted(import_graph().successors("core.cpus")) == []


def test_spark_is_a_leaf_that_knows_only_the_settings():
    assert sorted(import_graph().successors("core.spark")) == ["core.settings"]


def test_placement_types_are_the_ground_floor():
    assert sorted(import_graph().successors("core.placement")) == []


def test_figures_import_only_the_ground_floor():
    # the registry of figures and the result type: read by the CLI and every dashboard view
    assert set(import_graph().successors("core.figures")) <= {"core.model", "core.placement"}


def test_simulator_and_metrics_import_nothing_above_them():
    above = (
        "core.schedulers",
        "core.search",
        "core.registry",
        "core.comparison",
        "core.spark",
        "core.cli",
    )
    for name in [m for m in modules() if m.startswith("core.simulator")] + ["core.metrics"]:
        loaded = _loaded_by(name)
        assert not {m for m in loaded if m.startswith(above)}, name


def test_paper_schedulers_and_searches_sit_below_the_registry():
    for name in ("core.schedulers", "core.search.optimal", "core.search.slotscope"):
        assert "core.comparison" not in _loaded_by(name)
        assert "core.registry" not in _loaded_by(name)
    # the paper schedulers know nothing of the searches
    assert not {m for m in _loaded_by("core.schedulers") if m.startswith("core.search")}


def test_core_never_imports_the_dashboard():
    for name in modules():
        if name.startswith("core"):
            assert not any(m.startswith("dashboard") for m in import_graph().successors(name))


def test_function_level_imports_are_only_the_listed_optional_ones():
    late = {
        (name, _project(imported) or imported)
        for name in modules()
        for imported, at_top in _imports(name)
        if not at_top
    }
    assert late == ALLOWED_LATE_IMPORTS


def test_the_problem_sits_right_above_model_topology_and_hardware():
    # core.simulator builds on the Problem, so the Problem may not load the simulator
    assert set(import_graph().successors("core.problem")) <= {
        "core.model",
        "core.topology",
        "core.hardware",
    }
    assert not {m for m in _loaded_by("core.problem") if m.startswith("core.simulator")}


def test_every_capacity_consumer_reads_the_one_coefficients_module():
    for name in (
        "core.simulator.capacity",
        "core.simulator.batch",
        "core.search.cpsat",
        "core.search.cpsat_counts",
    ):
        assert import_graph().has_edge(name, "core.simulator.coefficients"), name


def test_the_importers_and_storms_scheduler_load_in_either_order():
    # core.ras.model imports core.importers.stormser, whose package imports core.ras only
    # inside the functions that size an import's cluster (ALLOWED_LATE_IMPORTS)
    import subprocess
    import sys

    for first, then in (("core.ras", "core.importers"), ("core.importers", "core.ras")):
        code = f"import {first}, {then}"
        run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True)
        assert run.returncode == 0, run.stderr.decode()[-300:]
