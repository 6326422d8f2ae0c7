"""The Import button: Storm UI REST responses or a Flink job plan become the scenario.

One or several JSON files dropped on the button (Storm's topology, visualization
and supervisor-summary responses together, or one Flink plan) go through
``core.importers`` exactly as ``slotscope import`` does; the scenario replaces the
one in the editors the way an uploaded scenario does, and the list of what had to
be assumed is shown under the bar. A refused import names the file and the field
and keeps the current scenario. Nothing in an upload is executed.

Topologies as Nimbus stores them come the same way: the ``NAME-stormcode.ser`` and
``NAME-stormconf.ser`` pairs of one or many topologies dropped together, or a ``.zip``
of such a folder. They are written to a private temporary folder and read by
``core.importers`` exactly as ``slotscope import FOLDER`` (or ``NAME-stormcode.ser``
for a single pair) reads them: one pair is one topology, several are a topology set,
and a pair that cannot be read is left out of a set and said so (Storm's own corpus
has an empty one). Sizes and counts are checked before anything is decoded.
"""

from __future__ import annotations

import base64
import binascii
import io
import logging
import re
import tempfile
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from dash import Input, Output, State, callback, dcc, html, no_update

from core.importers import (
    STORMCODE_SUFFIX,
    import_documents,
    parse_document,
    stormser_folder_scenario,
    stormser_scenario,
)
from core.importers.common import Imported
from core.model import ScenarioError
from core.settings import MAX_SCENARIO_BYTES
from dashboard import ids, view_state
from dashboard.rows import scenario_outputs
from dashboard.transfer import (
    DASHBOARD_MAX_EXECUTORS,
    UPLOAD_GUARD_BYTES,
    check_dashboard_size,
    guarded,
    upload_bytes,
)

log = logging.getLogger(__name__)

MAX_FILES = 4  # Storm needs three responses; one more is always a mistake
SOURCE_NAMES = {
    "storm": "the Storm UI REST API",
    "flink": "an Apache Flink job plan",
    "nimbus": "Nimbus's stored files",
}
STORMCONF_SUFFIX = "-stormconf.ser"
# Storm's largest corpus folder (largeCluster03) holds 50 pairs in 13.7 MB; each file is
# also held to the 2 MB of any upload (the corpus's largest is 1.1 MB)
MAX_STORED_FILES = 100
MAX_STORED_BYTES = 16_000_000  # every stored file of one drop, unpacked from a zip or not
MAX_ZIP_BYTES = UPLOAD_GUARD_BYTES  # a zip of a folder: the browser refuses more outright
MAX_ZIP_ENTRIES = 4 * MAX_STORED_FILES  # folders, a README, macOS's __MACOSX copies
SET_NAME = "nimbus-topologies"  # a set dropped as files (a zip is named after its file)
PAIR_HELP = "drop both files of each topology, NAME-stormcode.ser and NAME-stormconf.ser"


def control() -> dcc.Upload:
    """The Import button (a file drop that takes several JSON files at once)."""
    return dcc.Upload(
        id=ids.IMPORT_UPLOAD,
        className="upload import-upload",
        max_size=UPLOAD_GUARD_BYTES,
        multiple=True,
        children=html.Span(
            [html.U("Import"), " Storm UI / Flink plan JSON / Nimbus .ser"],
            title=(
                "Storm: /api/v1/topology/ID, its /visualization and /api/v1/supervisor/summary "
                "(select all three); Flink: get_execution_plan() or /jobs/JID/plan; Nimbus: "
                "NAME-stormcode.ser with NAME-stormconf.ser, for one topology or many (a "
                "topology set), or a .zip of their folder"
            ),
        ),
    )


def decode(contents: str | None, filename: str | None) -> Any:
    """Parsed JSON of one uploaded file; ScenarioError if refused."""
    raw, source = upload_bytes(contents, filename)
    return guarded(source, lambda: parse_document(raw, source))


def import_uploads(contents: list[str] | None, filenames: list[str] | None) -> Imported:
    """The :class:`~core.importers.common.Imported` of one drop of files: JSON documents,
    or topologies as Nimbus stores them (:func:`import_stored`)."""
    contents = list(contents or [])
    names = [str(n) for n in filenames or []]
    names += [f"file {i + 1}" for i in range(len(names), len(contents))]
    if not contents:
        raise ScenarioError("import", "no file")
    if any(is_stored(name) for name in names):
        return import_stored(contents, names)
    if len(contents) > MAX_FILES:
        raise ScenarioError("import", f"{len(contents)} files, at most {MAX_FILES}")
    documents = [(name, decode(c, name)) for c, name in zip(contents, names, strict=False)]
    return guarded(", ".join(names), lambda: import_documents(documents))


def is_stored(filename: str) -> bool:
    """Whether a dropped file is Nimbus's (``.ser``) or a zip of them, by its name."""
    return filename.lower().endswith((".ser", ".zip"))


def _base_name(filename: str) -> str:
    """The file's own name, without any folder a hand-sent request may put before it."""
    return PurePosixPath(filename.replace("\\", "/")).name


def _stored_name(filename: str, where: str) -> str:
    """``filename``'s own name if it is ``NAME-stormcode.ser`` or ``NAME-stormconf.ser``."""
    name = _base_name(filename)
    stem = name.removesuffix(STORMCODE_SUFFIX).removesuffix(STORMCONF_SUFFIX)
    if stem == name or not stem or not name.isprintable() or len(name) > 200:
        raise ScenarioError(
            where,
            f"expected NAME{STORMCODE_SUFFIX} and NAME{STORMCONF_SUFFIX} files (or a "
            ".zip of their folder), not mixed with other files",
        )
    return name


def _payload_size(contents: Any, source: str) -> int:
    """Bytes a ``data:...;base64,`` upload decodes to, estimated before decoding."""
    if not isinstance(contents, str) or "," not in contents:
        raise ScenarioError(source, "not a file's contents (expected a data: URL)")
    return len(contents.split(",", 1)[1]) * 3 // 4


def _zip_bytes(contents: Any, source: str) -> bytes:
    """A zip upload's bytes, its size checked against :data:`MAX_ZIP_BYTES` first."""
    size = _payload_size(contents, source)
    if size > MAX_ZIP_BYTES:
        raise ScenarioError(source, f"about {size:,} bytes, the limit is {MAX_ZIP_BYTES:,}")
    try:
        return base64.b64decode(contents.split(",", 1)[1], validate=True)
    except (binascii.Error, ValueError):
        raise ScenarioError(source, "could not be read (not base64 data)") from None


def _add(files: dict[str, bytes], name: str, data: bytes, source: str) -> None:
    if name in files:
        raise ScenarioError(source, f"{name} is there twice: give each topology once")
    if sum(map(len, files.values())) + len(data) > MAX_STORED_BYTES:
        raise ScenarioError(source, f"more than {MAX_STORED_BYTES:,} bytes of stored topologies")
    files[name] = data


# compressions Python's zipfile unpacks, and the flag bit of an encrypted member
ZIP_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)
ZIP_ENCRYPTED = 0x1


def zip_members(raw: bytes, source: str) -> tuple[dict[str, bytes], list[str]]:
    """The ``NAME-storm{code,conf}.ser`` files of a zip (by their own names, whatever
    folder holds them) and one line per other file left out. Counts and sizes are
    checked from the zip's directory, and each file is read no further than its limit.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            entries = archive.infolist()
            if len(entries) > MAX_ZIP_ENTRIES:
                raise ScenarioError(source, f"{len(entries):,} entries, at most {MAX_ZIP_ENTRIES}")
            files: dict[str, bytes] = {}
            left_out: list[str] = []
            for info in entries:
                name = _base_name(info.filename)
                if info.is_dir() or name.startswith("._") or "__MACOSX/" in info.filename:
                    continue  # folders, and the resource forks macOS's Archive Utility adds
                if not name.endswith((STORMCODE_SUFFIX, STORMCONF_SUFFIX)):
                    left_out.append(f"files: left out {info.filename[:80]} (not a stored topology)")
                    continue
                where = f"{source}: {info.filename}"
                if len(files) >= MAX_STORED_FILES:
                    raise ScenarioError(source, f"more than {MAX_STORED_FILES} stored files")
                if info.file_size > MAX_SCENARIO_BYTES:
                    raise ScenarioError(
                        where, f"{info.file_size:,} bytes, the limit is {MAX_SCENARIO_BYTES:,}"
                    )
                if info.compress_type not in ZIP_METHODS:
                    raise ScenarioError(where, "could not be unpacked (its compression)")
                if info.flag_bits & ZIP_ENCRYPTED:
                    raise ScenarioError(where, "could not be unpacked (encrypted)")
                with archive.open(info) as member:
                    data = member.read(MAX_SCENARIO_BYTES + 1)
                if len(data) > MAX_SCENARIO_BYTES:
                    raise ScenarioError(where, f"more than {MAX_SCENARIO_BYTES:,} bytes")
                _add(files, _stored_name(name, where), data, source)
    except (zipfile.BadZipFile, EOFError, zlib.error) as err:
        raise ScenarioError(source, f"not a complete zip file ({err})") from None
    except RuntimeError as err:  # whatever else zipfile refuses to unpack
        raise ScenarioError(source, f"could not be unpacked ({err})") from None
    return files, left_out


def stored_files(
    contents: Sequence[Any], names: Sequence[str]
) -> tuple[dict[str, bytes], list[str], str]:
    """The stored files of one drop (own name -> bytes), notes on what was left out, and
    the zip's name ("" for files dropped as they are). Counts and sizes first."""
    zips = [n for n in names if n.lower().endswith(".zip")]
    if zips:
        if len(names) > 1:
            raise ScenarioError(zips[0], "a .zip of stored topologies is imported alone")
        files, left_out = zip_members(_zip_bytes(contents[0], names[0]), names[0])
        return files, left_out, names[0]
    if len(contents) > MAX_STORED_FILES:
        raise ScenarioError("import", f"{len(contents)} files, at most {MAX_STORED_FILES}")
    own = [_stored_name(n, n) for n in names]
    total = sum(_payload_size(c, n) for c, n in zip(contents, names, strict=True))
    if total > MAX_STORED_BYTES:
        raise ScenarioError("import", f"about {total:,} bytes, the limit is {MAX_STORED_BYTES:,}")
    files: dict[str, bytes] = {}
    for data_url, name, source in zip(contents, own, names, strict=True):
        _add(files, name, upload_bytes(data_url, source)[0], source)
    return files, [], ""


def _pairs(files: dict[str, bytes], zip_name: str) -> list[str]:
    """The stormcode file of every pair, sorted; ScenarioError naming an unpaired file
    (and the zip that holds it, if any)."""
    codes = sorted(n for n in files if n.endswith(STORMCODE_SUFFIX))
    for name in sorted(files):
        stem = name.removesuffix(STORMCODE_SUFFIX).removesuffix(STORMCONF_SUFFIX)
        other = stem + (STORMCONF_SUFFIX if name in codes else STORMCODE_SUFFIX)
        if other not in files:
            where = f"{zip_name}: {name}" if zip_name else name
            raise ScenarioError(where, f"{other} is not among the files: {PAIR_HELP}")
    if not codes:
        raise ScenarioError(zip_name or "import", f"no stored topology: {PAIR_HELP}")
    return codes


def import_stored(contents: Sequence[Any], names: Sequence[str]) -> Imported:
    """One scenario from topologies as Nimbus stores them (a pair, several, or a zip).

    Raises
    ------
    ScenarioError
        One line naming the file: too many or too large, not a stored topology, an
        unpaired file, a malformed or truncated pair when it is the only one.
    """
    files, left_out, zip_name = stored_files(contents, names)
    codes = _pairs(files, zip_name)
    # a set is named after its zip (as `slotscope import FOLDER` after the folder)
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", _base_name(zip_name)[:-4]).strip("-.")
    source = zip_name or ", ".join(codes[:3])
    with tempfile.TemporaryDirectory(prefix="slotscope-import-") as tmp:
        folder = Path(tmp) / (stem or SET_NAME)
        folder.mkdir()
        for name, data in files.items():
            (folder / name).write_bytes(data)
        here = f"{folder}/"

        def read() -> Imported:
            # the page's limit before the cluster is sized (Storm's strategies run then)
            if len(codes) == 1:
                return stormser_scenario(str(folder / codes[0]), DASHBOARD_MAX_EXECUTORS)
            return stormser_folder_scenario(str(folder), DASHBOARD_MAX_EXECUTORS)

        try:
            imported = guarded(source, read)
        except ScenarioError as err:  # the temporary folder is no business of the user's
            raise ScenarioError(err.path.replace(here, ""), err.message.replace(here, "")) from None
    imported.warnings = left_out + [w.replace(here, "") for w in imported.warnings]
    imported.source = "nimbus"
    return imported


def report(imported, filenames: list[str]) -> html.Div:
    """What was imported and, as a list, every assumption the importer made."""
    sc = imported.scenario
    executors = sum(c.parallelism for c in sc.topology.components)
    shown = filenames if len(filenames) <= 6 else [*filenames[:4], f"{len(filenames) - 4} more"]
    topologies = f"{len(sc.topology_set)} topologies, " if sc.is_set else ""
    head = (
        f"Imported {sc.name} from {SOURCE_NAMES.get(imported.source, imported.source)} "
        f"({', '.join(shown)}): {topologies}{len(sc.topology.components)} components, "
        f"{executors:,} executors, {len(sc.cluster.nodes)} nodes."
    )
    children: list[Any] = [html.Span(head, className="ok")]
    if imported.warnings:
        children.append(
            html.Details(
                [
                    html.Summary(f"{len(imported.warnings)} assumptions (the source lacks them)"),
                    html.Ul([html.Li(w) for w in imported.warnings], className="import-warnings"),
                ],
                open=True,
                className="import-report",
            )
        )
    return html.Div(children, id=ids.IMPORT_REPORT)


@callback(
    Output(ids.BASE_STORE, "data", allow_duplicate=True),
    Output(ids.NODES_GRID, "rowData", allow_duplicate=True),
    Output(ids.COMPONENTS_GRID, "rowData", allow_duplicate=True),
    Output(ids.STREAMS_GRID, "rowData", allow_duplicate=True),
    Output(ids.WORKERS, "value", allow_duplicate=True),
    Output(ids.ACKERS, "value", allow_duplicate=True),
    Output(ids.RATE, "value", allow_duplicate=True),
    Output(ids.PRESET, "value", allow_duplicate=True),
    Output(ids.PRESET, "options", allow_duplicate=True),
    Output(ids.LOADED_STORE, "data", allow_duplicate=True),
    Output(ids.BAR_MESSAGE, "children", allow_duplicate=True),
    Input(ids.IMPORT_UPLOAD, "contents"),
    State(ids.IMPORT_UPLOAD, "filename"),
    prevent_initial_call=True,
)
def import_topology(contents, filenames):
    """Imported files become the scenario in the editors, and the preset box says
    ``imported: NAME``; a refusal keeps the current one."""
    try:
        imported = import_uploads(contents, filenames)
        check_dashboard_size(imported.scenario)
    except ScenarioError as err:
        refused = html.Span(["Import refused — ", str(err)], className="error")
        return (no_update,) * 10 + (refused,)
    except Exception as err:  # whatever the files hold, a message and the scenario kept
        log.exception("import of %s failed", filenames)
        why = f"could not be read ({type(err).__name__})"
        return (no_update,) * 10 + (html.Span(["Import refused — ", why], className="error"),)
    loaded = view_state.loaded_value("imported", imported.scenario.name)
    return (
        *scenario_outputs(imported.scenario),
        loaded,
        view_state.preset_options(loaded),
        loaded,
        report(imported, list(filenames or [])),
    )
