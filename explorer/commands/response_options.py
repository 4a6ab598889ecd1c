"""``score``'s response-scorer options (issue 5): which scorer judges the answer text.

``--response-scorer f1`` (or no flag) keeps today's behaviour exactly. ``rouge1``, ``exact`` and
``cosine`` replace the F1 column the evaluator thresholds with that scorer's score (the
threshold is still ``--f1-threshold``; ``exact`` scores 1 or 0). ``cascade`` runs seed 000's
cascade (normalised exact at ``--rung``, field rules, cosine bands ``--pass-above`` /
``--fail-below``, then the person): the response check passes where the cascade passes; a run in
the gray band is pending review and counts as a fail until a person decides it (listed in the
report's ``response.needs_review``). The report gives each run's ``response_score`` (and
``response_stage`` for the cascade), and ``decided_by`` names the scorer or stage when the
response check decided the verdict; its ``response`` section names the embedding model,
backend and weights hash when one was used.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..core.cascade import CascadeSettings, apply_bands, cascade_features
from ..core.embedding import BACKENDS, SimilarityUnavailable, make_embedder, require_similarity
from ..core.features import Features
from ..core.model import CaseSet
from ..core.response_scorers import make_scorer, run_scores
from .common import CliError

RESPONSE_SCORERS = ("f1", "rouge1", "exact", "cosine", "cascade")
RESPONSE_COLUMNS = ("response_score", "response_stage")


def add_response_options(p: argparse.ArgumentParser) -> None:
    """``--response-scorer``, ``--rung``, ``--locale``, ``--month-first``, ``--pass-above``,
    ``--fail-below``, ``--embedding-backend``."""
    g = p.add_argument_group("response scorer (default: unigram F1, as before)")
    g.add_argument("--response-scorer", choices=RESPONSE_SCORERS, default=None, help="how the answer text is scored (default f1)")
    g.add_argument("--rung", type=int, choices=(1, 2, 3, 4), default=3, help="normalisation rung for exact and the cascade (default 3)")
    g.add_argument("--locale", default="en", help="number locale for rung 4 and the amount rule (default en)")
    g.add_argument("--month-first", action="store_true", help="read 03/04/2026 as 4 March (default: the case set's setting)")
    g.add_argument("--pass-above", type=float, default=0.85, metavar="X", help="cascade: cosine >= X passes (default 0.85)")
    g.add_argument("--fail-below", type=float, default=0.6, metavar="Y", help="cascade: cosine < Y fails (default 0.6)")
    g.add_argument("--embedding-backend", choices=BACKENDS, default="onnx-int8", help="embedding backend for cosine and cascade")


@dataclass
class ResponseOverride:
    """The chosen scorer's effect on one case set: ``features`` with ``f1`` replaced by the
    response check's input, the original F1, per-run ``score`` and cascade ``stage`` / ``reason``
    (None for plain scorers), and the report's ``summary`` section."""

    features: Features
    original_f1: np.ndarray
    score: np.ndarray
    stage: np.ndarray | None
    reason: list[str] | None
    name: str
    summary: dict[str, Any]

    def patch_table(self, table: pd.DataFrame, threshold: float) -> None:
        """Add ``response_score`` (and ``response_stage``), restore the real ``f1`` column and
        rewrite ``decided_by`` / ``reason`` where the response check decided. ``table`` holds
        every run in run order."""
        table["f1"] = self.original_f1
        table["response_score"] = self.score
        if self.stage is not None:
            table["response_stage"] = self.stage
        if self.name == "f1":
            return
        decided = (table["decided_by"] == "F1").to_numpy()
        for i in np.flatnonzero(decided):
            if self.stage is not None:
                table.at[i, "decided_by"] = self.stage[i]
                table.at[i, "reason"] = self.reason[i]  # type: ignore[index]
            else:
                table.at[i, "decided_by"] = self.name
                table.at[i, "reason"] = f"{self.name} {self.score[i]:.2f} < {threshold:.2f}"


def _embedder(args: argparse.Namespace):
    try:
        require_similarity(args.embedding_backend)
    except SimilarityUnavailable as exc:
        raise CliError(str(exc)) from None
    return make_embedder(args.embedding_backend)


def response_override(args: argparse.Namespace | None, case_set: CaseSet, features: Features) -> ResponseOverride | None:
    """None when the scorer is unset or ``f1`` (today's behaviour); else the override. Raises
    CliError for bad band values, an unknown locale or a missing similarity extra."""
    name = getattr(args, "response_scorer", None) if args is not None else None
    if name is None:
        return None
    day_first = False if args.month_first else case_set.day_first
    try:
        settings = CascadeSettings(
            rung=args.rung, locale=args.locale, day_first=day_first, id_pattern=case_set.id_pattern,
            pass_above=args.pass_above, fail_below=args.fail_below,
        )
    except ValueError as exc:
        raise CliError(str(exc)) from None
    embedder = _embedder(args) if name in ("cosine", "cascade") else None
    try:
        if name == "cascade":
            scorer = make_scorer("cosine", embedder=embedder)
            cf = cascade_features(case_set, scorer, settings)
            res = apply_bands(cf, settings.pass_above, settings.fail_below, case_set=case_set)
            response_input = (res.passed == 1).astype(np.float64)
            summary = {
                "scorer": "cascade",
                "rung": settings.rung, "locale": settings.locale, "day_first": settings.day_first,
                "pass_above": settings.pass_above, "fail_below": settings.fail_below,
                "similarity": cf.scorer_label,
                "embedding": embedder.identity().to_dict(),
                "needs_review": res.review_queue,
                "note": "the response check passes where the cascade passes; runs needing review count as fails",
            }
            return ResponseOverride(
                replace(features, f1=response_input), features.f1, cf.score, res.stage,
                res.reasons(cf, settings.pass_above, settings.fail_below), "cascade", summary,
            )
        scorer = make_scorer(name, rung=args.rung, locale=args.locale, day_first=day_first, embedder=embedder)
        scores = run_scores(scorer, case_set.runs)
    except SimilarityUnavailable as exc:
        raise CliError(str(exc)) from None
    except ValueError as exc:
        raise CliError(str(exc)) from None
    summary = {"scorer": name, "description": scorer.describe(), "embedding": embedder.identity().to_dict() if embedder is not None else None}
    return ResponseOverride(replace(features, f1=scores), features.f1, scores, None, None, name, summary)


def response_line(summary: dict[str, Any]) -> str:
    """One line for the table output naming the scorer (and model, bands, review queue)."""
    emb = summary.get("embedding")
    model = f"; model {emb['model']} ({emb['backend']}, weights sha256 {emb['weights_sha256'][:12]})" if emb else ""
    if summary["scorer"] == "cascade":
        queue = ", ".join(summary["needs_review"]) or "none"
        return (
            f"response scorer: cascade (exact at rung {summary['rung']}, field rules, cosine pass >= {summary['pass_above']:.2f}, "
            f"fail < {summary['fail_below']:.2f}){model}; needs review: {queue}"
        )
    return f"response scorer: {summary['description']}{model}"
