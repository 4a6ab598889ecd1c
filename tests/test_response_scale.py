"""Issue 14, item 5: response-scorer columns at scale give the values the one-process scorers give.

* ROUGE-1: :func:`~explorer.core.scoring.response_scorers.rouge1_many` (each distinct pair once,
  each text tokenised and each word stemmed once) equals ADK's call
  (:func:`~explorer.core.scoring.response_scorers.rouge1_adk`: ``RougeScorer.score``) pair by
  pair; the parallel column equals ``ResponseFeatures.rouge1()``.
* Embeddings: a text's vector does not depend on the texts batched with it, their order (the
  encoder sorts by length) or the number of onnxruntime threads, so the parallel cosine column
  (texts dealt to spawned processes, one thread each) equals ``ResponseFeatures.cosine()``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from explorer.core.evaluation.response_columns import column_identity, cosine_column, invocation_scores, rouge1_column, run_column
from explorer.core.evaluation.response_features import ResponseFeatures
from explorer.core.io.model import CaseSet, Invocation, Run
from explorer.core.scoring.embedding import OnnxMiniLM, similarity_available
from explorer.core.scoring.passmark import quantise
from explorer.core.scoring.response_scorers import Rouge1Scorer, make_scorer, rouge1_adk, rouge1_many, run_scores

WORDS = ["the", "flights", "flight", "booked", "booking", "running", "runs", "Lisbon", "12", "March", "予約", "完了", "é", "",
         "?", "Müller", "caresses", "ponies", "generously"]
text = st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join)


@hsettings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(text, st.lists(text, max_size=3)), max_size=8))
def test_rouge1_many_equals_adk_pair_by_pair(pairs):
    got = rouge1_many([c for c, _ in pairs], [r for _, r in pairs])
    want = [max((rouge1_adk(c, r) for r in refs), default=0.0) for c, refs in pairs]
    assert got.tolist() == want  # identical floats
    assert Rouge1Scorer().score_many([c for c, _ in pairs], [r for _, r in pairs]).tolist() == want


def test_rouge1_by_hand():
    # "the cats ran" vs "the cat runs": Porter stems cats -> cat, runs -> run, "ran" stays; the
    # shared unigrams are the, cat: P = R = 2/3, F = 2/3
    assert rouge1_many(["the cats ran"], [["the cat runs"]])[0] == pytest.approx(2 / 3)
    assert rouge1_many(["予約が完了しました"], [["予約が完了しました"]])[0] == 0.0  # ADK's tokenizer keeps a-z0-9 only


def _case_set(n: int) -> CaseSet:
    rng = np.random.default_rng(0)
    words = ["your", "flight", "to", "Lisbon", "is", "booked", "on", "12", "March", "refund", "of", "120", "EUR", "sent"]
    runs = []
    for i in range(n):
        invs = []
        for _ in range(1 + (i % 3 == 0)):
            ref = " ".join(rng.choice(words, 8))
            answer = ref if rng.random() < 0.3 else " ".join(rng.choice(words, 7))
            invs.append(Invocation((), (), answer, (ref,) if i % 2 else (ref, "other " + ref)))
        runs.append(Run(f"r{i}", "", "", tuple(invs)))
    return CaseSet("scale", "", tuple(runs))


def test_parallel_rouge1_column_equals_response_features():
    cs = _case_set(120)
    want = quantise(run_scores(make_scorer("rouge1"), cs.runs))
    assert np.array_equal(rouge1_column(cs.runs, processes=2, chunk=25), want)
    assert np.array_equal(ResponseFeatures(cs).rouge1(), want)


def test_run_column_is_the_mean_over_invocations():
    # runs of 1, 2 and 1 invocations: (0.5), (0.2 + 0.4) / 2, (1.0)
    assert run_column(np.array([0.5, 0.2, 0.4, 1.0]), [1, 2, 1]).tolist() == [0.5, 0.3, 1.0]


needs_model = pytest.mark.skipif(not similarity_available(), reason="similarity extra not installed")


@needs_model
def test_a_vector_does_not_depend_on_batch_order_or_threads():
    texts = ["Your flight is booked.", "A much longer sentence about returning a parcel to the shop within thirty days.",
             "ok", "word " * 300]  # the last needs two windows
    alone = np.stack([OnnxMiniLM(threads=1).embed([t])[0] for t in texts])
    together = OnnxMiniLM(batch_size=2).embed(texts[::-1])[::-1]
    default_threads = OnnxMiniLM().embed(texts)
    assert np.array_equal(alone, together) and np.array_equal(alone, default_threads)


@needs_model
def test_parallel_cosine_column_equals_response_features():
    cs = _case_set(90)
    rf = ResponseFeatures(cs)
    column, windowed, identity = cosine_column(cs.runs, processes=2, batch_size=4)
    assert np.array_equal(column, rf.cosine()) and np.array_equal(windowed, rf.cosine_windowed())
    assert identity == rf.embedding_identity()
    assert column_identity("cosine", identity)["embedding"]["weights_sha256"] == identity.weights_sha256
    # a column given to ResponseFeatures is used as it is
    given_rf = ResponseFeatures(cs)
    given_rf.put_column("cosine", column, windowed, identity)
    assert given_rf.cosine() is not None and np.array_equal(given_rf.cosine(), column)
    assert given_rf.embedding_identity() == identity
    # the unit of work: a text against itself has cosine 1; an empty answer scores 0 (not embedded)
    assert invocation_scores("cosine", ["Your flight is booked.", "?"], [["Your flight is booked."], ["x"]]).tolist() == pytest.approx([1.0, 0.0], abs=1e-6)


def test_put_column_checks_shape_and_name():
    rf = ResponseFeatures(_case_set(3))
    with pytest.raises(ValueError):
        rf.put_column("rouge1", np.zeros(2))
    with pytest.raises(ValueError):
        rf.put_column("exact", np.zeros(3))
    rf.put_column("rouge1", np.full(3, 0.5))
    assert rf.rouge1().tolist() == [0.5, 0.5, 0.5]


@needs_model
def test_response_features_use_the_parallel_path_for_big_sets(monkeypatch):
    """From PARALLEL_MIN_RUNS runs, ResponseFeatures computes rouge1 and cosine in worker
    processes; the columns equal the one-process ones (here with the threshold lowered)."""
    import explorer.core.evaluation.response_features as rf_module

    cs = _case_set(70)
    one = ResponseFeatures(cs)
    want = (one.rouge1(), one.cosine(), one.cosine_windowed())
    monkeypatch.setattr(rf_module, "PARALLEL_MIN_RUNS", 10)
    big = ResponseFeatures(cs)
    got = (big.cosine_windowed(), big.cosine(), big.rouge1())
    assert np.array_equal(got[0], want[2]) and np.array_equal(got[1], want[1]) and np.array_equal(got[2], want[0])
    assert big._embedder is None and big.embedding_identity() == one.embedding_identity()


def test_column_identity_names_what_made_a_column():
    rouge = column_identity("rouge1")
    assert rouge["scorer"] == "rouge1" and rouge["quantised"] is True and rouge["rouge-score"] and rouge["nltk"]
    with pytest.raises(ValueError):
        column_identity("cosine")
