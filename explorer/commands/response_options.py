"""``score``'s response-scorer options (issue 5): which scorer judges the answer text.

The choice lives in :class:`~explorer.core.evaluation.settings.Settings` (``response_scorer``, ``rung``,
``pass_above``, ``fail_below``; a ``--settings`` file may set them, flags override it) and the
core evaluates it (:func:`explorer.core.evaluation.verdicts.evaluate` with the case set's
:class:`~explorer.core.evaluation.response_features.ResponseFeatures`). ``--response-scorer f1`` (or no
choice) keeps today's behaviour exactly. ``rouge1``, ``exact`` and ``cosine`` replace F1 in the
response check (threshold still ``--f1-threshold``; ``exact`` scores 1 or 0). ``cascade`` runs
seed 000's cascade (normalised exact at ``--rung``, field rules, cosine bands ``--pass-above``
/ ``--fail-below``, then the person): a run in the gray band is pending review and counts as a
fail until a person decides it (listed in the report's ``response.needs_review``). The report
gives each run's ``response_score`` (and ``response_stage`` for the cascade); ``decided_by``
names the scorer or stage when the response check decided; the ``response`` section names the
embedding model, backend and weights hash when one was used.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..core.scoring.embedding import BACKENDS, SimilarityUnavailable
from ..core.scoring.passmark import show_threshold
from ..core.evaluation.verdicts import Evaluation
from ..core.evaluation.features import Features
from ..core.io.model import CaseSet
from ..core.evaluation.response_features import ResponseFeatures
from ..core.evaluation.settings import RESPONSE_SCORERS, Settings
from ..core.plural import listed
from .common import CliError, name_arg, number_arg, whole_arg

RESPONSE_COLUMNS = ("response_score", "response_stage", "response_note")
_DESCRIBE = {"f1": "unigram F1", "rouge1": "ROUGE-1 F (ADK response_match_score)", "cosine": "embedding cosine"}


def add_response_options(p: argparse.ArgumentParser) -> None:
    """``--response-scorer``, ``--rung``, ``--locale``, ``--pass-above``, ``--fail-below``,
    ``--embedding-backend`` (the date reading is a setting: ``--day-first`` / ``--month-first``)."""
    g = p.add_argument_group("response scorer (default: unigram F1, as before)")
    g.add_argument("--response-scorer", choices=RESPONSE_SCORERS, default=None, help="how the answer text is scored (default f1)")
    g.add_argument("--rung", type=whole_arg, choices=(1, 2, 3, 4), default=None, help="normalisation rung for exact and the cascade (default 3)")
    g.add_argument("--locale", type=name_arg, default=None, help="number locale for rung 4 and the amount rule (default en)")
    g.add_argument("--pass-above", type=cosine_arg, default=None, metavar="X", help="cascade: cosine >= X passes, -1..1 (default 0.85)")
    g.add_argument("--fail-below", type=cosine_arg, default=None, metavar="Y", help="cascade: cosine < Y fails, -1..1, at most X (default 0.6)")
    g.add_argument("--embedding-backend", choices=BACKENDS, default=None,
                   help="embedding backend for cosine and cascade (default onnx-int8)")


def cosine_arg(text: str) -> float:
    """argparse type of ``--pass-above`` / ``--fail-below``: a cosine band edge, a decimal number
    in [-1, 1] (``--pass-above 1.5`` read "pass_above must be a number in [-1, 1]", a field's
    name, not the option's)."""
    value = number_arg(text)
    if not -1.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between -1 and 1 (a cosine), got {text}")
    return value


def response_settings(args: argparse.Namespace | None, settings: Settings) -> Settings:
    """``settings`` with the response flags given in ``args`` applied. CliError for a bad value
    (e.g. fail-below above pass-above)."""
    changes = {
        name: getattr(args, name)
        for name in ("response_scorer", "rung", "pass_above", "fail_below")
        if args is not None and getattr(args, name, None) is not None
    }
    try:
        return settings.with_(**changes) if changes else settings
    except ValueError as exc:  # in the flags' words: "--fail-below (0.9) must not exceed --pass-above (0.85)"
        message = str(exc)
        for name in ("pass_above", "fail_below", *changes):  # the band's other edge: the flag that moves it
            message = message.replace(name, "--" + name.replace("_", "-"))
        raise CliError(message) from None


def shows_response(args: argparse.Namespace | None, settings: Settings) -> bool:
    """True when the report gets the response columns and section: a scorer was chosen by flag,
    or the settings choose one other than F1."""
    return getattr(args, "response_scorer", None) is not None or settings.response_scorer != "f1"


def response_features(args: argparse.Namespace | None, case_set: CaseSet, settings: Settings) -> ResponseFeatures | None:
    """The case set's response columns for ``settings`` (None for F1, which Features holds).
    CliError for an unknown locale or a missing similarity extra (with how to install it)."""
    if settings.response_scorer == "f1":
        return None
    try:
        rf = ResponseFeatures(
            case_set,
            locale=getattr(args, "locale", "en") or "en",
            backend=getattr(args, "embedding_backend", "onnx-int8") or "onnx-int8",
        )
        if settings.response_scorer in ("cosine", "cascade"):
            rf.embedder()
    except (SimilarityUnavailable, ValueError) as exc:
        raise CliError(str(exc)) from None
    return rf


def response_summary(settings: Settings, features: Features, ev: Evaluation, rf: ResponseFeatures | None) -> dict[str, Any]:
    """The report's ``response`` section: scorer, its knobs, the embedding model (or None) and,
    for the cascade, the runs waiting for review."""
    identity = rf.embedding_identity() if rf is not None and settings.response_scorer in ("cosine", "cascade") else None
    embedding = identity.to_dict() if identity is not None else None
    name = settings.response_scorer
    day_first = rf.day_first if rf is not None and settings.day_first is None else settings.day_first
    if name == "cascade":
        assert rf is not None
        return {
            "scorer": "cascade",
            "rung": settings.rung, "locale": rf.locale, "day_first": day_first,
            "pass_above": settings.pass_above, "fail_below": settings.fail_below,
            "similarity": f"embedding cosine, {identity.label()}" if identity else "embedding cosine",
            "embedding": embedding,
            "needs_review": [str(x) for x in features.run_ids[ev.needs_review]],
            "note": "the response check passes where the cascade passes; runs needing review count as fails",
        }
    if name == "exact":
        assert rf is not None
        description = f"normalised exact at rung {settings.rung} (locale {rf.locale}, {'day' if day_first else 'month'}-first)"
    else:
        description = _DESCRIBE[name]
    return {"scorer": name, "description": description, "embedding": embedding}


_SHORT = {"f1": "F1", "rouge1": "ROUGE-1", "cosine": "cosine"}


def response_words(st: Settings) -> str:
    """The response check of ``st`` in a few words, for a settings line: the scorer it uses and
    its threshold (``F1 >= 0.8``, ``ROUGE-1 >= 0.5``, ``cosine >= 0.8``, ``exact at rung 3 >=
    0.8``; the cascade reads no ``f1_threshold``: ``cascade (pass >= 0.85, fail < 0.6)``)."""
    if st.response_scorer == "cascade":
        return f"cascade (pass >= {show_threshold(st.pass_above)}, fail < {show_threshold(st.fail_below)})"
    return f"{scorer_name(st)} >= {show_threshold(st.f1_threshold)}"


def scorer_name(st: Settings) -> str:
    """The response scorer of ``st`` by name: ``F1``, ``ROUGE-1``, ``cosine``, ``exact at rung 3``,
    ``cascade``."""
    name = st.response_scorer
    if name == "cascade":
        return "cascade"
    return f"exact at rung {st.rung}" if name == "exact" else _SHORT[name]


def response_line(summary: dict[str, Any]) -> str:
    """One line for the table output naming the scorer (and model, bands, review queue)."""
    emb = summary.get("embedding")
    model = f"; model {emb['model']} ({emb['backend']}, weights sha256 {emb['weights_sha256'][:12]})" if emb else ""
    if summary["scorer"] == "cascade":
        queue = listed(summary["needs_review"]) or "none"
        return (
            f"response scorer: cascade (exact at rung {summary['rung']}, field rules, cosine pass >= {show_threshold(summary['pass_above'])}, "
            f"fail < {show_threshold(summary['fail_below'])}){model}; needs review: {queue}"
        )
    return f"response scorer: {summary['description']}{model}"
