"""Hard field rules that run before any similarity (seed 000: "Add hard field rules for amounts,
ids, dates and negation before any similarity scoring"), and per-field expectations.

Rules compare a candidate answer with a reference and return :class:`RuleResult` (pass/fail and
a one-line reason):

* ``amount``: the numbers stated (outside dates and ids) must be the same multiset of values,
  read per locale (``1,000`` = ``1000`` = ``1 000``; ``10`` = ``10.0``);
* ``id``: ids matched by the id regex must agree exactly (case-sensitive);
* ``date``: dates must be the same days, read with explicit ``day_first``;
* ``negation``: one text negates (``not``, ``no``, ``never``, ``cannot``, ``n't``, ``without``,
  ...) and the other does not, e.g. "is booked" vs "is not booked", "can" vs "cannot",
  "no refund". A lexical heuristic: it cannot tell *what* is negated, so two answers that
  each negate something different still pass it.

Per-field expectations (:func:`score_fields`): each :class:`~explorer.core.io.model.ExpectedField`
names a value and a strategy (``exact@1..4``, ``date``, ``amount``, ``id``, ``f1``,
``semantic``), hard or soft with a weight. When the answer parses as a JSON object the field is
read from it by name (dotted path for nesting; key order and spacing never matter), else the
value is looked for in the text. Every hard field must pass; soft fields give a weighted score.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable, Sequence

from .fields import DEFAULT_ID_PATTERN, compile_id_pattern, date_spans, extract_dates, extract_ids
from ..io.model import ExpectedField
from .normalise import canonical_number, is_empty_answer, normalise, number_spans
from .overlap import unigram_f1
from .passmark import reaches, show_pair

RULE_NAMES: tuple[str, ...] = ("amount", "id", "date", "negation")
STRATEGIES: tuple[str, ...] = ("exact@1", "exact@2", "exact@3", "exact@4", "date", "amount", "id", "f1", "semantic")
STRATEGY_PATTERN = r"^(exact@[1-4]|date|amount|id|f1|semantic)$"
DEFAULT_THRESHOLDS = {"f1": 0.8, "semantic": 0.7}
"""Pass mark of a continuous field strategy when the field gives none (semantic: seed 003's 0.7)."""


@dataclass(frozen=True)
class RuleResult:
    """``passed`` and, when it failed, ``reason`` (one line); ``rule`` names the rule or field."""

    rule: str
    passed: bool
    reason: str = ""


# --- hard rules ---------------------------------------------------------------------------

def _masked(text: str, day_first: bool, id_rx: re.Pattern[str]) -> str:
    """``text`` with dates and ids blanked out (same length), so their digits are not amounts."""
    chars = list(text)
    spans = [(s, e) for s, e, _ in date_spans(text, day_first)] + [m.span() for m in id_rx.finditer(text)]
    for s, e in spans:
        chars[s:e] = " " * (e - s)
    return "".join(chars)


def extract_amounts(text: str, locale: str = "en", day_first: bool = True, id_pattern: str = DEFAULT_ID_PATTERN) -> list[Decimal]:
    """Numbers stated in ``text`` outside dates and ids, in order, as Decimals (per ``locale``)."""
    rx = compile_id_pattern(id_pattern)
    src = _masked(text, day_first, rx)
    # digits glued to letters (TP1351) are not amounts; number_spans already refuses them
    return [v for _, _, v in number_spans(src, locale)]


def _diff(kind: str, ref: list, ans: list, show: Callable[[Any], str] = str) -> str:
    """Reason two multisets of values differ, or ``""``."""
    missing = list((Counter(ref) - Counter(ans)).elements())
    extra = list((Counter(ans) - Counter(ref)).elements())
    if missing and extra:
        return f"{kind} {show(extra[0])} differs from {show(missing[0])}"
    if missing:
        return f"{kind} {show(missing[0])} missing from answer"
    if extra:
        return f"answer states {kind} {show(extra[0])} not in reference"
    return ""


def amount_rule(candidate: str, reference: str, *, locale: str = "en", day_first: bool = True, id_pattern: str = DEFAULT_ID_PATTERN) -> RuleResult:
    """Numbers (outside dates and ids) must be equal as multisets of values.

    ``amount_rule("Refund of 1,000.00 EUR", "Refund of 1000 EUR")`` passes;
    ``amount_rule("Refund of 120 EUR", "Refund of 150 EUR")`` fails with
    ``"amount 120 differs from 150"``.
    """
    why = _diff(
        "amount",
        extract_amounts(reference, locale, day_first, id_pattern),
        extract_amounts(candidate, locale, day_first, id_pattern),
        canonical_number,
    )
    return RuleResult("amount", not why, why)


def id_rule(candidate: str, reference: str, *, id_pattern: str = DEFAULT_ID_PATTERN) -> RuleResult:
    """Ids matched by ``id_pattern`` must be the same set (case-sensitive)."""
    why = _diff("id", sorted(set(extract_ids(reference, id_pattern))), sorted(set(extract_ids(candidate, id_pattern))))
    return RuleResult("id", not why, why)


def date_rule(candidate: str, reference: str, *, day_first: bool = True) -> RuleResult:
    """Dates must be the same days (a date without a year equals any year with its day and
    month), read with explicit ``day_first``."""
    ref, ans = extract_dates(reference, day_first), extract_dates(candidate, day_first)
    missing = [r for r in ref if not any(a.same_day(r) for a in ans)]
    extra = [a for a in ans if not any(a.same_day(r) for r in ref)]
    why = ""
    if missing and extra:
        why = f"date {extra[0]} differs from {missing[0]}"
    elif missing:
        why = f"date {missing[0]} missing from answer"
    elif extra:
        why = f"answer states date {extra[0]} not in reference"
    return RuleResult("date", not why, why)


_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nothing|nobody|nowhere|neither|nor|cannot|without|unable|"
    r"\w+n't|\w+n’t|cant|wont|dont|doesnt|didnt|isnt|arent|wasnt|werent|hasnt|havent|hadnt|"
    r"couldnt|shouldnt|wouldnt|mustnt)\b",
    re.IGNORECASE,
)


def negation_cues(text: str) -> list[str]:
    """Negation words in ``text``, lowercased, in order: ``"You can't"`` -> ``["can't"]``."""
    return [m[0].lower() for m in _NEGATION.finditer(unicode_apostrophes(text))]


def unicode_apostrophes(text: str) -> str:
    """``text`` with typographic apostrophes as ``'``."""
    return text.replace("\u2019", "'").replace("\u02bc", "'")


def negation_rule(candidate: str, reference: str) -> RuleResult:
    """Fails when exactly one of the two texts contains a negation cue.

    ``negation_rule("Your flight is not booked.", "Your flight is booked.")`` fails with
    ``'answer negates ("not"), reference does not'``; "can" vs "cannot" and "no refund" vs
    "a refund" fail the same way.
    """
    c, r = negation_cues(candidate), negation_cues(reference)
    if c and not r:
        return RuleResult("negation", False, f'answer negates ("{c[0]}"), reference does not')
    if r and not c:
        return RuleResult("negation", False, f'reference negates ("{r[0]}"), answer does not')
    return RuleResult("negation", True)


def hard_rules(
    candidate: str,
    reference: str,
    rules: Sequence[str] = RULE_NAMES,
    *,
    locale: str = "en",
    day_first: bool = True,
    id_pattern: str = DEFAULT_ID_PATTERN,
) -> RuleResult | None:
    """The first of ``rules`` (names from ``RULE_NAMES``, in the given order) that fails, or
    None when all hold. Raises ValueError for an unknown rule name."""
    for name in rules:
        if name == "amount":
            res = amount_rule(candidate, reference, locale=locale, day_first=day_first, id_pattern=id_pattern)
        elif name == "id":
            res = id_rule(candidate, reference, id_pattern=id_pattern)
        elif name == "date":
            res = date_rule(candidate, reference, day_first=day_first)
        elif name == "negation":
            res = negation_rule(candidate, reference)
        else:
            raise ValueError(f"unknown field rule {name!r}; choose from {', '.join(RULE_NAMES)}")
        if not res.passed:
            return res
    return None


def hard_rules_best(candidate: str, references: Sequence[str], rules: Sequence[str] = RULE_NAMES, **options: Any) -> RuleResult | None:
    """None when the candidate passes every rule against ANY reference; else the first failure
    against the first reference (same options as :func:`hard_rules`)."""
    fails = [hard_rules(candidate, r, rules, **options) for r in references]
    if not fails or any(f is None for f in fails):
        return None
    return fails[0]


# --- per-field expectations ---------------------------------------------------------------

@dataclass(frozen=True)
class FieldResult:
    """One expected field: ``passed``, ``score`` in [0, 1], ``found`` (the value read, or None)
    and a one-line ``reason``."""

    name: str
    strategy: str
    hard: bool
    weight: float
    passed: bool
    score: float
    found: Any
    reason: str


@dataclass(frozen=True)
class FieldsVerdict:
    """All fields of one answer: ``passed`` (every hard field passed), ``soft_score`` (weighted
    mean of soft field scores, None without soft fields), ``first_failure`` (the first failing
    hard field, or None) and every ``results`` entry in field order."""

    passed: bool
    soft_score: float | None
    first_failure: FieldResult | None
    results: tuple[FieldResult, ...]


def parse_structured(answer: str) -> dict[str, Any] | None:
    """The answer as a JSON object, or None when it is not one (never evaluates anything)."""
    text = answer.strip()
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _lookup(data: dict[str, Any], path: str) -> tuple[bool, Any]:
    cur: Any = data
    for part in path.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return False, None
    return True, cur


def _as_decimal(value: Any, locale: str) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    if isinstance(value, str):
        spans = number_spans(normalise(value, 1), locale)
        return spans[0][2] if len(spans) == 1 else None
    return None


def _check(field: ExpectedField, value: Any, structured: bool, *, locale: str, day_first: bool, id_pattern: str, embedder: Any) -> tuple[float, Any, str]:
    """(score in [0, 1], value found, reason when score < pass mark)."""
    strategy = field.strategy
    expected = field.value
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if strategy.startswith("exact@"):
        rung = int(strategy[-1])
        exp = normalise(str(expected), rung, locale=locale, day_first=day_first)
        if is_empty_answer(exp) or is_empty_answer(text):  # nothing to compare never matches (issue 10, kind 5)
            return 0.0, None, f"{field.name}: {'expected value' if is_empty_answer(exp) else 'answer'} is empty after normalisation"
        got = normalise(text, rung, locale=locale, day_first=day_first)
        ok = got == exp if structured else re.search(rf"(?<!\w){re.escape(exp)}(?!\w)", got) is not None
        return float(ok), (text if structured else (exp if ok else None)), "" if ok else f"{field.name}: {exp!r} not found at rung {rung}"
    if strategy == "amount":
        want = _as_decimal(expected, locale)
        if want is None:
            return 0.0, None, f"{field.name}: expected value {expected!r} is not a number"
        if structured:
            got = _as_decimal(value, locale)
            ok = got is not None and got == want
            return float(ok), got, "" if ok else f"{field.name}: amount {got if got is None else canonical_number(got)} differs from {canonical_number(want)}"
        found = extract_amounts(text, locale, day_first, id_pattern)
        ok = want in found
        return float(ok), (want if ok else None), "" if ok else f"{field.name}: amount {canonical_number(want)} not in answer"
    if strategy == "date":
        want_dates = extract_dates(str(expected), day_first)
        if len(want_dates) != 1:
            return 0.0, None, f"{field.name}: expected value {expected!r} is not one date"
        found = extract_dates(text, day_first)
        hit = [d for d in found if d.same_day(want_dates[0])]
        ok = bool(hit) and (not structured or len(found) == 1)
        return float(ok), (str(hit[0]) if hit else None), "" if ok else f"{field.name}: date {want_dates[0]} not in answer"
    if strategy == "id":
        want = str(expected)
        ok = (text.strip() == want) if structured else want in extract_ids(text, id_pattern)
        return float(ok), (want if ok else None), "" if ok else f"{field.name}: id {want} not in answer"
    if strategy == "f1":
        score = unigram_f1(text, str(expected))
        return score, text, f"{field.name}: F1"
    if strategy == "semantic":
        if embedder is None:
            from .embedding import make_embedder

            embedder = make_embedder()
        from .embedding import cosine_pairs

        score = 0.0 if is_empty_answer(text) else float(cosine_pairs(embedder, [text], [str(expected)])[0])
        return max(score, 0.0), text, f"{field.name}: cosine"
    raise ValueError(f"unknown field strategy {strategy!r}")


def score_fields(
    answer: str,
    fields: Sequence[ExpectedField],
    *,
    locale: str = "en",
    day_first: bool = True,
    id_pattern: str = DEFAULT_ID_PATTERN,
    embedder: Any = None,
) -> FieldsVerdict:
    """Check every expected field of ``answer``.

    A JSON-object answer is read field by field (``field.name``, dotted for nesting); a missing
    key fails that field. Other answers are searched as text. A field passes when its score
    reaches its pass mark (:func:`explorer.core.scoring.passmark.reaches`: equal passes): 1.0 for ``exact@N``/``date``/``amount``/``id``, its ``threshold``
    (default ``DEFAULT_THRESHOLDS``) for ``f1``/``semantic``. ``semantic`` needs the similarity
    extra (SimilarityUnavailable otherwise).
    """
    data = parse_structured(answer)
    results: list[FieldResult] = []
    for f in fields:
        if data is not None:
            present, value = _lookup(data, f.name)
            if not present:
                results.append(FieldResult(f.name, f.strategy, f.hard, f.weight, False, 0.0, None, f'{f.name}: missing from the structured answer'))
                continue
            score, found, why = _check(f, value, True, locale=locale, day_first=day_first, id_pattern=id_pattern, embedder=embedder)
        else:
            score, found, why = _check(f, answer, False, locale=locale, day_first=day_first, id_pattern=id_pattern, embedder=embedder)
        mark = f.threshold if f.threshold is not None else DEFAULT_THRESHOLDS.get(f.strategy, 1.0)
        passed = bool(reaches(score, mark))
        if f.strategy in DEFAULT_THRESHOLDS:
            shown, limit = show_pair(score, mark)
            why = f"{why} {shown} {'>=' if passed else '<'} {limit}"
        results.append(FieldResult(f.name, f.strategy, f.hard, f.weight, passed, score, found, "" if passed else why))
    hard_fail = next((r for r in results if r.hard and not r.passed), None)
    soft = [r for r in results if not r.hard]
    total = sum(r.weight for r in soft)
    soft_score = sum(r.weight * r.score for r in soft) / total if soft and total > 0 else None
    return FieldsVerdict(hard_fail is None, soft_score, hard_fail, tuple(results))
