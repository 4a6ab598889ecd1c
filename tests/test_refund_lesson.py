"""Issue 12's lesson (cases/refund_agent.json, explorer/app/lesson_partial_credit.py): a partial-credit
metric trades false passes for false fails. Figures worked out by hand from the runs:

expected procedure lookup_order, check_policy, issue_refund, send_confirmation (E = 4); good runs
R1 (the procedure), R2 (no policy check: A = 3, m = 3), R3 (a second lookup: A = 5, m = 4), R5
(confirmation sent_at differs, ignored by the set's rule), R8 (policy before lookup: m = 4,
LCS 3); bad runs R4 (no refund: A = 3, m = 3), R6 (refund 120 for 12.0: A = 4, m = 3 with args,
4 by names), R7 (no lookup, no policy: A = 2, m = 2). Answers equal their references (F1 1.00).

recall m/E: R1 1, R2 .75, R3 1, R4 .75, R5 1, R6 .75, R7 .5, R8 1.
F1 2m/(A+E): R1 1, R2 6/7 = .857, R3 8/9 = .889, R4 6/7, R5 1, R6 6/8 = .75, R7 4/6 = .667, R8 1;
names only R6 8/8 = 1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.app.lesson_partial_credit import CASES, STEPS
from explorer.core.evaluation.features import build_features
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.tradeoff import tradeoff
from explorer.core.evaluation.verdicts import evaluate
from explorer.core.io.casefile import load_case_set

PATH = Path(__file__).resolve().parents[1] / "cases" / CASES

# step: (agree, false passes, false fails)
WANT = {
    1: (5, [], ["R2", "R3", "R8"]),  # EXACT: only R1 and R5 pass among the good runs; no bad run passes
    2: (7, [], ["R2"]),  # recall >= 1: R2 (.75) fails; R4 .75, R6 .75, R7 .5 fail as they should
    3: (6, ["R4", "R6"], []),  # recall >= .75: R2 passes, and so do R4 and R6 (.75)
    4: (7, ["R4"], []),  # F1 >= .85: R2 .857, R3 .889, R4 .857 pass; R6 .75, R7 .667 fail
    5: (6, ["R4", "R6"], []),  # names only: R6 scores 1
}


@pytest.fixture(scope="module")
def features():
    return build_features(load_case_set(PATH))


def test_the_set(features):
    assert features.n == 8
    assert [r.human_verdict for r in features.runs].count("acceptable") == 5


@pytest.mark.parametrize("step", STEPS, ids=[s.title for s in STEPS])
def test_each_step(features, step):
    agree, false_pass, false_fail = WANT[step.number]
    ev = evaluate(features, step.settings(Settings()))
    assert step.expected == f"{agree}/8"
    assert ev.summary.agree == agree
    assert ev.ids_with(features, "false pass") == false_pass
    assert ev.ids_with(features, "false fail") == false_fail


def test_the_trade_off_curve_of_recall(features):
    """Moving the recall threshold: above .75 one false fail (R2); at .75 and below two false
    passes (R4, R6); at .5 and below R7 passes too."""
    curve = tradeoff(features, Settings(trajectory="recall"), "trajectory_threshold", (0.5, 0.51, 0.75, 0.76, 1.0))
    assert list(curve.false_fail) == [0, 0, 0, 1, 1]
    assert list(curve.false_pass) == [3, 2, 2, 0, 0]
    assert list(curve.agree) == [5, 6, 6, 7, 7]
