"""Build two small PyFlink DataStream jobs and write their real execution plans.

Run with a Python that has ``apache-flink`` (``make flink-venv`` makes
``.venv-flink``; it cannot share the project venv)::

    .venv-flink/bin/python tests/importers/flink_jobs.py [OUT_DIR]

It writes ``flink_wordcount_plan.json`` (source -> flat_map -> key_by ->
reduce -> print, parallelism 2/4) and ``flink_partitioning_plan.json``
(rebalance, forward, broadcast, shuffle, global and rescale edges) and
``flink_wordcount_rest_plan.json`` (WordCount as ``GET /jobs/:jobid/plan`` serves it) into OUT_DIR
(default: ``tests/importers/fixtures``). Nothing is executed: the plans come
from ``StreamExecutionEnvironment.get_execution_plan()``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"
WORDCOUNT = "flink_wordcount_plan.json"
PARTITIONING = "flink_partitioning_plan.json"
REST = "flink_wordcount_rest_plan.json"
LINES = ["to be or not to be", "that is the question"]


def wordcount_env():
    """WordCount: split lines into words, key by word, sum the counts."""
    from pyflink.common import Types
    from pyflink.datastream import StreamExecutionEnvironment

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    words = (
        env.from_collection(LINES, type_info=Types.STRING())
        .flat_map(
            lambda line: [(w, 1) for w in line.split()],
            output_type=Types.TUPLE([Types.STRING(), Types.INT()]),
        )
        .name("split")
        .set_parallelism(4)
    )
    counts = (
        words.key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .name("count")
        .set_parallelism(3)
    )
    counts.print().name("sink").set_parallelism(1)
    return env


def wordcount_plan() -> str:
    """WordCount's ``get_execution_plan()`` (the StreamGraph, one node per operator)."""
    return wordcount_env().get_execution_plan()


def wordcount_rest_plan() -> str:
    """WordCount's plan as the REST API serves it: ``GET /jobs/:jobid/plan``.

    The JobManager answers with ``JobPlanInfo(JsonPlanGenerator.generatePlan(jobGraph))``
    serialised by ``RestMapperUtils``; the same three Flink calls run here on the job
    graph of the local job (chained operators share one node, as in a running job).
    """
    from pyflink.java_gateway import get_gateway

    env = wordcount_env()
    job_graph = env._generate_stream_graph(False).getJobGraph()
    flink = get_gateway().jvm.org.apache.flink
    plan = flink.runtime.jobgraph.jsonplan.JsonPlanGenerator.generatePlan(job_graph)
    info = flink.runtime.rest.messages.JobPlanInfo(plan)
    return flink.runtime.rest.util.RestMapperUtils.getStrictObjectMapper().writeValueAsString(info)


def partitioning_plan() -> str:
    """One edge per ship strategy: rebalance, forward, broadcast, shuffle, global, rescale."""
    from pyflink.common import Types
    from pyflink.datastream import DataStream, StreamExecutionEnvironment

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    source = env.from_collection(list(range(100)), type_info=Types.INT())
    spread = source.rebalance().map(lambda x: x * 2, output_type=Types.INT()).name("double")
    spread = spread.set_parallelism(4)
    same = spread.forward().map(lambda x: x + 1, output_type=Types.INT()).name("inc")
    same = same.set_parallelism(4)
    everyone = same.broadcast().map(lambda x: x, output_type=Types.INT()).name("copy")
    everyone = everyone.set_parallelism(3)
    mixed = everyone.shuffle().map(lambda x: x, output_type=Types.INT()).name("mix")
    mixed = mixed.set_parallelism(2)
    # PyFlink has no global(); Java's DataStream.global() through the gateway is the same call
    gathered = DataStream(getattr(mixed._j_data_stream, "global")())
    single = gathered.map(lambda x: x, output_type=Types.INT()).name("total").set_parallelism(1)
    scaled = single.rescale().map(lambda x: x, output_type=Types.INT()).name("scale")
    scaled.print().name("sink")
    return env.get_execution_plan()


def write_plans(out_dir: Path) -> list[Path]:
    """Write both plans (pretty-printed JSON) into ``out_dir``; return their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    plans = (
        (WORDCOUNT, wordcount_plan),
        (PARTITIONING, partitioning_plan),
        (REST, wordcount_rest_plan),
    )
    for name, build in plans:
        path = out_dir / name
        path.write_text(json.dumps(json.loads(build()), indent=2) + "\n")
        written.append(path)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else FIXTURES
    for p in write_plans(target):
        print(p)
