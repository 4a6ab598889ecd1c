"""Every trajectory metric side by side: match families (1/0) and partial credit (0..1), in one
vocabulary, per invocation (a run scores the mean over its invocations).

Calls are compared by an :class:`~explorer.core.scoring.arg_match.ArgMatcher` (argument mode and
per-key rules); where calls are paired one to one, the pairing is a maximum matching
(:func:`~explorer.core.scoring.matching.max_matching`), so no score depends on the order of the
lists beyond what a definition asks. With E expected calls, A actual calls, m the size of a
maximum matching and L the length of a longest common subsequence (both under the matcher):

=============  ===========================================================  =======================================
family         passes / scores                                              source
=============  ===========================================================  =======================================
exact          E = A and call k matches call k for every k                  ADK EXACT; agentevals ``strict``
in_order       L = E (expected calls appear in order, extras allowed)       ADK IN_ORDER
any_order      m = E (each expected call made by a distinct call)           ADK ANY_ORDER
superset       m = E (the same definition)                                  agentevals ``superset``
subset         m = A (no unexpected call, missing ones allowed)             agentevals ``subset``
unordered      m = E = A (the same calls as multisets)                      agentevals ``unordered``
precision      m / A; A = 0: 1 if E = 0 else 0                              Vertex AI ``trajectory_precision``
recall         m / E; E = 0: 1                                              Vertex AI ``trajectory_recall``
f1             2m / (A + E); A = E = 0: 1 (harmonic mean of the two)        F1 of Vertex precision and recall
lcs            L / E; E = 0: 1                                              in-order partial score
single_tool    1 if a call to the named tool was made, else 0               Vertex AI ``trajectory_single_tool_use``
=============  ===========================================================  =======================================

Edge cases: an empty expected list passes in_order, any_order/superset and scores recall and lcs
1; EXACT passes it only with no actual call (ADK). An empty actual list passes subset vacuously
(agentevals loops over the actual calls) but scores precision 0 unless nothing was expected
(Vertex). A repeated call is one more call: an expected call listed twice must be made twice
(any_order, recall); an extra repeat is an unmatched actual call (fails exact, subset, unordered;
lowers precision and F1; passes in_order and any_order). An invocation the agent never ran
(:attr:`~explorer.core.io.model.Invocation.no_output`: no call and an empty answer) scores 0 in
every family, whatever was expected.

Where the explorer differs from its sources: ``strict`` in agentevals compares messages (the
same number of messages with the same roles, each message's parallel calls in any order); a run
here holds one flat call list per invocation, so ``strict`` is EXACT on that list (agentevals
would pass parallel calls of one message listed in another order, and fail the same calls split
into messages differently). agentevals pairs greedily and ``unordered`` checks superset both
ways with two separate pairings; here one maximum matching decides (equal for ``exact`` and
``ignore`` arguments, an equivalence; greedy pairing can fail where a pairing exists under a
tolerance rule or the subset/superset argument modes). Vertex pairs greedily too, and its
``trajectory_any_order_match`` is what is called ``unordered`` here (same length, all matched),
not ADK's ANY_ORDER.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from operator import itemgetter
from typing import Sequence

from ..io.model import Invocation, PlainInvocation, ToolCall
from .arg_match import ARG_MODES, EXACT, IGNORE, SUBSET, SUPERSET, ArgMatcher, args_relation
from .arg_rules import NO_RULES, ArgRules
from .matching import lcs_length, matching_size

MATCH_FAMILIES: tuple[str, ...] = ("exact", "in_order", "any_order", "subset", "superset", "unordered")
"""The 1/0 families."""
PARTIAL_SCORES: tuple[str, ...] = ("precision", "recall", "f1", "lcs", "single_tool_use")
"""The partial-credit scores (0..1), thresholded by ``Settings.trajectory_threshold``."""
FAMILIES: tuple[str, ...] = MATCH_FAMILIES + PARTIAL_SCORES
"""Every trajectory metric."""
ONE_OR_ZERO: tuple[str, ...] = (*MATCH_FAMILIES, "strict", "single_tool_use")
"""The families that score each invocation (turn) 1 or 0: the match families, and single tool use
(Vertex AI ``trajectory_single_tool_use`` is 1 when the tool was called, else 0), although it is
listed with the partial scores above. A run's score is the mean over its turns, so on one-turn
runs it is 1 or 0 and a threshold in (0, 1] gives the same verdicts as 1."""
ALIASES: dict[str, str] = {"strict": "exact"}
"""agentevals names accepted for ours where the definitions coincide on a flat call list."""
TRAJECTORY_CHOICES: tuple[str, ...] = (*FAMILIES, *ALIASES, "none")
"""What ``Settings.trajectory`` accepts (``none`` = trajectory not scored)."""
SCORE_ROWS: tuple[str, ...] = ("exact", "in_order", "any_order", "subset", "unordered", "precision", "recall", "f1", "lcs")
"""The families stored per run and argument mode (``Features.trajectory``'s first axis);
``superset`` reads ``any_order``'s row and ``strict`` ``exact``'s (the same definitions);
``single_tool_use`` is computed from the tools each invocation called."""
ROW_OF: dict[str, int] = {**{f: k for k, f in enumerate(SCORE_ROWS)}, "superset": 2, "strict": 0}
"""Family name -> row of ``Features.trajectory``."""


@dataclass(frozen=True)
class Definition:
    """How a family is shown: ``label`` (the field's name), ``kind`` (``match`` or ``partial``),
    ``text`` (one line), ``source``."""

    label: str
    kind: str
    text: str
    source: str


DEFINITIONS: dict[str, Definition] = {
    "exact": Definition("EXACT", "match", "the same calls in the same order, nothing extra or missing",
                        "ADK trajectory_evaluator EXACT (agentevals: strict)"),
    "in_order": Definition("IN_ORDER", "match", "the expected calls happen in their order; other calls may come between",
                           "ADK trajectory_evaluator IN_ORDER"),
    "any_order": Definition("ANY_ORDER", "match", "every expected call happens, in any order; extra calls allowed",
                            "ADK trajectory_evaluator ANY_ORDER (agentevals: superset)"),
    "subset": Definition("subset", "match", "every call made was expected; expected calls may be missing",
                         "LangChain agentevals trajectory_match_mode='subset'"),
    "superset": Definition("superset", "match", "every expected call happens; extra calls allowed (= ANY_ORDER)",
                           "LangChain agentevals trajectory_match_mode='superset'"),
    "unordered": Definition("unordered", "match", "the same calls as expected, in any order, nothing extra or missing",
                            "LangChain agentevals trajectory_match_mode='unordered'"),
    "precision": Definition("precision", "partial", "share of the calls made that were expected",
                            "Vertex AI trajectory_precision"),
    "recall": Definition("recall", "partial", "share of the expected calls that were made",
                         "Vertex AI trajectory_recall"),
    "f1": Definition("F1", "partial", "harmonic mean of trajectory precision and recall",
                     "F1 of Vertex AI trajectory_precision and trajectory_recall"),
    "lcs": Definition("LCS", "partial", "share of the expected calls made in the expected order (longest common subsequence)",
                      "in-order partial score: LCS / expected calls"),
    "single_tool_use": Definition("single tool use", "partial", "the named tool was called",
                                  "Vertex AI trajectory_single_tool_use"),
    "strict": Definition("strict", "match", "agentevals' name for EXACT on a flat call list",
                         "LangChain agentevals trajectory_match_mode='strict'"),
}


ALLOWED_MARKS: dict[str, frozenset[str]] = {
    "in_order": frozenset({"extra"}),
    "any_order": frozenset({"extra"}),
    "superset": frozenset({"extra"}),
    "recall": frozenset({"extra"}),
    "lcs": frozenset({"extra"}),
    "subset": frozenset({"missing"}),
    "precision": frozenset({"missing"}),
    "single_tool_use": frozenset({"extra", "missing"}),
}
"""The call marks a family's score does not count (by the definitions above): an extra call under
IN_ORDER, ANY_ORDER (superset), recall and LCS; a missing call under subset and precision; any
other call but the named tool under single tool use. The page still marks such calls (they are
what happened) and says they are allowed."""


def allowed_marks(family: str) -> frozenset[str]:
    """:data:`ALLOWED_MARKS` of ``family`` (``strict`` is EXACT's other name); empty for the rest."""
    return ALLOWED_MARKS.get(canonical(family), frozenset())


def scores_one_or_zero(family: str) -> bool:
    """True when ``family`` scores each turn 1 or 0 (``ONE_OR_ZERO``); False for the partial
    scores (precision, recall, F1, LCS: 0 to 1 per turn) and ``none``."""
    return family in ONE_OR_ZERO


def canonical(family: str) -> str:
    """``family`` with an alias resolved (``strict`` -> ``exact``)."""
    return ALIASES.get(family, family)


@dataclass(frozen=True, slots=True)
class CallCounts:
    """What every family reads from one invocation under one matcher: ``n_expected`` E,
    ``n_actual`` A, ``matched`` m (maximum one-to-one matching), ``lcs`` L, ``exact`` (E = A and
    pairwise matching), ``no_output`` (the turn was never run)."""

    n_expected: int
    n_actual: int
    matched: int
    lcs: int
    exact: bool
    no_output: bool = False


def compat_matrix(expected: Sequence[ToolCall], actual: Sequence[ToolCall], matcher: ArgMatcher) -> list[list[bool]]:
    """``compat[i][j]``: actual call j matches expected call i under ``matcher``."""
    return [[matcher.match(a, e) for a in actual] for e in expected]


def _counts(compat, n_expected: int, n_actual: int) -> CallCounts:
    exact = n_expected == n_actual and all(compat[k][k] for k in range(n_expected))
    return CallCounts(n_expected, n_actual, matching_size(compat, n_actual), lcs_length(compat, n_actual), exact)


def call_counts(inv: Invocation, matcher: ArgMatcher) -> CallCounts:
    """The :class:`CallCounts` of ``inv`` under ``matcher``."""
    e, a = inv.expected_calls, inv.actual_calls
    if inv.no_output:
        return CallCounts(len(e), 0, 0, 0, False, True)
    return _counts(compat_matrix(e, a, matcher), len(e), len(a))


def family_score(c: CallCounts, family: str) -> float:
    """The score of one invocation in ``family`` (one of ``FAMILIES`` but ``single_tool_use``,
    or an alias), from its counts; see the module docstring for each definition and edge case.
    Raises ValueError for an unknown family."""
    if c.no_output:
        return 0.0
    family = canonical(family)
    n_e, n_a, m, lcs = c.n_expected, c.n_actual, c.matched, c.lcs
    if family == "exact":
        return float(c.exact)
    if family == "in_order":
        return float(lcs == n_e)
    if family in ("any_order", "superset"):
        return float(m == n_e)
    if family == "subset":
        return float(m == n_a)
    if family == "unordered":
        return float(m == n_e == n_a)
    if family == "precision":
        return (1.0 if n_e == 0 else 0.0) if n_a == 0 else m / n_a
    if family == "recall":
        return 1.0 if n_e == 0 else m / n_e
    if family == "f1":
        return 1.0 if n_a + n_e == 0 else 2.0 * m / (n_a + n_e)
    if family == "lcs":
        return 1.0 if n_e == 0 else lcs / n_e
    raise ValueError(f"unknown trajectory family {family!r}; expected one of {', '.join(FAMILIES)}")


def invocation_score(inv: Invocation, family: str, matcher: ArgMatcher | None = None, single_tool: str = "") -> float:
    """One invocation's score in ``family`` under ``matcher`` (default: ADK's ``args ==``);
    ``single_tool`` names the tool ``single_tool_use`` looks for. A turn never run scores 0."""
    if inv.no_output:
        return 0.0
    if canonical(family) == "single_tool_use":
        return float(any(c.name == single_tool for c in inv.actual_calls))
    return family_score(call_counts(inv, matcher or ArgMatcher()), family)


def run_score(invocations: Sequence[Invocation], family: str, matcher: ArgMatcher | None = None, single_tool: str = "") -> float:
    """A run's score: the mean of :func:`invocation_score` over its invocations. Raises
    ValueError for an empty list."""
    if not invocations:
        raise ValueError("a run needs at least one invocation")
    return sum(invocation_score(inv, family, matcher, single_tool) for inv in invocations) / len(invocations)


# --- every family under every argument mode at once (the per-run features) --------------------

_MODE_BITS = tuple({"exact": EXACT, "ignore": IGNORE, "subset": SUBSET, "superset": SUPERSET}[m] for m in ARG_MODES)
N_SCORES = len(SCORE_ROWS) * len(ARG_MODES)
"""Length of :func:`invocation_scores`' tuple."""
_ZEROS = (0.0,) * N_SCORES
_ONES = (1.0,) * N_SCORES


def _mask_scores(masks: list[int], n_e: int, n_a: int) -> tuple[float, ...]:
    """``SCORE_ROWS`` for one compatibility matrix given as bit masks (``masks[i]`` bit j: actual
    call j matches expected call i): :func:`family_score` of its counts, inline.

    m: each expected call takes its first free compatible actual call (as :func:`max_matching`
    starts); when that leaves no expected call with a compatible call unmatched it is maximum (no
    matching can pair more expected calls than have a compatible call), else :func:`matching_size`
    decides. L: the bit-parallel LCS of Allison-Dix / Crochemore et al. (2001) in Hyyrö's form
    (``U = V & M; V = (V + U) | (V - U)``; L = the zero bits of V), which follows the same
    dynamic programme as :func:`lcs_length` for any match matrix (property-tested against it).
    """
    used = 0
    m = 0
    stuck = False
    for mask in masks:
        free = mask & ~used
        if free:
            used |= free & -free
            m += 1
        elif mask:
            stuck = True
    if stuck:
        m = matching_size([[(mask >> j) & 1 == 1 for j in range(n_a)] for mask in masks], n_a)
    full = (1 << n_a) - 1
    v = full
    for mask in masks:
        u = v & mask
        v = ((v + u) | (v - u)) & full
    lcs = n_a - v.bit_count()
    exact = n_e == n_a and all((mask >> k) & 1 for k, mask in enumerate(masks))
    return (
        float(exact), float(lcs == n_e), float(m == n_e), float(m == n_a), float(m == n_e == n_a),
        (1.0 if n_e == 0 else 0.0) if n_a == 0 else m / n_a,
        1.0 if n_e == 0 else m / n_e,
        1.0 if n_a + n_e == 0 else 2.0 * m / (n_a + n_e),
        1.0 if n_e == 0 else lcs / n_e,
    )


def invocation_scores(inv: Invocation, rules: ArgRules = NO_RULES, day_first: bool = True) -> tuple[float, ...]:
    """Every stored family (``SCORE_ROWS``) under every argument mode (``ARG_MODES``) for one
    invocation, flattened row-major: index ``row * len(ARG_MODES) + mode``. The scores of
    :func:`plain_scores` for ``inv.plain()``."""
    if inv.no_output:
        return _ZEROS
    return plain_scores(inv.plain(), rules, day_first)


_SCORED: dict[tuple, tuple[float, ...]] = {}
""":func:`plain_scores` results by what they are a function of: ``(A, same-name masks)`` when every
same-name pair has equal args, else ``(A, masks, ((i, j, relation), ...))``; emptied when it
holds :data:`_SCORED_MAX` entries (a batch of runs repeats few such patterns)."""
_SCORED_MAX = 4096
_NAME = itemgetter(0)


def plain_scores(inv: PlainInvocation, rules: ArgRules = NO_RULES, day_first: bool = True) -> tuple[float, ...]:
    """:func:`invocation_scores` of an invocation given as plain tuples (calls as ``(name, args)``).

    Equal to :func:`family_score` of :func:`call_counts` for each family and mode (the property
    tests check it); faster because only calls of the same name are compared (others never
    match); equal args match in every mode and under every rule, so only same-name pairs whose
    args differ go through :func:`~explorer.core.scoring.arg_match.args_relation` (once for all
    four modes); modes with the same matches share their counts; the counts come from bit masks
    (:func:`_mask_scores`); the scores of a pattern of masks and relations are kept in
    :data:`_SCORED` (they depend on nothing else); and an identical trajectory scores 1
    everywhere.
    """
    expected, actual = inv.expected, inv.actual
    if not actual and not inv.answer.strip():  # a turn never run
        return _ZEROS
    if expected is actual or expected == actual:
        return _ONES
    n_a = len(actual)
    names: list[int] = []  # same name: the matches under ``ignore``
    partial: list[tuple[int, int, int]] = []  # (expected i, actual j, relation) of same-name pairs with different args
    at = dict(zip(map(_NAME, actual), range(n_a)))
    if len(at) == n_a:  # distinct actual names: at most one same-name call for each expected call
        for i, call in enumerate(expected):
            j = at.get(call[0])
            if j is None:
                names.append(0)
            else:
                names.append(1 << j)
                other = actual[j]
                if other is not call and other != call:  # the same name: the args differ
                    partial.append((i, j, args_relation(call[0], other[1], call[1], rules, day_first)))
    else:
        by_name: dict[str, list[int]] = {}
        name_mask: dict[str, int] = {}
        for j, (name, _) in enumerate(actual):
            by_name.setdefault(name, []).append(j)
            name_mask[name] = name_mask.get(name, 0) | (1 << j)
        names = [name_mask.get(name, 0) for name, _ in expected]
        for i, (name, args) in enumerate(expected):
            if names[i]:
                for j in by_name[name]:
                    other = actual[j][1]
                    if other is not args and other != args:
                        partial.append((i, j, args_relation(name, other, args, rules, day_first)))
    key = (n_a, *names) if not partial else (n_a, tuple(names), tuple(partial))
    found = _SCORED.get(key)
    if found is None:
        if len(_SCORED) >= _SCORED_MAX:
            _SCORED.clear()
        found = _SCORED[key] = _scores_of(names, partial, n_a)
    return found


def _scores_of(names: list[int], partial: list[tuple[int, int, int]], n_a: int) -> tuple[float, ...]:
    """:func:`plain_scores` from the same-name masks and the relations of the same-name pairs
    whose args differ."""
    n_e = len(names)
    if not partial:  # every same-name pair has equal args: one matrix for every mode
        per_mode = (_mask_scores(names, n_e, n_a),) * len(_MODE_BITS)
    else:
        scored: dict[tuple[int, ...], tuple[float, ...]] = {}
        modes = []
        for bit in _MODE_BITS:
            masks = names[:]
            for i, j, r in partial:
                if not r & bit:
                    masks[i] &= ~(1 << j)
            key = tuple(masks)
            if key not in scored:
                scored[key] = _mask_scores(masks, n_e, n_a)
            modes.append(scored[key])
        per_mode = tuple(modes)
    return tuple(chain.from_iterable(zip(*per_mode)))
