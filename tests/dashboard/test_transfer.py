"""The shareable URL, uploads (size-limited, validated, never executed) and downloads."""

from __future__ import annotations

import base64
import json

import pytest

from core.model import MAX_SCENARIO_BYTES, ScenarioError
from core.presets import preset
from dashboard.transfer import build_query, decode_upload, parse_query, scenario_download


def _upload(raw: bytes) -> str:
    return "data:application/json;base64," + base64.b64encode(raw).decode()


def test_the_url_round_trips_preset_and_schedulers():
    query = build_query("wordcount", ["even", "top-storm"])
    assert parse_query(query, ["wordcount"], ["even", "lf", "top-storm"]) == (
        "wordcount",
        ["even", "top-storm"],
    )


def test_the_url_ignores_what_it_does_not_know():
    assert parse_query("?preset=nope&schedulers=zzz", ["wordcount"], ["even"]) == (None, [])
    assert parse_query("", ["wordcount"], ["even"]) == (None, None)


def test_an_uploaded_scenario_is_validated():
    text = json.dumps(preset("lf-linear").to_json_dict()).encode()
    assert decode_upload(_upload(text), "lf.json").name == "lf-linear"


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        (b"{not json", "lf.json: not valid JSON"),
        (b"[1, 2]", "a scenario must be a JSON object"),
        (b'{"topology": {"components": []}, "cluster": {"nodes": []}}', "topology.components"),
        (b"x" * (MAX_SCENARIO_BYTES + 10), "the limit is 2,000,000"),
    ],
)
def test_a_bad_upload_is_refused_with_the_reason(raw, says):
    with pytest.raises(ScenarioError) as err:
        decode_upload(_upload(raw), "lf.json")
    assert says in str(err.value)


def test_an_upload_that_is_not_base64_is_refused():
    with pytest.raises(ScenarioError, match="not base64"):
        decode_upload("data:application/json;base64,@@@@", "x.json")


def test_the_download_carries_the_offered_rate():
    payload = scenario_download(preset("wordcount").to_json_dict(), 4321.0)
    assert payload["filename"] == "wordcount.json"
    assert json.loads(payload["content"])["workload"]["rate"] == 4321.0
