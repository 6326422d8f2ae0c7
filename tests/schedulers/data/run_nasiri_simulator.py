"""Run the authors' Scheduler_Simulator.py (Python 2) on one of our scenarios.

Nasiri et al.'s public simulator (github.com/h-nasiri/Scheduling-Simulator, the
paper's ref. [32], commit 5374606) keeps its scenario in module globals and
ships with a malformed active ``TaskDetailes``; its other scenarios are
commented out. This harness keeps the authors' code unchanged (everything
after the ``# [[ IdTask(0) ...`` comment, minus the final ``main()`` and its
two-machine ``MachinesOfCluster`` line) and
puts one scenario of ``SCENARIOS`` in front of it, as their commented blocks
do for two components (one stream 0 -> 1). Usage, with Python 2.7::

    git --git-dir=<mirror>/.git show HEAD:Scheduler_Simulator.py > /tmp/sim.py
    PYENV_VERSION=2.7.18 python2 tests/schedulers/data/run_nasiri_simulator.py /tmp/sim.py NAME

It prints the authors' own output (their last line is "The maximum
Throughput is : X"). The rows below are transcribed from their file.
"""

import sys

# Machine types, named by us (the file names only "AMD"): per component,
# [InputRateDefault, alpha, Y, UtilizationDefault] as in their TaskDetailes.
ROWS = {
    "rc": {
        "A": ([295, 10, 160, 10], [2872, 1, 1586, 10]),
        "B": ([244, 10, 72, 10], [2300, 1, 697, 10]),
        "C": ([277, 10, 60, 40], [1853, 1, 299, 30]),
    },
    "uv": {
        "A": ([2866, 1, 927, 10], [3013, 0.5, 790, 10]),
        "B": ([2806, 1, 680, 10], [2909, 0.5, 774, 10]),
        "C": ([300, 1, 239, 30], [381, 0.5, 91, 40]),
    },
}
# Machine mixes of their commented scenarios ("senario 2 Rc", "senario 3 RC" (its
# bolt rows: the spout rows are malformed), "all Machine AMD", "Senario 5", and the two
# unnamed five-machine ones).
MIXES = {
    "mix2": "ABCABCABC",
    "mix3": "ABCABCBBB",
    "mix5": "CBACBACAC",
    "allC": "CCCCCCCCC",
    "allA5": "AAAAA",
}
SCENARIOS = {
    "rc-mix2": ("rc", "mix2"),
    "rc-mix3": ("rc", "mix3"),
    "rc-mix5": ("rc", "mix5"),
    "uv-mix5": ("uv", "mix5"),
    "rc-allC": ("rc", "allC"),
    "uv-allC": ("uv", "allC"),
    "rc-allA5": ("rc", "allA5"),
    "uv-allA5": ("uv", "allA5"),
}
MARKER = "# [[ IdTask(0) , IdMachine(1) , InputRateDefault(2)"


def task_details(topology, mix):
    rows = []
    for task in (0, 1):
        for machine, kind in enumerate(mix):
            rows.append([task, machine] + list(ROWS[topology][kind][task]))
    return rows


def main():
    path, name = sys.argv[1], sys.argv[2]
    topology, mix = SCENARIOS[name]
    mix = MIXES[mix]
    with open(path) as handle:  # Python 2.7: no pathlib, no encoding argument
        source = handle.read()
    code = source[source.index(MARKER) :]
    code = code[: code.rindex("main()")]
    fixed = "MachinesOfCluster = [[0, 100], [1, 100]]"  # their two-machine default
    assert fixed in code
    code = code.replace(fixed, "")
    namespace = {
        "ComponentList": [0, 1],
        "StreamMap": [[0, 1]],
        "DegreeInput": [[0, 0], [1, 1]],
        "DegreeOutput": [[0, 1], [1, 0]],
        "TaskDetailes": task_details(topology, mix),
        "MachinesOfCluster": [[m, 100] for m in range(len(mix))],
    }
    exec(compile("import os\nimport copy\nimport math\n" + code, path, "exec"), namespace)
    namespace["main"]()


if __name__ == "__main__":
    main()
