"""Bad input of every kind ends in exit 2 and one line naming the flag or field.

Each case is one of issue 23's raw exceptions or hangs (RecursionError, Infinity,
OverflowError, IsADirectoryError after a simulation, InvalidURL, ports and
timeouts out of range, /dev/zero, FIFOs, bad Spark masters). None starts Spark:
every check comes before the work.
"""

from __future__ import annotations

import json
import os

import pytest

from core import cli
from core.settings import MAX_SCENARIO_BYTES


def run(capsys, *argv: str, serve=None) -> tuple[int, str, str]:
    code = cli.main(list(argv), serve_dashboard=serve)
    out, err = capsys.readouterr()
    return code, out, err


def one_line(capsys, *argv: str) -> str:
    """The command's one stderr line (exit 2, nothing on stdout), without ``slotscope: ``."""
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, ""), err
    assert err.startswith("slotscope: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and "\x1b" not in err
    return err.removeprefix("slotscope: ").rstrip("\n")


def _write(path, text: str) -> str:
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[" * 1000 + "]" * 1000, "JSON nested too deeply"),
        ('{"topology": {"x": 1e400}}', "not valid JSON (1e400 is too large for a number)"),
        ('{"workload": {"rate": Infinity}}', "not valid JSON (Infinity is not a JSON number)"),
        ('{"workload": {"rate": NaN}}', "not valid JSON (NaN is not a JSON number)"),
        ("[1, 2]", "a scenario must be a JSON object"),
    ],
)
def test_scenario_files_json_only_strict_and_shallow(tmp_path, capsys, text, expected):
    path = _write(tmp_path / "s.json", text)
    assert expected in one_line(capsys, "schedule", path, "--scheduler", "even")


def test_files_that_are_not_regular_or_too_large_are_refused_before_reading(tmp_path, capsys):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # reading it would block for ever
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(60_000_000)  # sparse: 60 MB that are never read
    cases = {
        str(fifo): "not a regular file",
        "/dev/zero": "not a regular file",
        str(tmp_path): "is a directory",
        str(big): f"60,000,000 bytes, larger than the limit of {MAX_SCENARIO_BYTES:,}",
    }
    # import reads a folder as a topology set of Nimbus files: an empty one has none
    imported = {**cases, str(tmp_path): "no readable NAME-stormcode.ser in the folder"}
    for path, expected in cases.items():
        line = one_line(capsys, "schedule", path, "--scheduler", "even")
        assert line.startswith(f"{path}: {expected}")
        assert one_line(capsys, "import", path).startswith(f"{path}: {imported[path]}")


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["simulate", "lf-linear", "--rate", "inf"], "argument --rate: inf is not a finite number"),
        (["simulate", "lf-linear", "--rate", "nan"], "argument --rate: nan is not a finite number"),
        (["simulate", "lf-linear", "--rate", "-5"], "--rate: -5 is not a positive number"),
        (["simulate", "lf-linear", "--deadline", "0"], "argument --deadline: 0 is not between"),
        (["import", "x.json", "--timeout", "1e300"], "argument --timeout: 1e300 is not between"),
        (["import", "x.json", "--timeout", "-1"], "argument --timeout: -1 is not between"),
        (["import", "x.json", "--timeout", "nan"], "argument --timeout: nan is not between"),
        (["dashboard", "--port", "70000"], "argument --port: 70000 is not a port (1-65535)"),
        (["dashboard", "--port", "0"], "argument --port: 0 is not a port (1-65535)"),
        (["import", "http://127.0.0.1:99999/x"], "http://127.0.0.1:99999/x: not a valid URL"),
        (["import", "http://exa mple/x"], "not a valid URL (spaces or control characters)"),
        (["import", "http://[::1/x"], "not a valid URL"),
    ],
)
def test_flags_out_of_range_name_the_flag(capsys, argv, expected):
    assert expected in one_line(capsys, *argv)


@pytest.mark.parametrize(
    ("master", "expected"),
    [
        ("local[0]", "--master: local[0]: local[N] needs N between 1 and 1024 threads"),
        ("k8s://https://10.0.0.1:443", "Kubernetes and Mesos masters are not supported"),
        ("spark://127.0.0.1:1", "--master: no Spark master answers at spark://127.0.0.1:1: "),
        ("spark://", "--master: spark://: expected spark://HOST:PORT"),
    ],
)
def test_bad_masters_are_refused_before_spark_starts(capsys, master, expected):
    assert expected in one_line(capsys, "simulate", "lf-linear", "--master", master)


def test_a_bad_master_from_the_environment_is_named_as_such(capsys, monkeypatch):
    monkeypatch.setenv("SLOTSCOPE_SPARK_MASTER", "local[0]")
    line = one_line(capsys, "simulate", "lf-linear")
    assert line.startswith("SLOTSCOPE_SPARK_MASTER: local[0]: local[N] needs N")


def test_output_paths_are_checked_before_any_work(tmp_path, capsys):
    missing = tmp_path / "no" / "out.csv"
    assert one_line(capsys, "simulate", "lf-linear", "--csv", str(tmp_path)) == (
        f"--csv {tmp_path}: is a directory"
    )
    assert one_line(capsys, "simulate", "lf-linear", "--csv", str(missing)).startswith(
        f"--csv {missing}: no such directory"
    )
    plan = _write(tmp_path / "plan.json", json.dumps({"nodes": [{"id": 1, "parallelism": 1}]}))
    assert one_line(capsys, "import", plan, "--out", str(tmp_path)) == (
        f"--out {tmp_path}: is a directory"
    )


def test_control_characters_of_the_input_are_escaped_in_the_line(capsys):
    line = one_line(capsys, "schedule", "\x1b[31mred\x00.json", "--scheduler", "even")
    assert line.startswith("\\x1b[31mred\\x00.json: no such file or preset")


def test_the_dashboard_command_runs_what_the_console_script_hands_it(capsys):
    started = []
    code, _, _ = run(capsys, "dashboard", "--port", "8123", serve=lambda *a: started.append(a))
    assert code == 0 and started == [("127.0.0.1", 8123, None)]
    # python -m core has no web stack: it says how to start the dashboard
    assert "start it with 'slotscope dashboard'" in one_line(capsys, "dashboard")


def test_a_parameter_too_large_for_its_type_names_the_parameter(capsys):
    line = one_line(
        capsys, "schedule", "lf-linear", "--scheduler", "optimal", "--param", "limit=1e400"
    )
    assert line == "parameter limit: expected int, got '1e400'"


def test_tables_escape_control_characters_line_by_line(capsys):
    cli.print_text("node  slots\nn\x1b[2J  4")
    assert capsys.readouterr().out == "node  slots\nn\\x1b[2J  4\n"
