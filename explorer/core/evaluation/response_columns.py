"""Response-scorer columns at scale: ROUGE-1 and embedding cosine for many runs, once, in parallel
(issue 14, item 5).

:class:`~explorer.core.evaluation.response_features.ResponseFeatures` computes a column the first
time a person picks the scorer, in the app's process. For big sets (and for a feature file that
keeps them) the same columns are computed here, split over processes, with the same values:

* :func:`invocation_scores` is the unit of work: the best score of each answer over its
  references for a chunk of invocations (ROUGE-1 through
  :func:`~explorer.core.scoring.response_scorers.rouge1_many`: each distinct pair scored once, each
  text tokenised once; cosine through :class:`~explorer.core.scoring.response_scorers.CosineScorer`);
  a process pool here, or a Dask worker, calls it;
* :func:`embed_texts` is the unit of work for embeddings: vectors and window counts of a share of
  the distinct texts (a worker's own model, one thread); :func:`cosine_column` gives every
  process a share of the distinct texts sorted by length, then scores the pairs from the vectors
  with the code :class:`CosineScorer` runs, so the values equal one process's (a text's vector
  does not depend on the batch it is in);
* :func:`run_column` turns per-invocation scores into the per-run column exactly as
  :func:`~explorer.core.scoring.response_scorers.run_scores` does, quantised as
  :class:`ResponseFeatures` stores it (:func:`~explorer.core.scoring.passmark.quantise`).

What a feature file should keep with a column (:func:`column_identity`): the scorer name, and for
cosine the embedder's identity (model, backend, weights sha256, dimension, source): a cosine means
nothing without its model.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any, Sequence

import numpy as np

from ..io.bigload import process_context
from ..scoring.embedding import Embedder, EmbedderIdentity, OnnxMiniLM, make_embedder
from ..scoring.normalise import is_empty_answer
from ..scoring.passmark import quantise
from ..scoring.response_scorers import CosineScorer, rouge1_many

AT_SCALE: tuple[str, ...] = ("rouge1", "cosine")
"""Response scorers this module computes in parallel."""


def _processes(processes: int | None) -> int:
    return max(1, min(4, os.cpu_count() or 1) if processes is None else processes)


def invocation_scores(name: str, answers: Sequence[str], references: Sequence[Sequence[str]], backend: str = "onnx-int8",
                      embedder: Embedder | None = None) -> np.ndarray:
    """float64 (M,): scorer ``name``'s best score of each answer over its references (0.0 for an
    answer with none; cosine: 0.0 for an empty answer), as ``make_scorer(name).score_many``. The
    function a process or Dask worker runs on a chunk of invocations. Raises ValueError for
    another scorer."""
    if name == "rouge1":
        return rouge1_many(answers, references)
    if name == "cosine":
        return CosineScorer(embedder or make_embedder(backend)).score_many(answers, references)
    raise ValueError(f"no column at scale for response scorer {name!r}; choose one of {', '.join(AT_SCALE)}")


def run_column(values: np.ndarray, sizes: Sequence[int]) -> np.ndarray:
    """float64 (N,): per run the mean of its invocations' ``values`` (``sizes[i]`` invocations for
    run i, in order), quantised: what :class:`ResponseFeatures` keeps (the arithmetic of
    :func:`~explorer.core.scoring.response_scorers.run_scores`)."""
    sizes_arr = np.asarray(sizes, dtype=np.int64)
    if sizes_arr.size == 0:
        return np.zeros(0, dtype=np.float64)
    starts = np.concatenate([[0], np.cumsum(sizes_arr)[:-1]])
    return quantise(np.add.reduceat(np.asarray(values, dtype=np.float64), starts) / sizes_arr)


def _flat(runs: Sequence) -> tuple[list[str], list[tuple[str, ...]], list[int]]:
    answers = [inv.answer for run in runs for inv in run.invocations]
    refs = [tuple(inv.references) for run in runs for inv in run.invocations]
    return answers, refs, [len(run.invocations) for run in runs]


def rouge1_column(runs: Sequence, processes: int | None = None, chunk: int = 20_000) -> np.ndarray:
    """float64 (N,): the ROUGE-1 column of ``runs`` (= ``ResponseFeatures.rouge1()``), the
    invocations split into chunks of ``chunk`` over ``processes`` worker processes (default: the
    CPUs, at most 4; 1 = this process)."""
    answers, refs, sizes = _flat(runs)
    procs = _processes(processes)
    if procs == 1 or len(answers) <= chunk:
        return run_column(rouge1_many(answers, refs), sizes)
    parts = [(answers[s : s + chunk], refs[s : s + chunk]) for s in range(0, len(answers), chunk)]
    with ProcessPoolExecutor(max_workers=procs, mp_context=process_context()) as pool:
        values = list(pool.map(rouge1_many, *zip(*parts)))
    return run_column(np.concatenate(values), sizes)


def embed_texts(texts: Sequence[str], threads: int = 1, batch_size: int = 32) -> tuple[np.ndarray, np.ndarray]:
    """(float32 (n, 384) unit vectors, int32 (n,) window counts) of ``texts`` with the int8
    MiniLM on ``threads`` onnxruntime threads: the unit of work of :func:`cosine_column`, for a
    process or a Dask worker (the model loads once per process)."""
    emb = _worker_embedder(threads, batch_size)
    vectors = emb.embed(list(texts))
    windows = np.array([emb.window_count(t) for t in texts], dtype=np.int32)
    emb._cache.clear()  # the caller keeps the vectors; a worker need not
    emb._windows.clear()
    return vectors, windows


_WORKER: dict[tuple[int, int], OnnxMiniLM] = {}


def _worker_embedder(threads: int, batch_size: int) -> OnnxMiniLM:
    key = (threads, batch_size)
    if key not in _WORKER:
        _WORKER[key] = OnnxMiniLM(batch_size=batch_size, threads=threads)
    return _WORKER[key]


class _Vectors:
    """An :class:`~explorer.core.scoring.embedding.Embedder` over vectors computed elsewhere
    (every text asked for must be in it)."""

    def __init__(self, vectors: dict[str, np.ndarray], windows: dict[str, int], identity: EmbedderIdentity):
        self._vectors, self._windows, self._identity = vectors, windows, identity

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._identity.dimension), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts])

    def identity(self) -> EmbedderIdentity:
        return self._identity

    def window_count(self, text: str) -> int:
        return self._windows[text]


def cosine_column(runs: Sequence, processes: int | None = None, batch_size: int = 32) -> tuple[np.ndarray, np.ndarray, EmbedderIdentity]:
    """(float64 (N,) cosine column (= ``ResponseFeatures.cosine()``), bool (N,) windowed (=
    ``ResponseFeatures.cosine_windowed()``), the embedder's identity) of ``runs``, int8 MiniLM.

    Each distinct text (non-empty answers and their references) is embedded once: the texts are
    sorted by length and dealt round-robin to ``processes`` spawned processes (default: the CPUs,
    at most 4; 1 = this process), each running :func:`embed_texts` with one thread. Raises
    SimilarityUnavailable when the similarity extra is missing."""
    answers, refs, sizes = _flat(runs)
    texts = list(dict.fromkeys(t for a, rs in zip(answers, refs) if not is_empty_answer(a) for t in (a, *rs)))
    texts.sort(key=len)
    procs = _processes(processes)
    if procs == 1 or len(texts) < 2 * batch_size * procs:
        shares = [texts]
        results = [embed_texts(texts, threads=procs, batch_size=batch_size)] if texts else []
    else:  # spawned, not forked: onnxruntime's native threads do not survive a fork
        shares = [texts[k::procs] for k in range(procs)]
        with ProcessPoolExecutor(max_workers=procs, mp_context=get_context("spawn")) as pool:
            results = list(pool.map(embed_texts, shares, [1] * procs, [batch_size] * procs))
    identity = _worker_embedder(1, batch_size).identity()
    vectors: dict[str, np.ndarray] = {}
    windows: dict[str, int] = {}
    for share, (vecs, wins) in zip(shares, results):
        vectors.update(zip(share, vecs))
        windows.update(zip(share, wins.tolist()))
    scorer = CosineScorer(_Vectors(vectors, windows, identity))
    column = run_column(scorer.score_many(answers, refs), sizes)
    flat = scorer.beyond_window(answers, refs)
    bounds = np.cumsum([0, *sizes])
    windowed = np.array([flat[bounds[k] : bounds[k + 1]].any() for k in range(len(sizes))], dtype=bool)
    return column, windowed, identity


def column_identity(name: str, identity: EmbedderIdentity | None = None) -> dict[str, Any]:
    """What a feature file should store with a response column: ``{"scorer": name}``,
    ``"quantised": True`` (values as :func:`~explorer.core.scoring.passmark.quantise` leaves them),
    for rouge1 the versions of ``rouge-score`` and ``nltk`` (tokenizer and Porter stemmer), for
    cosine ``"embedding": identity.to_dict()`` (model, backend, weights sha256, dimension, source).
    A stored column whose identity differs from the running one's is stale. Raises ValueError for
    cosine without an identity."""
    out: dict[str, Any] = {"scorer": name, "quantised": True}
    if name == "rouge1":  # the tokenizer and stemmer that made it
        from importlib.metadata import PackageNotFoundError, version

        for package in ("rouge-score", "nltk"):
            try:
                out[package] = version(package)
            except PackageNotFoundError:
                out[package] = None
    if name == "cosine":
        if identity is None:
            raise ValueError("a cosine column needs the identity of the embedder that made it")
        out["embedding"] = identity.to_dict()
    return out
