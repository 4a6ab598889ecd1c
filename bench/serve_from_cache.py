"""Issue 14: what serving a big run file costs once its features are in the cache (or a features
dataset): reopen time, the app's first page, re-score, sweeps, peak memory. Run in a fresh
process by ``bench/run.py`` and ``bench/scale_out.py``; prints one JSON object.

* ``reopen_s``: ``serve``'s load (``commands.common.load_cases``: the cache lookup, the source
  file's checks, the feature columns read) until the features are ready;
* ``first_page_s``: reopen plus the first browser session's page built server-side
  (:func:`explorer.app.workspace.shared_from_case_set` and ``WorkspacePage``: the first
  evaluation, table page, chart, trace);
* ``rescore_<kind>_s``: median of 20 settings changes of each kind (``bench/run.py``'s), on the
  stored (compact) features; ``rescore_mean_rule_s``: the median of the ten ``combine`` changes
  to the mean rule alone (that kind alternates the mean and all rules, and the mean's is the
  slower: the median of all 20 hides it); ``rescore_max_s``: the largest of these;
* ``sweep_full_s`` / ``sweep_adk_s``: median of 3 sweeps of the full grid / ``ADK_GRID``;
* ``peak_mb``: the process's VmHWM at the end (Python, Panel, Bokeh and the features included);
  ``hwm_after_reopen_mb`` / ``hwm_after_first_page_mb`` / ``hwm_after_rescore_mb``: the same
  after each phase (the sweeps come last).

Usage::

    .venv/bin/python bench/serve_from_cache.py --cases bench/data/synth-v1-s0-1000000.jsonl --cache-dir DIR
    .venv/bin/python bench/serve_from_cache.py --cases runs.features.parquet
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))


def vm_hwm_mb() -> float:
    """Peak resident set of this process so far (Linux ``VmHWM``), MB."""
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cases", required=True)
    p.add_argument("--cache-dir", default=None)
    p.add_argument("--sweeps", type=int, default=3)
    p.add_argument("--full-grid", action="store_true", default=True)
    p.add_argument("--no-full-grid", dest="full_grid", action="store_false")
    args = p.parse_args(argv)
    os.environ.setdefault("METRIC_EXPLORER_MAX_BYTES", str(64 * 1024**3))
    os.environ["BOKEH_RESOURCES"] = "server"
    import panel as pn  # noqa: F401  (imported before timing: the server has it loaded)

    from explorer.app.page import WorkspacePage
    from explorer.app.workspace import ProcessSets, shared_from_case_set
    from explorer.commands.common import load_cases
    from explorer.core.evaluation.features import build_features
    from explorer.core.evaluation.sweep import ADK_GRID, FULL_GRID, sweep
    from explorer.core.evaluation.verdicts import evaluate
    from run import KINDS, settings_changes

    out: dict = {"cases": args.cases, "load_average_start": list(os.getloadavg()), "hwm_after_imports_mb": vm_hwm_mb()}
    t0 = time.perf_counter()
    case_set = load_cases([args.cases], cache_dir=args.cache_dir)
    features = build_features(case_set)
    out["reopen_s"] = time.perf_counter() - t0
    out["note"] = case_set.notes[-1] if case_set.notes else ""
    out["n_runs"] = features.n
    out["hwm_after_reopen_mb"] = vm_hwm_mb()
    shared = shared_from_case_set(case_set)
    page = WorkspacePage(ProcessSets(shared, args.cases, bundled=[]))
    page.layout()
    out["first_page_s"] = time.perf_counter() - t0
    out["hwm_after_first_page_mb"] = vm_hwm_mb()
    for kind in KINDS:
        times, mean_rule = [], []
        for s in settings_changes(kind, 21)[1:]:
            t = time.perf_counter()
            evaluate(features, s)
            times.append(time.perf_counter() - t)
            if s.combine == "mean":
                mean_rule.append(times[-1])
        out[f"rescore_{kind}_s"] = statistics.median(times)
        if kind == "combine":  # its changes alternate the two rules: the mean rule's on their own too
            out["rescore_mean_rule_s"] = statistics.median(mean_rule)
    out["rescore_max_s"] = max(v for k, v in out.items() if k.startswith("rescore_") and k.endswith("_s"))
    out["hwm_after_rescore_mb"] = vm_hwm_mb()  # which phase sets the peak: the re-scores or the sweeps
    grids = [("sweep_adk_s", ADK_GRID)] + ([("sweep_full_s", FULL_GRID)] if args.full_grid else [])
    for key, grid in grids:
        times = []
        for _ in range(args.sweeps):
            t = time.perf_counter()
            table = sweep(features, settings_changes("trajectory", 1)[0], grid=grid)
            times.append(time.perf_counter() - t)
            del table
        out[key] = statistics.median(times)
    out["peak_mb"] = vm_hwm_mb()
    out["load_average_end"] = list(os.getloadavg())
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
