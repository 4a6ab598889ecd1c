"""The response scorer in the evaluator: first use (columns computed once per case set) and
what a band move or threshold change costs afterwards.

Prints, for the bundled ten runs:

* the first ``evaluate`` with ``response_scorer="cascade"`` on a fresh ResponseFeatures (the
  cascade's stages 1-2 and the cosine of the runs that reach similarity; includes loading the
  embedding model when this process has not loaded it yet) and the same for rouge1 / exact /
  cosine;
* a band move afterwards (median of 50 ``evaluate`` calls with new pass-above / fail-below);

and for a synthetic N-run set (``--runs``, default 1,000,000): ``apply_bands_decided`` on
cached cascade columns (random scores, 5 % exact, 10 % failed by a field rule), median of 20,
which is the numpy work a band move adds to ``evaluate``. Nothing is asserted.

Usage::

    .venv/bin/python bench/cascade_bands.py [--runs 1000000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from explorer.core.scoring.cascade import CascadeFeatures, CascadeSettings, apply_bands_decided  # noqa: E402
from explorer.core.io.casefile import load_case_set  # noqa: E402
from explorer.core.evaluation.verdicts import evaluate  # noqa: E402
from explorer.core.evaluation.features import build_features  # noqa: E402
from explorer.core.evaluation.response_features import ResponseFeatures  # noqa: E402
from explorer.core.evaluation.settings import Settings  # noqa: E402


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1_000_000)
    args = ap.parse_args()
    cs = load_case_set(REPO / "cases" / "booking_agent.json")
    features = build_features(cs)
    for name in ("cascade", "cascade", "rouge1", "exact", "cosine"):
        rf = ResponseFeatures(cs)
        if name in ("cascade", "cosine") and not rf.available(name):
            print(f"{name}: similarity extra not installed, skipped")
            continue
        t0 = time.perf_counter()
        evaluate(features, Settings(response_scorer=name), rf)
        print(f"bundled 10 runs, first evaluate with {name:<8} (fresh columns): {ms(time.perf_counter() - t0)}")
    rf = ResponseFeatures(cs)
    if rf.available("cascade"):
        evaluate(features, Settings(response_scorer="cascade"), rf)
        times = []
        for k in range(50):
            s = Settings(response_scorer="cascade", pass_above=0.80 + (k % 10) / 100, fail_below=0.50 + (k % 7) / 100)
            t0 = time.perf_counter()
            evaluate(features, s, rf)
            times.append(time.perf_counter() - t0)
        print(f"bundled 10 runs, band move (evaluate, cached columns), median of 50: {ms(statistics.median(times))}")
    n = args.runs
    rng = np.random.default_rng(0)
    exact = rng.random(n) < 0.05
    field = (~exact) & (rng.random(n) < 0.10)
    score = np.where(exact | field, np.nan, rng.random(n))
    cf = CascadeFeatures(
        run_ids=np.array([f"R{i}" for i in range(n)], dtype=object), exact=exact,
        field_stage=np.where(field, "field:date", "").astype(object), field_reason=np.full(n, "", dtype=object),
        score=score, settings=CascadeSettings(), scorer_name="cosine", scorer_label="synthetic",
    )
    decisions = np.full(n, -1, dtype=np.int8)
    decisions[rng.random(n) < 0.01] = 1
    times = []
    for k in range(20):
        t0 = time.perf_counter()
        apply_bands_decided(cf, 0.8 + k / 200, 0.5, decisions)
        times.append(time.perf_counter() - t0)
    print(f"{n:,} runs, apply_bands_decided (band move on cached columns), median of 20: {ms(statistics.median(times))}")


if __name__ == "__main__":
    main()
