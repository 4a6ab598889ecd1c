"""The automatic feature cache (issue 14): a run file's features computed once, reopened in seconds.

Opening run files through :func:`open_cached` looks for a cache entry, a features dataset
(:mod:`explorer.core.io.featurestore`) named after the files' resolved paths and the settings that
shape features (date reading, id pattern, argument rules, input format, trace read options). The
entry is used only when all of these hold, else the features are computed again and the entry
replaced (never served stale):

* its manifest is this format, written by this product version, with these settings;
* every source file has the recorded size, and either the recorded modification time, inode-change
  time and inode and the same sample hash (1 MB read: the first and last 64 kB and 14 spread
  blocks), or, when one of those changed, the same full sha256 tree hash (the file touched,
  copied or moved but unchanged). A file edited and given back its size and modification time
  (``touch -r``, ``cp -p``) has a new inode-change time: its whole content is hashed;
* every part file has the size the manifest lists and opens, every page read passing its
  checksum (a truncated or corrupt entry is ignored and rebuilt). Text pages are read later,
  when a run is shown: one that fails its checksum then raises LoadError (never a wrong text)
  and removes the entry's manifest, so the next open rebuilds it.

Where entries live (``METRIC_EXPLORER_CACHE_DIR``, or the ``cache_dir`` argument): ``"user"``
(default) the user's cache folder (``platformdirs``: ``~/.cache/metric-explorer/features`` on
Linux), ``"beside"`` a ``.metric-explorer-cache`` folder next to the first run file, a folder path,
or ``"off"``. Entries are safe to delete (when no server is reading one). Files smaller than
``METRIC_EXPLORER_CACHE_MIN_BYTES`` (default 8 MB) are not cached: computing is as fast as
opening.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Sequence

from .errors import LoadError
from .featurestore import (
    FORMAT, FeatureSettings, block_bytes_of, open_features, product_version, read_manifest, sample_hash, tree_hash, write_manifest,
    verify_parts,
)
from .bigload import looks_like_flat_jsonl
from .featurize import Runner, featurize
from .model import CaseSet

ENV_DIR = "METRIC_EXPLORER_CACHE_DIR"
ENV_MIN_BYTES = "METRIC_EXPLORER_CACHE_MIN_BYTES"
DEFAULT_MIN_BYTES = 8 * 1024 * 1024
BESIDE = ".metric-explorer-cache"
"""The cache folder's name next to the run file (``cache_dir="beside"``)."""


def cache_root(paths: Sequence[str], cache_dir: str | None = None) -> Path | None:
    """The cache folder for ``paths``: ``cache_dir`` (or ``METRIC_EXPLORER_CACHE_DIR``) as the
    module docstring says; None when the cache is off."""
    choice = cache_dir if cache_dir is not None else os.environ.get(ENV_DIR, "user")
    if choice in ("", "off", "none", "0"):
        return None
    if choice == "user":
        import platformdirs

        return Path(platformdirs.user_cache_dir("metric-explorer")) / "features"
    if choice == "beside":
        return Path(paths[0]).resolve().parent / BESIDE
    return Path(choice)


def min_bytes() -> int:
    """Files at least this long are cached (``METRIC_EXPLORER_CACHE_MIN_BYTES``, default 8 MB)."""
    try:
        return int(os.environ.get(ENV_MIN_BYTES, DEFAULT_MIN_BYTES))
    except ValueError:
        return DEFAULT_MIN_BYTES


def request_key(paths: Sequence[str], settings: FeatureSettings, rules_given: bool, read_options: dict[str, Any]) -> str:
    """What names an entry: the resolved paths, the settings asked for, whether the argument
    rules replace the files' own, the read options (canonical text)."""
    resolved = [str(Path(p).resolve()) for p in paths]
    import json

    return json.dumps({"paths": resolved, "settings": settings.to_data(), "rules_given": rules_given,
                       "read_options": read_options}, sort_keys=True, separators=(",", ":"))


def planned_format(paths: Sequence[str], input_format: str) -> str:
    """The input format as the cache's key records it: ``"jsonl"`` when ``input_format`` is
    ``"auto"`` or ``"jsonl"`` and every file is one that ``auto`` reads as flat JSONL (a ``.jsonl``
    name whose first record has an ``id`` and no message fields:
    :func:`~explorer.core.io.bigload.looks_like_flat_jsonl`), since both then compute the same
    features the same way; else ``input_format`` as given. So ``score --cases runs.jsonl`` and
    ``score --cases runs.jsonl --input-format jsonl`` share one cache entry. Never raises."""
    if input_format in ("auto", "jsonl") and paths and all(looks_like_flat_jsonl(p, "auto", min_bytes=0) for p in paths):
        return "jsonl"
    return input_format


def entry_path(root: Path, paths: Sequence[str], key: str) -> Path:
    """``<root>/<first file's name>-<hash of key>.features``."""
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]
    stem = Path(paths[0]).name[:60]
    return root / f"{stem}-{digest}.features"


@dataclass(frozen=True)
class Lookup:
    """The outcome of :func:`lookup`: ``case_set`` (None on a miss) and why (one line)."""

    case_set: CaseSet | None
    reason: str


def _source_unchanged(src: dict[str, Any]) -> str | None:
    """None when the source file is the one recorded, else how it differs."""
    path = src["path"]
    try:
        st = os.stat(path)
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    if st.st_size != src["size"]:
        return f"{path} changed ({st.st_size} bytes, was {src['size']})"
    # the sample hash only when the file is the one featurised, untouched: the same inode, and
    # the same inode-change time (a write moves it; cp -p, rsync -t or touch -r cannot set it back)
    if (st.st_mtime_ns, st.st_ctime_ns, st.st_ino) == (src["mtime_ns"], src.get("ctime_ns"), src.get("inode")):
        if sample_hash(path, st.st_size) != src["sample"]:
            return f"{path} changed (same size and time, different content)"
        return None
    try:
        block = block_bytes_of(src["sha256"])
    except ValueError:
        return f"{path}: cache entry has no usable hash"
    if tree_hash(path, block) != src["sha256"]:
        return f"{path} changed (modified {time.ctime(st.st_mtime)})"
    # the same content: the entry records the file as it is now, so the next open takes the
    # sample path instead of hashing the whole file again
    src.update(mtime_ns=st.st_mtime_ns, ctime_ns=st.st_ctime_ns, inode=st.st_ino, restamped=True)
    return None


DROPPED = "_dropped.txt"
"""Written into an entry whose page failed its checksum on a later read (its manifest removed), so
the next open says why it computes the features again."""


def lookup(entry: Path, key: str, paths: Sequence[str]) -> Lookup:
    """Open the cache entry ``entry`` when it is valid for ``key`` (see the module docstring).
    Never raises for a bad entry: returns a miss saying why."""
    if not entry.exists():
        return Lookup(None, "not cached yet")
    if (entry / DROPPED).is_file() and not (entry / "_features.json").exists():
        return Lookup(None, "cache entry dropped after a page failed its checksum when read")
    try:
        folder, manifest = read_manifest(entry)
    except LoadError as exc:
        return Lookup(None, f"cache entry unreadable ({exc.problem})")
    if manifest.get("format") != FORMAT:
        return Lookup(None, "cache entry of another format")
    if manifest.get("version") != product_version():
        return Lookup(None, f"cache entry written by version {manifest.get('version')}, this is {product_version()}")
    if manifest.get("request") != key:
        return Lookup(None, "cache entry for other settings")
    sources = manifest.get("sources") or []
    if [str(Path(s["path"]).resolve()) for s in sources] != [str(Path(p).resolve()) for p in paths]:
        return Lookup(None, "cache entry for other files")
    for src in sources:
        why = _source_unchanged(src)
        if why:
            return Lookup(None, why)
    problem = verify_parts(folder, manifest)
    if problem:
        return Lookup(None, f"cache entry corrupt ({problem})")
    if any([src.pop("restamped", False) for src in sources]):  # a file touched, copied back or moved, not changed
        try:
            write_manifest(entry, manifest)
        except OSError:  # a cache folder that cannot be written: hashed again next time
            pass

    def forget() -> str:  # a page that fails its checksum later: the next open rebuilds the entry
        try:
            (entry / DROPPED).write_text("a page failed its checksum when read\n", encoding="utf-8")
            (entry / "_features.json").unlink()
        except OSError:
            pass
        return "the cache entry is dropped: run again to compute the features afresh"

    try:
        case_set = open_features(entry, on_bad_read=forget)
    except LoadError as exc:
        return Lookup(None, f"cache entry unreadable ({exc.problem})")
    return Lookup(case_set, "cache hit")


def open_cached(
    paths: Sequence[str], settings: FeatureSettings | None = None, *, rules_given: bool = False,
    read_options: dict[str, Any] | None = None, cache_dir: str | None = None, runner: Runner | None = None,
    progress: Callable[[int, int], None] | None = None, say: Callable[[str], None] | None = None,
    partition_bytes: int | None = None, block_bytes: int | None = None,
) -> CaseSet:
    """The runs of ``paths`` with their features, from the cache when it holds them, else
    computed (:func:`~explorer.core.io.featurize.featurize`, in local processes by default) into
    the cache and opened from there. The returned case set's ``notes`` end with one line saying
    which (``"features read from the cache ..."`` / ``"features computed and cached ..."``), and
    ``say(line)`` is called with it too. ``partition_bytes`` / ``block_bytes``: as for
    :func:`~explorer.core.io.featurize.featurize`.

    With the cache off (``cache_dir="off"``) or its folder not writable, the features are computed
    into a temporary folder removed at exit (and the note says so). Raises LoadError for bad run
    files (as the loaders do)."""
    settings = settings or FeatureSettings()
    read_options = dict(read_options or {})
    paths = [str(p) for p in paths]
    key = request_key(paths, replace(settings, input_format=planned_format(paths, settings.input_format)), rules_given, read_options)
    root = cache_root(paths, cache_dir)
    t0 = time.perf_counter()
    why = "cache off"
    entry = None
    if root is not None:
        entry = entry_path(root, paths, key)
        found = lookup(entry, key, paths)
        if found.case_set is not None:
            note = f"features read from the cache ({entry}) in {time.perf_counter() - t0:.1f} s"
            return _noted(found.case_set, note, say)
        why = found.reason
        try:
            root.mkdir(parents=True, exist_ok=True)
            probe = root / f".probe-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            why = f"cache folder {root} not writable ({exc.strerror or exc})"
            entry = None
    if entry is None:
        import atexit
        import tempfile

        scratch = Path(tempfile.mkdtemp(prefix="metric-explorer-features-"))
        atexit.register(shutil.rmtree, scratch, True)
        target = scratch / "features"
    else:
        target = entry
    sizes = {} if block_bytes is None else {"block_bytes": block_bytes}
    featurize(paths, target, settings, rules_given=rules_given, read_options=read_options, runner=runner,
              progress=progress, extra={"request": key}, partition_bytes=partition_bytes, check_out=False, **sizes)
    case_set = open_features(target)
    where = f"cached in {entry}" if entry is not None else "not cached"
    note = f"features computed in {time.perf_counter() - t0:.1f} s ({why}); {where}"
    return _noted(case_set, note, say)


def _noted(case_set: CaseSet, note: str, say: Callable[[str], None] | None) -> CaseSet:
    from dataclasses import replace

    if say is not None:
        say(note)
    return replace(case_set, notes=(*case_set.notes, note))


def clear(root: Path) -> int:
    """Remove every entry under ``root``; returns how many. (Entries are plain folders: removing
    them by hand is as safe.)"""
    if not root.exists():
        return 0
    n = 0
    for entry in root.glob("*.features"):
        shutil.rmtree(entry, ignore_errors=True)
        n += 1
    return n

