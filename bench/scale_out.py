"""Issue 14, beyond one machine: 10M synthetic runs (ten JSONL files) featurised on a Dask
``LocalCluster`` of 2 workers, then served from the features dataset. Not part of ``make bench``
(writing the data alone takes tens of minutes and 15.6 GB).

Steps, each printed with the machine's load average:

1. ``data``: ten files ``bench/data/scale/synth-v1-s0-part<k>-of10.jsonl`` of 1M runs each (runs
   ``k*1M .. (k+1)*1M-1`` of ``bench/synth.py``, seed 0, so ids are disjoint; part 0 is the
   1M file of ``make bench``, copied when it is there);
2. ``featurize``: ``metric-explorer featurize --engine dask`` over the folder (a LocalCluster of 2
   worker processes, one thread each), timed: featurise wall time, runs/s overall and per worker;
3. ``serve``: in a fresh process, open the dataset as ``serve`` does
   (:func:`explorer.core.io.featurestore.open_features`), then re-score (median of 20 changes of each
   kind, as ``bench/run.py``), sweep (``ADK_GRID`` and the full grid) and peak memory (VmHWM).

Usage::

    .venv/bin/python bench/scale_out.py                # every step (data written when missing)
    .venv/bin/python bench/scale_out.py --steps data
    .venv/bin/python bench/scale_out.py --steps featurize serve --files 2   # a smaller trial

Results are appended to ``bench/results.json`` as ``scale_out_*`` records (``--no-record``: print
only).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(REPO))
PER_FILE = 1_000_000
FILES = 10
DATA = BENCH / "data" / "scale"


def _load() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def say(text: str) -> None:
    print(f"[scale_out {time.strftime('%H:%M:%S')} load {_load()}] {text}", file=sys.stderr, flush=True)


def part_path(k: int, files: int = FILES, per_file: int = PER_FILE) -> Path:
    """The JSONL file of part ``k`` (runs ``k*per_file .. (k+1)*per_file-1``)."""
    return DATA / f"synth-v1-s0-part{k}-of{files}x{per_file}.jsonl"


def write_data(files: int, per_file: int) -> list[Path]:
    """The ``files`` JSONL files, written when missing (niced: the machine is shared)."""
    import synth

    DATA.mkdir(parents=True, exist_ok=True)
    out = []
    for k in range(files):
        path = part_path(k, files, per_file)
        if not path.exists():
            t0 = time.perf_counter()
            tmp = path.with_name(path.name + ".tmp")
            same = synth.data_path(BENCH / "data", per_file, 0, "jsonl")
            if k == 0 and same.exists():
                shutil.copyfile(same, tmp)
            else:
                synth.write_jsonl(tmp, per_file, 0, start=k * per_file)
            tmp.rename(path)
            say(f"wrote {path.name} in {time.perf_counter() - t0:.0f} s")
        out.append(path)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", nargs="+", choices=("data", "featurize", "serve"), default=["data", "featurize", "serve"])
    p.add_argument("--files", type=int, default=FILES)
    p.add_argument("--per-file", type=int, default=PER_FILE)
    args = p.parse_args(argv)
    if "data" in args.steps:
        write_data(args.files, args.per_file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
