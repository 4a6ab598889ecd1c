"""Response scorers behind one interface: how close is an answer to its acceptable references?

Every scorer gives a float in [0, 1] (cosine in [-1, 1]) for a candidate against a list of
references, taking the best reference (seed 000: "pass when the candidate matches any of them").
An answer that is empty after normalisation (:func:`explorer.core.scoring.normalise.is_empty_answer`:
only spaces and punctuation) scores 0.0 with every scorer, and never passes a response check
(issue 10, kind 5).

* ``f1``: unigram F1 over Unicode letter-and-digit tokens (:mod:`explorer.core.scoring.overlap`);
* ``rouge1``: ROUGE-1 F-measure as Google ADK's ``response_match_score`` computes it
  (``google/adk/evaluation/final_response_match_v1.py``): ``rouge_score.RougeScorer(["rouge1"],
  use_stemmer=...)`` with ``.score(reference, candidate)["rouge1"].fmeasure``, the Porter stemmer
  on only when both texts are mostly Latin script (more than half of their letters). Its
  tokenizer keeps only ``a-z`` and ``0-9``, so text in another script scores 0.0 (kept, as ADK;
  :func:`rouge1_blind` tells when that is why);
* ``exact``: 1.0 when the normalised candidate equals a normalised reference at a rung
  (:func:`explorer.core.scoring.normalise.exact_at`), else 0.0;
* ``cosine``: embedding cosine (:mod:`explorer.core.scoring.embedding`), batched over many answers;
  a text longer than the model's window is embedded in windows and pooled, never cut
  (:meth:`CosineScorer.beyond_window` tells which pairs needed that).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from .embedding import Embedder, cosine_pairs, make_embedder, window_count
from .normalise import exact_at, is_empty_answer
from .overlap import best_f1, tokens

SCORER_NAMES: tuple[str, ...] = ("f1", "rouge1", "exact", "cosine")


@runtime_checkable
class ResponseScorer(Protocol):
    """``score(candidate, references) -> float`` (best over references; 0.0 with none) and
    ``score_many(candidates, references_per_candidate) -> float64 (N,)``; ``name`` and
    ``describe()`` say what it is in reports."""

    name: str

    def score(self, candidate: str, references: Sequence[str]) -> float: ...

    def score_many(self, candidates: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray: ...

    def describe(self) -> str: ...


class _PerPair:
    name = ""

    def score(self, candidate: str, references: Sequence[str]) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def score_many(self, candidates: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
        """float64 (N,): ``score`` of each candidate against its own references."""
        if len(candidates) != len(references):
            raise ValueError(f"{len(candidates)} candidates but {len(references)} reference lists")
        return np.array([self.score(c, r) for c, r in zip(candidates, references)], dtype=np.float64)


@dataclass
class F1Scorer(_PerPair):
    """Unigram F1 (multiset counts, :func:`explorer.core.scoring.overlap.tokens`), best over references."""

    name: str = "f1"

    def score(self, candidate: str, references: Sequence[str]) -> float:
        return best_f1(candidate, references)

    def describe(self) -> str:
        return "unigram F1"


def is_latin_script(text: str) -> bool:
    """ADK's rule: True when more than half of the letters (category ``L*``) have ``LATIN`` in
    their Unicode name; True for text without letters (so for every ASCII text: its letters are
    all Latin)."""
    if text.isascii():
        return True
    letters = latin = 0
    for ch in text:
        if unicodedata.category(ch).startswith("L"):
            letters += 1
            if "LATIN" in unicodedata.name(ch, ""):
                latin += 1
    return letters == 0 or latin / letters > 0.5


@lru_cache(maxsize=2)
def _rouge(use_stemmer: bool):
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rouge1"], use_stemmer=use_stemmer)


_ROUGE_TOKEN = re.compile(r"[a-z0-9]+")


def rouge1_blind(candidate: str, reference: str) -> bool:
    """True when ADK's ROUGE-1 is 0.0 for this pair only because of the script it is written in:
    one side has words (:func:`explorer.core.scoring.overlap.tokens`) but none of them is made of
    ``a-z`` / ``0-9``, which is all ``rouge-score``'s tokenizer keeps (e.g. ``"予約が完了しました"``)."""
    for text in (candidate, reference):
        if not _ROUGE_TOKEN.search(text.lower()) and tokens(text):
            return True
    return False


def rouge1_adk(candidate: str, reference: str) -> float:
    """ROUGE-1 F-measure of ``candidate`` against ``reference`` exactly as ADK's
    ``response_match_score`` (``rouge-score``'s default tokenizer: lowercase, non-alphanumerics
    to spaces, Porter stemming of tokens longer than 3 characters when both texts are Latin
    script). Empty vs empty is 0.0."""
    stem = is_latin_script(candidate) and is_latin_script(reference)
    return float(_rouge(stem).score(reference, candidate)["rouge1"].fmeasure)


class _MemoStemmer:
    """nltk's Porter stemmer (the one ``rouge-score`` uses) with each word's stem kept: stemming
    is most of ROUGE's cost, and words repeat across texts."""

    def __init__(self) -> None:
        from nltk.stem import porter

        self._stem = porter.PorterStemmer().stem
        self._stems: dict[str, str] = {}

    def stem(self, word: str) -> str:
        got = self._stems.get(word)
        if got is None:
            if len(self._stems) > 200_000:
                self._stems.clear()
            got = self._stems[word] = self._stem(word)
        return got


@lru_cache(maxsize=2)
def _memo_rouge(use_stemmer: bool):
    """A ``rouge_score.RougeScorer(["rouge1"])`` whose tokenizer is rouge-score's own
    ``tokenize.tokenize`` with (``use_stemmer``) the Porter stemmer, as its ``DefaultTokenizer``
    does, each text's tokens and each word's stem kept (bounded): same tokens, same scores as
    :func:`rouge1_adk`, computed once per text."""
    from rouge_score import rouge_scorer, tokenize, tokenizers

    class MemoTokenizer(tokenizers.Tokenizer):
        def __init__(self) -> None:
            self._stemmer = _MemoStemmer() if use_stemmer else None
            self._tokens: dict[str, list[str]] = {}

        def tokenize(self, text: str) -> list[str]:
            got = self._tokens.get(text)
            if got is None:
                if len(self._tokens) > 100_000:
                    self._tokens.clear()
                got = self._tokens[text] = tokenize.tokenize(text, self._stemmer)
            return got

    return rouge_scorer.RougeScorer(["rouge1"], tokenizer=MemoTokenizer())


def rouge1_many(candidates: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
    """float64 (N,): for each candidate the best :func:`rouge1_adk` over its references (0.0 with
    none), each distinct (candidate, reference) pair scored once by ``RougeScorer.score`` (the call
    ADK makes) with each text tokenised and each word stemmed once (:func:`_memo_rouge`); equal
    to :meth:`Rouge1Scorer.score` for each (tests/test_response_scale.py). What a process pool or a
    Dask worker runs on its share of the answers. Raises ValueError on unequal lengths."""
    if len(candidates) != len(references):
        raise ValueError(f"{len(candidates)} candidates but {len(references)} reference lists")
    latin: dict[str, bool] = {}
    scored: dict[tuple[str, str], float] = {}
    out = np.zeros(len(candidates), dtype=np.float64)
    for i, (cand, refs) in enumerate(zip(candidates, references)):
        best = None
        for ref in refs:
            value = scored.get((cand, ref))
            if value is None:
                for text in (cand, ref):
                    if text not in latin:
                        latin[text] = is_latin_script(text)
                stem = latin[cand] and latin[ref]
                value = scored[(cand, ref)] = float(_memo_rouge(stem).score(ref, cand)["rouge1"].fmeasure)
            if best is None or value > best:
                best = value
        out[i] = 0.0 if best is None else best
    return out


@dataclass
class Rouge1Scorer(_PerPair):
    """ADK ``response_match_score`` (ROUGE-1 F), best over references; :meth:`score_many` scores
    many at once with each text tokenised once (:func:`rouge1_many`)."""

    name: str = "rouge1"

    def score(self, candidate: str, references: Sequence[str]) -> float:
        return max((rouge1_adk(candidate, r) for r in references), default=0.0)

    def score_many(self, candidates: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
        """float64 (N,): :meth:`score` of each candidate against its own references."""
        return rouge1_many(candidates, references)

    def describe(self) -> str:
        return "ROUGE-1 F (ADK response_match_score)"


@dataclass
class ExactScorer(_PerPair):
    """1.0 when the candidate equals any reference at ``rung`` (1..4), else 0.0."""

    rung: int = 3
    locale: str = "en"
    day_first: bool = True
    name: str = "exact"

    def __post_init__(self) -> None:
        if self.rung not in (1, 2, 3, 4):
            raise ValueError(f"rung must be 1, 2, 3 or 4, got {self.rung!r}")

    def score(self, candidate: str, references: Sequence[str]) -> float:
        return 1.0 if exact_at(candidate, references, self.rung, locale=self.locale, day_first=self.day_first) else 0.0

    def describe(self) -> str:
        return f"normalised exact at rung {self.rung} (locale {self.locale}, {'day' if self.day_first else 'month'}-first)"


@dataclass
class CosineScorer:
    """Embedding cosine, best over references; ``embedder`` defaults to the shared ONNX MiniLM
    (loaded on first score; SimilarityUnavailable when not installed)."""

    embedder: Embedder = field(default_factory=make_embedder)
    name: str = "cosine"

    def score(self, candidate: str, references: Sequence[str]) -> float:
        return float(self.score_many([candidate], [references])[0])

    def score_many(self, candidates: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
        """float64 (N,): best cosine per candidate; every text embedded once, in batches; 0.0 for
        an empty answer (not embedded)."""
        if len(candidates) != len(references):
            raise ValueError(f"{len(candidates)} candidates but {len(references)} reference lists")
        flat_c, flat_r, owner = [], [], []
        for i, (c, refs) in enumerate(zip(candidates, references)):
            if is_empty_answer(c):
                continue
            for r in refs:
                flat_c.append(c)
                flat_r.append(r)
                owner.append(i)
        out = np.zeros(len(candidates), dtype=np.float64)
        if not flat_c:
            return out
        sims = cosine_pairs(self.embedder, flat_c, flat_r)
        out[:] = -np.inf
        np.maximum.at(out, np.asarray(owner), sims)
        out[np.isinf(out)] = 0.0
        return out

    def beyond_window(self, candidates: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
        """bool (N,): the candidate or one of its references is longer than the model's window
        (embedded in several windows and pooled). Embeds what was not embedded yet."""
        return np.array(
            [not is_empty_answer(c) and any(window_count(self.embedder, t) > 1 for t in (c, *refs)) for c, refs in zip(candidates, references)],
            dtype=bool,
        )

    def describe(self) -> str:
        return f"embedding cosine, {self.embedder.identity().label()}"


def make_scorer(name: str, *, rung: int = 3, locale: str = "en", day_first: bool = True, embedder: Embedder | None = None) -> ResponseScorer:
    """The scorer called ``name`` (one of ``SCORER_NAMES``). Raises ValueError for another name."""
    if name == "f1":
        return F1Scorer()
    if name == "rouge1":
        return Rouge1Scorer()
    if name == "exact":
        return ExactScorer(rung=rung, locale=locale, day_first=day_first)
    if name == "cosine":
        return CosineScorer(embedder) if embedder is not None else CosineScorer()
    raise ValueError(f"unknown response scorer {name!r}; choose one of {', '.join(SCORER_NAMES)}")


def run_scores(scorer: ResponseScorer, runs: Sequence) -> np.ndarray:
    """float64 (N,): per run, the mean over its invocations of the best score of the answer over
    that invocation's references (as F1 in :mod:`explorer.core.evaluation.features` and ADK's per-invocation
    average). One batched ``score_many`` call over every invocation."""
    cands = [inv.answer for run in runs for inv in run.invocations]
    refs = [inv.references for run in runs for inv in run.invocations]
    flat = scorer.score_many(cands, refs) if cands else np.zeros(0)
    sizes = np.array([len(run.invocations) for run in runs], dtype=np.int64)
    if sizes.size == 0:
        return np.zeros(0, dtype=np.float64)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return np.add.reduceat(flat, starts) / sizes
