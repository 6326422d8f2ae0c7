"""The ``slotscope`` command line (also ``python -m core``).

Every command takes a scenario as a JSON file path or a preset name. With
``--json`` it prints one JSON document on stdout and nothing else. Bad input
exits with status 2 and one line on stderr naming what is wrong and where,
never a traceback; so does a Spark job that fails, stalls or cannot start.
Spark's own output goes to a log file unless ``simulate --verbose`` asks for it.

The ``dashboard`` command is served by :mod:`dashboard.cli` (the ``slotscope``
console script), which passes :func:`main` the function that starts the web
server: ``core`` never imports the dashboard.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import stat
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from core import spark
from core.comparison import (
    compare,
    explain_failure,
    placement_key,
    scheduler_list,
)
from core.importers import import_sources, parse_document
from core.importers.fetch import MAX_TIMEOUT_S, MIN_TIMEOUT_S, read_file
from core.importers.stormser import OWN_SCHEDULER_KEY, STRATEGY_PARAM
from core.model import Scenario, ScenarioError, scenario_schema, validate_scenario
from core.placement import SchedulerError
from core.presets import LARGE_PRESETS, PRESETS, STATED_DEFAULTS, is_preset, preset, preset_json
from core.registry import SCHEDULERS, run_scheduler
from core.report import results_csv, results_table, schedule_document, schedule_table
from core.reproduce import reported, reproduce, select, summary, table
from core.settings import (
    DEFAULT_TUPLES,
    MASTER,
    RATE,
    RATES,
    REPLICAS,
    SEED,
    TUPLES,
    Settings,
    SettingsError,
)
from core.spark import MASTER_ENV, JobCancelled, SparkUnavailable
from core.sweep import source_of, spark_sweep, sweep_csv, sweep_table
from core.topology_set import SetSchedule, schedule_set, treatment

EXIT_BAD_INPUT = 2
MAX_LINE_CHARS = 600  # an error line is cut to this many characters
ServeDashboard = Callable[[str, int, "str | None"], None]  # (host, port, master)


class UsageError(Exception):
    """A bad command line: one line for stderr."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _print_json(doc: Any) -> None:
    sys.stdout.write(json.dumps(doc, indent=2, allow_nan=False) + "\n")


def _parse_params(items: Sequence[str]) -> dict[str, str]:
    params = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--param {item!r}: expected K=V")
        params[key.strip()] = value.strip()
    return params


def load_scenario(ref: str) -> Scenario:
    """A scenario from a preset name or a JSON file, the file's size and kind checked first.

    Raises
    ------
    ScenarioError
        No such preset or file; not a regular file (a directory, FIFO, device); over the
        size limit; not strict JSON (NaN and Infinity are not JSON); nested too deeply;
        an invalid scenario.
    """
    if is_preset(ref):
        if ref in STATED_DEFAULTS:
            sys.stderr.write(f"slotscope: {ref}: stated defaults: {STATED_DEFAULTS[ref]}\n")
        return preset(ref)
    if not os.path.lexists(ref):
        raise ScenarioError(
            ref, "no such file or preset (see 'slotscope presets' for the built-in ones)"
        )
    data = parse_document(read_file(ref), ref)
    try:
        return validate_scenario(data)
    except RecursionError:
        raise ScenarioError(ref, "nested too deeply to be a scenario") from None


def check_output(path: str | None, flag: str) -> None:
    """Refuse, before any work, an output path that cannot be written (``-`` is stdout).

    >>> check_output("/", "--csv")
    Traceback (most recent call last):
    ...
    core.cli.UsageError: --csv /: is a directory
    """
    if path is None or path == "-":
        return
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{flag} {path}: is a directory")
    if target.exists():
        mode = target.stat().st_mode
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            raise UsageError(f"{flag} {path}: not a regular file")
        if not os.access(target, os.W_OK):
            raise UsageError(f"{flag} {path}: not writable")
        return
    folder = target.parent
    if not folder.is_dir():
        raise UsageError(f"{flag} {path}: no such directory {str(folder)!r}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{flag} {path}: cannot create a file in {str(folder)!r}")


def write_output(path: str, text: str, flag: str) -> None:
    """``text`` to the file ``path`` (``-``: stdout); an OSError is a UsageError."""
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        with open(path, "w", newline="") as fh:
            fh.write(text)
    except OSError as err:
        raise UsageError(f"{flag} {path}: {err.strerror or err}") from None


def positive_seconds(text: str) -> float:
    """argparse type of ``--timeout``: seconds, finite, in [MIN_TIMEOUT_S, MAX_TIMEOUT_S]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and MIN_TIMEOUT_S <= value <= MAX_TIMEOUT_S):
        raise argparse.ArgumentTypeError(
            f"{text} is not between {MIN_TIMEOUT_S:g} and {MAX_TIMEOUT_S:g} seconds"
        )
    return value


def port_number(text: str) -> int:
    """argparse type of ``--port``: a TCP port, 1 to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port (1-65535)")
    return value


def finite_number(text: str) -> float:
    """argparse type of ``--rate``: a finite number (its range is the settings' to judge)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text} is not a finite number")
    return value


# commands


def cmd_presets(args: argparse.Namespace) -> int:
    rows = [
        {"name": name, "description": desc}
        for name, (desc, _) in [*PRESETS.items(), *LARGE_PRESETS.items()]
    ]
    if args.json:
        _print_json(rows)
    else:
        width = max(len(r["name"]) for r in rows)
        for r in rows:
            print(f"{r['name']:<{width}}  {r['description']}")
    return 0


def cmd_preset(args: argparse.Namespace) -> int:
    _print_json(preset_json(args.name))
    return 0


def cmd_schedulers(args: argparse.Namespace) -> int:
    rows = [
        {
            "id": spec.id,
            "name": spec.name,
            "paper": spec.paper,
            "summary": spec.summary,
            "topology_set": treatment(spec.id)[1],
            "parameters": [
                {
                    "name": p.name,
                    "default": p.default,
                    "description": p.description,
                    "type": p.kind if isinstance(p.kind, str) else p.kind.__name__,
                    "minimum": p.minimum,
                    "maximum": p.maximum,
                }
                for p in spec.params
            ],
        }
        for spec in SCHEDULERS.values()
    ]
    if args.json:
        _print_json(rows)
        return 0
    for r in rows:
        params = ", ".join(f"{p['name']}={p['default']}" for p in r["parameters"]) or "-"
        print(
            f"{r['id']:<16} {r['name']}\n{'':<16} {r['paper']}\n{'':<16} parameters: {params}\n"
            f"{'':<16} topology set: {r['topology_set']}"
        )
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    _print_json(scenario_schema())
    return 0


def cmd_schedule(args: argparse.Namespace) -> int:
    scenario = load_scenario(args.scenario)
    if scenario.is_set:
        result = schedule_set(scenario, args.scheduler, _parse_params(args.param))
        if args.json:
            _print_json({"scenario": scenario.name, **result.to_dict()})
        else:
            print_text(set_table(result, verbose=args.verbose))
        return 0
    schedule = run_scheduler(scenario, args.scheduler, _parse_params(args.param))
    doc = schedule_document(scenario, schedule)
    if args.json:
        _print_json(doc)
    else:
        print_text(schedule_table(doc, verbose=args.verbose))
    return 0


def set_table(result: SetSchedule, verbose: bool = False) -> str:
    """One scheduler on a topology set: a line per topology, then each "did not fit"."""
    outcomes = [result.outcomes[name] for name in result.order]
    lines = [
        f"{result.scheduler} on {len(outcomes)} topologies: {len(result.scheduled)} scheduled "
        f"in {result.elapsed_ms:,.0f} ms; a set: {result.treatment}",
        f"{'topology':<24} {'prio':>4} {'status':<21} {'executors':>9} {'placed':>7} "
        f"{'workers':>7} {'nodes':>6}",
    ]
    for o in outcomes:
        doc = o.to_dict()
        lines.append(
            f"{o.topology:<24} {o.priority:>4} {o.status:<21} {o.executors:>9} "
            f"{doc['placed']:>7} {doc['workers']:>7} {doc['nodes']:>6}"
        )
    for o in outcomes:
        if not o.ok and o.message:
            lines += ["", o.message]
        if verbose:
            lines += [f"  {o.topology}: {d}" for d in o.decisions]
    return "\n".join(lines)


def _progress_bar(done: int, total: int) -> None:
    width = 30
    filled = int(width * done / max(total, 1))
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} tasks")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def cmd_simulate(args: argparse.Namespace) -> int:
    check_output(args.csv, "--csv")
    scenario: Scenario = load_scenario(args.scenario)
    if scenario.is_set:  # the simulator runs one topology; a set is sweep's (core/sweep.py)
        raise UsageError(
            f"{args.scenario} is a set of {len(scenario.topology_set)} topologies: use "
            f"'slotscope sweep {args.scenario} --rate R' (R* and latency per topology)"
        )
    schedulers = scheduler_list(args.scheduler or ["all"])
    settings = simulation_settings(args, scenario.workload.rate)
    check_master_flag(settings.master)
    spark.show_spark_logs(args.verbose)
    progress = _progress_bar if sys.stderr.isatty() and not args.json else None
    doc = compare(
        scenario,
        [(s, {}) for s in schedulers],
        rates=settings.rates,
        replicas=settings.replicas,
        tuples=settings.tuples,
        seed=settings.seed,
        mapper=functools.partial(
            spark.map_tasks,
            master=settings.master,
            progress=progress,
            key=placement_key,
            deadline_s=args.deadline,
        ),
        engine=spark.engine_info(settings.master),
    )
    if args.json:
        _print_json(doc)
    elif args.csv:
        write_csv(doc["results"] + doc["skipped"], args.csv)
        print(f"wrote {len(doc['results'])} results to {args.csv}")
    else:
        print_text(results_table(doc))
    return 0


FLAGS = {
    RATES: "--rate",
    RATE: "--rate",
    REPLICAS: "--replicas",
    TUPLES: "--tuples",
    SEED: "--seed",
    MASTER: "--master",
}  # a Settings field's words -> the flag that sets it


def simulation_settings(args: argparse.Namespace, default_rate: float) -> Settings:
    """The flags of ``simulate`` as a Settings value; a bad one is a UsageError led by its flag.

    >>> ns = argparse.Namespace(rate=None, replicas=0, tuples=1000, seed=0, master=None)
    >>> simulation_settings(ns, 10.0)
    Traceback (most recent call last):
    ...
    core.cli.UsageError: --replicas: 0 is not between 1 and 32
    """
    try:
        return Settings(
            rates=tuple(args.rate or [default_rate]),
            replicas=args.replicas,
            tuples=args.tuples,
            seed=args.seed,
            master=args.master,
        )
    except SettingsError as err:
        raise UsageError(f"{FLAGS[err.field]}: {err.message}") from None


def write_csv(results: list[dict[str, Any]], path: str) -> None:
    text = results_csv(results, lineterminator="\r\n")
    write_output(path, text, "--csv")


def check_master_flag(master: str | None) -> None:
    """The Spark master (``--master``, else ``SLOTSCOPE_SPARK_MASTER``, else local[*])
    checked before any work; a bad one is a UsageError led by where it came from."""
    try:
        spark.check_master(spark.resolve_master(master))
    except SettingsError as err:
        source = MASTER_ENV if master is None and os.environ.get(MASTER_ENV) else "--master"
        raise UsageError(f"{source}: {err.message}") from None


def cmd_sweep(args: argparse.Namespace) -> int:
    """Every scheduler on a topology set (x rates) as one Spark job (core/sweep.py)."""
    check_output(args.csv, "--csv")
    scenario: Scenario = load_scenario(args.scenario)
    schedulers = scheduler_list(args.scheduler or ["all"])
    rates = simulation_settings(args, scenario.workload.rate).rates if args.rate else ()
    check_master_flag(args.master)
    spark.show_spark_logs(args.verbose)
    progress = _progress_bar if sys.stderr.isatty() else None
    doc = spark_sweep(
        scenario,
        source_of(args.scenario, scenario),
        schedulers,
        rates,
        master=args.master,
        progress=progress,
        deadline_s=args.deadline,
    )
    if args.json:
        _print_json(doc)
    elif args.csv:
        write_output(args.csv, sweep_csv(doc), "--csv")
        print(f"wrote {len(doc['results'])} schedulers to {args.csv}")
    else:
        print_text(sweep_table(doc))
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    try:
        select(args.paper)  # an unknown paper is bad input, before any work
    except ValueError as err:
        raise UsageError(str(err)) from None
    rows = reproduce(args.paper)
    if args.json:
        _print_json(
            {
                "claims": [r.to_json() for r in rows],
                "summary": summary(rows),
                "reported": reported(rows),
            }
        )
    else:
        print(table(rows, verbose=args.verbose))
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    check_output(args.out, "--out")
    imported = import_sources(args.source, timeout_s=args.timeout)
    text = json.dumps(imported.document(), indent=2) + "\n"
    for warning in imported.warnings:
        sys.stderr.write(f"slotscope: assumed: {printable(warning)}\n")
    write_output(args.out or "-", text, "--out")
    if args.out not in (None, "-"):
        sys.stderr.write(f"wrote {args.out}: {printable(import_summary(imported.scenario))}\n")
    return 0


def import_summary(sc: Scenario) -> str:
    """One line on an imported scenario: its topologies, their own strategies
    (``scheduler_params.ras.strategy``, from Nimbus's conf), components, executors, nodes.

    >>> from core.presets import preset
    >>> import_summary(preset("wordcount"))
    'wordcount, 3 components, 25 executors, 5 nodes'
    """
    topologies = sc.topology_set
    strategies = [
        t.scheduler_params.get(OWN_SCHEDULER_KEY, {}).get(STRATEGY_PARAM) for t in topologies
    ]
    counts = {s: strategies.count(s) for s in sorted({s for s in strategies if s})}
    head = f"{len(topologies)} topologies, " if sc.is_set else ""
    if counts:
        own = ", ".join(f"{n} {s}" if sc.is_set else s for s, n in counts.items())
        head += f"own strateg{'ies' if sc.is_set else 'y'} {own}, "
    executors = sum(c.parallelism for c in sc.topology.components)
    return (
        f"{sc.name}, {head}{len(sc.topology.components)} components, {executors:,} executors, "
        f"{len(sc.cluster.nodes)} nodes"
    )


def cmd_dashboard(args: argparse.Namespace) -> int:
    if args.serve is None:  # python -m core: core does not import the dashboard
        raise UsageError("dashboard: start it with 'slotscope dashboard' or 'python -m dashboard'")
    check_master_flag(args.master)
    spark.show_spark_logs(args.verbose)
    args.serve(args.host, args.port, args.master)
    return 0


# parser and entry point


def build_parser(serve_dashboard: ServeDashboard | None = None) -> argparse.ArgumentParser:
    """The command line; ``serve_dashboard`` starts the web server (None: not available)."""
    parser = _Parser(prog="slotscope", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("presets", help="list the built-in scenarios")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_presets)

    p = sub.add_parser("preset", help="print a preset's scenario JSON")
    p.add_argument("name")
    p.set_defaults(func=cmd_preset)

    p = sub.add_parser("schedulers", help="list schedulers: id, name, paper, parameters")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_schedulers)

    p = sub.add_parser("schema", help="JSON Schema of the scenario format")
    p.set_defaults(func=cmd_schema)

    p = sub.add_parser("schedule", help="place a scenario's executors with one scheduler")
    p.add_argument("scenario", help="scenario JSON file or preset name")
    p.add_argument("--scheduler", required=True, help="scheduler id (see 'slotscope schedulers')")
    p.add_argument("--param", action="append", default=[], metavar="K=V")
    p.add_argument("--json", action="store_true")
    p.add_argument("--verbose", "-v", action="store_true", help="also list every decision")
    p.set_defaults(func=cmd_schedule)

    p = sub.add_parser("simulate", help="simulate schedulers' placements as a Spark job")
    p.add_argument("scenario", help="scenario JSON file or preset name")
    p.add_argument("--scheduler", action="append", metavar="ID|all")
    p.add_argument(
        "--rate", action="append", type=finite_number, metavar="R", help="offered rate, tuples/s"
    )
    p.add_argument("--replicas", type=int, default=1)
    p.add_argument("--tuples", type=int, default=DEFAULT_TUPLES, help="spout tuples per replica")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--master", default=None, help="Spark master URL (default local[*])")
    p.add_argument(
        "--deadline",
        type=positive_seconds,
        default=None,
        metavar="S",
        help="end the Spark job after S seconds (default: none; a job whose tasks wait "
        f"{spark.STALL_TIMEOUT_S:g} s with none running always ends)",
    )
    p.add_argument("--verbose", "-v", action="store_true", help="show Spark's own log on stderr")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true")
    out.add_argument("--csv", metavar="FILE")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("sweep", help="every scheduler on a topology set (x rates) as one Spark job")
    p.add_argument("scenario", help="scenario JSON file or preset name")
    p.add_argument("--scheduler", action="append", metavar="ID|all")
    p.add_argument(
        "--rate",
        action="append",
        type=finite_number,
        metavar="R",
        help="offered rate, tuples/s: R* and latency per topology at it (default: none)",
    )
    p.add_argument("--master", default=None, help="Spark master URL (default local[*])")
    p.add_argument(
        "--deadline",
        type=positive_seconds,
        default=None,
        metavar="S",
        help="end the Spark job after S seconds (default: none)",
    )
    p.add_argument("--verbose", "-v", action="store_true", help="show Spark's own log on stderr")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true")
    out.add_argument("--csv", metavar="FILE")
    p.set_defaults(func=cmd_sweep, replicas=1, tuples=DEFAULT_TUPLES, seed=0)

    p = sub.add_parser(
        "reproduce", help="every paper claim beside slotscope's figure, with a verdict"
    )
    p.add_argument("paper", nargs="?", help="top-storm, lf, nasiri or aniello (default: all)")
    p.add_argument(
        "--verbose", "-v", action="store_true", help="each claim's words and reason under its row"
    )
    p.add_argument("--json", action="store_true", help="every field of every claim, reasons too")
    p.set_defaults(func=cmd_reproduce)

    p = sub.add_parser(
        "import",
        help="a scenario from Storm UI REST responses, a Flink job plan (files or URL) or "
        "topologies as Nimbus stores them",
    )
    p.add_argument(
        "source",
        nargs="+",
        help="JSON file(s) or a URL: Storm /api/v1/topology/ID (+ /visualization, "
        "/api/v1/supervisor/summary), Flink get_execution_plan() or /jobs/JID/plan; or "
        "NAME-stormcode.ser (its NAME-stormconf.ser beside it), or a folder of them (a "
        "topology set)",
    )
    p.add_argument("--out", metavar="FILE", help="write the scenario here (default stdout)")
    p.add_argument(
        "--timeout",
        type=positive_seconds,
        default=None,
        metavar="S",
        help="per URL, seconds, every request and redirect included (default 10)",
    )
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("dashboard", help="start the web dashboard")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=port_number, default=8050)
    p.add_argument("--master", default=None, help="Spark master URL (default local[*])")
    p.add_argument("--verbose", "-v", action="store_true", help="show Spark's own log on stderr")
    p.set_defaults(func=cmd_dashboard, serve=serve_dashboard)
    return parser


def printable(text: str) -> str:
    """``text`` as one printable line: control characters (NUL, ESC of ANSI sequences,
    newlines) escaped, so no input can draw on the user's terminal.

    >>> printable("a\\x1b[31mred\\x00\\nz")
    'a\\\\x1b[31mred\\\\x00\\\\nz'
    """
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def print_text(text: str) -> None:
    """A table for the terminal: each line through :func:`printable` (ids from a scenario
    file may hold escape sequences)."""
    print("\n".join(printable(line) for line in text.split("\n")))


def _bad_input(message: str) -> int:
    line = printable(message)
    if len(line) > MAX_LINE_CHARS:
        line = line[: MAX_LINE_CHARS - 3] + "..."
    sys.stderr.write(f"slotscope: {line}\n")
    return EXIT_BAD_INPUT


def main(argv: Sequence[str] | None = None, serve_dashboard: ServeDashboard | None = None) -> int:
    """Run one command; 0 on success, 2 with one line on stderr on any failure."""
    try:
        args = build_parser(serve_dashboard).parse_args(argv)
        return args.func(args)
    except UsageError as err:
        return _bad_input(str(err))
    except (ScenarioError, SchedulerError, SettingsError, SparkUnavailable, JobCancelled) as err:
        return _bad_input(str(err))
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return _bad_input("interrupted")
    except RecursionError:
        return _bad_input("the input is nested too deeply")
    except MemoryError:
        return _bad_input("out of memory: the input is too large for this machine")
    except Exception as err:  # the one place that turns any failure into one line
        return _bad_input(explain_failure(err))


if __name__ == "__main__":
    sys.exit(main())
