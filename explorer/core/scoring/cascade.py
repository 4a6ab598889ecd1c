"""The scoring cascade (seed 000, "A scoring cascade"), cheapest decisive stage first:

0. an answer empty after normalisation (only spaces and punctuation) -> **fail** (stage
   ``empty answer``; issue 10, kind 5: ``"?"`` never equals ``"!"``);
1. normalised exact at a rung (or equal parsed JSON) -> **pass** (stage ``normalized-exact``);
2. a hard field fails -> **fail** (stage ``field:<name>``: the run's hard ``expected_fields``
   first, then the generic rules ``amount``, ``id``, ``date``, ``negation``);
3. similarity score >= ``pass_above`` -> **pass** (stage ``semantic``), except when a text was
   longer than the embedding model's window (embedded in windows and pooled, issue 10 kind 10):
   such a run goes to the judge as in step 5 and its reason says why;
4. similarity score < ``fail_below`` -> **fail** (stage ``semantic``);
5. in between -> the **judge** (stage ``judge:<name>``). The default judge is the person: until
   they decide, the verdict is pending (``passed is None``, stage ``needs review``) and the run
   sits in the review queue; their decision is recorded as a label.

Scores and bands are compared with :func:`explorer.core.scoring.passmark.reaches` (a score equal
to ``pass_above`` passes; equal to ``fail_below`` is not failed). Every verdict records the stage
that decided it. Stages 1-2 and the similarity score are
computed once per case set (:func:`cascade_features`; the score only for runs that reach stage
3, which saves embedding calls); moving the two bands is numpy work (:func:`apply_bands`).
A run with several invocations: empty when any invocation's answer is, exact when every
invocation is, a field failure from the first failing invocation, the score is the mean over
invocations (as ADK averages per invocation).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from typing import Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from .field_rules import RULE_NAMES, hard_rules_best, parse_structured, score_fields
from .fields import DEFAULT_ID_PATTERN
from ..io.errors import json_spelling
from ..io.model import CaseSet, ExpectedField
from .embedding import MAX_TOKENS
from .normalise import exact_at, is_empty_answer, locale_symbols
from .passmark import quantise, reaches, show_pair
from .response_scorers import ResponseScorer

STAGES: tuple[str, ...] = ("normalized-exact", "field", "semantic", "judge", "needs review", "empty answer")
"""Codes 0..5 of :attr:`CascadeResult.stage_code`."""
_EXACT, _FIELD, _SEMANTIC, _JUDGE, _REVIEW, _EMPTY = range(6)
EMPTY_REASON = "empty answer"
WINDOW_NOTE = f"a text is longer than the embedding model's window of {MAX_TOKENS} word pieces (embedded in windows and pooled)"
"""Why a run whose similarity reaches ``pass_above`` still goes to review."""


@dataclass(frozen=True)
class CascadeSettings:
    """Cascade knobs: ``rung`` 1..4 for stage 1 with ``locale`` / ``day_first`` (rung 4);
    ``rules``: generic hard rules in order (subset of ``RULE_NAMES``); ``id_pattern`` for ids;
    ``pass_above`` >= ``fail_below``, both in [-1, 1] (cosine range; F1/ROUGE use [0, 1]).
    Raises ValueError for values out of range. Defaults are placeholders to calibrate, not advice."""

    rung: int = 3
    locale: str = "en"
    day_first: bool = True
    rules: tuple[str, ...] = RULE_NAMES
    id_pattern: str = DEFAULT_ID_PATTERN
    pass_above: float = 0.85
    fail_below: float = 0.6

    def __post_init__(self) -> None:
        if self.rung not in (1, 2, 3, 4):
            raise ValueError(f"rung must be 1, 2, 3 or 4, got {self.rung!r}")
        locale_symbols(self.locale)
        unknown = [r for r in self.rules if r not in RULE_NAMES]
        if unknown:
            raise ValueError(f"unknown field rule {unknown[0]!r}; choose from {', '.join(RULE_NAMES)}")
        for name in ("pass_above", "fail_below"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not -1.0 <= v <= 1.0:
                raise ValueError(f"{name} must be a number in [-1, 1], got {v!r}")
        object.__setattr__(self, "pass_above", quantise(float(self.pass_above)))
        object.__setattr__(self, "fail_below", quantise(float(self.fail_below)))
        if self.fail_below > self.pass_above:
            raise ValueError(f"fail_below ({self.fail_below}) must not exceed pass_above ({self.pass_above})")


def _band_text(name: str, score: float, fail_below: float, pass_above: float) -> str:
    """``"cosine 0.70 in [0.60, 0.85)"``, with digits enough to show where the score stands."""
    lo_s, lo_t = show_pair(score, fail_below)
    hi_s, hi_t = show_pair(score, pass_above)
    shown = hi_s if len(hi_s) >= len(lo_s) else lo_s
    digits = len(shown.split(".")[-1])
    return f"{name} {score:.{digits}f} in [{fail_below:.{digits}f}, {pass_above:.{digits}f})"


@dataclass(frozen=True)
class CascadeVerdict:
    """One answer's verdict: ``passed`` (True, False, or None = pending review), ``stage`` that
    decided it, ``score`` (similarity, None when not computed) and a one-line ``reason``."""

    passed: bool | None
    stage: str
    score: float | None
    reason: str


@runtime_checkable
class Judge(Protocol):
    """Decides gray-zone answers. ``decide(key, candidate, references, score)`` returns True
    (acceptable), False, or None (not decided yet: the answer waits in the review queue)."""

    name: str

    def decide(self, key: str, candidate: str, references: Sequence[str], score: float) -> bool | None: ...


@dataclass
class PersonJudge:
    """The default judge: a person. ``labels`` maps a key (run id) to their decision; an answer
    without a label is pending. :meth:`record` stores a decision (the label)."""

    labels: dict[str, bool] = field(default_factory=dict)
    name: str = "person"

    def decide(self, key: str, candidate: str, references: Sequence[str], score: float) -> bool | None:
        return self.labels.get(key)

    def record(self, key: str, acceptable: bool) -> None:
        """Record the person's decision on ``key`` (True = acceptable)."""
        if not isinstance(acceptable, bool):
            raise ValueError(f"decision must be true or false, got {acceptable!r}")
        self.labels[key] = acceptable


def structured_equal(candidate: str, references: Sequence[str]) -> bool:
    """True when ``candidate`` and a reference both parse as JSON objects and are equal (key
    order and spacing never matter)."""
    cand = parse_structured(candidate)
    return cand is not None and any(parse_structured(r) == cand for r in references)


def field_failure(candidate: str, references: Sequence[str], fields: Sequence[ExpectedField], s: CascadeSettings, embedder=None) -> tuple[str, str] | None:
    """Stage 2 for one answer: ``(stage, reason)`` of the first failing hard expected field
    (``field:<name>``) or generic rule (``field:amount``...), or None when all hold."""
    hard = [f for f in fields if f.hard]
    if hard:
        verdict = score_fields(candidate, hard, locale=s.locale, day_first=s.day_first, id_pattern=s.id_pattern, embedder=embedder)
        if verdict.first_failure is not None:
            return f"field:{verdict.first_failure.name}", verdict.first_failure.reason
    if s.rules:
        res = hard_rules_best(candidate, references, s.rules, locale=s.locale, day_first=s.day_first, id_pattern=s.id_pattern)
        if res is not None:
            return f"field:{res.rule}", res.reason
    return None


def cascade_verdict(
    candidate: str,
    references: Sequence[str],
    scorer: ResponseScorer,
    settings: CascadeSettings = CascadeSettings(),
    judge: Judge | None = None,
    *,
    key: str = "",
    expected_fields: Sequence[ExpectedField] = (),
) -> CascadeVerdict:
    """The cascade for one answer (see the module docstring). ``scorer`` gives the similarity
    (embedding cosine in seed 000; any response scorer works); ``judge`` defaults to a
    :class:`PersonJudge` with no labels (so gray answers are pending)."""
    s = settings
    if is_empty_answer(candidate):
        return CascadeVerdict(False, "empty answer", None, EMPTY_REASON)
    if exact_at(candidate, references, s.rung, locale=s.locale, day_first=s.day_first) or structured_equal(candidate, references):
        return CascadeVerdict(True, "normalized-exact", None, f"equal to a reference at rung {s.rung}")
    failure = field_failure(candidate, references, expected_fields, s)
    if failure is not None:
        return CascadeVerdict(False, failure[0], None, failure[1])
    score = scorer.score(candidate, references)
    windowed = bool(getattr(scorer, "beyond_window", lambda c, r: [False])([candidate], [references])[0])
    if reaches(score, s.pass_above) and not windowed:
        a, b = show_pair(score, s.pass_above)
        return CascadeVerdict(True, "semantic", score, f"{scorer.name} {a} >= {b}")
    if not reaches(score, s.fail_below):
        a, b = show_pair(score, s.fail_below)
        return CascadeVerdict(False, "semantic", score, f"{scorer.name} {a} < {b}")
    judge = judge if judge is not None else PersonJudge()
    decision = judge.decide(key, candidate, references, score)
    band = _band_text(scorer.name, score, s.fail_below, s.pass_above)
    if windowed:
        a, b = show_pair(score, s.pass_above)
        band = f"{scorer.name} {a} >= {b} but {WINDOW_NOTE}"
    if decision is None:
        return CascadeVerdict(None, "needs review", score, f"{band}: waiting for review")
    return CascadeVerdict(bool(decision), f"judge:{judge.name}", score, f"{band}: {judge.name} judged {'acceptable' if decision else 'unacceptable'}")


@dataclass(frozen=True, eq=False)
class CascadeFeatures:
    """Per-run cascade inputs over N runs, computed once for one rung/locale/rules setting.

    ``exact``: bool (N,); ``field_stage`` / ``field_reason``: object (N,), ``""`` when every
    field passed (``field_reason`` also holds the reason of an empty answer); ``score``: float64
    (N,), quantised (:mod:`~explorer.core.scoring.passmark`), NaN for runs decided before
    similarity; ``scorer_label``: what produced the score (for cosine: model, backend, weights
    hash); ``empty``: bool (N,) an answer of the run is empty (stage ``empty answer``);
    ``beyond_window``: bool (N,) the score came from a text longer than the embedding model's
    window (kept out of the automatic semantic pass).
    """

    run_ids: np.ndarray
    exact: np.ndarray
    field_stage: np.ndarray
    field_reason: np.ndarray
    score: np.ndarray
    settings: CascadeSettings
    scorer_name: str
    scorer_label: str
    empty: np.ndarray | None = None
    beyond_window: np.ndarray | None = None

    def __post_init__(self) -> None:
        for name in ("empty", "beyond_window"):
            if getattr(self, name) is None:
                object.__setattr__(self, name, np.zeros(len(self.exact), dtype=bool))


def cascade_features(case_set: CaseSet, scorer: ResponseScorer, settings: CascadeSettings = CascadeSettings()) -> CascadeFeatures:
    """Stages 1-2 for every run and the similarity score for runs that reach stage 3, the
    score computed in one batched ``scorer.score_many`` call. One Python pass over the runs."""
    s = settings
    runs = case_set.runs
    n = len(runs)
    exact = np.zeros(n, dtype=bool)
    empty = np.zeros(n, dtype=bool)
    field_stage = np.full(n, "", dtype=object)
    field_reason = np.full(n, "", dtype=object)
    need: list[tuple[int, int]] = []  # (run index, invocation count)
    cands: list[str] = []
    refs: list[Sequence[str]] = []
    for i, run in enumerate(runs):
        invs = run.invocations
        blank = next((j for j, inv in enumerate(invs, start=1) if is_empty_answer(inv.answer)), None)
        if blank is not None:
            empty[i] = True
            field_reason[i] = EMPTY_REASON if len(invs) == 1 else f"turn {blank}: {EMPTY_REASON}"
            continue
        if all(
            exact_at(inv.answer, inv.references, s.rung, locale=s.locale, day_first=s.day_first) or structured_equal(inv.answer, inv.references)
            for inv in invs
        ):
            exact[i] = True
            continue
        for j, inv in enumerate(invs, start=1):
            failure = field_failure(inv.answer, inv.references, run.expected_fields, s)
            if failure is not None:
                field_stage[i] = failure[0]
                field_reason[i] = failure[1] if len(invs) == 1 else f"invocation {j}: {failure[1]}"
                break
        if field_stage[i]:
            continue
        need.append((i, len(invs)))
        for inv in invs:
            cands.append(inv.answer)
            refs.append(inv.references)
    score = np.full(n, np.nan)
    beyond = np.zeros(n, dtype=bool)
    if cands:
        flat = scorer.score_many(cands, refs)
        windowed = getattr(scorer, "beyond_window", None)
        flat_beyond = windowed(cands, refs) if windowed is not None else np.zeros(len(cands), dtype=bool)
        pos = 0
        for i, k in need:
            score[i] = float(np.mean(flat[pos : pos + k]))
            beyond[i] = bool(flat_beyond[pos : pos + k].any())
            pos += k
    label = scorer.describe() if cands or scorer.name != "cosine" else "embedding cosine (not computed)"
    return CascadeFeatures(
        run_ids=np.array([r.id for r in runs], dtype=object),
        exact=exact,
        field_stage=field_stage,
        field_reason=field_reason,
        score=quantise(score),
        settings=s,
        scorer_name=scorer.name,
        scorer_label=label,
        empty=empty,
        beyond_window=beyond,
    )


@dataclass(frozen=True, eq=False)
class CascadeResult:
    """Verdicts over N runs for one pair of bands.

    ``passed``: int8 (N,), 1 pass, 0 fail, -1 pending review; ``stage_code``: int8 (N,) into
    ``STAGES``; ``stage``: object (N,) detailed stage (``field:amount``, ``judge:person``);
    ``review_queue``: run ids pending review, in run order. ``stage`` and ``review_queue`` are
    built on first access (text: a band move over many runs needs only the codes).
    """

    passed: np.ndarray
    stage_code: np.ndarray
    features: CascadeFeatures
    judge_name: str = "person"

    @functools.cached_property
    def stage(self) -> np.ndarray:
        """object (N,): the stage that decided each run, fields and judge named."""
        code = self.stage_code
        stage = np.array(STAGES, dtype=object)[code]
        has_field = code == _FIELD
        stage[has_field] = self.features.field_stage[has_field]
        stage[code == _JUDGE] = f"judge:{self.judge_name}"
        return stage

    @functools.cached_property
    def review_queue(self) -> list[str]:
        """Run ids waiting for review, in run order."""
        return [str(x) for x in self.features.run_ids[self.stage_code == _REVIEW]]

    def reason(self, features: CascadeFeatures, i: int, pass_above: float, fail_below: float) -> str:
        """Why run ``i`` got its verdict, one line (text, so built per row on demand)."""
        code = int(self.stage_code[i])
        sc = features.score[i]
        name = features.scorer_name
        if code == _EXACT:
            return f"equal to a reference at rung {features.settings.rung}"
        if code in (_FIELD, _EMPTY):
            return str(features.field_reason[i])
        if code == _SEMANTIC:
            if self.passed[i] == 1:
                return "{} {} >= {}".format(name, *show_pair(sc, pass_above))
            return "{} {} < {}".format(name, *show_pair(sc, fail_below))
        band = _band_text(name, sc, fail_below, pass_above)
        if features.beyond_window[i] and reaches(sc, pass_above):
            band = "{} {} >= {} but {}".format(name, *show_pair(sc, pass_above), WINDOW_NOTE)
        if code == _REVIEW:
            return f"{band}: waiting for review"
        return f"{band}: {self.stage[i][6:]} judged {'acceptable' if self.passed[i] == 1 else 'unacceptable'}"

    def reasons(self, features: CascadeFeatures, pass_above: float, fail_below: float) -> list[str]:
        """One line per run saying why (built on demand: text)."""
        return [self.reason(features, i, pass_above, fail_below) for i in range(len(self.passed))]


def apply_bands(features: CascadeFeatures, pass_above: float, fail_below: float, judge: Judge | None = None, case_set: CaseSet | None = None) -> CascadeResult:
    """Verdicts for bands ``pass_above`` >= ``fail_below`` (numpy over the runs; the judge is
    asked only about runs in the gray band, keyed by run id; ``case_set`` gives it the texts).
    Raises ValueError when ``fail_below > pass_above``."""
    if fail_below > pass_above:
        raise ValueError(f"fail_below ({fail_below}) must not exceed pass_above ({pass_above})")
    judge = judge if judge is not None else PersonJudge()
    gray = np.flatnonzero(_band_codes(features, pass_above, fail_below)[0] == _REVIEW)
    decisions = np.full(len(features.exact), -1, dtype=np.int8)
    for i in gray:  # the judge sees only the gray band
        run = case_set.runs[i] if case_set is not None else None
        cand = run.invocations[0].answer if run else ""
        refs = run.invocations[0].references if run else ()
        decision = judge.decide(str(features.run_ids[i]), cand, refs, float(features.score[i]))
        if decision is not None:
            decisions[i] = int(bool(decision))
    return apply_bands_decided(features, pass_above, fail_below, decisions, judge.name)


def _band_codes(features: CascadeFeatures, pass_above: float, fail_below: float) -> tuple[np.ndarray, np.ndarray]:
    """(stage code int8 (N,), passed int8 (N,)) before any judge: gray runs are ``_REVIEW`` / -1.
    A score that reaches ``pass_above`` passes unless it came from a text beyond the model's
    window (then gray); one that does not reach ``fail_below`` fails."""
    sc = features.score  # quantised when made
    with np.errstate(invalid="ignore"):
        hi = sc >= quantise(float(pass_above))  # NaN (decided before similarity) is neither
        lo = sc < quantise(float(fail_below))
    if features.beyond_window.any():  # type: ignore[union-attr]
        hi = hi & ~features.beyond_window  # type: ignore[operator]
    # similarity stage: pass 1 / fail 0 / gray -1; then the earlier stages override
    passed = hi.view(np.int8) - (~hi & ~lo).view(np.int8)
    code = np.where(hi | lo, np.int8(_SEMANTIC), np.int8(_REVIEW)).astype(np.int8)
    has_field = _has_field(features)
    code[has_field] = _FIELD
    passed[has_field] = 0
    code[features.exact] = _EXACT
    passed[features.exact] = 1
    if features.empty.any():  # type: ignore[union-attr]
        code[features.empty] = _EMPTY
        passed[features.empty] = 0
    return code, passed


def _has_field(features: CascadeFeatures) -> np.ndarray:
    """bool (N,) a hard field failed (cached on the features: object comparison is slow)."""
    cached = features.__dict__.get("_has_field")
    if cached is None:
        cached = (features.field_stage != "") & ~features.exact
        object.__setattr__(features, "_has_field", cached)
    return cached


def apply_bands_decided(features: CascadeFeatures, pass_above: float, fail_below: float, decisions: np.ndarray | None = None, judge_name: str = "person") -> CascadeResult:
    """:func:`apply_bands` with the judge's decisions given as an array: ``decisions`` int8 (N,),
    1 acceptable, 0 unacceptable, -1 undecided (None: nobody decided anything). A decision
    counts only for a run in the gray band (stage ``judge:<judge_name>``); elsewhere the earlier
    stages decide. Pure numpy over the runs (a band move costs O(N) array work).
    Raises ValueError when ``fail_below > pass_above`` or ``decisions`` has the wrong shape."""
    if fail_below > pass_above:
        raise ValueError(f"fail_below ({fail_below}) must not exceed pass_above ({pass_above})")
    code, passed = _band_codes(features, pass_above, fail_below)
    if decisions is not None:
        decisions = np.asarray(decisions, dtype=np.int8)
        if decisions.shape != code.shape:
            raise ValueError(f"decisions must have shape {code.shape}, got {decisions.shape}")
        judged = (code == _REVIEW) & (decisions >= 0)
        passed[judged] = decisions[judged]
        code[judged] = _JUDGE
    return CascadeResult(passed=passed, stage_code=code, features=features, judge_name=judge_name)


def labels_to_json(judge: PersonJudge) -> str:
    """The person's recorded decisions as JSON ``{"run id": "acceptable" | "unacceptable"}``."""
    return json.dumps({k: ("acceptable" if v else "unacceptable") for k, v in sorted(judge.labels.items())}, indent=2)


def judge_from_verdicts(labels: Mapping[str, str]) -> PersonJudge:
    """A PersonJudge from ``{"run id": "acceptable" | "unacceptable"}``. Raises ValueError on
    another value."""
    out = PersonJudge()
    for k, v in labels.items():
        if v not in ("acceptable", "unacceptable"):
            raise ValueError(f"{k}: expected \"acceptable\" or \"unacceptable\", got {json_spelling(v)}")
        out.record(k, v == "acceptable")
    return out
