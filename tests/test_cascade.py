"""The scoring cascade: one test per deciding stage, and bands applied over a case set."""

import numpy as np
import pytest

from explorer.core.scoring.cascade import (
    STAGES,
    CascadeSettings,
    PersonJudge,
    apply_bands,
    cascade_features,
    cascade_verdict,
    judge_from_verdicts,
)
from explorer.core.io.casefile import load_case_set
from explorer.core.io.model import ExpectedField
from explorer.core.scoring.response_scorers import F1Scorer


REF = ["TP1351 is booked for 12 March"]
F1 = F1Scorer()
# F1 of the candidates below against REF, by hand (6 reference tokens):
#   "TP1351 is booked for 12 March, thanks"      7 tokens, 6 shared -> 12/13 = 0.923
#   "TP1351 booked for you 12 March"             6 tokens, 5 shared -> 10/12 = 0.833
#   "Flight TP1351 on 12 March: your seat is held" 9 tokens, 4 shared -> 8/15 = 0.533
#   "Yes, confirmed"                              2 tokens, 0 shared -> 0.0 (but no date: field rule)
BANDS = CascadeSettings(pass_above=0.9, fail_below=0.5)


def test_stage_normalized_exact_passes():
    v = cascade_verdict("tp1351 is booked for 12 March.", REF, F1, BANDS)
    assert (v.passed, v.stage, v.score) == (True, "normalized-exact", None)


def test_stage_field_rule_fails_before_similarity():
    v = cascade_verdict("TP1351 is not booked for 12 March", REF, F1, BANDS)
    assert (v.passed, v.stage, v.score) == (False, "field:negation", None)
    v = cascade_verdict("TP1351 is booked for 21 March", REF, F1, BANDS)
    assert (v.passed, v.stage, v.reason) == (False, "field:date", "date 21 March differs from 12 March")


def test_stage_expected_field_fails_first():
    fields = [ExpectedField("flight", "TP1351", "exact@2")]
    v = cascade_verdict("TP1315 is booked for 12 March", REF, F1, BANDS, expected_fields=fields)
    assert (v.passed, v.stage) == (False, "field:flight")


def test_stage_semantic_pass_and_fail():
    v = cascade_verdict("TP1351 is booked for 12 March, thanks", REF, F1, BANDS)
    assert (v.passed, v.stage) == (True, "semantic") and v.score == pytest.approx(12 / 13)
    low = CascadeSettings(pass_above=0.95, fail_below=0.9)
    v = cascade_verdict("TP1351 booked for you 12 March", REF, F1, low)
    assert (v.passed, v.stage) == (False, "semantic") and v.score == pytest.approx(10 / 12)


def test_stage_gray_goes_to_review_then_the_person_decides():
    cand = "Flight TP1351 on 12 March: your seat is held"
    v = cascade_verdict(cand, REF, F1, BANDS, key="R1")
    assert (v.passed, v.stage) == (None, "needs review") and v.score == pytest.approx(8 / 15)
    judge = PersonJudge()
    judge.record("R1", True)
    v = cascade_verdict(cand, REF, F1, BANDS, judge, key="R1")
    assert (v.passed, v.stage) == (True, "judge:person")


def test_settings_are_validated():
    with pytest.raises(ValueError, match="must not exceed"):
        CascadeSettings(pass_above=0.5, fail_below=0.6)
    with pytest.raises(ValueError, match="unknown field rule"):
        CascadeSettings(rules=("colour",))


def test_bands_over_the_token_overlap_set():
    cs = load_case_set("cases/token_overlap.json")
    feats = cascade_features(cs, F1, CascadeSettings())
    # negation and swapped date are stopped by field rules; only the paraphrase is scored
    assert list(feats.field_stage) == ["", "field:negation", "field:date"]
    assert np.isnan(feats.score[1:]).all() and feats.score[0] == pytest.approx(8 / 16)  # 10 tokens, 4 shared with 6
    res = apply_bands(feats, pass_above=0.6, fail_below=0.2, case_set=cs)
    assert list(res.passed) == [-1, 0, 0] and res.review_queue == ["paraphrase"]
    assert [STAGES[c] for c in res.stage_code] == ["needs review", "field", "field"]
    judged = apply_bands(feats, 0.6, 0.2, judge_from_verdicts({"paraphrase": "acceptable"}), cs)
    assert list(judged.passed) == [1, 0, 0] and list(judged.stage) == ["judge:person", "field:negation", "field:date"]
    assert judged.review_queue == []
    # moving the fail band above the paraphrase's score fails it on similarity
    moved = apply_bands(feats, 0.6, 0.55, case_set=cs)
    assert list(moved.passed) == [0, 0, 0] and moved.stage[0] == "semantic"
