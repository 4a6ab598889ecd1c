"""The response scorer inside the core: Settings.response_scorer, cached ResponseFeatures columns
and evaluate() with them. Expected values are worked out by hand from the definitions (cascade:
seed 000's order; cosine of two unit vectors at angle a is cos a)."""

import math

import numpy as np
import pytest

from explorer.core.io.casefile import case_set_from_data
from explorer.core.scoring.embedding import EmbedderIdentity, SimilarityUnavailable, similarity_available
from explorer.core.evaluation.verdicts import evaluate, reasons, result_table
from explorer.core.evaluation.features import build_features
from explorer.core.evaluation.response_features import ResponseFeatures
from explorer.core.evaluation.settings import Settings

# (id, answer, reference, cosine we give the pair, person's verdict)
RUNS = [
    ("R1", "flight tp1351 is booked", "Flight TP1351 is booked.", 1.0, "acceptable"),   # equal at rung 3
    ("R2", "TP1351 is not booked", "TP1351 is booked", 0.95, "unacceptable"),           # negation rule
    ("R3", "Your seat is confirmed", "Your booking is done", 0.9, "acceptable"),        # >= 0.85
    ("R4", "It went through", "The booking is complete", 0.7, "acceptable"),            # gray
    ("R5", "The weather is nice", "Your ticket is issued", 0.2, "unacceptable"),        # < 0.6
]


class AngleEmbedder:
    """Texts as 2-D unit vectors: every reference at angle 0, each answer at arccos(its cosine);
    an unknown text raises KeyError (nothing else may be embedded)."""

    def __init__(self):
        self.angles = {}
        for _id, answer, ref, cos, _v in RUNS:
            self.angles[ref] = 0.0
            self.angles[answer] = math.acos(cos)
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        a = np.array([self.angles[t] for t in texts])
        return np.stack([np.cos(a), np.sin(a)], axis=1).astype(np.float32)

    def identity(self):
        return EmbedderIdentity("angles", "test", "0" * 64, 2, "tests")


def case_set():
    runs = [
        {
            "id": rid, "title": rid, "user_input": "?", "human_verdict": verdict,
            "invocations": [{"expected_calls": [], "actual_calls": [], "answer": ans, "references": [ref]}],
        }
        for rid, ans, ref, _cos, verdict in RUNS
    ]
    return case_set_from_data({"format": "metric-explorer/cases@1", "name": "t", "runs": runs}, "t.json")


@pytest.fixture()
def setup():
    cs = case_set()
    emb = AngleEmbedder()
    return build_features(cs), ResponseFeatures(cs, embedder=emb), emb


def test_settings_defaults_and_round_trip():
    s = Settings()
    assert (s.response_scorer, s.rung, s.pass_above, s.fail_below) == ("f1", 3, 0.85, 0.6)
    t = s.with_(response_scorer="cascade", rung=4, pass_above=0.9, fail_below=0.5)
    assert Settings.from_dict(t.to_dict()) == t
    for bad in ({"response_scorer": "bleu"}, {"rung": 5}, {"pass_above": 1.5}, {"fail_below": 0.9, "pass_above": 0.8}):
        with pytest.raises(ValueError):
            s.with_(**bad)


def test_cascade_stages_and_review(setup):
    features, rf, _ = setup
    ev = evaluate(features, Settings(response_scorer="cascade"), rf)
    assert ev.passed.tolist() == [True, False, True, False, False]
    assert list(ev.response_stage) == ["normalized-exact", "field:negation", "semantic", "needs review", "semantic"]
    assert ev.needs_review.tolist() == [False, False, False, True, False]
    table = result_table(features, ev)
    assert table["decided_by"].tolist() == ["all checks", "field:negation", "all checks", "needs review", "semantic"]
    assert table["reason"][3] == "cosine 0.70 in [0.60, 0.85): waiting for review"
    assert table["reason"][4] == "cosine 0.20 < 0.60"
    # R1 and R2 are decided before similarity: no cosine score for them
    assert np.isnan(ev.response_score[:2]).all() and ev.response_score[2:] == pytest.approx([0.9, 0.7, 0.2])
    assert (ev.summary.agree, ev.summary.labelled) == (4, 5)  # R4 acceptable but pending = fail
    # the person decides R4 acceptable: judge stage, pass, 5/5
    decided = evaluate(features, Settings(response_scorer="cascade"), rf, decisions=np.array([-1, -1, -1, 1, -1], np.int8))
    assert decided.response_stage[3] == "judge:person" and decided.passed[3] and decided.summary.agree == 5
    assert reasons(features, decided, [3]) == ["all checks pass (cascade judge:person: cosine 0.70 in [0.60, 0.85): person judged acceptable)"]
    # a decision outside the gray band changes nothing: R5 stays failed by similarity
    other = evaluate(features, Settings(response_scorer="cascade"), rf, decisions=np.array([-1, -1, -1, -1, 1], np.int8))
    assert other.response_stage[4] == "semantic" and not other.passed[4]


def test_band_moves_use_the_cached_columns(setup):
    features, rf, emb = setup
    evaluate(features, Settings(response_scorer="cascade"), rf)
    calls = emb.calls
    # fail-below 0.75: R4 (0.70) now fails by similarity; pass-above 0.95: R3 (0.90) waits
    ev = evaluate(features, Settings(response_scorer="cascade", fail_below=0.75, pass_above=0.95), rf)
    assert list(ev.response_stage[2:]) == ["needs review", "semantic", "semantic"]
    assert emb.calls == calls  # no embedding on a band move
    assert rf.cascade(3) is rf.cascade(3)


def test_plain_scorers_replace_f1(setup):
    features, rf, _ = setup
    ev = evaluate(features, Settings(response_scorer="cosine"), rf)
    assert ev.response_score == pytest.approx([1.0, 0.95, 0.9, 0.7, 0.2])
    assert ev.passed.tolist() == [True, True, True, False, False]
    table = result_table(features, ev)
    assert (table["decided_by"][3], table["reason"][3]) == ("cosine", "cosine 0.70 < 0.80")
    assert table["f1"].tolist() == pytest.approx(features.f1.tolist())  # F1 column stays unigram F1
    # exact: R1 equals its reference only from rung 3 (case at rung 2, the full stop at rung 3)
    assert [rf.exact(r)[0] for r in (1, 2, 3, 4)] == [0.0, 0.0, 1.0, 1.0]
    ex = evaluate(features, Settings(response_scorer="exact", rung=2), rf)
    assert ex.decided_by.tolist()[0] == 7 and result_table(features, ex)["decided_by"][0] == "exact"
    # ROUGE-1: R1 has the same four tokens as its reference -> 1.0
    assert rf.rouge1()[0] == pytest.approx(1.0)


def test_mean_combine_uses_the_cascade_verdict_as_one_or_zero(setup):
    features, rf, _ = setup
    ev = evaluate(features, Settings(response_scorer="cascade", combine="mean"), rf)
    # trajectory 1.0 everywhere (no calls expected or made): mean = (1 + 1) / 2 or (1 + 0) / 2
    assert ev.mean_score.tolist() == [1.0, 0.5, 1.0, 0.5, 0.5]
    assert ev.passed.tolist() == [True, False, True, False, False]


def test_f1_default_needs_no_response_features_and_others_do(setup):
    features, _, _ = setup
    plain = evaluate(features, Settings())
    assert plain.response is None and plain.response_score is plain.f1
    with pytest.raises(ValueError, match="ResponseFeatures"):
        evaluate(features, Settings(response_scorer="rouge1"))


@pytest.mark.skipif(similarity_available("exact"), reason="the exact backend is installed here")
def test_missing_similarity_extra_says_how_to_install():
    rf = ResponseFeatures(case_set(), backend="exact")
    assert not rf.available("cascade") and rf.available("rouge1")
    with pytest.raises(SimilarityUnavailable, match="pip install"):
        rf.cosine()
