"""Issue 12's acceptance table: ten hand-made trajectories x every family x every argument mode,
each value worked out by hand from the definitions (docs/trajectory-metrics.md):

with E expected calls, A actual calls, m the largest one-to-one pairing and L the longest pairing
in order on both sides: exact = (E = A, call k matches call k); in_order = (L = E); any_order =
superset = (m = E); subset = (m = A); unordered = (m = E = A); precision = m / A; recall = m / E;
F1 = 2m / (A + E); LCS = L / E. Argument modes (agentevals, actual call's side): exact = same keys
and values; ignore = names only; subset = actual keys among the expected ones; superset = every
expected key present, extras allowed.

The comment above each row gives m, L and which pairs match under each mode.
"""

from __future__ import annotations

import pytest

from explorer.core.evaluation.features import build_features
from explorer.core.io.model import CaseSet, Invocation, Run, ToolCall
from explorer.core.scoring.arg_match import ArgMatcher
from explorer.core.scoring.trajectory_metrics import invocation_score

S = ToolCall("search_flights", {"city": "Lisbon", "date": "2026-03-12"})
B = ToolCall("book", {"flight": "TP1351", "people": 2})
W = ToolCall("get_weather", {"city": "Lisbon"})
WL = ToolCall("get_weather", {"city": "Lisbon"})
WP = ToolCall("get_weather", {"city": "Porto"})
B_SEAT = ToolCall("book", {"flight": "TP1351", "people": 2, "seat": "12A"})
B_STR = ToolCall("book", {"flight": "TP1351", "people": "2"})
Q = ToolCall("web_search", {"query": "cheap flights to Lisbon"})
Q_PARA = ToolCall("web_search", {"query": "inexpensive flights to Lisbon"})

FAMILIES = ("exact", "in_order", "any_order", "subset", "superset", "unordered", "precision", "recall", "f1", "lcs")
ARG_MODES = ("exact", "ignore", "subset", "superset")
ONES = (1, 1, 1, 1, 1, 1, 1, 1, 1, 1)
ZEROS = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

#        name: (expected, actual, answer, {arg mode: values in FAMILIES order})
TABLE = {
    # E = A = 2, every pair k matches k under every mode: m = L = 2 -> everything 1
    "identical": ([S, B], [S, B], "Booked TP1351 for two.", {a: ONES for a in ARG_MODES}),
    # the trajectory is the same; the answer text is not part of any trajectory family
    "final text differs": ([S, B], [S, B], "Your seats on TP1351 are reserved.", {a: ONES for a in ARG_MODES}),
    # two weather calls issued together, listed in the other order. Args compared (exact, subset,
    # superset: same keys, different cities): position 1 Porto vs Lisbon fails EXACT; m = 2 (each
    # pairs with its twin); L = 1 -> in_order 0, LCS 1/2. Names only: every pair matches, all 1.
    "parallel calls in one turn": ([WL, WP], [WP, WL], "Sunny in both.", {
        "exact": (0, 0, 1, 1, 1, 1, 1, 1, 1, 0.5),
        "ignore": ONES,
        "subset": (0, 0, 1, 1, 1, 1, 1, 1, 1, 0.5),
        "superset": (0, 0, 1, 1, 1, 1, 1, 1, 1, 0.5),
    }),
    # [book, search] for [search, book]: names differ position by position under every mode;
    # m = 2, L = 1 -> exact 0, in_order 0, the unordered families 1, LCS 1/2
    "reordered": ([S, B], [B, S], "Booked.", {a: (0, 0, 1, 1, 1, 1, 1, 1, 1, 0.5) for a in ARG_MODES}),
    # [search, weather, book]: A = 3, m = L = 2 -> exact 0 (lengths), in_order 1, any_order 1,
    # subset 0 (the weather call was not expected), superset 1, unordered 0, precision 2/3,
    # recall 1, F1 2*2/(3+2) = 0.8, LCS 1
    "an extra call": ([S, B], [S, W, B], "Booked.", {a: (0, 1, 1, 0, 1, 0, 2 / 3, 1, 0.8, 1) for a in ARG_MODES}),
    # [search, search, book]: the second search pairs with nothing (one expected search): same
    # counts as an extra call
    "a repeated call": ([S, B], [S, S, B], "Booked.", {a: (0, 1, 1, 0, 1, 0, 2 / 3, 1, 0.8, 1) for a in ARG_MODES}),
    # [search] for [search, book]: A = 1, m = L = 1 -> exact 0, in_order 0, any_order 0, subset 1
    # (the one call was expected), superset 0, unordered 0, precision 1/1, recall 1/2,
    # F1 2*1/(1+2) = 2/3, LCS 1/2
    "a missing call": ([S, B], [S], "Searched.", {a: (0, 0, 0, 1, 0, 0, 1, 0.5, 2 / 3, 0.5) for a in ARG_MODES}),
    # book has an extra "seat" key: it matches under ignore (names) and superset (every expected
    # key present, extras allowed), not under exact or subset (seat is not an expected key). Not
    # matching: m = L = 1 (search only), A = E = 2 -> 0 0 0 0 0 0, 1/2 1/2 2*1/4 = 1/2 1/2
    "an extra argument key": ([S, B], [S, B_SEAT], "Booked, seat 12A.", {
        "exact": (0, 0, 0, 0, 0, 0, 0.5, 0.5, 0.5, 0.5),
        "ignore": ONES,
        "subset": (0, 0, 0, 0, 0, 0, 0.5, 0.5, 0.5, 0.5),
        "superset": ONES,
    }),
    # people "2" (a string) vs 2 (a number): not JSON-equal, so only names-only matches; else
    # m = L = 0 with A = E = 1 -> every family 0 (precision 0/1, recall 0/1, F1 0, LCS 0)
    '"2" vs 2': ([B], [B_STR], "Booked for two.", {
        "exact": ZEROS, "ignore": ONES, "subset": ZEROS, "superset": ZEROS,
    }),
    # a paraphrased query: different strings, same key; as "2" vs 2
    "a paraphrased argument": ([Q], [Q_PARA], "Here are cheap flights.", {
        "exact": ZEROS, "ignore": ONES, "subset": ZEROS, "superset": ZEROS,
    }),
}


def _cases():
    for name, (expected, actual, answer, by_mode) in TABLE.items():
        for mode, values in by_mode.items():
            for family, value in zip(FAMILIES, values):
                yield pytest.param(expected, actual, answer, mode, family, value, id=f"{name}-{mode}-{family}")


@pytest.mark.parametrize("expected, actual, answer, mode, family, value", list(_cases()))
def test_table(expected, actual, answer, mode, family, value):
    inv = Invocation(tuple(expected), tuple(actual), answer, ("Booked TP1351 for two.",))
    assert invocation_score(inv, family, ArgMatcher(mode)) == pytest.approx(value, abs=1e-12)


def test_table_has_ten_trajectories_and_every_family_and_mode():
    assert len(TABLE) == 10
    assert all(set(by_mode) == set(ARG_MODES) for *_, by_mode in TABLE.values())


def test_features_give_the_table_for_every_run():
    """The vectorised features (one run per table row) hold the same values, and ``strict`` reads
    EXACT's."""
    runs = tuple(
        Run(name, name, "", (Invocation(tuple(e), tuple(a), ans, ("Booked TP1351 for two.",)),), "acceptable")
        for name, (e, a, ans, _) in TABLE.items()
    )
    f = build_features(CaseSet("table", "", runs))
    for i, (name, (*_, by_mode)) in enumerate(TABLE.items()):
        for mode, values in by_mode.items():
            for family, value in zip(FAMILIES, values):
                assert f.trajectory_scores(family, mode)[i] == pytest.approx(value, abs=1e-12), (name, mode, family)
            assert f.trajectory_scores("strict", mode)[i] == f.trajectory_scores("exact", mode)[i]


def test_single_tool_use_is_about_the_named_tool_only():
    # Vertex AI trajectory_single_tool_use: 1 if the tool was called, whatever else happened
    inv = Invocation((S, B), (W,), "Sunny.", ("",))
    assert invocation_score(inv, "single_tool_use", single_tool="get_weather") == 1.0
    assert invocation_score(inv, "single_tool_use", single_tool="book") == 0.0


def test_empty_lists():
    # empty expected: EXACT only with no call; in_order, any_order, recall, LCS pass; an extra call
    # fails subset and unordered and scores precision 0/1 and F1 0 (Vertex: precision m/A)
    none_expected = Invocation((), (W,), "Sunny.", ("",))
    got = [invocation_score(none_expected, f) for f in FAMILIES]
    assert got == [0, 1, 1, 0, 1, 0, 0, 1, 0, 1]
    # nothing expected, nothing done, an answer given: everything 1
    quiet = Invocation((), (), "No booking needed.", ("",))
    assert [invocation_score(quiet, f) for f in FAMILIES] == [1] * 10
    # expected calls, none made but an answer given: subset passes vacuously (agentevals), precision
    # is 0 (Vertex: no predicted call with a non-empty reference scores 0)
    answered = Invocation((S,), (), "I could not search.", ("",))
    assert [invocation_score(answered, f) for f in FAMILIES] == [0, 0, 0, 1, 0, 0, 0, 0, 0, 0]


def test_a_turn_never_run_scores_zero_everywhere():
    # Invocation.no_output (no call, empty answer): 0 in every family, even with nothing expected
    for expected in ((), (S,)):
        inv = Invocation(expected, (), "  ", ("",))
        assert inv.no_output
        for family in (*FAMILIES, "strict"):
            for mode in ARG_MODES:
                assert invocation_score(inv, family, ArgMatcher(mode)) == 0.0
        assert invocation_score(inv, "single_tool_use", single_tool="search_flights") == 0.0
