"""Laws of the trajectory families (issue 12), checked on random trajectories (hypothesis):

* permuting either call list never changes an unordered family's score (any_order, superset,
  subset, unordered, precision, recall, F1), under every argument mode and under rules that make
  the relation no equivalence (a numeric tolerance);
* precision = recall = F1 = 1 exactly when the expected and actual calls are equal as multisets
  (argument mode exact: JSON value equality), for a turn the agent ran;
* an EXACT pass implies every family passes (same argument mode), and an EXACT pass with args
  compared implies a pass under every argument mode;
* the pairing is a maximum matching: issue 12's book(a, b, c) example scores the same whatever
  the order, where a greedy pairing under-scores one order;
* under argument rules (numbers within a tolerance: no equivalence), the vectorised features equal
  the definitions computed by brute force over every pairing.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from explorer.core.io.model import Invocation, ToolCall
from explorer.core.scoring.arg_match import ARG_MODES, ArgMatcher
from explorer.core.scoring.arg_rules import ArgRule, ArgRules
from explorer.core.scoring.trajectory_metrics import invocation_score

UNORDERED = ("any_order", "superset", "subset", "unordered", "precision", "recall", "f1")
EVERY = ("exact", "in_order", "any_order", "subset", "superset", "unordered", "precision", "recall", "f1", "lcs")
TOLERANT = ArgRules((ArgRule("b", "number", tolerance=4), ArgRule("c", "number", tolerance=3)))

values = st.sampled_from([0, 1, 1.0, 2, 5, True, "1", "2", None])
calls = st.lists(
    st.builds(ToolCall, st.sampled_from(["book", "search", "pay"]),
              st.dictionaries(st.sampled_from(["a", "b", "c"]), values, max_size=3)),
    max_size=5,
)
matchers = st.one_of(
    st.sampled_from(ARG_MODES).map(ArgMatcher),
    st.sampled_from(ARG_MODES).map(lambda m: ArgMatcher(m, TOLERANT)),
)
SETTINGS = hsettings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _inv(expected, actual) -> Invocation:
    return Invocation(tuple(expected), tuple(actual), "done", ("done",))


@SETTINGS
@given(calls, calls, matchers, st.randoms(use_true_random=False))
def test_permuting_either_list_never_changes_an_unordered_score(expected, actual, matcher, rnd):
    e2, a2 = list(expected), list(actual)
    rnd.shuffle(e2)
    rnd.shuffle(a2)
    for family in UNORDERED:
        want = invocation_score(_inv(expected, actual), family, matcher)
        assert invocation_score(_inv(e2, actual), family, matcher) == want, family
        assert invocation_score(_inv(expected, a2), family, matcher) == want, family
        assert invocation_score(_inv(e2, a2), family, matcher) == want, family


def _canon(value):
    """A hashable form that is equal exactly when two JSON values are (Python ==: 1 == 1.0 ==
    True, "1" is a string)."""
    if isinstance(value, (bool, int, float)):
        return ("n", float(value))
    if isinstance(value, list):
        return ("l", tuple(_canon(v) for v in value))
    if isinstance(value, dict):
        return ("d", frozenset((k, _canon(v)) for k, v in value.items()))
    return ("s", value)


def _multiset(calls):
    return Counter((c.name, _canon(dict(c.args))) for c in calls)


@SETTINGS
@given(calls, calls)
def test_precision_recall_and_f1_are_one_exactly_when_the_multisets_match(expected, actual):
    inv = _inv(expected, actual)
    scores = [invocation_score(inv, f) for f in ("precision", "recall", "f1")]
    same = _multiset(expected) == _multiset(actual)
    assert (scores == [1.0, 1.0, 1.0]) == same
    assert (scores[2] == 1.0) == same  # F1 = 2m/(A+E) reaches 1 only with m = A = E


@SETTINGS
@given(calls)
def test_the_same_calls_shuffled_score_one_in_the_unordered_partial_scores(expected):
    # the "if" side with repeated calls: a permutation of the expected calls is the same multiset
    actual = list(reversed(expected))
    for f in ("precision", "recall", "f1", "unordered"):
        assert invocation_score(_inv(expected, actual), f) == 1.0


@SETTINGS
@given(calls, calls, matchers)
def test_an_exact_pass_implies_every_family_passes(expected, actual, matcher):
    inv = _inv(expected, actual)
    if invocation_score(inv, "exact", matcher) == 1.0:
        for family in EVERY:
            assert invocation_score(inv, family, matcher) == 1.0, family


@SETTINGS
@given(calls, calls)
def test_an_exact_pass_with_args_compared_passes_under_every_argument_mode(expected, actual):
    inv = _inv(expected, actual)
    if invocation_score(inv, "exact") == 1.0:
        for mode in ARG_MODES:
            for family in EVERY:
                assert invocation_score(inv, family, ArgMatcher(mode)) == 1.0


def book(a, b, c):
    return ToolCall("book", {"a": a, "b": b, "c": c})


def _greedy_pairs(expected, actual, matcher):
    """What a greedy pairing counts (each expected call takes the first free matching actual
    call): the method issue 12 reports as order-dependent."""
    used, n = set(), 0
    for e in expected:
        j = next((j for j, a in enumerate(actual) if j not in used and matcher.match(a, e)), None)
        if j is not None:
            used.add(j)
            n += 1
    return n


def test_issue_12_book_example_does_not_depend_on_the_order():
    expected = [book(1, 1, 1), book(1, 1, 2)]
    actual = [book(1, 1, 2), book(1, 5, 5)]
    # with args compared exactly only book(1,1,2) pairs: recall 1/2 in every order
    for e in (expected, expected[::-1]):
        for a in (actual, actual[::-1]):
            assert invocation_score(_inv(e, a), "recall") == 0.5
            assert invocation_score(_inv(e, a), "precision") == 0.5
    # with b within 4 and c within 3, book(1,1,1) matches book(1,1,2) only and book(1,1,2) matches
    # both actual calls: two pairs exist. Greedy finds both in one order and one in the other;
    # the maximum matching finds two in every order.
    m = ArgMatcher("exact", TOLERANT)
    assert _greedy_pairs(expected, actual, m) == 2 and _greedy_pairs(expected[::-1], actual, m) == 1
    for e in (expected, expected[::-1]):
        for a in (actual, actual[::-1]):
            for family in ("precision", "recall", "f1", "any_order", "subset", "unordered"):
                assert invocation_score(_inv(e, a), family, m) == 1.0, (family, e, a)


def _plain_number(v):
    """A value as the number rule reads it: JSON numbers and plain decimal strings; not booleans."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v)
    try:
        return float(v) if isinstance(v, str) and v.strip() and " " not in v.strip() else None
    except ValueError:
        return None


def _plain_agree(key, a, e):
    """TOLERANT's rules from their definition: b within 4, c within 3, else JSON equality."""
    tol = {"b": 4, "c": 3}.get(key)
    x, y = _plain_number(a), _plain_number(e)
    if tol is None or x is None or y is None:
        return a == e
    return abs(x - y) <= tol


def _plain_match(a, e, mode):
    if a.name != e.name:
        return False
    if mode == "ignore":
        return True
    common_ok = all(_plain_agree(k, a.args[k], e.args[k]) for k in a.args.keys() & e.args.keys())
    missing, extra = bool(e.args.keys() - a.args.keys()), bool(a.args.keys() - e.args.keys())
    return common_ok and {"exact": not missing and not extra, "subset": not extra, "superset": not missing}[mode]


@SETTINGS
@given(st.lists(st.tuples(calls, calls), min_size=1, max_size=6))
def test_features_under_rules_equal_brute_force_definitions(pairs):
    import itertools

    from explorer.core.evaluation.features import build_features
    from explorer.core.io.model import CaseSet, Run

    runs = tuple(Run(f"r{k}", "", "", (_inv(e, a),)) for k, (e, a) in enumerate(pairs))
    f = build_features(CaseSet("t", "", runs, arg_rules=TOLERANT))
    for k, (E, A) in enumerate(pairs):
        for mode in ARG_MODES:
            ok = [[_plain_match(a, e, mode) for a in A] for e in E]
            pairs_in = lambda es, js: all(ok[i][j] for i, j in zip(es, js))  # noqa: E731
            # the largest n with n disjoint matching pairs (m), and with them increasing on both sides (L)
            m = next((n for n in range(min(len(E), len(A)), 0, -1)
                      if any(pairs_in(es, js) for es in itertools.combinations(range(len(E)), n)
                             for js in itertools.permutations(range(len(A)), n))), 0)
            lcs = next((n for n in range(min(len(E), len(A)), 0, -1)
                        if any(pairs_in(es, js) for es in itertools.combinations(range(len(E)), n)
                               for js in itertools.combinations(range(len(A)), n))), 0)
            assert f.trajectory_scores("any_order", mode)[k] == float(m == len(E))
            assert f.trajectory_scores("subset", mode)[k] == float(m == len(A))
            assert f.trajectory_scores("in_order", mode)[k] == float(lcs == len(E))
            assert f.trajectory_scores("exact", mode)[k] == float(len(E) == len(A) and all(ok[i][i] for i in range(len(E))))
            want_f1 = 1.0 if not E and not A else 2 * m / (len(E) + len(A))
            assert abs(f.trajectory_scores("f1", mode)[k] - want_f1) < 1e-12


@hsettings(max_examples=500, deadline=None)
@given(st.integers(0, 7).flatmap(lambda n_a: st.tuples(st.just(n_a), st.lists(st.lists(st.booleans(), min_size=n_a, max_size=n_a), max_size=7))))
def test_bit_mask_counts_equal_the_list_algorithms(shape):
    """Issue 14: ``invocation_scores`` counts from bit masks (greedy pairing checked for being
    maximum, a bit-parallel LCS); on any compatibility matrix (no equivalence needed) they equal
    :func:`~explorer.core.scoring.matching.matching_size` and
    :func:`~explorer.core.scoring.matching.lcs_length`, i.e. every family's score from
    :func:`~explorer.core.scoring.trajectory_metrics.family_score`."""
    from explorer.core.scoring.matching import lcs_length, matching_size
    from explorer.core.scoring.trajectory_metrics import SCORE_ROWS, CallCounts, _mask_scores, family_score

    n_a, compat = shape
    n_e = len(compat)
    masks = [sum(1 << j for j, hit in enumerate(row) if hit) for row in compat]
    exact = n_e == n_a and all(compat[k][k] for k in range(n_e))
    counts = CallCounts(n_e, n_a, matching_size(compat, n_a), lcs_length(compat, n_a), exact)
    assert _mask_scores(masks, n_e, n_a) == tuple(family_score(counts, f) for f in SCORE_ROWS)


distinct_calls = st.lists(st.sampled_from(["book", "search", "pay", "mail"]), unique=True, max_size=4).flatmap(
    lambda names: st.tuples(*[st.builds(ToolCall, st.just(n), st.dictionaries(st.sampled_from(["a", "b", "c"]), values, max_size=3))
                              for n in names]).map(list))


@SETTINGS
@given(calls, st.one_of(calls, distinct_calls), st.sampled_from([ArgRules(), TOLERANT]))
def test_invocation_scores_equal_family_score_of_call_counts_every_mode(expected, actual, rules):
    """Issue 14: ``invocation_scores`` (one pass for all modes: same-name pairs only, a loop for
    distinct actual names, results kept per pattern of masks and relations) equals
    :func:`family_score` of :func:`call_counts` for every stored family and argument mode, on the
    first call and on a second (kept) one; actual lists with repeated and with distinct names."""
    from explorer.core.scoring.trajectory_metrics import SCORE_ROWS, call_counts, family_score, invocation_scores

    inv = _inv(expected, actual)
    want = tuple(family_score(call_counts(inv, ArgMatcher(mode, rules)), family) for family in SCORE_ROWS for mode in ARG_MODES)
    assert invocation_scores(inv, rules) == want
    assert invocation_scores(inv, rules) == want


def test_scores_kept_per_pattern_stay_right_past_the_limit():
    """More distinct patterns than ``_SCORED`` keeps (8,191 > 4,096: it is emptied on the way).
    Expected: 13 calls, ``hit`` where bit b of k is set, else ``miss``; actual: one ``hit``. By
    hand: m = L = 1 (one actual call), E = 13, A = 1: exact, in_order, any_order, unordered 0;
    subset 1 (m = A); precision 1/1, recall 1/13, F1 2/14, LCS 1/13, in every argument mode."""
    from explorer.core.scoring import trajectory_metrics as tm

    want = (0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1 / 13, 2 / 14, 1 / 13)
    for k in list(range(1, 2**13)) + [1, 2**12]:  # the last two again, after the store was emptied
        inv = _inv([ToolCall("hit" if k >> b & 1 else "miss", {}) for b in range(13)], [ToolCall("hit", {})])
        assert tm.invocation_scores(inv) == tuple(v for v in want for _ in ARG_MODES), k
        assert len(tm._SCORED) <= tm._SCORED_MAX


def test_same_masks_with_other_argument_relations_score_apart():
    """One pattern of names, three relations of the args: the kept scores are per relation, also
    when a pattern comes back. Expected ``book(a=1)``, actual one ``book`` call, so F1 (row 7) is
    m: under (exact, ignore, subset, superset), subset = no key beyond the expected ones, superset
    = no expected key missing: an extra key (0, 1, 0, 1), a missing key (0, 1, 1, 0), another
    value (0, 1, 0, 0), the same args (1, 1, 1, 1)."""
    from explorer.core.scoring.trajectory_metrics import SCORE_ROWS, call_counts, family_score, invocation_scores

    cases = [({"a": 1, "b": 2}, (0, 1, 0, 1)), ({}, (0, 1, 1, 0)), ({"a": 2}, (0, 1, 0, 0)),
             ({"a": 1, "b": 2}, (0, 1, 0, 1)), ({"a": 1}, (1, 1, 1, 1)), ({}, (0, 1, 1, 0))]
    for args, f1 in cases:
        inv = _inv([ToolCall("book", {"a": 1})], [ToolCall("book", args)])
        got = invocation_scores(inv)
        assert got[7 * len(ARG_MODES) : 8 * len(ARG_MODES)] == f1, args
        assert got == tuple(family_score(call_counts(inv, ArgMatcher(mode)), family) for family in SCORE_ROWS for mode in ARG_MODES)
