"""Loader speed: seconds to read N runs from JSONL, CSV and ADK eval set results (+ labels CSV).

Data comes from ``bench/synth.py`` (seeded, cached under ``bench/data``). The CSV file holds the
single-invocation runs of the same set (CSV has one invocation per run). Prints one line per
format and size: runs loaded, file size, median wall time of ``--repeat`` loads, runs per second.

    .venv/bin/python bench/loaders.py --n 10000 100000
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synth  # noqa: E402

from explorer.core.io.loaders import load_many, load_runs  # noqa: E402
from explorer.core.io.loaders.flat import dumps_csv  # noqa: E402
from explorer.core.io.loaders.labels import apply_labels, load_labels  # noqa: E402


def timed(fn, repeat: int):
    """(result of the last call, median seconds over ``repeat`` calls)."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, statistics.median(times)


def report(kind: str, n_runs: int, size: int, seconds: float) -> None:
    print(f"{kind:<14} {n_runs:>8} runs  {size / 1e6:8.1f} MB  {seconds:8.3f} s  {n_runs / seconds:>10,.0f} runs/s")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, nargs="+", default=[10_000, 100_000])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "data")
    args = p.parse_args(argv)
    for n in args.n:
        jsonl = synth.ensure(args.out, n, 0, "jsonl")
        cs, secs = timed(lambda: load_runs(jsonl), args.repeat)
        report("jsonl", len(cs.runs), jsonl.stat().st_size, secs)

        csv_path = args.out / f"{jsonl.stem}.single.csv"
        if not csv_path.exists():
            single = replace(cs, runs=tuple(r for r in cs.runs if len(r.invocations) == 1))
            csv_path.write_text(dumps_csv(single), encoding="utf-8")
        cs_csv, secs = timed(lambda: load_runs(csv_path), args.repeat)
        report("csv", len(cs_csv.runs), csv_path.stat().st_size, secs)

        folder = synth.ensure(args.out, n, 0, "adk")
        files = sorted(folder.glob("*.evalset_result.json"))
        cs_adk, secs = timed(lambda: load_many(files), args.repeat)
        report(f"adk ({len(files)} files)", len(cs_adk.runs), sum(f.stat().st_size for f in files), secs)

        labels_path = folder / "labels.csv"
        labels, secs = timed(lambda: apply_labels(cs_adk, load_labels(str(labels_path)))[0], args.repeat)
        report("labels+apply", len(labels.runs), labels_path.stat().st_size, secs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
