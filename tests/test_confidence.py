"""Intervals on the summary figures (issue 11 item 1): Wilson score intervals and the kappa bootstrap.

Reference values are worked out by hand from Wilson (1927): with z = 1.959964 (z² = 3.841459),
centre = (k + z²/2) / (n + z²) and half-width = z·sqrt(k(n-k)/n + z²/4) / (n + z²).
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import proportion_confint

from explorer.core.evaluation.confidence import (
    RESAMPLES, bootstrap_kappa, kappa_from_counts, summary_intervals, wilson, wilson_arrays,
)
from explorer.core.evaluation.metrics import agreement
from explorer.core.evaluation.verdicts import evaluate
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.features import build_features
from explorer.core.io.casefile import load_case_set
from explorer.commands.common import BUNDLED_CASES


@pytest.fixture(scope="module")
def bundled_features():
    return build_features(load_case_set(BUNDLED_CASES))


def test_wilson_four_of_ten_is_the_issues_worked_value():
    # centre (4 + 1.920729) / 13.841459 = 0.427753; half 1.959964 * sqrt(2.4 + 0.960365) / 13.841459 = 0.259573
    iv = wilson(4, 10)
    assert (round(iv.low, 3), round(iv.high, 3)) == (0.168, 0.687)
    assert iv.low == pytest.approx(0.427753 - 0.259573, abs=1e-5) and iv.high == pytest.approx(0.427753 + 0.259573, abs=1e-5)
    assert (iv.value, iv.n, iv.count) == (0.4, 10, 4)
    assert iv.text() == "4/10 · 95 % CI 17–69 %"


def test_wilson_edges_by_hand():
    # k = 0: low exactly 0, high = z² / (n + z²): 0/1 -> 3.841459 / 4.841459 = 0.793451
    assert wilson(0, 1).low == 0.0 and wilson(0, 1).high == pytest.approx(0.793451, abs=1e-6)
    # k = n: high exactly 1, low = n / (n + z²): 10/10 -> 10 / 13.841459 = 0.722467
    assert wilson(10, 10).high == 1.0 and wilson(10, 10).low == pytest.approx(0.722467, abs=1e-6)
    empty = wilson(0, 0)
    assert (empty.value, empty.low, empty.high, empty.n) == (None, None, None, 0)
    with pytest.raises(ValueError):
        wilson(11, 10)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 33, 100, 1000, 100_000])
def test_vectorised_wilson_equals_statsmodels_for_every_count(n):
    k = np.unique(np.linspace(0, n, min(n + 1, 501)).round().astype(int))
    low, high = wilson_arrays(k, n)
    ref_low, ref_high = proportion_confint(k, n, method="wilson")
    np.testing.assert_allclose(low, ref_low, atol=1e-12)
    np.testing.assert_allclose(high, ref_high, atol=1e-12)


@given(st.integers(1, 10_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_law_contains_the_estimate_and_matches_the_scalar(kn):
    k, n = kn
    low, high = wilson_arrays(np.array([k]), np.array([n]))
    iv = wilson(k, n)
    assert 0.0 <= low[0] <= k / n <= high[0] <= 1.0
    assert low[0] == pytest.approx(iv.low, abs=1e-12) and high[0] == pytest.approx(iv.high, abs=1e-12)


def test_kappa_from_counts_matches_agreement_and_statsmodels():
    cells = [(0, 1, 5, 4), (4, 1, 1, 4), (40, 10, 8, 42), (3, 0, 0, 7)]
    for tp, fp, fn, tn in cells:
        ref = cohens_kappa(np.array([[tp, fp], [fn, tn]]), return_results=False)
        assert kappa_from_counts(tp, fp, fn, tn) == pytest.approx(ref)
        passed = np.array([True] * (tp + fp) + [False] * (fn + tn))
        human = np.array([1] * tp + [0] * fp + [1] * fn + [0] * tn)
        assert agreement(passed, human).kappa == pytest.approx(float(kappa_from_counts(tp, fp, fn, tn)))
    # every run in one class on both sides: p_e = 1, kappa undefined
    assert np.isnan(kappa_from_counts(5, 0, 0, 0))


def test_bootstrap_of_a_perfect_table_has_no_interval():
    # TP 5, TN 5: every resample that has both classes agrees perfectly (kappa 1); the ~0.2 % with
    # one class only are undefined: the percentiles are [1, 1], no spread, so no interval and why
    iv = bootstrap_kappa(5, 0, 0, 5)
    assert (iv.value, iv.low, iv.high, iv.n) == (1.0, None, None, 10)
    assert iv.reason == "the evaluator and the person agree on every run, so kappa is 1 in every resample"
    assert iv.to_dict() == {"value": 1.0, "low": None, "high": None, "n": 10, "reason": iv.reason}
    assert iv.text() == f"1.00 · no interval ({iv.reason})"


def test_bootstrap_when_one_side_gives_one_verdict_has_no_interval():
    # the evaluator passes all 8 runs (TP 4, FP 4): p_o = 4/8 = p_e = (8·4 + 0)/64, kappa 0 in every
    # resample (the newcomer trial read "0.00 · 95 % CI 0.00 to 0.00" as certain)
    iv = bootstrap_kappa(4, 4, 0, 0)
    assert (iv.value, iv.low, iv.high) == (0.0, None, None)
    assert iv.reason == "every run has the same verdict from the evaluator, so kappa is 0 in every resample"
    # the person finds every run acceptable (TP 2, FN 1): kappa 0 again, the person named
    iv = bootstrap_kappa(2, 0, 1, 0)
    assert (iv.value, iv.low, iv.high) == (0.0, None, None)
    assert iv.reason == "every run has the same verdict from the person, so kappa is 0 in every resample"
    # two annotators: their names are the sides
    iv = bootstrap_kappa(3, 2, 0, 0, sides=("ana", "ben"))
    assert iv.reason == "every run has the same verdict from ana, so kappa is 0 in every resample"


def test_bootstrap_reasons_for_undefined_kappa():
    assert bootstrap_kappa(0, 0, 0, 0).reason == "no run to compare"
    assert bootstrap_kappa(5, 0, 0, 0).to_dict()["reason"] == (
        "kappa is undefined: the evaluator and the person give every run the same verdict")


def test_a_bootstrap_with_spread_keeps_its_interval_and_no_reason():
    iv = bootstrap_kappa(40, 10, 8, 42)
    assert iv.low < iv.value < iv.high and iv.reason == ""
    assert set(iv.to_dict()) == {"value", "low", "high", "n"}


def test_bootstrap_is_seeded_and_equals_resampling_runs():
    a = bootstrap_kappa(40, 10, 8, 42)
    assert a == bootstrap_kappa(40, 10, 8, 42)  # same seed, same interval
    assert RESAMPLES >= 2000
    # the multinomial draw is resampling runs: an explicit run-level bootstrap gives the same
    # percentiles up to Monte Carlo error
    rng = np.random.default_rng(123)
    cell_of_run = np.repeat([0, 1, 2, 3], [40, 10, 8, 42])
    idx = rng.integers(0, 100, size=(20_000, 100))
    counts = np.stack([(cell_of_run[idx] == c).sum(axis=1) for c in range(4)])
    kappas = kappa_from_counts(*counts)
    lo, hi = np.quantile(kappas[~np.isnan(kappas)], [0.025, 0.975])
    assert a.low == pytest.approx(lo, abs=0.03) and a.high == pytest.approx(hi, abs=0.03)
    assert a.low < a.value < a.high


def test_summary_intervals_at_the_opening_settings(bundled_features):
    ev = evaluate(bundled_features, Settings())
    iv = summary_intervals(ev.summary)
    assert (round(iv.agreement.low, 3), round(iv.agreement.high, 3)) == (0.168, 0.687)
    # precision 0/1 -> [0, 0.793451]; recall 0/5 -> [0, 3.841459/8.841459 = 0.434482]
    assert (iv.precision.count, iv.precision.n, iv.precision.high) == (0, 1, pytest.approx(0.793451, abs=1e-6))
    assert (iv.recall.count, iv.recall.n, iv.recall.high) == (0, 5, pytest.approx(0.434482, abs=1e-6))
    # false-pass rate 1/5 (E5 of the five unacceptable runs): centre 2.920730/8.841459 = 0.330345,
    # half 1.959964 * sqrt(0.8 + 0.960365) / 8.841459 = 0.294122
    assert iv.false_pass_rate.low == pytest.approx(0.330345 - 0.294122, abs=1e-5)
    assert iv.false_pass_rate.high == pytest.approx(0.330345 + 0.294122, abs=1e-5)
    # false-fail rate 5/5: low = 5 / 8.841459 = 0.565518, high 1
    assert (iv.false_fail_rate.low, iv.false_fail_rate.high) == (pytest.approx(0.565518, abs=1e-6), 1.0)
    assert iv.kappa.value == pytest.approx(-0.2) and iv.kappa.low <= -0.2 <= iv.kappa.high
    d = iv.to_dict()
    assert set(d["agreement"]) == {"value", "low", "high", "n"}
    assert "Wilson" in d["method"]["proportions"] and "bootstrap" in d["method"]["kappa"]


def test_summary_intervals_are_kept_per_table_and_equal_a_fresh_computation(bundled_features):
    # issue 15: the intervals of a 2x2 table are kept; a kept answer must equal what the
    # definitions give afresh (Wilson for agreement, the seeded bootstrap for kappa)
    ev = evaluate(bundled_features, Settings(trajectory="any_order"))
    s = ev.summary
    first, again = summary_intervals(s), summary_intervals(s)
    assert again is first  # the same table: the kept answer
    assert first.agreement == wilson(s.true_pass + s.true_fail, s.labelled)
    assert first.kappa == bootstrap_kappa(s.true_pass, s.false_pass, s.false_fail, s.true_fail)
    other = summary_intervals(evaluate(bundled_features, Settings()).summary)  # 4/10, not 6/10
    assert other.agreement.count == 4 and first.agreement.count == 6
