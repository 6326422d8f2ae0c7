"""The result cache: a private directory, JSON that is only ever parsed, versioned keys."""

from __future__ import annotations

import json
import os
import pickle
import stat

import pytest

from dashboard import jobs
from dashboard.jobs import CacheUnsafe, ResultCache, cache_dir, private_dir, settings_key

DOC = {"engine": {"tasks": 2}, "results": [{"scheduler": "even", "max_rate": 1234.5}]}


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_the_directory_is_created_0700_and_a_looser_one_of_ours_is_tightened(tmp_path):
    cache = ResultCache(tmp_path / "a" / "slotscope")
    assert cache.directory is not None and mode(cache.directory) == 0o700
    loose = tmp_path / "loose"
    loose.mkdir(mode=0o777)
    os.chmod(loose, 0o777)  # the umask may have narrowed mkdir's mode
    assert mode(private_dir(loose)) == 0o700


def test_a_symlink_or_a_file_is_not_a_cache_directory(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(CacheUnsafe, match="not a directory"):
        private_dir(tmp_path / "link")
    cache = ResultCache(tmp_path / "link")  # refused: the cache stays empty, no error
    cache.set("k", DOC)
    assert cache.directory is None and cache.get("k") is None
    assert list((tmp_path / "real").iterdir()) == []


def test_the_default_directory_is_the_users_cache_never_the_shared_tmp(monkeypatch, tmp_path):
    monkeypatch.delenv(jobs.CACHE_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "slotscope"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # ignored, as XDG says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "slotscope"


def test_a_result_round_trips_as_json_files_readable_by_the_owner_only(tmp_path):
    cache = ResultCache(tmp_path / "c")
    cache.set("comparison-1", DOC)
    assert cache.get("comparison-1") == DOC
    (stored,) = cache.directory.iterdir()
    assert stored.suffix == ".json" and mode(stored) == 0o600
    assert json.loads(stored.read_text())["value"] == DOC


class Exploit:
    """A pickle that, when loaded, writes a marker file (what a planted cache entry did)."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def test_a_planted_file_is_not_executed_and_not_served(tmp_path):
    cache = ResultCache(tmp_path / "c")
    cache.set("comparison-1", DOC)
    (stored,) = cache.directory.iterdir()
    marker = tmp_path / "executed"
    stored.write_bytes(pickle.dumps(Exploit(marker)))  # a pickle under the entry's name
    assert cache.get("comparison-1") is None
    assert not marker.exists()
    stored.write_text(json.dumps({"key": "comparison-2", "value": {"forged": 1}}))
    assert cache.get("comparison-1") is None  # JSON written under another key


def test_the_oldest_entries_go_beyond_the_limit(tmp_path):
    cache = ResultCache(tmp_path / "c", entries=3)
    for i in range(5):
        cache.set(f"k{i}", {"i": i})
        os.utime(cache.path_of(f"k{i}"), (i, i))  # distinct modification times, oldest first
    assert len(list(cache.directory.glob("*.json"))) == 3
    assert cache.get("k0") is None and cache.get("k4") == {"i": 4}


def test_a_package_or_model_version_bump_misses_the_cache(tmp_path, monkeypatch):
    cache = ResultCache(tmp_path / "c")
    scenario, settings = {"name": "s"}, {"rates": [1.0]}
    cache.set(settings_key(scenario, settings), DOC)
    assert cache.get(settings_key(scenario, settings)) == DOC
    monkeypatch.setattr(jobs, "MODEL_VERSION", jobs.MODEL_VERSION + 1)
    assert cache.get(settings_key(scenario, settings)) is None
    monkeypatch.undo()
    monkeypatch.setattr(jobs, "PACKAGE_VERSION", "99.0.0")
    assert cache.get(settings_key(scenario, settings)) is None
