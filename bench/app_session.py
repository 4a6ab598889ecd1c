"""Server-side cost of one explorer session's updates (no browser): median ms per operation.

Times, on an :class:`explorer.app.main.ExplorerSession` built over a case set:

* ``input change``: a Trajectory match change (evaluate once, sweep 101 thresholds, rewind to 0,
  refresh every view), cycling EXACT -> IN_ORDER -> ANY_ORDER;
* ``reveal step``: moving the inspection time to the next reveal while replaying (table rows,
  trace and metrics for the runs revealed so far), every step from 0 to 60 s;
* ``scrub to 60 s``: from t = 0 straight to the end right after an input change (every row built).

Browser round trips are measured by ``bench/browser_latency.py``; this is the Python part.

Usage::

    .venv/bin/python bench/app_session.py [--cases PATH] [--repeat 5]
    .venv/bin/python bench/synth.py --n 2000 --kind json --out /tmp/synth   # a larger set
    .venv/bin/python bench/app_session.py --cases /tmp/synth/synth-v1-s0-2000.json
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from explorer.app.main import ExplorerSession  # noqa: E402
from explorer.app.shared import load_shared  # noqa: E402
from explorer.core.evaluation.replay import event_times  # noqa: E402


def _ms(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=str(REPO / "cases" / "booking_agent.json"))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    t0 = time.perf_counter()
    shared = load_shared(args.cases)
    load_ms = (time.perf_counter() - t0) * 1000.0
    session = ExplorerSession(shared)  # warm imports
    print(f"cases: {args.cases}  runs: {shared.features.n}  load + features: {load_ms:.0f} ms (once per server)")

    modes = ["in_order", "any_order", "exact"]
    changes, steps, scrubs = [], [], []
    for r in range(args.repeat):
        for mode in modes:
            changes.append(_ms(lambda: setattr(session.inputs, "trajectory", mode)))
        for t in event_times(session.times):
            steps.append(_ms(lambda: setattr(session.clock, "time", float(t))))
        session.inputs.compare_args = not session.inputs.compare_args  # a fresh evaluation: nothing built yet
        scrubs.append(_ms(lambda: setattr(session.clock, "time", 60.0)))
    for name, values in (("input change", changes), ("reveal step", steps), ("scrub to 60 s", scrubs)):
        print(
            f"{name:14s} median {statistics.median(values):7.1f} ms  min {min(values):7.1f}  "
            f"max {max(values):7.1f}  (n={len(values)})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
