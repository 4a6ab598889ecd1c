"""Embedding backends: load time and sentences per second, for every backend installed.

For each backend of :mod:`explorer.core.scoring.embedding` whose packages are installed (``onnx-int8``:
the similarity extra; ``exact``: the similarity-exact extra, PyTorch), it prints

* load time: first ``identity()`` on a fresh embedder (hashing the weights, building the
  session / model);
* sentences/s: encoding N distinct sentences (cold cache, batches of 32), best of 3 rounds
  with a fresh cache each round;
* the cosine of seed 003's returns-portal pair;

and, when both backends are installed, the largest |cosine difference| between them over the
20 bundled labelled pairs. Nothing is asserted; the figures depend on the machine.

Usage::

    .venv/bin/python bench/embedding.py [--sentences 512]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from explorer.core.scoring.embedding import BACKENDS, best_cosine, cosine_pairs, make_embedder, similarity_available  # noqa: E402
from explorer.core.io.pairs import load_pairs  # noqa: E402

RETURNS = (
    "You can return your purchase by going to the returns page on our website. You have 30 days "
    "from when it was delivered. The site will generate a return shipping label for you.",
    "To return an item, visit our returns portal within 30 days of delivery and follow the "
    "instructions to print a shipping label.",
)


def sentences(n: int) -> list[str]:
    """``n`` distinct travel-agent sentences of 8-25 words (deterministic)."""
    words = (
        "your flight to Lisbon on 12 March is booked and confirmed with reference BK-4821 the refund "
        "of 120 EUR will reach your card within five working days please check in online from 24 "
        "hours before departure gate B12 closes twenty minutes early"
    ).split()
    out = []
    for i in range(n):
        k = 8 + (i * 7) % 18
        start = (i * 5) % len(words)
        out.append(" ".join(words[(start + j) % len(words)] for j in range(k)) + f" ({i})")
    return out


def main() -> int:
    """Print the figures; 0 even when no backend is installed (says so)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", type=int, default=512)
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    texts = sentences(args.sentences)
    pairs = load_pairs(REPO / "cases" / "labelled_pairs.json")
    cands = [p.candidate for p in pairs.pairs]
    refs = [p.references[0] for p in pairs.pairs]
    per_backend = {}
    for backend in BACKENDS:
        if not similarity_available(backend):
            print(f"{backend:<10} not installed")
            continue
        emb = make_embedder(backend, shared=False)
        t0 = time.perf_counter()
        ident = emb.identity()
        load = time.perf_counter() - t0
        rates = []
        for _ in range(3):
            emb._cache.clear()  # cold cache: every sentence is encoded
            t0 = time.perf_counter()
            emb.embed(texts)
            rates.append(len(texts) / (time.perf_counter() - t0))
        returns = best_cosine(emb, *RETURNS[:1], [RETURNS[1]])
        per_backend[backend] = cosine_pairs(emb, cands, refs)
        print(
            f"{backend:<10} {ident.label()}: load {load:.2f} s, {max(rates):.0f} sentences/s "
            f"({len(texts)} sentences, batch 32, best of 3); returns-portal cosine {returns:.3f}"
        )
    if len(per_backend) == 2:
        diff = abs(per_backend["onnx-int8"] - per_backend["exact"]).max()
        print(f"largest |cosine(onnx-int8) - cosine(exact)| over the 20 labelled pairs: {diff:.4f}")
    if not per_backend:
        print("no embedding backend installed: pip install 'metric-tradeoff-explorer[similarity]'")
    return 0


if __name__ == "__main__":
    sys.exit(main())
