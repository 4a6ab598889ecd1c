"""Property tests: the fast paths equal a plain per-run implementation written from the definitions.

The plain reference below is written straight from the sources, one run at a time, without the
product's helpers for the parts it checks:

* trajectory (ADK ``trajectory_evaluator``, shared/notes/adk-eval-semantics.md): two calls match
  when names are equal and, unless args are ignored, ``args ==`` (Python equality); EXACT = same
  length, pairwise equal; IN_ORDER = greedy subsequence; ANY_ORDER = each expected call consumes a
  distinct equal actual call; each invocation 1/0, a run the mean;
* the other families (issue 12, docs/trajectory-metrics.md), by brute force: the argument modes
  subset (actual keys among the expected, common values equal) and superset (every expected key,
  values equal); m = the largest number of one-to-one pairs over every pairing, L = the longest
  run of pairs increasing on both sides; subset m = A, unordered m = E = A, precision m/A (A = 0:
  1 if E = 0 else 0), recall m/E (E = 0: 1), F1 2m/(A+E) (both 0: 1), LCS L/E (E = 0: 1); an
  invocation with no call and an empty answer scores 0 everywhere (issue 10 kind 1);
* answer overlap: lowercase ``[a-z0-9]+`` tokens as multisets, F1 = 2·overlap / (|cand| + |ref|),
  0 when either side is empty, best over references, mean over invocations;
* combine rules (seed 002): ``all`` = deny-list, key fields, trajectory == 1 (unless not scored),
  F1 >= threshold; ``mean`` = deny-list, key fields, then mean(trajectory, F1) >= 0.75 (F1 alone
  when the trajectory is not scored);
* key fields use :func:`explorer.core.scoring.fields.key_fields_reason_best` per invocation (the per-run
  definition; what is checked here is its vectorised use);
* issue 10: a turn with no actual call and a blank answer is one the agent never ran: it scores 0
  in every trajectory mode and the run fails every setting (kind 1); an answer made only of
  spaces and punctuation (after NFKC) never passes the F1 check (kind 5); a score reaches a
  threshold when both, rounded to 12 decimals with numpy, compare ``>=`` (kind 2).

Random runs come from hypothesis; for each, the vectorised :func:`evaluate` must give the plain
verdict for every run under all 64 discrete settings at thresholds on both sides of every run's
F1 and at grid points, and under every family x argument mode at trajectory thresholds on both
sides of every run's score; :func:`sweep` must give the plain counts for all 6,464 settings of
issue 4's grid and for every family of the full grid at a few thresholds.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from types import SimpleNamespace

import numpy as np
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from explorer.core.evaluation.verdicts import evaluate
from explorer.core.evaluation.features import build_features
from explorer.core.scoring.fields import key_fields_reason_best
from explorer.core.io.model import CaseSet, Invocation, Run, ToolCall
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.sweep import ADK_GRID, FULL_GRID, SETTING_COLUMNS, THRESHOLDS, SweepGrid, sweep

TOOLS = ["search", "book", "confirm", "weather", "delete"]
DENIED = ("delete",)

# --- plain reference ---------------------------------------------------------------------------


def plain_call_eq(a: ToolCall, e: ToolCall, compare_args: bool) -> bool:
    return a.name == e.name and (not compare_args or dict(a.args) == dict(e.args))


def plain_invocation_match(expected, actual, mode: str, compare_args: bool) -> bool:
    if mode == "exact":
        return len(expected) == len(actual) and all(plain_call_eq(a, e, compare_args) for a, e in zip(actual, expected))
    if mode == "in_order":
        k = 0
        for a in actual:
            if k < len(expected) and plain_call_eq(a, expected[k], compare_args):
                k += 1
        return k == len(expected)
    used = [False] * len(actual)
    for e in expected:
        for j, a in enumerate(actual):
            if not used[j] and plain_call_eq(a, e, compare_args):
                used[j] = True
                break
        else:
            return False
    return True


def plain_args_ok(a: dict, e: dict, args: str) -> bool:
    """The argument modes from their definitions (no rules)."""
    if args == "ignore":
        return True
    if args == "exact":
        return a == e
    if args == "subset":  # every key-value pair of the actual call is in the expected call
        return all(k in e and e[k] == v for k, v in a.items())
    return all(k in a and a[k] == v for k, v in e.items())  # superset


def plain_family(inv, family: str, args: str) -> float:
    """One invocation's score in ``family`` by brute force over every pairing."""
    if never_ran(inv):
        return 0.0
    E, A = inv.expected_calls, inv.actual_calls
    ok = [[a.name == e.name and plain_args_ok(dict(a.args), dict(e.args), args) for a in A] for e in E]
    m = 0
    for k in range(min(len(E), len(A)), 0, -1):  # the largest k with k disjoint compatible pairs
        if any(all(ok[i][j] for i, j in zip(es, perm))
               for es in itertools.combinations(range(len(E)), k) for perm in itertools.permutations(range(len(A)), k)):
            m = k
            break
    lcs = 0
    for k in range(min(len(E), len(A)), 0, -1):  # the longest pairs increasing on both sides
        if any(all(ok[i][j] for i, j in zip(es, js))
               for es in itertools.combinations(range(len(E)), k) for js in itertools.combinations(range(len(A)), k)):
            lcs = k
            break
    n_e, n_a = len(E), len(A)
    return {
        "exact": float(n_e == n_a and all(ok[k][k] for k in range(n_e))),
        "in_order": float(lcs == n_e),
        "any_order": float(m == n_e),
        "superset": float(m == n_e),
        "subset": float(m == n_a),
        "unordered": float(m == n_e == n_a),
        "precision": (1.0 if n_e == 0 else 0.0) if n_a == 0 else m / n_a,
        "recall": 1.0 if n_e == 0 else m / n_e,
        "f1": 1.0 if n_e + n_a == 0 else 2 * m / (n_e + n_a),
        "lcs": 1.0 if n_e == 0 else lcs / n_e,
    }[family]


FAMILIES = ("exact", "in_order", "any_order", "subset", "superset", "unordered", "precision", "recall", "f1", "lcs")
ARGS = ("exact", "ignore", "subset", "superset")


def plain_tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def plain_f1(candidate: str, reference: str) -> float:
    cand, ref = plain_tokens(candidate), plain_tokens(reference)
    if not cand or not ref:
        return 0.0
    remaining = list(ref)
    overlap = 0
    for t in cand:
        if t in remaining:
            remaining.remove(t)
            overlap += 1
    return 2.0 * overlap / (len(cand) + len(ref))


def never_ran(inv: Invocation) -> bool:
    return not inv.actual_calls and inv.answer.strip() == ""


def blank(text: str) -> bool:
    return all(ch.isspace() or unicodedata.category(ch).startswith("P") for ch in unicodedata.normalize("NFKC", text))


def reaches(score: float, threshold: float) -> bool:
    return np.round(score, 12) >= np.round(threshold, 12)


def plain_parts(run: Run, day_first: bool, id_pattern: str) -> dict:
    """Everything about one run that the settings pick from, computed from the definitions."""
    invs = run.invocations
    traj = {
        (mode, a): sum(not never_ran(inv) and plain_invocation_match(inv.expected_calls, inv.actual_calls, mode, a) for inv in invs) / len(invs)
        for mode in ("exact", "in_order", "any_order")
        for a in (False, True)
    }
    families = {(f, a): sum(plain_family(inv, f, a) for inv in invs) / len(invs) for f in FAMILIES for a in ARGS}
    return {
        "never_ran": any(never_ran(inv) for inv in invs),
        "blank": any(blank(inv.answer) for inv in invs),
        "traj": traj,
        "families": families,
        "f1": sum(max(plain_f1(inv.answer, r) for r in inv.references) for inv in invs) / len(invs),
        "called": {c.name for inv in invs for c in inv.actual_calls},
        "key_ok": not any(key_fields_reason_best(inv.answer, inv.references, day_first, re.compile(id_pattern)) for inv in invs),
    }


def plain_verdict(parts: dict, s: Settings) -> bool:
    """The combine rules of seed 002 applied to one run's parts."""
    if parts["never_ran"]:
        return False
    if s.deny_check and parts["called"] & set(s.deny_tools):
        return False
    if s.key_fields and not parts["key_ok"]:
        return False
    if s.trajectory == "none":
        traj = None
    elif s.trajectory in ("exact", "in_order", "any_order") and s.args in ("exact", "ignore"):
        traj = parts["traj"][(s.trajectory, s.compare_args)]
    else:
        traj = parts["families"][(s.trajectory, s.args)]
    f1 = parts["f1"]
    threshold = getattr(s, "trajectory_threshold", 1.0)
    if s.combine == "all":
        return (traj is None or reaches(traj, threshold)) and reaches(f1, s.f1_threshold) and not parts["blank"]
    mean = f1 if traj is None else (traj + f1) / 2.0
    return reaches(mean, s.mean_threshold)


# --- random runs -------------------------------------------------------------------------------

arg_values = st.sampled_from([0, 1, 1.0, True, "1", "LIS", None, [1, 2]])
calls = st.lists(
    st.builds(ToolCall, st.sampled_from(TOOLS), st.dictionaries(st.sampled_from(["x", "y"]), arg_values, max_size=2)),
    max_size=4,
)
WORDS = ["the", "flight", "to", "Lisbon", "is", "booked", "on", "12 March", "March 21", "2026-03-12",
         "BK-4821", "BK-9999", "not", "confirmed", "Booked!", "12/03/2026", ""]
text = st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join)
invocation = st.builds(Invocation, calls.map(tuple), calls.map(tuple), text, st.lists(text, min_size=1, max_size=2).map(tuple))
verdict = st.sampled_from(["acceptable", "unacceptable", None])


@st.composite
def case_sets(draw, max_runs: int = 12) -> CaseSet:
    n = draw(st.integers(1, max_runs))
    runs = tuple(
        Run(f"r{i}", "", "", tuple(draw(st.lists(invocation, min_size=1, max_size=3))), draw(verdict))
        for i in range(n)
    )
    return CaseSet("random", "", runs, day_first=draw(st.booleans()))


def discrete_settings():
    for mode in ("exact", "in_order", "any_order", "none"):
        for compare_args in (False, True):
            for combine in ("all", "mean"):
                for deny in (False, True):
                    for key in (False, True):
                        yield dict(trajectory=mode, compare_args=compare_args, combine=combine, deny_check=deny, key_fields=key)


FAST = hsettings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(case_sets())
def test_features_equal_plain_definitions(cs):
    f = build_features(cs)
    for i, run in enumerate(cs.runs):
        invs = run.invocations
        for mode in ("exact", "in_order", "any_order"):
            for a in (False, True):
                want = sum((not never_ran(inv) and plain_invocation_match(inv.expected_calls, inv.actual_calls, mode, a)) for inv in invs) / len(invs)
                assert f.trajectory_scores(mode, "exact" if a else "ignore")[i] == want
        for fam in FAMILIES:
            for args in ARGS:
                want = sum(plain_family(inv, fam, args) for inv in invs) / len(invs)
                assert abs(f.trajectory_scores(fam, args)[i] - want) < 1e-12, (fam, args, run)
        want_f1 = sum(max(plain_f1(inv.answer, r) for r in inv.references) for inv in invs) / len(invs)
        assert abs(f.f1[i] - want_f1) < 1e-12
        called = {c.name for inv in invs for c in inv.actual_calls}
        assert {t for t, hit in zip(f.tool_names, f.tools_called[i]) if hit} == called
        assert f.human[i] == {"acceptable": 1, "unacceptable": 0, None: -1}[run.human_verdict]
        assert f.no_output[i] == any(never_ran(inv) for inv in invs)
        assert f.empty_answer[i] == any(blank(inv.answer) for inv in invs)


@FAST
@given(case_sets())
def test_evaluate_equals_plain_for_every_setting(cs):
    f = build_features(cs)
    parts = [plain_parts(r, cs.day_first, cs.id_pattern) for r in cs.runs]
    thresholds = {0.0, 1.0, 0.5}
    for v in f.f1:
        thresholds.add(float(v))  # a threshold equal to a score
        thresholds.add(min(1.0, float(v) + 1e-6))
    for combo in discrete_settings():
        for t in sorted(thresholds):
            s = Settings(f1_threshold=t, deny_tools=DENIED, **combo)
            ev = evaluate(f, s)
            want = np.array([plain_verdict(p, s) for p in parts])
            assert (ev.passed == want).all(), (s, ev.passed, want)


@FAST
@given(case_sets())
def test_evaluate_equals_plain_for_every_family_and_argument_mode(cs):
    f = build_features(cs)
    parts = [plain_parts(r, cs.day_first, cs.id_pattern) for r in cs.runs]
    for fam in FAMILIES:
        for args in ARGS:
            scores = {p["families"][(fam, args)] for p in parts}
            thresholds = {0.0, 1.0} | {round(v, 9) for v in scores} | {round(min(1.0, v + 1e-6), 9) for v in scores}
            for combine in ("all", "mean"):
                for t in sorted(thresholds):
                    s = Settings(trajectory=fam, args=args, trajectory_threshold=t, combine=combine, f1_threshold=0.5)
                    want = np.array([plain_verdict(p, s) for p in parts])
                    assert (evaluate(f, s).passed == want).all(), (s, [p["families"][(fam, args)] for p in parts])


@hsettings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case_sets())
def test_sweep_equals_plain_counts_for_all_6464_settings(cs):
    f = build_features(cs)
    base = Settings(deny_tools=DENIED)
    table = sweep(f, base, grid=ADK_GRID)
    cols = ["trajectory", "compare_args", "combine", "deny_check", "key_fields", "f1_threshold"]
    got = {tuple(r[:6]): tuple(r[6:]) for r in table[[*cols, "agree", "false_pass", "false_fail"]].itertuples(index=False)}
    assert len(got) == 6464
    human = [r.human_verdict for r in cs.runs]
    parts = [plain_parts(r, cs.day_first, cs.id_pattern) for r in cs.runs]
    for combo in discrete_settings():
        s = base.with_(**combo)
        for t in THRESHOLDS:
            s = SimpleNamespace(**{**vars(s), "f1_threshold": t})  # the same values, without re-validating 6,464 times
            passed = [plain_verdict(p, s) for p in parts]
            fp = sum(p and h == "unacceptable" for p, h in zip(passed, human))
            ff = sum(not p and h == "acceptable" for p, h in zip(passed, human))
            agree = sum((p and h == "acceptable") or (not p and h == "unacceptable") for p, h in zip(passed, human))
            key = (combo["trajectory"], combo["compare_args"], combo["combine"], combo["deny_check"], combo["key_fields"], t)
            assert got[key] == (agree, fp, ff), (key, got[key])


@hsettings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case_sets())
def test_sweep_equals_plain_counts_for_every_family_of_the_full_grid(cs):
    """Every family, argument mode, combine rule, deny-list and key-field setting of the full grid,
    at a few trajectory and F1 thresholds (the full 159,176 one by one would take minutes)."""
    f = build_features(cs)
    base = Settings(deny_tools=DENIED)
    f1_thresholds = (0.0, 0.3, 0.5, 1.0)
    grid = SweepGrid(FULL_GRID.families, FULL_GRID.arg_modes, FULL_GRID.arg_free_modes, (0.0, 0.5, 0.65, 0.7, 1.0))
    table = sweep(f, base, f1_thresholds, grid)
    got = {tuple(r[:7]): tuple(r[7:]) for r in table[[*SETTING_COLUMNS, "agree", "false_pass", "false_fail"]].itertuples(index=False)}
    assert len(got) == (5 * 4 * 2 + 4 * 4 * 6 + 2) * 4 * len(f1_thresholds)
    human = [r.human_verdict for r in cs.runs]
    parts = [plain_parts(r, cs.day_first, cs.id_pattern) for r in cs.runs]
    for key, counts in got.items():
        fam, args, combine, deny, keyf, tt, t = key
        s = SimpleNamespace(trajectory=fam, args=args, compare_args=args != "ignore", combine=combine, deny_check=deny,
                            deny_tools=DENIED, key_fields=keyf, trajectory_threshold=tt, f1_threshold=t,
                            mean_threshold=base.mean_threshold)
        passed = [plain_verdict(p, s) for p in parts]
        fp = sum(p and h == "unacceptable" for p, h in zip(passed, human))
        ff = sum(not p and h == "acceptable" for p, h in zip(passed, human))
        agree = sum((p and h == "acceptable") or (not p and h == "unacceptable") for p, h in zip(passed, human))
        assert counts == (agree, fp, ff), (key, counts)
