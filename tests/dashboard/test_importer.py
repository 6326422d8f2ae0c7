"""The Import button's server side: uploaded files -> scenario, refusals named."""

from __future__ import annotations

import base64
import io
import zipfile
from pathlib import Path

import pytest
from dash import no_update

from core.model import ScenarioError
from dashboard.importer import (
    MAX_FILES,
    MAX_STORED_FILES,
    MAX_ZIP_BYTES,
    control,
    import_topology,
    import_uploads,
)

FIXTURES = Path(__file__).resolve().parents[1] / "importers" / "fixtures"
STORM = (
    "storm_docs_topology.json",
    "storm_ui_topology_visualization.json",
    "storm_docs_supervisor_summary.json",
)


def _data_url(raw: bytes) -> str:
    return "data:application/json;base64," + base64.b64encode(raw).decode()


def _upload(*names: str) -> tuple[list[str], list[str]]:
    return [_data_url((FIXTURES / n).read_bytes()) for n in names], list(names)


def test_three_storm_responses_become_the_editors_scenario():
    contents, names = _upload(*STORM)
    (base, nodes, components, streams, workers, ackers, rate, box, options, loaded, message) = (
        import_topology(contents, names)
    )
    assert base["name"] == "WordCount3"
    assert [(r["id"], r["parallelism"]) for r in components] == [
        ("spout", 5),
        ("count", 12),
        ("split", 8),
    ]
    assert [(r["from"], r["to"], r["grouping"]) for r in streams] == [
        ("spout", "split", "shuffle"),
        ("split", "count", "fields"),
    ]
    assert [(r["id"], r["slots"]) for r in nodes] == [("10.11.1.7", 4)]
    assert (workers, ackers, rate) == (3, 3, pytest.approx(48.133))
    assert "Imported WordCount3 from the Storm UI REST API" in str(message)
    # the preset box says what is loaded, and offers it beside the presets
    assert box == loaded == "imported: WordCount3"
    assert options[-1]["value"] == box and "wordcount" in [o["value"] for o in options]


def test_a_refused_import_keeps_everything_and_names_the_field():
    contents, names = _upload("storm_docs_topology.json")  # no visualization
    out = import_topology(contents, names)
    assert all(o is no_update for o in out[:-1])
    text = str(out[-1])
    assert "Import refused" in text and "/api/v1/topology/<id>/visualization" in text


def test_broken_and_oversized_uploads_are_refused_before_parsing():
    with pytest.raises(ScenarioError, match="broken.json: not valid JSON"):
        import_uploads([_data_url(b'{"spouts": ')], ["broken.json"])
    with pytest.raises(ScenarioError, match="x.json: could not be read"):
        import_uploads(["data:application/json;base64,@@@"], ["x.json"])
    with pytest.raises(ScenarioError, match="big.json: about 3,000,000 bytes"):
        import_uploads(["data:application/json;base64," + "A" * 4_000_000], ["big.json"])
    with pytest.raises(ScenarioError, match="import: 5 files, at most 4"):
        import_uploads(*_upload(*STORM, *STORM[:2]))


def test_the_import_button_takes_several_files_of_any_name():
    button = control()
    # No type filter: the browser would drop a .txt without a word; the server names it.
    assert button.multiple is True and getattr(button, "accept", None) is None
    assert MAX_FILES >= 3  # Storm's three responses in one drop


# Topologies as Nimbus stores them: five pairs of Storm's own corpus, byte for byte
# (tests/importers/fixtures/stormser/NOTICE-apache-storm.txt); TopologyName00027's
# stormcode is the corpus's empty topology.
STORED = FIXTURES / "stormser"
PAIR = ("TopologyName00049-stormcode.ser", "TopologyName00049-stormconf.ser")
ALL_STORED = tuple(sorted(p.name for p in STORED.glob("*.ser")))
READABLE = ["TopologyName00026", "TopologyName00038", "TopologyName00048", "TopologyName00049"]


def _stored(*names: str) -> tuple[list[str], list[str]]:
    return [_data_url((STORED / n).read_bytes()) for n in names], list(names)


def _zip(entries: dict[str, bytes]) -> str:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return _data_url(buffer.getvalue())


def _refused(contents: list[str], names: list[str]) -> str:
    """The one line of a refused import, everything else kept."""
    out = import_topology(contents, names)
    assert all(o is no_update for o in out[:-1])
    text = "".join(out[-1].children)
    assert text.startswith("Import refused — ") and "\n" not in text
    return text.removeprefix("Import refused — ")


def test_one_stored_pair_becomes_the_editors_topology_with_its_conf():
    base, _nodes, components, _streams, workers, ackers, _rate, box, options, loaded, message = (
        import_topology(*_stored(*PAIR))
    )
    assert base["name"] == "TopologyName00049" and "topologies" not in base
    # its conf: 2 workers, 1 acker executor, an 8,192 MB worker heap, Storm 2's
    # DefaultResourceAwareStrategy; Spout-0 x 2 and Bolt-0 x 1 executors
    assert (workers, ackers) == (2, 1)
    assert base["topology"]["worker_max_heap_mb"] == 8192.0
    assert base["topology"]["scheduler_params"] == {"ras": {"strategy": "ras-default"}}
    assert [(r["id"], r["parallelism"]) for r in components] == [("Spout-0", 2), ("Bolt-0", 1)]
    assert box == loaded == "imported: TopologyName00049" and options[-1]["value"] == box
    assert "Imported TopologyName00049 from Nimbus's stored files" in str(message)


def test_several_stored_pairs_are_a_topology_set_without_the_empty_one():
    contents, names = _stored(*ALL_STORED)
    imported = import_uploads(contents, names)
    sc = imported.scenario
    assert sc.name == "nimbus-topologies" and [t.name for t in sc.topology_set] == READABLE
    assert [t.scheduler_params["ras"]["strategy"] for t in sc.topology_set] == [
        "ras-constraint",
        "ras-generic",
        "ras-default",
        "ras-default",
    ]
    assert [t.priority for t in sc.topology_set] == [0, 29, 2, 29]
    assert imported.warnings[0] == (
        "topologies: left out, TopologyName00027-stormcode.ser: topology 'TopologyName00027' "
        "has no spout or bolt executors"
    )
    out = import_topology(contents, names)
    assert [t["name"] for t in out[0]["topologies"]] == READABLE
    assert out[7] == "imported: nimbus-topologies"
    assert "4 topologies, 21 components, 3,606 executors" in str(out[-1])


def test_a_zip_of_a_stored_folder_is_read_whatever_folder_holds_the_pairs():
    entries = {f"largeCluster/{n}": (STORED / n).read_bytes() for n in ALL_STORED}
    entries["largeCluster/NOTICE-apache-storm.txt"] = b"notice"
    entries["__MACOSX/largeCluster/._TopologyName00048-stormcode.ser"] = b"\x00\x05\x16\x07"
    imported = import_uploads([_zip(entries)], ["my corpus.zip"])
    assert imported.scenario.name == "my-corpus"
    assert [t.name for t in imported.scenario.topology_set] == READABLE
    assert imported.warnings[0] == (
        "files: left out largeCluster/NOTICE-apache-storm.txt (not a stored topology)"
    )
    one = {n: (STORED / n).read_bytes() for n in PAIR}  # one pair: one topology, its name
    assert import_uploads([_zip(one)], ["x.zip"]).scenario.topology.name == "TopologyName00049"


def test_bad_stored_files_are_refused_in_one_line_naming_the_file():
    code, conf = ((STORED / n).read_bytes() for n in PAIR)
    assert _refused(*_stored(PAIR[0])) == (
        "TopologyName00049-stormcode.ser: TopologyName00049-stormconf.ser is not among the "
        "files: drop both files of each topology, NAME-stormcode.ser and NAME-stormconf.ser"
    )
    assert _refused(*_stored(*ALL_STORED[:3])).startswith(
        "TopologyName00027-stormcode.ser: TopologyName00027-stormconf.ser is not among"
    )
    assert _refused(*_stored(*ALL_STORED[2:4])) == (  # the corpus's empty topology
        "TopologyName00027-stormcode.ser: topology 'TopologyName00027' has no spout or bolt "
        "executors"
    )
    truncated = [_data_url(code[: len(code) // 2]), _data_url(conf)]
    assert _refused(truncated, list(PAIR)) == (
        "TopologyName00049-stormcode.ser: not a complete gzip file (it ends early)"
    )
    assert _refused([_data_url(code), _data_url(b"")], list(PAIR)) == (
        "TopologyName00049-stormconf.ser: the file is empty"
    )
    mixed = [_data_url(code), _data_url(b"{}")]
    assert _refused(mixed, [PAIR[0], "topology.json"]) == (
        "topology.json: expected NAME-stormcode.ser and NAME-stormconf.ser files (or a .zip "
        "of their folder), not mixed with other files"
    )
    assert _refused([_data_url(code)] * 2, [PAIR[0], f"x/{PAIR[0]}"]) == (
        "x/TopologyName00049-stormcode.ser: TopologyName00049-stormcode.ser is there twice: "
        "give each topology once"
    )


def test_stored_counts_and_sizes_are_checked_before_decoding():
    never = "data:application/octet-stream;base64,@@@"  # decoding it would fail otherwise
    names = [
        f"t{i:03d}-storm{'code' if i % 2 else 'conf'}.ser" for i in range(MAX_STORED_FILES + 1)
    ]
    assert _refused([never] * len(names), names) == "import: 101 files, at most 100"
    big = "data:application/octet-stream;base64," + "A" * 1_900_000  # 1,425,000 bytes each
    names = [f"t{i}-stormcode.ser" for i in range(13)]
    assert _refused([never] + [big] * 12, names) == (
        "import: about 17,100,002 bytes, the limit is 16,000,000"
    )
    huge = "data:application/octet-stream;base64," + "A" * 2_800_000
    assert _refused([huge], [PAIR[0]]) == (
        "TopologyName00049-stormcode.ser: about 2,100,000 bytes, the limit is 2,000,000"
    )
    over = "data:application/zip;base64," + "A" * (4 * MAX_ZIP_BYTES // 3 + 8)
    assert _refused([over], ["set.zip"]).startswith("set.zip: about 8,000,00")


def test_bad_zips_are_refused_in_one_line():
    assert _refused([_data_url(b"PK\x03\x04 not a zip")], ["set.zip"]).startswith(
        "set.zip: not a complete zip file"
    )
    pair = _stored(*PAIR)
    assert _refused([_zip({}), pair[0][0]], ["set.zip", PAIR[0]]) == (
        "set.zip: a .zip of stored topologies is imported alone"
    )
    assert _refused([_zip({"a/readme.txt": b"x"})], ["set.zip"]) == (
        "set.zip: no stored topology: drop both files of each topology, NAME-stormcode.ser and "
        "NAME-stormconf.ser"
    )
    big = {PAIR[0]: b"\x00" * 2_000_001, PAIR[1]: b""}  # a 2 MB member, tiny once zipped
    assert _refused([_zip(big)], ["set.zip"]) == (
        "set.zip: TopologyName00049-stormcode.ser: 2,000,001 bytes, the limit is 2,000,000"
    )


def test_a_stored_set_over_the_page_limit_is_refused_before_the_cluster_is_sized(monkeypatch):
    import core.importers

    def sized(*_args, **_kwargs):
        raise AssertionError("the cluster was sized before the executor limit was checked")

    monkeypatch.setattr(core.importers, "sized_scenario", sized)
    monkeypatch.setattr("dashboard.importer.DASHBOARD_MAX_EXECUTORS", 3)
    # TopologyName00049: Spout-0 x 2, Bolt-0 x 1 and 1 acker executor = 4 executors
    assert _refused(*_stored(*PAIR)) == "topologies: 4 executors in all: at most 3 are taken here"


def test_an_encrypted_or_unknown_compression_zip_member_is_refused_naming_it():
    raw = base64.b64decode(_zip({PAIR[0]: b"x", PAIR[1]: b"y"}).split(",", 1)[1])
    entry = raw.index(b"PK\x01\x02")  # the first central-directory entry's header
    flags, method = entry + 8, entry + 10  # general-purpose flags, compression method
    encrypted = raw[:flags] + b"\x01\x00" + raw[flags + 2 :]
    unknown = raw[:method] + b"\x63\x00" + raw[method + 2 :]  # 99: AES, zipfile lacks it
    for broken, why in ((encrypted, "encrypted"), (unknown, "its compression")):
        url = "data:application/zip;base64," + base64.b64encode(broken).decode()
        assert _refused([url], ["pair.zip"]) == (
            f"pair.zip: {PAIR[0]}: could not be unpacked ({why})"
        )
