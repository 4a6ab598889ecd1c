"""Issue 10, kind 2: a score equal to a pass threshold passes, everywhere.

The issue's four runs, by hand (tokens counted as the F1 definition counts them):

* g1: 7 answer tokens, all among the 20 reference tokens -> F1 = 2*7/(7+20) = 14/27 = 0.518518...;
* g2: 4 of 6 -> 2*4/10 = 0.8;
* b1: no overlap -> 0;  b2: "alpha" only -> 2*1/(5+6) = 2/11 = 0.1818...

``calibrate`` at target precision 0.8 puts pass_above at the lowest score whose precision reaches
0.8: 14/27 (both good runs pass, both bad fail). ``score --f1-threshold <that>`` must then pass g1
and g2 (it used to fail g1 with "F1 0.52 < 0.52": the threshold was rounded up to 9 decimals).
"""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from explorer.app.state import Inputs
from explorer.cli import main
from explorer.core.evaluation.calibration import choose_bands
from explorer.core.evaluation.features import features_from_rows
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.sweep import sweep
from explorer.core.evaluation.verdicts import evaluate, reason
from explorer.core.scoring.cascade import CascadeFeatures, CascadeSettings, apply_bands_decided
from explorer.core.scoring.passmark import lowest_reaching, quantise, reaches, show_pair, show_threshold
from explorer.core.scoring.trajectory_metrics import N_SCORES

RUNS = [
    {"id": "g1", "answer": "a1 a2 a3 a4 a5 a6 a7", "reference": "a1 a2 a3 a4 a5 a6 a7 b1 b2 b3 b4 b5 b6 b7 b8 b9 c1 c2 c3 c4", "human_verdict": "acceptable"},
    {"id": "g2", "answer": "alpha beta gamma delta", "reference": "alpha beta gamma delta epsilon zeta", "human_verdict": "acceptable"},
    {"id": "b1", "answer": "x y", "reference": "alpha beta gamma delta epsilon zeta", "human_verdict": "unacceptable"},
    {"id": "b2", "answer": "alpha q r s t", "reference": "alpha beta gamma delta epsilon zeta", "human_verdict": "unacceptable"},
]


@pytest.fixture
def four_runs(tmp_path):
    path = tmp_path / "four.jsonl"
    path.write_text("".join(json.dumps({"expected_calls": "", "actual_calls": "", **r}) + "\n" for r in RUNS))
    return str(path)


def test_calibrated_band_reproduces_in_score(four_runs, capsys):
    assert main(["calibrate", "--cases", four_runs, "--scorer", "f1", "--format", "json"]) == 0
    bands = json.loads(capsys.readouterr().out)["bands"]
    assert bands["pass_above"] == quantise(14 / 27) == 0.518518518519
    assert bands["counts"]["pass"] == {"acceptable": 2, "unacceptable": 0}
    for threshold in (str(bands["pass_above"]), "0.5185185185185185", repr(14 / 27)):
        assert main(["score", "--cases", four_runs, "--trajectory", "none", "--f1-threshold", threshold, "--format", "json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert {r["id"]: r["verdict"] for r in out["runs"]} == {"g1": "pass", "g2": "pass", "b1": "fail", "b2": "fail"}
        assert out["summary"]["agree"] == 4


def test_calibrate_prints_the_threshold_in_full(four_runs, capsys):
    assert main(["calibrate", "--cases", four_runs, "--scorer", "f1"]) == 0
    out = capsys.readouterr().out
    assert "pass  >= 0.518518518519" in out and "fail  < 0.518518518519" in out


def test_a_failing_reason_never_reads_equal(four_runs, capsys):
    assert main(["score", "--cases", four_runs, "--trajectory", "none", "--f1-threshold", "0.519", "--format", "json"]) == 0
    g1 = json.loads(capsys.readouterr().out)["runs"][0]
    assert g1["reason"] == "F1 0.5185 < 0.519"  # 14/27 = 0.51851..., 4 decimals are the first that differ; the threshold as given


def test_settings_keep_a_threshold_taken_from_a_score():
    assert Settings(f1_threshold=14 / 27).f1_threshold == 0.518518518519
    assert reaches(14 / 27, Settings(f1_threshold=14 / 27).f1_threshold)
    # a slider's float noise: 41 * 0.01 = 0.41000000000000003 is the threshold 0.41
    assert Settings(f1_threshold=41 * 0.01).f1_threshold == 0.41 and reaches(41 / 100, 41 * 0.01)


def _features(f1, human, traj=None):
    n = len(f1)
    t = np.ones((n, N_SCORES)) if traj is None else np.repeat(np.asarray(traj, dtype=float)[:, None], N_SCORES, axis=1)
    return features_from_rows([None] * n, [f"r{i}" for i in range(n)], t, np.asarray(f1, dtype=float), [set()] * n,
                              np.full(n, "", dtype=object), np.asarray(human, dtype=np.int8), np.ones(n, dtype=np.int32))


def test_mean_equal_to_its_threshold_passes():
    # (1.0 + 0.6) / 2 is 0.8 by hand; in floats it may come out 0.7999999999999999
    f = _features([0.6], [1], traj=[1.0])
    ev = evaluate(f, Settings(combine="mean", mean_threshold=0.8))
    assert ev.passed[0] and reason(f, ev, 0) == "mean 0.80 >= 0.80 (trajectory 1.00, F1 0.60)"


def test_cascade_band_edges():
    # equal to pass_above passes; equal to fail_below is not failed (gray)
    cf = CascadeFeatures(np.array(["a", "b", "c"], dtype=object), np.zeros(3, bool), np.full(3, "", object), np.full(3, "", object),
                         quantise(np.array([0.85, 0.6, 0.5999999])), CascadeSettings(), "cosine", "test")
    res = apply_bands_decided(cf, 0.85, 0.6)
    assert res.passed.tolist() == [1, -1, 0]
    assert res.reason(cf, 1, 0.85, 0.6) == "cosine 0.60 in [0.60, 0.85): waiting for review"
    assert res.reason(cf, 2, 0.85, 0.6) == "cosine 0.5999999 < 0.60"


scores = st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=2, max_size=40)


@hsettings(max_examples=150, deadline=None)
@given(scores, st.data())
def test_calibrated_bands_reproduce_in_score_sweep_app_and_cascade(values, data):
    acceptable = data.draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values)))
    if not any(acceptable):
        acceptable[0] = True
    target = data.draw(st.sampled_from([0.5, 0.8, 1.0]))
    f1 = np.asarray(values)
    human = np.asarray(acceptable, dtype=np.int8)
    bands = choose_bands(f1, human == 1, target)
    f = _features(f1, human)
    if bands.pass_above is not None:
        want_pass = bands.counts["pass"]
        threshold = float(show_threshold(bands.pass_above))  # what calibrate prints, read back
        for settings in (Settings(trajectory="none", f1_threshold=threshold),
                         Inputs(("x",), Settings(trajectory="none", f1_threshold=bands.pass_above)).settings()):
            ev = evaluate(f, settings)
            assert int((ev.passed & (human == 1)).sum()) == want_pass["acceptable"]
            assert int((ev.passed & (human == 0)).sum()) == want_pass["unacceptable"]
        row = sweep(f, Settings(), thresholds=[threshold])
        row = row[(row["trajectory"] == "none") & (row["combine"] == "all") & ~row["deny_check"] & ~row["key_fields"]].iloc[0]
        assert (row.true_pass, row.false_pass) == (want_pass["acceptable"], want_pass["unacceptable"])
    if bands.pass_above is not None and bands.fail_below is not None:
        cf = CascadeFeatures(np.arange(len(f1)).astype(object), np.zeros(len(f1), bool), np.full(len(f1), "", object),
                             np.full(len(f1), "", object), quantise(f1), CascadeSettings(), "cosine", "test")
        res = apply_bands_decided(cf, float(show_threshold(bands.pass_above)), float(show_threshold(bands.fail_below)))
        for band, code in (("pass", 1), ("gray", -1), ("fail", 0)):
            assert int(((res.passed == code) & (human == 1)).sum()) == bands.counts[band]["acceptable"]
            assert int(((res.passed == code) & (human == 0)).sum()) == bands.counts[band]["unacceptable"]


@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_printed_comparison_never_reads_equal_when_it_fails(score, threshold):
    a, b = show_pair(score, threshold)
    if not reaches(score, threshold):
        assert a != b and float(a) < float(b)
    else:
        assert float(a) >= float(b)


@given(st.floats(-1.0, 1.0))
def test_quantise_is_idempotent_and_show_threshold_reads_back(x):
    assert quantise(quantise(x)) == quantise(x)
    assert quantise(float(show_threshold(x))) == quantise(x)


def _same_float(a: float, b: float) -> bool:
    return (a != a and b != b) or struct.pack("<d", a) == struct.pack("<d", b)


QUANTISE_EDGES = [
    0.0, -0.0, 1.0, 2 / 3, 14 / 27, 0.41000000000000003, (1.0 + 0.6) / 2, 1e-13, -1e-13, 5e-13, -5e-13,
    0.5e-12, 1.5e-12, 2.5e-12, -2.5e-12, 0.0000000000125, 1e300, -1e300, 1.8e296, 2.0**53 + 1.0, 2.0**52 + 0.5,
    5e-324, -5e-324, float("inf"), -float("inf"), float("nan"),
]


@given(st.one_of(st.floats(), st.floats(-1.0, 1.0), st.sampled_from(QUANTISE_EDGES),
                 st.integers(-(10**12), 10**12).map(lambda k: (k + 0.5) / 1e12)))
def test_quantise_of_a_float_is_numpy_round_bit_for_bit(x):
    """The rule is ``numpy.round(x, 12)`` (module docstring); a float is rounded without numpy
    (9 of 44 s of ``score --format csv`` over 100k runs went to ``np.round`` of one float): the
    same float, the sign of a zero included, ties to even, overflow to inf."""
    with np.errstate(over="ignore", invalid="ignore"):
        want = float(np.round(np.float64(x), 12))
    assert _same_float(quantise(x), want)
    assert _same_float(quantise(np.array([x]))[0], want)


def test_quantise_keeps_the_sign_of_zero_and_rounds_ties_to_even():
    assert str(quantise(-1e-13)) == "-0.0" and str(quantise(1e-13)) == "0.0"
    assert quantise(2.5e-12) == 2e-12 and quantise(3.5e-12) == 4e-12  # 2.5 and 3.5 (x 1e12 exactly) to even
    assert quantise(1e300) == float("inf") and quantise(-float("inf")) == -float("inf")


@given(st.lists(st.one_of(st.floats(0, 1), st.just(float("nan")), st.sampled_from([0.8, 0.7999999999999999, 14 / 27])),
                min_size=1, max_size=50),
       st.sampled_from([0.0, 0.8, 14 / 27, 0.41000000000000003, 1.0]))
def test_reaches_over_an_array_is_the_comparison_of_each_score(scores, threshold):
    """``reaches`` compares an array once with the lowest score that reaches the threshold (no
    array of quantised scores at 10M runs, issue 14): every element is what the scalar
    comparison, ``quantise(score) >= quantise(threshold)``, gives it."""
    arr = np.array(scores, dtype=np.float64)
    want = [bool(reaches(float(s), threshold)) for s in scores]  # one score at a time
    got = reaches(arr, threshold)
    assert got.dtype == bool and got.tolist() == want


@pytest.mark.parametrize("threshold", [0.0, -0.0, 0.8, 14 / 27, 0.41000000000000003, 1.0, 0.5 + 4e-13, 1e-13, -0.3, 2.5, 1e300])
def test_lowest_reaching_is_the_boundary_of_the_quantised_comparison(threshold):
    x0 = lowest_reaching(threshold)
    t = quantise(threshold)
    assert quantise(x0) >= t  # x0 reaches ...
    assert not quantise(float(np.nextafter(x0, -np.inf))) >= t  # ... and the float just below does not
    assert x0 <= threshold  # a score equal to the threshold always reaches it
    # by hand: 0.8 is reached from 0.8 - 5e-13 on (0.7999999999995 rounds to 0.8 at 12 places)
    if threshold == 0.8:
        assert 0.7999999999995 - 1e-16 <= x0 <= 0.7999999999995 + 1e-16


def test_lowest_reaching_a_threshold_nothing_reaches():
    assert np.isnan(lowest_reaching(float("nan")))
    assert reaches(np.array([0.0, 1.0, float("inf")]), float("nan")).tolist() == [False, False, False]


@given(st.floats(allow_nan=False), st.floats(-2.0, 2.0))
def test_a_score_reaches_exactly_from_the_lowest_reaching_on(x, threshold):
    assert (x >= lowest_reaching(threshold)) == bool(quantise(x) >= quantise(threshold))


# --- the mean's check looked up by trajectory value (passmark.lowest_reaching_mean) -------------

from explorer.core.scoring.passmark import lowest_reaching_mean  # noqa: E402


def test_lowest_reaching_mean_by_hand():
    # (0 + x) / 2 halves exactly, so with a trajectory score of 0 the answer must reach twice the
    # lowest mean that reaches 0.75; NaN or -inf never make a mean that reaches; +inf does with
    # any x but -inf (inf - inf is NaN); a NaN threshold is reached by nothing
    got = lowest_reaching_mean(np.array([0.0, np.nan, -np.inf, np.inf]), 0.75)
    assert got[0] == 2 * lowest_reaching(0.75) and 1.5 - 1e-12 <= got[0] < 1.5
    assert np.isnan(got[1]) and np.isnan(got[2])
    assert got[3] == -np.finfo(np.float64).max
    assert np.isnan(lowest_reaching_mean(np.array([0.0, 1.0]), float("nan"))).all()
    # the seed's mean rule: trajectory 1.0 and F1 0.6 make 0.7999999999999999, which reaches 0.8
    one = lowest_reaching_mean(np.array([1.0]), 0.8)[0]
    assert one <= 0.6 and reaches((1.0 + 0.6) / 2, 0.8)


@given(st.lists(st.one_of(st.floats(0, 1), st.sampled_from([0.0, 1.0, 1 / 3, 2 / 3, 0.5, float("nan")])), min_size=1, max_size=8),
       st.lists(st.one_of(st.floats(allow_nan=False), st.floats(0, 1), st.sampled_from([0.6, 0.8, 0.0, -0.0, 1.0])), min_size=1, max_size=20),
       st.sampled_from([0.0, 0.5, 0.75, 0.8, 14 / 27, 1.0, 0.41000000000000003]))
def test_an_answer_reaches_its_lowest_exactly_when_the_mean_reaches(values, xs, threshold):
    """``x >= lowest_reaching_mean(values, t)[k]`` is, for every answer score x, the mean rule's
    own comparison ``reaches((values[k] + x) / 2, t)``; also for x just below each boundary."""
    v = np.array(values, dtype=np.float64)
    lowest = lowest_reaching_mean(v, threshold)
    for k in range(v.size):
        probes = list(xs)
        if np.isfinite(lowest[k]):
            probes += [float(lowest[k]), float(np.nextafter(lowest[k], -np.inf))]
        for x in probes:
            with np.errstate(invalid="ignore", over="ignore"):
                want = bool(reaches((v[k] + x) / 2.0, threshold))
            assert bool(x >= lowest[k]) == want, (v[k], x, threshold)
