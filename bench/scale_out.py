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


def replicate_step(source: Path, copies: int, out: Path) -> dict:
    """A features dataset of ``copies`` copies of the dataset ``source`` (a cache entry or a
    ``featurize`` output), ids made unique (``c<k>-<id>``): N x copies rows to *serve* when the
    machine cannot featurise that many in the time at hand. The features are the source's (real
    values, computed by the product), the rows repeated."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from explorer.core.io.featurestore import MANIFEST, _sha256_file, write_manifest

    manifest = json.loads((source / MANIFEST).read_text())
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    parts = []
    t0 = time.perf_counter()
    for k in range(copies):
        for part in manifest["parts"]:
            pf = pq.ParquetFile(source / part["file"])
            table = pf.read()
            ids = pc.binary_join_element_wise(pa.scalar(f"c{k}"), table.column("id"), "-")
            table = table.set_column(table.schema.get_field_index("id"), "id", ids)
            table = table.replace_schema_metadata(pf.schema_arrow.metadata)
            name = f"part-{len(parts):05d}.parquet"
            texts = {"id", "title", "human_verdict", "answer", "references", "expected_calls", "actual_calls",
                     "key_reason", "key_reason_other", "record"}
            feats = [c for c in table.column_names if c not in texts]
            pq.write_table(table, tmp / name, row_group_size=4096, write_page_checksum=True,
                           compression={c: ("zstd" if c in texts else "lz4") for c in table.column_names},
                           use_dictionary=feats, write_statistics=feats)
            parts.append({**part, "file": name, "size": (tmp / name).stat().st_size, "sha256": _sha256_file(tmp / name)})
    write_manifest(tmp, {**manifest, "parts": parts, "n_runs": manifest["n_runs"] * copies,
                         "name": f"{copies} copies of {manifest.get('name')}", "replicated_from": str(source)})
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return {"seconds": time.perf_counter() - t0, "n_runs": manifest["n_runs"] * copies, "parts": len(parts)}


def featurize_step(files: list[Path], out: Path, workers: int) -> dict:
    """``metric-explorer featurize --engine dask`` over ``files`` on a LocalCluster of ``workers``
    worker processes (one thread each); its JSON summary plus the load average around it."""
    before = _load()
    t0 = time.perf_counter()
    got = subprocess.run(
        [sys.executable, "-m", "explorer.cli", "featurize", *map(str, files), "--out", str(out), "--engine", "dask",
         "--workers", str(workers), "--format", "json"],
        cwd=REPO, stdout=subprocess.PIPE, check=True, text=True,
    )
    summary = json.loads(got.stdout)
    summary.update(wall_s=time.perf_counter() - t0, load_average_start=before, load_average_end=_load(),
                   children_cpu_s=_children_cpu())
    return summary


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def serve_step(dataset: Path, full_grid: bool) -> dict:
    """``bench/serve_from_cache.py`` over the dataset in a fresh process (one sweep of each grid)."""
    got = subprocess.run(
        [sys.executable, str(BENCH / "serve_from_cache.py"), "--cases", str(dataset), "--sweeps", "1",
         *([] if full_grid else ["--no-full-grid"])],
        cwd=REPO, stdout=subprocess.PIPE, check=True, text=True,
    )
    return json.loads(got.stdout.strip().splitlines()[-1])


def record(records: list[dict]) -> None:
    """Replace the records of ``bench/results.json`` whose figures ``records`` measured anew
    (``--steps serve`` alone keeps the featurise record of an earlier run)."""
    path = BENCH / "results.json"
    old = json.loads(path.read_text()) if path.exists() else []
    measured = {r["figure"] for r in records}
    kept = [r for r in old if r.get("figure") not in measured]
    path.write_text(json.dumps(kept + records, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", nargs="+", choices=("data", "featurize", "replicate", "serve"), default=["data", "featurize", "serve"])
    p.add_argument("--replicate-from", type=Path, help="replicate: the dataset to copy (e.g. the 1M cache entry)")
    p.add_argument("--copies", type=int, default=10)
    p.add_argument("--featurize-files", type=int, default=None, metavar="K",
                   help="featurize: the first K files only (a shorter trial; runs/s per worker is still measured)")
    p.add_argument("--files", type=int, default=FILES)
    p.add_argument("--per-file", type=int, default=PER_FILE)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", type=Path, default=None, help="the features dataset (default bench/data/scale/<files>x<per-file>.features)")
    p.add_argument("--no-full-grid", dest="full_grid", action="store_false", help="serve: the ADK grid only")
    p.add_argument("--no-record", action="store_true")
    args = p.parse_args(argv)
    os.environ.setdefault("METRIC_EXPLORER_MAX_BYTES", str(64 * 1024**3))
    files = write_data(args.files, args.per_file) if "data" in args.steps else [part_path(k, args.files, args.per_file) for k in range(args.files)]
    out = args.out or DATA / f"{args.files}x{args.per_file}.features"
    n = args.files * args.per_file
    records: list[dict] = []
    base = {"n_runs": n, "baseline_median_s": None, "ratio": None, "target": None, "met": None}
    if "featurize" in args.steps:
        chosen = files[: args.featurize_files] if args.featurize_files else files
        target = out if not args.featurize_files else out.with_name(f"{len(chosen)}of{out.name}")
        say(f"featurize {len(chosen) * args.per_file:,} runs from {len(chosen)} files on a LocalCluster of {args.workers} workers")
        f = featurize_step(chosen, target, args.workers)
        base = {**base, "n_runs": f["runs"]}
        say(f"featurized in {f['wall_s']:.0f} s: {f['runs_per_second']:,.0f} runs/s, {f['runs_per_second_per_worker']:,.0f} per worker")
        records.append({**base, "figure": "scale_out_featurize", "median_s": f["seconds"], "detail": f})
    if "replicate" in args.steps:
        say(f"replicate {args.replicate_from} x {args.copies} into {out}")
        r = replicate_step(args.replicate_from, args.copies, out)
        n = r["n_runs"]
        base["n_runs"] = n
        say(f"replicated {n:,} rows in {r['seconds']:.0f} s")
    if "serve" in args.steps:
        say(f"serve {out}")
        g = serve_step(out, args.full_grid)
        say(f"reopen {g['reopen_s']:.1f} s, first page {g['first_page_s']:.1f} s, re-score max {g['rescore_max_s'] * 1e3:.1f} ms, "
            f"sweep ADK {g['sweep_adk_s']:.2f} s, full {g.get('sweep_full_s', float('nan')):.2f} s, peak {g['peak_mb']:.0f} MB")
        where = {"load_average_start": g["load_average_start"], "load_average_end": g["load_average_end"],
                 "dataset": str(out), "n_runs": g["n_runs"],
                 **({"replicated_from": str(args.replicate_from), "copies": args.copies} if "replicate" in args.steps else {})}
        base["n_runs"] = g["n_runs"]
        records += [
            {**base, "figure": "scale_out_reopen", "median_s": g["reopen_s"], "detail": {**where, "first_page_s": g["first_page_s"]}},
            {**base, "figure": "scale_out_rescore_max", "median_s": g["rescore_max_s"], "target": "<= 50 ms",
             "met": g["rescore_max_s"] <= 0.050, "detail": {k: v for k, v in g.items() if k.startswith("rescore_")}},
            {**base, "figure": "scale_out_sweep_adk", "median_s": g["sweep_adk_s"], "target": "<= 5 s", "met": g["sweep_adk_s"] <= 5,
             "detail": {"grid": "ADK_GRID (6,464 settings)", **where}},
            *([{**base, "figure": "scale_out_sweep_full", "median_s": g["sweep_full_s"], "target": "<= 5 s",
                "met": g["sweep_full_s"] <= 5, "detail": {"grid": "full (159,176 settings)", **where}}] if "sweep_full_s" in g else []),
            {**base, "figure": "scale_out_peak_rss", "median_s": None, "target": "<= 2 GB (2048 MB)", "met": g["peak_mb"] <= 2048,
             "detail": {"mb": g["peak_mb"], **where, **{k: v for k, v in g.items() if k.startswith("hwm_")}}},
        ]
    print(json.dumps(records, indent=2))
    if records and not args.no_record:
        record(records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
