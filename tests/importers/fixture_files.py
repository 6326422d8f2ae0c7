"""The importer tests' fixture files (see fixtures/README.md for their sources)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


def mutations(doc: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """(path, replacement) for every field: deleted, null, a string, an empty list
    (``mutated`` applies one)."""
    if isinstance(doc, dict):
        items = list(doc.items())
    elif isinstance(doc, list):
        items = list(enumerate(doc))
    else:
        return
    for key, value in items:
        for replacement in ("__delete__", None, "x", [], float("nan")):
            yield path + (key,), replacement
        yield from mutations(value, path + (key,))


def mutated(doc: Any, path: tuple, replacement: Any) -> Any:
    """A copy of ``doc`` with the field at ``path`` replaced (or deleted: "__delete__")."""
    doc = copy.deepcopy(doc)
    target = doc
    for key in path[:-1]:
        target = target[key]
    if replacement == "__delete__":
        if isinstance(target, list):
            target.pop(path[-1])
        else:
            del target[path[-1]]
    else:
        target[path[-1]] = replacement
    return doc
