"""Seed 002 reproduced: the acceptance table of the scoring-core issue, with and without ignore_args.

Run ids of the bundled set: E1 reworded, E2 extra weather lookup, E3 profile read before the
search, E4 booked without confirming, E5 wrong date (exact path), E6 deleted an old booking,
E7 heavy paraphrase, E8 retried search, E9 gave up, E10 claimed a booking it never made.
"""

from pathlib import Path

import pytest

from explorer.core.io.casefile import load_case_set
from explorer.core.evaluation.verdicts import evaluate
from explorer.core.evaluation.features import build_features
from explorer.core.evaluation.settings import Settings

CASES = Path(__file__).resolve().parents[1] / "cases" / "booking_agent.json"
GOOD5 = ["E1", "E2", "E3", "E7", "E8"]
DENY = dict(deny_check=True, deny_tools=("delete_booking",))

ROWS = [
    ("exact, F1 0.8, all", dict(), 4, ["E5"], GOOD5),
    ("in_order, 0.8, all", dict(trajectory="in_order"), 5, ["E5", "E6"], ["E1", "E3", "E7"]),
    ("any_order, 0.8, all", dict(trajectory="any_order"), 6, ["E5", "E6"], ["E1", "E7"]),
    ("none, 0.8, all", dict(trajectory="none"), 5, ["E4", "E5", "E6"], ["E1", "E7"]),
    ("exact, 0.9, all", dict(f1_threshold=0.9), 5, [], GOOD5),
    ("in_order, 0.9, all", dict(trajectory="in_order", f1_threshold=0.9), 5, [], GOOD5),
    ("any_order, 0.9, all", dict(trajectory="any_order", f1_threshold=0.9), 5, [], GOOD5),
    ("exact, mean >= 0.75", dict(combine="mean"), 5, ["E5"], ["E2", "E3", "E7", "E8"]),
    ("any_order, 0.8, all, deny", dict(trajectory="any_order", **DENY), 7, ["E5"], ["E1", "E7"]),
    ("+ key fields", dict(trajectory="any_order", key_fields=True, **DENY), 8, [], ["E1", "E7"]),
    ("+ F1 0.4", dict(trajectory="any_order", key_fields=True, f1_threshold=0.4, **DENY), 10, [], []),
]


@pytest.fixture(scope="module")
def features():
    return build_features(load_case_set(CASES))


@pytest.mark.parametrize("compare_args", [True, False], ids=["args", "ignore_args"])
@pytest.mark.parametrize("label, changes, agree, false_pass, false_fail", ROWS, ids=[r[0] for r in ROWS])
def test_acceptance_row(features, compare_args, label, changes, agree, false_pass, false_fail):
    ev = evaluate(features, Settings(compare_args=compare_args, **changes))
    assert ev.summary.labelled == 10
    assert ev.summary.agree == agree
    assert ev.ids_with(features, "false pass") == false_pass
    assert ev.ids_with(features, "false fail") == false_fail


def test_seed_f1_figures(features):
    f1 = dict(zip(features.run_ids, features.f1.round(2)))
    # seed 002: reworded 0.62, heavy paraphrase 0.41, E5 wrong date 0.86, E4 0.95
    assert (f1["E1"], f1["E7"], f1["E5"], f1["E4"]) == (0.62, 0.41, 0.86, 0.95)


def test_every_run_has_a_note_and_a_verdict(features):
    for run in features.runs:
        assert run.human_note and run.human_verdict in ("acceptable", "unacceptable")
