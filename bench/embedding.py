"""Embedding backends and the cosine column at scale (issue 14, item 5).

For the int8 MiniLM on onnxruntime (the ``similarity`` extra) it measures, on the same N distinct
travel-agent sentences, cold cache, best of 2 rounds, wall time and CPU time (all threads, and the
worker processes of the pooled setting):

* session settings side by side: onnxruntime's default threads / 1 thread / 2 threads, batches
  of 32 or 64, with sequence bucketing (texts run shortest first, what ``OnnxMiniLM`` does now)
  or without (batches in the given order, as before issue 14); and two spawned processes of one
  thread each (``explorer.core.evaluation.response_columns.embed_texts``, what ``cosine_column``
  uses);
* with ``--fp32 PATH`` (the fp32 ``model.safetensors`` of all-MiniLM-L6-v2, see
  ``bench/embedding_fp32_check.py`` for getting it without PyTorch): the fp32 model on the same
  sentences (a batched numpy forward pass, float32 BLAS, bucketed batches of 32), its speed, and
  how far the int8 vectors are from it (cosine between the two vectors of each sentence; pair
  cosines of the 20 bundled labelled pairs);
* with ``--cosine-runs N`` (default 100,000): the cosine column of N runs whose references and
  answers repeat as a real export's do (2,000 eval cases, each run 50 times with a fresh answer:
  copies, paraphrases, changed facts ...), computed with ``cosine_column`` (distinct texts once,
  two processes): time, distinct texts, texts per second.

``--record`` writes the figures into ``bench/results.json`` (records ``embedding_backend``,
``embedding_fp32``, ``cosine_column``; other records kept) with the load average of each.
Nothing is asserted; the figures depend on the machine and on what else runs on it.

Usage::

    .venv/bin/python bench/embedding.py [--sentences 1024] [--fp32 /tmp/gt/.../model.safetensors] [--cosine-runs 100000] [--record]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import numpy as np  # noqa: E402

from explorer.core.io.pairs import load_pairs  # noqa: E402
from explorer.core.scoring.embedding import OnnxMiniLM, best_cosine, cosine_pairs, similarity_available  # noqa: E402

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


def _cpu() -> float:
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + c.ru_utime + c.ru_stime


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _timed(fn, n: int, rounds: int = 2) -> dict:
    """Best of ``rounds`` of ``fn()`` (which embeds n sentences from cold): sentences per wall
    second and per CPU second."""
    best = None
    for _ in range(rounds):
        load = _load()
        t0, c0 = time.perf_counter(), _cpu()
        fn()
        wall, cpu = time.perf_counter() - t0, _cpu() - c0
        if best is None or wall < best["wall_s"]:
            best = {"wall_s": wall, "cpu_s": cpu, "per_s": n / wall, "per_cpu_s": n / max(cpu, 1e-9), "load_average": load}
    return best


def int8_settings(texts: list[str]) -> list[dict]:
    """Every setting of the int8 backend on ``texts`` (module docstring)."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    out = []
    for threads in (None, 1, 2):
        for batch in (32, 64):
            for bucketed in (True, False):
                emb = OnnxMiniLM(batch_size=batch, threads=threads)
                emb.identity()

                def run(emb=emb, batch=batch, bucketed=bucketed):
                    emb._cache.clear()
                    if bucketed:  # one call: the encoder sorts every text by length
                        emb.embed(texts)
                    else:  # as before issue 14: batches in the given order
                        for s in range(0, len(texts), batch):
                            emb.embed(texts[s : s + batch])

                res = _timed(run, len(texts))
                res.update(setting=f"1 process, {threads or 'default'} thread(s), batch {batch}, {'bucketed' if bucketed else 'in order'}",
                           threads=threads, batch=batch, bucketed=bucketed, processes=1)
                out.append(res)
                print(f"  int8 {res['setting']:<55} {res['per_s']:6.0f} sentences/s, {res['per_cpu_s']:6.0f} per CPU-s (load {res['load_average']})", flush=True)
    for batch in (32, 64):
        with ProcessPoolExecutor(max_workers=2, mp_context=get_context("spawn")) as pool:
            list(pool.map(_embed_cpu, [texts[:64], texts[64:128]], [1, 1], [batch, batch]))  # start both, load the model
            best = None
            for _ in range(2):
                ordered = sorted(texts, key=len)
                load = _load()
                t0, c0 = time.perf_counter(), time.process_time()
                worker_cpu = sum(pool.map(_embed_cpu, [ordered[0::2], ordered[1::2]], [1, 1], [batch, batch]))
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0 + worker_cpu
                if best is None or wall < best["wall_s"]:
                    best = {"wall_s": wall, "cpu_s": cpu, "per_s": len(texts) / wall, "per_cpu_s": len(texts) / cpu, "load_average": load}
        res = best
        res.update(setting=f"2 processes x 1 thread, batch {batch}, bucketed", threads=1, batch=batch, bucketed=True, processes=2)
        out.append(res)
        print(f"  int8 {res['setting']:<55} {res['per_s']:6.0f} sentences/s, {res['per_cpu_s']:6.0f} per CPU-s (load {res['load_average']})", flush=True)
    return out


def _embed_cpu(texts: list[str], threads: int, batch: int) -> float:
    """CPU seconds a (pool) process spends embedding ``texts`` with ``embed_texts``."""
    from explorer.core.evaluation.response_columns import embed_texts

    c0 = time.process_time()
    embed_texts(texts, threads, batch)
    return time.process_time() - c0


def fp32_side(path: Path, texts: list[str]) -> dict:
    """The fp32 model on ``texts`` (batched numpy, bucketed batches of 32) against the int8 one:
    speed, and the cosine between the two vectors of each text and between pair scores."""
    from tokenizers import Tokenizer

    from embedding_fp32_check import bert_embed_batch, read_safetensors
    from explorer.core.scoring.embedding import MAX_TOKENS, TOKENIZER_PATH

    weights = read_safetensors(path)
    tok = Tokenizer.from_file(str(TOKENIZER_PATH))
    tok.enable_truncation(max_length=MAX_TOKENS)
    tok.no_padding()

    def embed(batch_texts: list[str]) -> np.ndarray:
        ids = [e.ids for e in tok.encode_batch(batch_texts)]
        order = sorted(range(len(ids)), key=lambda k: len(ids[k]))
        out = np.zeros((len(ids), 384), dtype=np.float64)
        for s in range(0, len(order), 32):
            rows = order[s : s + 32]
            out[rows] = bert_embed_batch(weights, [ids[k] for k in rows])
        return out

    res = _timed(lambda: embed(texts), len(texts), rounds=1)
    fp32 = embed(texts)
    int8 = OnnxMiniLM().embed(texts).astype(np.float64)
    same = (fp32 * int8).sum(axis=1)
    pairs = load_pairs(REPO / "cases" / "labelled_pairs.json")
    p_texts = [t for p in pairs.pairs for t in (p.candidate, p.references[0])]
    f, q = embed(p_texts), OnnxMiniLM().embed(p_texts).astype(np.float64)
    diff = np.abs((f[0::2] * f[1::2]).sum(axis=1) - (q[0::2] * q[1::2]).sum(axis=1))
    res.update(setting="fp32 all-MiniLM-L6-v2 (numpy float32 BLAS, batch 32, bucketed)", same_text_cosine_min=float(same.min()),
               same_text_cosine_mean=float(same.mean()), pair_cosine_max_abs_diff=float(diff.max()),
               pair_cosine_mean_abs_diff=float(diff.mean()), weights=str(path))
    print(f"  fp32 {res['setting']:<55} {res['per_s']:6.0f} sentences/s, {res['per_cpu_s']:6.0f} per CPU-s (load {res['load_average']}); "
          f"int8 vs fp32 vector cosine min {same.min():.4f} mean {same.mean():.4f}; labelled pair cosines differ by at most {diff.max():.4f}",
          flush=True)
    return res


def repeated_runs(n: int, cases: int = 2_000, seed: int = 0):
    """``n`` runs of ``cases`` eval cases (run i is case i % cases: same trip, calls and
    references), each with its own answer drawn as ``bench/synth.py`` draws answers."""
    import synth
    from explorer.core.io.model import Invocation, Run

    made = {}
    runs = []
    for i in range(n):
        c = i % cases
        if c not in made:
            rng = random.Random(seed * 1_000_003 + c)
            trip = synth._Trip(rng)
            expected = synth._expected(trip, rng)
            reference = synth._reference(trip, [x["name"] for x in expected], rng)
            refs = (reference,) if rng.random() < 0.8 else (reference, synth._answer(reference, "paraphrase", trip, rng))
            made[c] = (trip, refs)
        trip, refs = made[c]
        rng = random.Random(seed * 7_000_001 + i)
        answer = synth._answer(refs[0], synth._pick(rng, synth.ANSWER_KINDS), trip, rng)
        runs.append(Run(f"R{i:07d}", "", "", (Invocation((), (), answer, refs),)))
    return runs


def cosine_figure(n: int) -> dict:
    """The cosine column of ``repeated_runs(n)`` with ``cosine_column`` (two processes)."""
    from explorer.core.evaluation.response_columns import cosine_column
    from explorer.core.scoring.normalise import is_empty_answer

    runs = repeated_runs(n)
    answers = [r.invocations[0].answer for r in runs]
    texts = {t for r in runs for inv in r.invocations if not is_empty_answer(inv.answer) for t in (inv.answer, *inv.references)}
    load = _load()
    t0, c0 = time.perf_counter(), _cpu()
    column, windowed, identity = cosine_column(runs, processes=2)
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    res = {"wall_s": wall, "cpu_s": cpu, "runs": n, "distinct_texts": len(texts), "answers_distinct": len(set(answers)),
           "texts_per_s": len(texts) / wall, "texts_per_cpu_s": len(texts) / cpu, "load_average": [load, _load()],
           "embedding": identity.to_dict(), "mean_cosine": float(column.mean()), "windowed": int(windowed.sum())}
    print(f"  cosine column of {n:,} runs ({len(texts):,} distinct texts): {wall:.1f} s wall, {cpu:.1f} CPU-s, "
          f"{res['texts_per_s']:.0f} texts/s (load {res['load_average']})", flush=True)
    return res


def record(figures: list[dict], out: Path) -> None:
    """Put ``figures`` into ``out`` (results.json), replacing earlier records of the same names."""
    names = {f["figure"] for f in figures}
    kept = [r for r in json.loads(out.read_text()) if r.get("figure") not in names] if out.exists() else []
    out.write_text(json.dumps(kept + figures, indent=2) + "\n")


def main() -> int:
    """Print the figures (and record them with ``--record``); 0 even without the backend (says so)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", type=int, default=1024)
    ap.add_argument("--fp32", type=Path, help="the fp32 model.safetensors of all-MiniLM-L6-v2")
    ap.add_argument("--cosine-runs", type=int, default=100_000, help="runs of the cosine column figure (0: skip)")
    ap.add_argument("--record", action="store_true", help="write the figures into bench/results.json")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if not similarity_available():
        print("onnx-int8 not installed: pip install 'metric-tradeoff-explorer[similarity]'")
        return 0
    texts = sentences(args.sentences)
    emb = OnnxMiniLM()
    t0 = time.perf_counter()
    ident = emb.identity()
    print(f"{ident.label()}: load {time.perf_counter() - t0:.2f} s; returns-portal cosine {best_cosine(emb, RETURNS[0], [RETURNS[1]]):.3f}")
    pairs = load_pairs(REPO / "cases" / "labelled_pairs.json")
    cosine_pairs(emb, [p.candidate for p in pairs.pairs], [p.references[0] for p in pairs.pairs])
    figures = []
    print(f"{len(texts)} sentences, cold cache, best of 2:")
    for res in int8_settings(texts):
        figures.append({"figure": "embedding_backend", "n_runs": len(texts), "median_s": res["wall_s"], "baseline_median_s": None,
                        "ratio": None, "target": ">= 300 sentences/s (issue 14)", "met": res["per_s"] >= 300, "detail": res})
    if args.fp32:
        res = fp32_side(args.fp32, texts)
        figures.append({"figure": "embedding_fp32", "n_runs": len(texts), "median_s": res["wall_s"], "baseline_median_s": None,
                        "ratio": None, "target": None, "met": None, "detail": res})
    if args.cosine_runs:
        res = cosine_figure(args.cosine_runs)
        figures.append({"figure": "cosine_column", "n_runs": args.cosine_runs, "median_s": res["wall_s"], "baseline_median_s": None,
                        "ratio": None, "target": None, "met": None, "detail": res})
    if args.record:
        record(figures, REPO / "bench" / "results.json")
        print(f"{len(figures)} figures written to bench/results.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
