"""CPU per run of the two ways a flat JSONL line is read into invocation tuples and display texts.

The featuriser's chunk worker (``bigload.chunk_features``) first tries
``loaders.flat_typed.typed_run`` (msgspec's typed decoder) and falls back to the old way
(``bigload._loads``: orjson or the standard library, then ``loaders.flat.well_formed_run``).
Both are timed here over the same lines, alternating in one process with the garbage collector
paused as in the worker, up to the display texts (``featurestore.plain_texts``) and freeing:

* ``old``: ``_loads`` + ``well_formed_run`` + the titles, ``plain_texts`` re-serialising every
  call list with orjson, freeing the parsed records;
* ``new``: ``orjson_exact`` + ``typed_run`` with its call texts, ``plain_texts`` given them.

Prints the min and median µs per run (``time.process_time``) over ``--repeat`` passes each and the
share of lines the new path took; note the load average (``uptime``) with the figures
(docs/performance.md, "The first load: records decoded by msgspec").

Usage::

    .venv/bin/python bench/synth.py --n 20000 --kind jsonl --out /tmp/bd
    .venv/bin/python bench/line_paths.py /tmp/bd/synth-v1-s0-20000.jsonl [--repeat 9]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from explorer.core.io.bigload import _loads  # noqa: E402
from explorer.core.io.featurestore import plain_texts  # noqa: E402
from explorer.core.io.loaders.flat import well_formed_run  # noqa: E402
from explorer.core.io.loaders.flat_typed import typed_run  # noqa: E402
from explorer.core.io.reading import orjson_exact  # noqa: E402


def old_way(lines: list[bytes]):
    records = [_loads(line, 2, "bench") for line in lines]
    parts = [well_formed_run(r) for r in records]
    titles = [r.get("title") or "" for r in records]
    return records, parts, plain_texts(titles, [p[2] for p in parts])


def new_way(lines: list[bytes]):
    parts = [typed_run(line, True) if orjson_exact(line) else None for line in lines]
    return parts, plain_texts([p[3] for p in parts], [p[2] for p in parts], [p[4] for p in parts])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path", help="a flat JSONL file whose lines all take the light path (bench/synth.py)")
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--chunk-lines", type=int, default=2500, help="lines per chunk (the worker's 4 MB is ~2,500 runs)")
    args = ap.parse_args()
    lines = [line for line in Path(args.path).read_bytes().split(b"\n") if line.strip()]
    chunks = [lines[s : s + args.chunk_lines] for s in range(0, len(lines), args.chunk_lines)]
    taken = sum(orjson_exact(line) and typed_run(line) is not None for line in lines)
    gc.disable()
    times: dict[str, list[float]] = {"old": [], "new": []}
    for r in range(args.repeat):
        order = (("old", old_way), ("new", new_way)) if r % 2 == 0 else (("new", new_way), ("old", old_way))
        for name, way in order:
            t0 = time.process_time()
            for chunk in chunks:
                out = way(chunk)
                del out
            times[name].append((time.process_time() - t0) / len(lines) * 1e6)
    gc.enable()
    for name, xs in times.items():
        print(f"{name}: min {min(xs):.1f} median {statistics.median(xs):.1f} µs/run CPU over {len(xs)} passes")
    print(f"{len(lines)} runs, {taken} ({taken / len(lines):.0%}) read by typed_run")


if __name__ == "__main__":
    main()
