"""The ``slotscope`` command line (also ``python -m core``).

Every command takes a scenario as a JSON file path or a preset name. With
``--json`` it prints one JSON document on stdout and nothing else. Bad input
exits with status 2 and one line on stderr naming what is wrong and where.
"""

from __future__ import annotations

import argparse
import csv
import functools
import importlib
import io
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from core import spark
from core.comparison import (
    compare,
    explain_failure,
    flatten_result,
    placement_key,
    results_table,
    scheduler_list,
)
from core.importers import import_sources
from core.model import Scenario, ScenarioError, scenario_schema
from core.placement import SchedulerError
from core.presets import PRESETS, load_scenario, preset_json
from core.registry import SCHEDULERS, run_scheduler
from core.report import schedule_document, schedule_table
from core.reproduce import reproduce, select, summary, table
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
from core.spark import JobCancelled, SparkUnavailable

EXIT_BAD_INPUT = 2


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


# commands


def cmd_presets(args: argparse.Namespace) -> int:
    rows = [{"name": name, "description": desc} for name, (desc, _) in PRESETS.items()]
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
        print(f"{r['id']:<16} {r['name']}\n{'':<16} {r['paper']}\n{'':<16} parameters: {params}")
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    _print_json(scenario_schema())
    return 0


def cmd_schedule(args: argparse.Namespace) -> int:
    scenario = load_scenario(args.scenario)
    schedule = run_scheduler(scenario, args.scheduler, _parse_params(args.param))
    doc = schedule_document(scenario, schedule)
    if args.json:
        _print_json(doc)
    else:
        print(schedule_table(doc, verbose=args.verbose))
    return 0


def _progress_bar(done: int, total: int) -> None:
    width = 30
    filled = int(width * done / max(total, 1))
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} tasks")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def cmd_simulate(args: argparse.Namespace) -> int:
    scenario: Scenario = load_scenario(args.scenario)
    schedulers = scheduler_list(args.scheduler or ["all"])
    settings = simulation_settings(args, scenario.workload.rate)
    progress = _progress_bar if sys.stderr.isatty() and not args.json else None
    doc = compare(
        scenario,
        [(s, {}) for s in schedulers],
        rates=settings.rates,
        replicas=settings.replicas,
        tuples=settings.tuples,
        seed=settings.seed,
        mapper=functools.partial(
            spark.map_tasks, master=settings.master, progress=progress, key=placement_key
        ),
        engine=spark.engine_info(settings.master),
    )
    if args.json:
        _print_json(doc)
    elif args.csv:
        write_csv(doc["results"] + doc["skipped"], args.csv)
        print(f"wrote {len(doc['results'])} results to {args.csv}")
    else:
        print(results_table(doc))
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
    rows = [flatten_result(r) for r in results]
    buf = io.StringIO()
    fields = list(rows[0]) if rows else []
    for r in rows:
        fields += [k for k in r if k not in fields]
    writer = csv.DictWriter(buf, fieldnames=fields)
    writer.writeheader()
    writer.writerows(rows)
    if path == "-":
        sys.stdout.write(buf.getvalue())
    else:
        with open(path, "w", newline="") as fh:
            fh.write(buf.getvalue())


def cmd_reproduce(args: argparse.Namespace) -> int:
    try:
        select(args.paper)  # an unknown paper is bad input, before any work
    except ValueError as err:
        raise UsageError(str(err)) from None
    rows = reproduce(args.paper)
    if args.json:
        _print_json({"claims": [r.to_json() for r in rows], "summary": summary(rows)})
    else:
        print(table(rows))
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    imported = import_sources(args.source, timeout_s=args.timeout)
    text = json.dumps(imported.document(), indent=2) + "\n"
    for warning in imported.warnings:
        sys.stderr.write(f"slotscope: assumed: {warning}\n")
    if args.out in (None, "-"):
        sys.stdout.write(text)
    else:
        with open(args.out, "w") as fh:
            fh.write(text)
        sc = imported.scenario
        executors = sum(c.parallelism for c in sc.topology.components)
        sys.stderr.write(
            f"wrote {args.out}: {sc.name}, {len(sc.topology.components)} components, "
            f"{executors} executors, {len(sc.cluster.nodes)} nodes\n"
        )
    return 0


def cmd_dashboard(args: argparse.Namespace) -> int:
    # core never imports the web stack at import time; the dashboard is loaded on demand
    app = importlib.import_module("dashboard.app")
    app.run(host=args.host, port=args.port, master=args.master)
    return 0


# parser and entry point


def build_parser() -> argparse.ArgumentParser:
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
        "--rate", action="append", type=float, metavar="R", help="offered rate, tuples/s"
    )
    p.add_argument("--replicas", type=int, default=1)
    p.add_argument("--tuples", type=int, default=DEFAULT_TUPLES, help="spout tuples per replica")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--master", default=None, help="Spark master URL (default local[*])")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true")
    out.add_argument("--csv", metavar="FILE")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser(
        "reproduce", help="every paper claim beside slotscope's figure, with a verdict"
    )
    p.add_argument("paper", nargs="?", help="top-storm, lf, nasiri or aniello (default: all)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_reproduce)

    p = sub.add_parser(
        "import", help="a scenario from Storm UI REST responses or a Flink job plan (files or URL)"
    )
    p.add_argument(
        "source",
        nargs="+",
        help="JSON file(s) or a URL: Storm /api/v1/topology/ID (+ /visualization, "
        "/api/v1/supervisor/summary), Flink get_execution_plan() or /jobs/JID/plan",
    )
    p.add_argument("--out", metavar="FILE", help="write the scenario here (default stdout)")
    p.add_argument("--timeout", type=float, default=None, metavar="S", help="per URL, seconds")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("dashboard", help="start the web dashboard")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8050)
    p.add_argument("--master", default=None, help="Spark master URL (default local[*])")
    p.set_defaults(func=cmd_dashboard)
    return parser


def _bad_input(message: str) -> int:
    sys.stderr.write(f"slotscope: {message}\n")
    return EXIT_BAD_INPUT


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except UsageError as err:
        return _bad_input(str(err))
    except (ScenarioError, SchedulerError, SettingsError, SparkUnavailable, JobCancelled) as err:
        return _bad_input(str(err))
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return _bad_input("interrupted")
    except Exception as err:  # the one place that turns any failure into one line
        return _bad_input(explain_failure(err))


if __name__ == "__main__":
    sys.exit(main())
