"""Labelled answer pairs, format ``metric-explorer/pairs@1`` (JSON), for calibration.

::

    {
      "format": "metric-explorer/pairs@1",
      "name": "...", "description": "...",
      "score_name": "illustrative cosine",     # what stored_score holds (optional)
      "locale": "en", "day_first": true,       # for rung 4 and the field rules (optional)
      "pairs": [
        {"id": "P01", "references": ["..."], "candidate": "...",
         "human_verdict": "acceptable",         # or "unacceptable" (required)
         "stored_score": 0.95,                  # optional, a number in [-1, 1]
         "note": "why"}                         # optional
      ]
    }

Validation as the case-set format: strict types, unknown fields refused, one-line LoadError
naming the file, the JSON path and the problem.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Annotated, Literal, Sequence

import numpy as np
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from .casefile import describe_validation_error, verdict_text
from .errors import LoadError, show
from .model import CaseSet
from .reading import decode_text, parse_json, read_bytes

FORMAT = "metric-explorer/pairs@1"


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class _PairSchema(_Strict):
    id: str = Field(min_length=1)
    references: list[str] = Field(min_length=1)
    candidate: str
    human_verdict: Annotated[Literal["acceptable", "unacceptable"], BeforeValidator(verdict_text)]  # "Acceptable " too
    stored_score: float | None = Field(default=None, ge=-1.0, le=1.0, allow_inf_nan=False)
    note: str = ""


class _PairSetSchema(_Strict):
    format: Literal["metric-explorer/pairs@1"]
    name: str
    description: str = ""
    score_name: str = "stored score"
    locale: str = "en"
    day_first: bool = True
    pairs: list[_PairSchema] = Field(min_length=1)


@dataclass(frozen=True)
class Pair:
    """One labelled answer: ``candidate`` against acceptable ``references``, the person's
    ``acceptable`` (bool), an optional ``stored_score`` and ``note``."""

    id: str
    references: tuple[str, ...]
    candidate: str
    acceptable: bool
    stored_score: float | None = None
    note: str = ""


@dataclass(frozen=True)
class PairSet:
    """Labelled pairs with their name, the meaning of ``stored_score`` (``score_name``), the
    locale and day-first reading for rung 4 and field rules, and the file they came from."""

    name: str
    description: str
    pairs: tuple[Pair, ...]
    score_name: str = "stored score"
    locale: str = "en"
    day_first: bool = True
    source: str = ""

    def labels(self) -> np.ndarray:
        """bool (N,): True where the person judged the answer acceptable."""
        return np.array([p.acceptable for p in self.pairs], dtype=bool)

    def stored_scores(self) -> np.ndarray:
        """float64 (N,) stored scores. Raises ValueError naming the first pair without one."""
        missing = [p.id for p in self.pairs if p.stored_score is None]
        if missing:
            raise ValueError(f"{self.source or self.name}: pair {missing[0]} has no stored_score")
        return np.array([p.stored_score for p in self.pairs], dtype=np.float64)


def load_pairs(path: str | os.PathLike[str]) -> PairSet:
    """Load a ``metric-explorer/pairs@1`` file. Raises LoadError (file, JSON path, problem),
    including for duplicate pair ids."""
    name = str(path)
    text = decode_text(read_bytes(path), name)
    if not text.strip():
        raise LoadError(name, "", "file is empty")
    data = parse_json(text, name)
    if not isinstance(data, dict):
        raise LoadError(name, "(top level)", f'expected an object with "format": "{FORMAT}"')
    try:
        parsed = _PairSetSchema.model_validate(data)
    except ValidationError as exc:
        where, problem = describe_validation_error(exc.errors()[0])
        if problem.startswith('expected "metric-explorer/cases@1"'):
            problem = f'expected "{FORMAT}"'
        if where.endswith(".human_verdict"):  # required here: null is not a choice
            problem = problem.replace('"acceptable", "unacceptable" or null', '"acceptable" or "unacceptable"')
        raise LoadError(name, where, problem) from None
    seen: dict[str, int] = {}
    for i, p in enumerate(parsed.pairs):
        if p.id in seen:
            raise LoadError(name, f"pairs[{i}].id", f'duplicate pair id "{show(p.id)}" (first at pairs[{seen[p.id]}])')
        seen[p.id] = i
    return PairSet(
        name=parsed.name,
        description=parsed.description,
        pairs=tuple(Pair(p.id, tuple(p.references), p.candidate, p.human_verdict == "acceptable", p.stored_score, p.note) for p in parsed.pairs),
        score_name=parsed.score_name,
        locale=parsed.locale,
        day_first=parsed.day_first,
        source=name,
    )


def pairs_from_case_set(case_set: CaseSet) -> tuple[list[str], list[Sequence[Sequence[str]]], list[list[str]], np.ndarray]:
    """The labelled runs of ``case_set`` as calibration input: (run ids, per-run list of
    invocation reference lists, per-run list of invocation answers, bool labels). Unlabelled
    runs are skipped."""
    ids, refs, answers, labels = [], [], [], []
    for run in case_set.runs:
        if run.human_verdict is None:
            continue
        ids.append(run.id)
        refs.append([inv.references for inv in run.invocations])
        answers.append([inv.answer for inv in run.invocations])
        labels.append(run.human_verdict == "acceptable")
    return ids, refs, answers, np.array(labels, dtype=bool)
