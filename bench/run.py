"""Performance at scale (issue 6): load, features, re-score, sweep, memory, and an ADK-style baseline.

One command (``make bench``, or ``.venv/bin/python bench/run.py``) prints a table and writes
``bench/results.json``: one record per figure,
``{"figure", "n_runs", "median_s", "baseline_median_s", "ratio", "target", "met"}`` (plus
``detail`` with the numbers behind it).

For each N (default 1k, 10k, 100k, 1M runs from ``bench/synth.py``, generated once into
``bench/data/``) a fresh Python process, so peak memory is that N's alone:

* ``load_features``: the JSONL file loaded with features computed (``explorer.core.io.bigload``,
  parallel); per-run CPU time in ``detail``; target at 1M (issue 14): <= 20 s wall;
* ``load_features_vs_before`` (``--side-by-side``, default 100k): the same load with the code
  before issue 14 (``git archive`` of ``BASELINE_REV`` into ``bench/data/``) and now, in fresh
  processes, alternately, median of 2 each: wall and CPU seconds (main process + workers);
* ``rouge1_pairs`` / ``rouge1_column`` (100k, issue 14): ROUGE-1 as ADK calls it pair by pair
  against ``rouge1_many`` on the same 3,000 answers (CPU seconds per pair, values asserted equal),
  and the ROUGE-1 column of the whole set in worker processes;
* ``load_flat`` / ``features_single`` (N <= 10k): the flat loader and ``build_features`` in one
  process, for reference;
* ``rescore_<kind>``: ``evaluate`` after a change of one setting (trajectory family, compare args,
  argument mode, trajectory threshold, F1 threshold, combine rule, deny-list, key fields), the
  median of 20 changes each;
* ``sweep``: all 159,176 settings of the full grid (``explorer.core.evaluation.sweep``: every
  trajectory family and argument mode), median of 5 (3 at 1M); ``sweep_adk``: issue 4's 6,464;
* ``sweep_intervals``: the same sweep with every setting's Wilson interval and the reading of the
  best (``explorer.core.evaluation.sweep_intervals``, issue 11), timed alternately with the plain
  sweep; ``detail.slowdown`` = its median / the plain sweep's median (target at 100k: <= 2x);
* ``peak_rss``: the process's peak resident memory with the runs loaded (``VmHWM``) before the
  baseline runs, in ``detail.mb``; the largest worker's peak in ``detail.worker_mb``;
* ``rescore_vs_adk`` (N <= 100k): side by side on the same runs, an ADK-style scorer - a Python
  loop over runs and invocations applying the ADK trajectory match and a per-answer unigram F1,
  re-run from the runs for every settings change - against ``evaluate``; ``ratio`` = baseline /
  ours (medians over the same settings changes; 20 changes, 6 at 100k).

Issue 14, from 100k runs on (the files ``serve`` and ``score`` put through the feature cache):
``load_features`` is the first open through the cache (``explorer.core.io.featurecache.open_cached``
into a fresh cache folder: the features computed partition by partition in worker processes and
written as a Parquet dataset, then opened), and every later figure of that N reads the stored
(compact) features, as a server does. Then ``bench/serve_from_cache.py`` runs in a fresh process
over the same cache: ``cache_reopen`` (the cache hit until the features are ready; target at 1M
<= 2 s), ``first_page`` (reopen plus the first session's page; <= 3 s), ``serve_rescore_max``,
``serve_sweep`` / ``serve_sweep_adk``, and ``serve_peak_rss`` (that process's VmHWM with Panel
loaded: the memory of serving N runs; <= 600 MB at 1M). ``--no-cache`` measures the in-memory
path (``bigload.load_jsonl_features``) at every N instead.

Timings are wall-clock medians (``time.perf_counter``). The machine's load average is recorded:
on a shared machine wall times grow with it; CPU times in ``detail`` are steadier. So is the
host's own speed, which varies by day (:func:`host_speed`: a Python loop and a random gather) is
timed at the start and end (``results_meta.json``, ``machine.host``) and before each
``load_features`` (its ``detail.host``).

Options: ``--n 1000 10000`` to choose sizes, ``--quick`` (1k and 10k only).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(REPO))

DEFAULT_N = (1_000, 10_000, 100_000, 1_000_000)
TARGETS = {
    # figure: (n_runs, target text, test on the measured value)
    "rescore_max": (1_000_000, "<= 0.050 s median, every kind of change", lambda v: v <= 0.050),
    "rescore_vs_adk": (100_000, ">= 1000x", lambda v: v >= 1000),
    "sweep": (100_000, "<= 2 s", lambda v: v <= 2.0),
    "sweep_intervals": (100_000, "<= 2x the sweep without intervals", lambda v: v <= 2.0),
    "load_features": (1_000_000, "<= 20 s wall (issue 14)", lambda v: v <= 20.0),
    "peak_rss": (1_000_000, "<= 2 GB (2048 MB)", lambda v: v <= 2048),
    "cache_reopen": (1_000_000, "<= 2 s", lambda v: v <= 2.0),
    "first_page": (1_000_000, "<= 3 s", lambda v: v <= 3.0),
    "serve_peak_rss": (1_000_000, "<= 600 MB", lambda v: v <= 600),
}
OTHER_SCRIPTS_FIGURES = ("browser_latency", "embedding_backend", "embedding_fp32", "cosine_column")
"""Figures other scripts write into results.json (kept when this one rewrites it, as are
``bench/scale_out.py``'s ``scale_out_*`` records)."""
BASELINE_REV = "273827fd900cad9758a8ed7e8b6d35d0629fef26"
"""The commit before issue 14 (main after issue 12): its code is the "before" of the side-by-side figures."""
CACHE_FROM_N = 100_000
"""From this N on, the file is opened through the feature cache (as ``serve`` does)."""
KINDS = ("trajectory", "compare_args", "args", "trajectory_threshold", "f1_threshold", "combine", "deny_list", "key_fields")


def _median(xs: list[float]) -> float:
    return float(statistics.median(xs))


def _vm_hwm_mb() -> float:
    """Peak resident set of this process so far (Linux ``VmHWM``), MB."""
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def settings_changes(kind: str, count: int):
    """``count`` Settings, each differing from the one before in setting ``kind`` only."""
    from explorer.core.evaluation.settings import Settings

    base = Settings(trajectory="any_order", f1_threshold=0.6, deny_tools=("delete_booking",))
    cycles = {
        "trajectory": [dict(trajectory=m) for m in (
            "exact", "in_order", "any_order", "subset", "unordered", "precision", "recall", "f1", "lcs", "none")],
        "compare_args": [dict(compare_args=v) for v in (False, True)],
        "args": [dict(args=a) for a in ("exact", "ignore", "subset", "superset")],
        "trajectory_threshold": [dict(trajectory="recall", trajectory_threshold=round(0.40 + 0.03 * k, 2)) for k in range(20)],
        "f1_threshold": [dict(f1_threshold=round(0.30 + 0.03 * k, 2)) for k in range(20)],
        "combine": [dict(combine=c) for c in ("mean", "all")],
        "deny_list": [dict(deny_check=v) for v in (True, False)],
        "key_fields": [dict(key_fields=v) for v in (True, False)],
    }[kind]
    return [base.with_(**cycles[k % len(cycles)]) for k in range(count)]


def adk_style_agreement(runs, settings):
    """The baseline: score every run from scratch the way ADK's evaluators do (a Python loop over
    runs and invocations: the trajectory family (ADK's match or another), then the answer's best unigram F1), combine as
    ``settings`` say, count agreement. No deny-list or key fields (ADK has neither), so it does
    less work than ``evaluate``."""
    from explorer.core.scoring.arg_match import ArgMatcher
    from explorer.core.scoring.overlap import best_f1
    from explorer.core.scoring.trajectory_metrics import run_score

    agree = 0
    for run in runs:
        invs = run.invocations
        f1 = sum(best_f1(inv.answer, inv.references) for inv in invs) / len(invs)
        if settings.trajectory == "none":
            traj = None
        else:
            traj = run_score(invs, settings.trajectory, ArgMatcher(settings.args), settings.single_tool)
        if settings.combine == "all":
            passed = (traj is None or traj >= settings.trajectory_threshold) and f1 >= settings.f1_threshold
        else:
            passed = (f1 if traj is None else (traj + f1) / 2) >= settings.mean_threshold
        if run.human_verdict is not None:
            agree += passed == (run.human_verdict == "acceptable")
    return agree


def child(n: int, path: Path, cache_dir: str | None = None) -> list[dict]:
    """Every figure for one N, measured in this (fresh) process; with ``cache_dir`` the file is
    opened through the feature cache in that (empty) folder."""
    from explorer.core.io.bigload import load_jsonl_features
    from explorer.core.io.featurecache import open_cached
    from explorer.core.evaluation.verdicts import evaluate
    from explorer.core.evaluation.features import build_features
    from explorer.core.evaluation.sweep import ADK_GRID, FULL_GRID, sweep
    from explorer.core.evaluation.sweep_intervals import sweep_reading, with_intervals

    records: list[dict] = []

    def rec(figure, median_s, baseline=None, **detail):
        records.append({"figure": figure, "n_runs": n, "median_s": median_s, "baseline_median_s": baseline,
                        "ratio": (baseline / median_s) if baseline and median_s else None, "target": None, "met": None,
                        "detail": detail})

    def say(text):
        print(f"  [{n:>9,}] {text}", file=sys.stderr, flush=True)

    # load + features (parallel), one run at 1M or through the cache (its first open), else median of 3
    repeats = 1 if n >= 1_000_000 or cache_dir else 3
    host_before = host_speed()
    walls, cpus = [], []
    cs = None
    for _ in range(repeats):
        cs = None
        c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        p0 = time.process_time()
        t0 = time.perf_counter()
        cs = open_cached([str(path)], cache_dir=cache_dir) if cache_dir else load_jsonl_features(path)
        features = build_features(cs)
        walls.append(time.perf_counter() - t0)
        c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(time.process_time() - p0 + (c1.ru_utime + c1.ru_stime) - (c0.ru_utime + c0.ru_stime))
    rec("load_features", _median(walls), cpu_s=_median(cpus), cpu_us_per_run=_median(cpus) / n * 1e6,
        file_mb=path.stat().st_size / 1e6, store_mb=cs.runs.nbytes / 1e6, workers=min(4, os.cpu_count() or 1),
        path="feature cache (first open: featurize, write, open)" if cache_dir else "in memory (bigload)",
        worker_peak_mb=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
        load_average=_load_average(), host=host_before)
    say(f"load + features {_median(walls):.2f} s (CPU {_median(cpus):.1f} s; host: loop {host_before['loop_s']:.2f} s, "
        f"gather {host_before['gather_s']:.2f} s)")

    if n <= 10_000:
        from explorer.core.io.loaders.flat import load_jsonl

        t0 = time.perf_counter()
        flat = load_jsonl(str(path))
        t_load = time.perf_counter() - t0
        t0 = time.perf_counter()
        build_features(flat)
        t_feat = time.perf_counter() - t0
        rec("load_flat", t_load)
        rec("features_single", t_feat, per_run_us=t_feat / n * 1e6)
        say(f"flat loader {t_load:.2f} s, build_features {t_feat:.2f} s")
        del flat

    # re-score per kind of change: median of 20
    all_times = []
    for kind in KINDS:
        times = []
        for s in settings_changes(kind, 21)[1:]:
            t0 = time.perf_counter()
            evaluate(features, s)
            times.append(time.perf_counter() - t0)
        all_times += times
        rec(f"rescore_{kind}", _median(times), max_s=max(times))
    rec("rescore_max", max(r["median_s"] for r in records if r["figure"].startswith("rescore_")),
        what="largest of the six per-kind medians")
    medians = ", ".join(f"{r['median_s'] * 1e3:.1f}" for r in records if r["figure"].startswith("rescore_"))
    say(f"re-score medians ({', '.join(KINDS)}, max) {medians} ms")

    # sweep: the full grid, then issue 4's
    for figure, grid in (("sweep", FULL_GRID), ("sweep_adk", ADK_GRID)):
        times = []
        for _ in range(3 if n >= 1_000_000 else 5):
            t0 = time.perf_counter()
            table = sweep(features, settings_changes("trajectory", 1)[0], grid=grid)
            times.append(time.perf_counter() - t0)
        rec(figure, _median(times), settings=len(table), best_agree=int(table.iloc[0]["agree"]),
            labelled=int(table.iloc[0]["labelled"]))
        say(f"{figure} ({len(table):,} settings) {_median(times):.3f} s")

    # sweep with intervals (issue 11), alternating with the plain sweep so both see the same load
    plain, honest = [], []
    for _ in range(3 if n >= 1_000_000 else 5):
        t0 = time.perf_counter()
        sweep(features, settings_changes("trajectory", 1)[0])
        plain.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        reading = sweep_reading(with_intervals(sweep(features, settings_changes("trajectory", 1)[0])))
        honest.append(time.perf_counter() - t0)
    slowdown = _median(honest) / _median(plain)
    rec("sweep_intervals", _median(honest), _median(plain), slowdown=slowdown, n_tied=reading.n_tied, n_within=reading.n_within)
    say(f"sweep with intervals {_median(honest):.3f} s vs {_median(plain):.3f} s plain: {slowdown:.2f}x")

    rec("peak_rss", None, mb=_vm_hwm_mb(), worker_mb=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
    say(f"peak RSS {_vm_hwm_mb():.0f} MB")

    if n == 100_000:
        rouge_figures(cs, rec, say)

    # ADK-style baseline, side by side on the same runs and the same changes
    if n <= 100_000:
        t0 = time.perf_counter()
        runs = list(cs.runs)  # Run objects, as the baseline reads them
        materialise = time.perf_counter() - t0
        changes = [s for kind in KINDS for s in settings_changes(kind, 4)[1:]] if n >= 100_000 else \
            [s for kind in KINDS for s in settings_changes(kind, 5)[1:]][:20]
        if n >= 100_000:
            changes = changes[::3]  # 6 changes, one of each kind
        ours, base = [], []
        for s in changes:
            t0 = time.perf_counter()
            ev = evaluate(features, s)
            ours.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            agree = adk_style_agreement(runs, s)
            base.append(time.perf_counter() - t0)
            if not (s.deny_check or s.key_fields):
                assert agree == ev.summary.agree, (s, agree, ev.summary.agree)  # same verdicts, same counts
        rec("rescore_vs_adk", _median(ours), _median(base), changes=len(changes), materialise_runs_s=materialise)
        say(f"ADK-style baseline {_median(base):.3f} s vs ours {_median(ours) * 1e3:.2f} ms per change: {_median(base) / _median(ours):,.0f}x")
    return records


def _cpu_now() -> float:
    """CPU seconds of this process and its finished children so far."""
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + c.ru_utime + c.ru_stime


def rouge_figures(cs, rec, say, sample: int = 3_000) -> None:
    """Issue 14, item 5: ROUGE-1 as ADK calls it, pair by pair (``rouge1_adk``, the code before),
    against ``rouge1_many`` (each text tokenised once) on the same first ``sample`` invocations,
    alternately; then the whole column of the set in worker processes (``rouge1_column``)."""
    from explorer.core.evaluation.response_columns import rouge1_column
    from explorer.core.scoring import response_scorers as rs

    runs = list(cs.runs[: max(1, sample)])
    answers = [inv.answer for r in runs for inv in r.invocations][:sample]
    refs = [inv.references for r in runs for inv in r.invocations][:sample]
    before, after = [], []
    for _ in range(2):
        rs._memo_rouge.cache_clear()  # cold caches each time
        t0 = time.process_time()
        new = rs.rouge1_many(answers, refs)
        after.append(time.process_time() - t0)
        t0 = time.process_time()
        old = [max((rs.rouge1_adk(a, r) for r in rr), default=0.0) for a, rr in zip(answers, refs)]
        before.append(time.process_time() - t0)
        assert new.tolist() == old  # the same values
    pairs = sum(len(r) for r in refs)
    rec("rouge1_pairs", _median(after) / pairs, _median(before) / pairs, unit="CPU-s per pair", pairs=pairs,
        answers=len(answers), load_average=_load_average())
    say(f"ROUGE-1 per pair: {_median(before) / pairs * 1e3:.3f} ms pair by pair vs {_median(after) / pairs * 1e3:.3f} ms (CPU)")
    t0, c0 = time.perf_counter(), _cpu_now()
    column = rouge1_column(cs.runs)
    wall, cpu = time.perf_counter() - t0, _cpu_now() - c0
    rec("rouge1_column", wall, cpu_s=cpu, runs=len(column), processes=min(4, os.cpu_count() or 1), load_average=_load_average())
    say(f"ROUGE-1 column of {len(column):,} runs: {wall:.1f} s wall, {cpu:.1f} CPU-s")


def load_only(n: int, path: Path) -> dict:
    """Load + features of ``path`` once, with whichever ``explorer`` is first on ``sys.path``:
    wall and CPU seconds (this process and its workers)."""
    from explorer.core.evaluation.features import build_features
    from explorer.core.io.bigload import load_jsonl_features

    load0 = _load_average()
    t0, c0 = time.perf_counter(), _cpu_now()
    features = build_features(load_jsonl_features(path))
    wall, cpu = time.perf_counter() - t0, _cpu_now() - c0
    assert features.n == n
    return {"wall_s": wall, "cpu_s": cpu, "load_average": [load0, _load_average()]}


def baseline_code(rev: str = BASELINE_REV) -> Path | None:
    """The ``explorer`` package at ``rev`` unpacked into bench/data/ (git archive), or None
    without git or the commit."""
    out = BENCH / "data" / f"code-{rev[:12]}"
    if (out / "explorer").is_dir():
        return out
    out.mkdir(parents=True, exist_ok=True)
    try:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "explorer"], stdout=subprocess.PIPE, check=True)
        subprocess.run(["tar", "-x", "-C", str(out)], input=archive.stdout, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out


def side_by_side(n: int, rounds: int = 2) -> dict | None:
    """Issue 14: load + features of the same N-run file with the code before issue 14 and now, in
    fresh processes, alternately (new, old, new, old ...): medians of wall and CPU seconds."""
    code = baseline_code()
    if code is None:
        return None
    out: dict[str, list[dict]] = {"new": [], "old": []}
    for _ in range(rounds):
        for which in ("new", "old"):
            argv = [sys.executable, __file__, "--load-only", str(n)] + (["--code", str(code)] if which == "old" else [])
            res = subprocess.run(argv, stdout=subprocess.PIPE, check=True, text=True)
            out[which].append(json.loads(res.stdout.strip().splitlines()[-1]))
    med = {w: {k: _median([r[k] for r in rs]) for k in ("wall_s", "cpu_s")} for w, rs in out.items()}
    return {"figure": "load_features_vs_before", "n_runs": n, "median_s": med["new"]["wall_s"],
            "baseline_median_s": med["old"]["wall_s"], "ratio": med["old"]["wall_s"] / med["new"]["wall_s"],
            "target": None, "met": None,
            "detail": {"cpu_s": med["new"]["cpu_s"], "baseline_cpu_s": med["old"]["cpu_s"],
                       "cpu_ratio": med["old"]["cpu_s"] / med["new"]["cpu_s"],
                       "cpu_us_per_run": med["new"]["cpu_s"] / n * 1e6, "baseline_cpu_us_per_run": med["old"]["cpu_s"] / n * 1e6,
                       "baseline_rev": BASELINE_REV, "runs": out}}


def serve_figures(n: int, path: Path, cache: str) -> list[dict]:
    """``bench/serve_from_cache.py`` in a fresh process over the cache ``child`` filled: reopen,
    first page, re-score, sweeps and peak memory of serving ``n`` runs (issue 14)."""
    print(f"N = {n:,}: serving from the cache (load average {_load_average()})", file=sys.stderr, flush=True)
    out = subprocess.run([sys.executable, str(BENCH / "serve_from_cache.py"), "--cases", str(path), "--cache-dir", cache],
                         stdout=subprocess.PIPE, check=True, text=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    if "read from the cache" not in got["note"]:
        raise RuntimeError(f"the serving process did not read the cache: {got['note']}")
    base = {"n_runs": n, "baseline_median_s": None, "ratio": None, "target": None, "met": None}
    where = {"load_average_start": got["load_average_start"], "load_average_end": got["load_average_end"]}
    print(f"  [{n:>9,}] reopen {got['reopen_s']:.2f} s, first page {got['first_page_s']:.2f} s, "
          f"peak {got['peak_mb']:.0f} MB", file=sys.stderr, flush=True)
    return [
        {**base, "figure": "cache_reopen", "median_s": got["reopen_s"], "detail": {**where, "note": got["note"],
                                                                                  "mb_after": got["hwm_after_reopen_mb"]}},
        {**base, "figure": "first_page", "median_s": got["first_page_s"], "detail": {**where, "mb_after": got["hwm_after_first_page_mb"]}},
        {**base, "figure": "serve_rescore_max", "median_s": got["rescore_max_s"],
         "detail": {k: v for k, v in got.items() if k.startswith("rescore_")}},
        {**base, "figure": "serve_sweep", "median_s": got.get("sweep_full_s"), "detail": {"grid": "full (159,176 settings)"}},
        {**base, "figure": "serve_sweep_adk", "median_s": got["sweep_adk_s"], "detail": {"grid": "ADK_GRID (6,464 settings)"}},
        {**base, "figure": "serve_peak_rss", "median_s": None,
         "detail": {**where, "mb": got["peak_mb"], "mb_after_imports": got["hwm_after_imports_mb"]}},
    ]


def host_speed(repeats: int = 3) -> dict[str, float]:
    """The host's speed by day, medians of ``repeats``, in seconds: ``loop_s``, a plain Python
    loop of 10^7 additions (the CPU in its caches), and ``gather_s``, ``a[idx]`` over 10^7 int64
    in random order (80 MB: memory latency). The first load's per-run work is memory-bound
    Python (objects made and freed, the collector's passes), so its time follows ``gather_s``
    more than ``loop_s``: on 2026-12-07 the loop took 0.45-0.56 s, as fast as on days the 1M
    first load met its target, while the gather took 0.18-0.35 s and the same load took 1.75x
    the CPU (docs/performance.md)."""
    import numpy as np

    a = np.arange(10**7, dtype=np.int64)
    idx = np.random.default_rng(0).permutation(10**7)
    loops, gathers = [], []
    for _ in range(repeats):
        t0, s = time.perf_counter(), 0
        for i in range(10**7):
            s += i
        loops.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        a[idx]
        gathers.append(time.perf_counter() - t0)
    return {"loop_s": round(_median(loops), 3), "gather_s": round(_median(gathers), 3)}


def _load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Performance benchmarks (issue 6)")
    p.add_argument("--n", type=int, nargs="+", default=list(DEFAULT_N))
    p.add_argument("--quick", action="store_true", help="1k and 10k only")
    p.add_argument("--side-by-side", type=int, nargs="*", default=[100_000],
                   help="N for which load + features is also timed with the code before issue 14 (default 100000)")
    p.add_argument("--child", type=int, help=argparse.SUPPRESS)
    p.add_argument("--load-only", type=int, help=argparse.SUPPRESS)
    p.add_argument("--code", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--out", type=Path, default=BENCH / "results.json")
    p.add_argument("--no-cache", action="store_true", help="measure the in-memory load at every N (no feature cache)")
    p.add_argument("--cache-dir", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    os.environ.setdefault("METRIC_EXPLORER_MAX_BYTES", str(8 * 1024**3))  # 1M runs is ~1.6 GB of JSONL

    import synth

    if args.code:  # the code before issue 14, for the side-by-side figure
        sys.path.insert(0, str(args.code))
    if args.load_only:
        path = synth.ensure(BENCH / "data", args.load_only, 0, "jsonl")
        print(json.dumps(load_only(args.load_only, path)))
        return 0
    if args.child:
        path = synth.ensure(BENCH / "data", args.child, 0, "jsonl")
        print(json.dumps(child(args.child, path, args.cache_dir)))
        return 0

    sizes = [1_000, 10_000] if args.quick else args.n
    started = time.time()
    host_start = host_speed()
    print(f"host: a Python loop of 10^7 additions {host_start['loop_s']:.2f} s, a random gather of 10^7 "
          f"{host_start['gather_s']:.2f} s", file=sys.stderr, flush=True)
    records: list[dict] = []
    for n in sizes:
        t0 = time.perf_counter()
        print(f"N = {n:,}: data", file=sys.stderr, flush=True)
        synth.ensure(BENCH / "data", n, 0, "jsonl")
        if n == 10_000:
            synth.ensure(BENCH / "data", n, 0, "adk")
        print(f"N = {n:,}: data ready in {time.perf_counter() - t0:.0f} s; measuring (load average {_load_average()})",
              file=sys.stderr, flush=True)
        cache = None if args.no_cache or n < CACHE_FROM_N else tempfile.mkdtemp(prefix=".cache-", dir=BENCH / "data")
        try:
            out = subprocess.run([sys.executable, __file__, "--child", str(n), *(["--cache-dir", cache] if cache else [])],
                                 stdout=subprocess.PIPE, check=True, text=True)
            records += json.loads(out.stdout.strip().splitlines()[-1])
            if cache:
                records += serve_figures(n, synth.ensure(BENCH / "data", n, 0, "jsonl"), cache)
        finally:
            if cache:
                shutil.rmtree(cache, ignore_errors=True)
        if n in (args.side_by_side or []) and not args.quick:
            print(f"N = {n:,}: load + features side by side with the code before issue 14", file=sys.stderr, flush=True)
            side = side_by_side(n)
            if side:
                records.append(side)
                d = side["detail"]
                print(f"  [{n:>9,}] before {side['baseline_median_s']:.1f} s wall / {d['baseline_cpu_s']:.1f} CPU-s, now "
                      f"{side['median_s']:.1f} s / {d['cpu_s']:.1f} CPU-s: {d['cpu_ratio']:.2f}x less CPU", file=sys.stderr, flush=True)
    for r in records:
        goal = TARGETS.get(r["figure"])
        if goal and goal[0] == r["n_runs"]:
            value = (r["ratio"] if r["figure"] == "rescore_vs_adk" else r["detail"]["mb"] if r["figure"] in ("peak_rss", "serve_peak_rss")
                     else r["detail"]["slowdown"] if r["figure"] == "sweep_intervals" else r["median_s"])
            r["target"] = goal[1]
            r["met"] = bool(goal[2](value))
    result = {"machine": {"cpus": os.cpu_count(), "load_average_end": _load_average(), "python": sys.version.split()[0],
                          "host": {"start": host_start, "end": host_speed()}},
              "seconds": round(time.time() - started, 1), "records": records}
    if args.out.exists():  # bench/browser_latency.py and bench/embedding.py --record write these; this script does not
        kept = [r for r in json.loads(args.out.read_text())
                if r.get("figure") in OTHER_SCRIPTS_FIGURES or str(r.get("figure", "")).startswith("scale_out_")]
        records += kept
    # paths inside the checkout (the cache folder a note names) written relative to it, as the
    # data paths are: the records read the same on another machine
    text = json.dumps(records, indent=2).replace(json.dumps(str(REPO) + os.sep)[1:-1], "")
    args.out.write_text(text + "\n")
    (args.out.with_name("results_meta.json")).write_text(json.dumps({k: v for k, v in result.items() if k != "records"}, indent=2) + "\n")
    print_table(records)
    print(f"\n{len(records)} figures in {result['seconds']:.0f} s; written to {args.out}")
    return 0


def _fmt_s(x):
    if x is None:
        return "-"
    return f"{x * 1e3:.2f} ms" if x < 1 else f"{x:.2f} s"


def print_table(records: list[dict]) -> None:
    """The results as a text table, one line per figure."""
    print(f"{'figure':<22}{'N':>11}  {'median':>11}  {'baseline':>11}  {'ratio':>9}  {'target':<40}{'met':>5}")
    for r in records:
        median = f"{r['detail']['mb']:.0f} MB" if r["figure"] in ("peak_rss", "serve_peak_rss") else _fmt_s(r["median_s"])
        ratio = (f"{r['detail']['slowdown']:.2f}x" if r["figure"] == "sweep_intervals"
                 else f"{r['ratio']:,.0f}x" if r["ratio"] else "-")
        met = "-" if r["met"] is None else ("yes" if r["met"] else "NO")
        print(f"{r['figure']:<22}{r['n_runs']:>11,}  {median:>11}  {_fmt_s(r['baseline_median_s']):>11}  {ratio:>9}  {(r['target'] or ''):<40}{met:>5}")


if __name__ == "__main__":
    sys.exit(main())
