"""Unlabelled runs (Rogan–Gladen, issue 11 item 5) and how many labels are enough (item 6)."""

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import norm

from explorer.cli import main
from explorer.core.evaluation.confidence import wilson
from explorer.core.evaluation.metrics import agreement
from explorer.core.evaluation.prevalence import rogan_gladen
from explorer.core.evaluation.sample_size import labels_needed, runs_needed

Z = 1.959964


def _runs(acc_pass, acc_fail, unacc_pass, unacc_fail, unl_pass, unl_fail):
    passed = np.array([True] * acc_pass + [False] * acc_fail + [True] * unacc_pass + [False] * unacc_fail
                      + [True] * unl_pass + [False] * unl_fail)
    human = np.array([1] * (acc_pass + acc_fail) + [0] * (unacc_pass + unacc_fail) + [-1] * (unl_pass + unl_fail), dtype=np.int8)
    return passed, human


def test_rogan_gladen_by_hand():
    # Se = 8/10, Sp = 9/10, unlabelled pass rate 10/20 = 0.5:
    # corrected = (0.5 + 0.9 - 1)/(0.8 + 0.9 - 1) = 0.4/0.7 = 0.571429
    # Var = [0.25/20 + c²·0.16/10 + (1-c)²·0.09/10]/0.49 = [0.0125 + 0.0052245 + 0.0016531]/0.49 = 0.0395461
    # half = 1.959964·sqrt(0.0395461) = 0.389762 -> [0.181667, 0.961191]
    r = rogan_gladen(*_runs(8, 2, 1, 9, 10, 10))
    assert (r.pass_rate.count, r.pass_rate.n) == (10, 20)
    assert (r.sensitivity, r.specificity) == (0.8, 0.9)
    assert r.corrected.value == pytest.approx(0.4 / 0.7)
    assert r.corrected.low == pytest.approx(0.181667, abs=1e-5) and r.corrected.high == pytest.approx(0.961191, abs=1e-5)
    assert r.note == ""


def test_rogan_gladen_clipped_and_undefined():
    # pass rate 1/20 = 0.05 < 1 - Sp = 0.1: (0.05 - 0.1)/0.7 = -0.0714 -> clipped to 0, said so
    r = rogan_gladen(*_runs(8, 2, 1, 9, 1, 19))
    assert r.corrected.value == 0.0 and r.raw_corrected == pytest.approx(-0.05 / 0.7)
    assert "outside [0, 1]" in r.note and "clipped" in r.note
    # Se = 0.4, Sp = 0.5: Se + Sp - 1 = -0.1 <= 0 -> undefined
    u = rogan_gladen(*_runs(4, 6, 5, 5, 3, 3))
    assert u.corrected is None and "-0.10 <= 0" in u.note
    # no unlabelled run: nothing to say
    assert rogan_gladen(*_runs(4, 6, 5, 5, 0, 0)) is None
    # disputed runs left out when the caller passes the unlabelled mask
    passed, human = _runs(8, 2, 1, 9, 10, 10)
    mask = human < 0
    mask[-1] = False
    assert rogan_gladen(passed, human, mask).pass_rate.n == 19


def test_rogan_gladen_with_no_spread_has_no_interval():
    # Se = 2/2, Sp = 2/2, pass rate 0/3: every rate is 0 or 1, so the delta-method variance is
    # 0 + 0·0 + 1·0 = 0 and the Wald "interval" is 0–0 %: not an interval (the trial read it as certain)
    r = rogan_gladen(*_runs(2, 0, 0, 2, 0, 3))
    assert r.corrected.value == 0.0 and (r.corrected.low, r.corrected.high) == (None, None)
    assert r.corrected.reason == ("too few runs to show a spread: the pass rate on the unlabelled runs (0/3), the "
                                  "true-pass rate (2/2) and the true-fail rate (2/2) are each 0 % or 100 %, so the "
                                  "delta-method variance is 0")
    assert r.to_dict()["corrected"] == {"value": 0.0, "low": None, "high": None, "n": 3, "reason": r.corrected.reason}


def test_runs_needed_closed_forms():
    # p = 0.5: w(n) = z / (2 sqrt(n + z²)) <= h  <=>  n >= z²/(4h²) - z² = 384.146 - 3.841 = 380.3 -> 381
    assert runs_needed(0.5, 0.05) == math.ceil(Z * Z / (4 * 0.05**2) - Z * Z) == 381
    # p = 0 (or 1): w(n) = z² / (2 (n + z²)) <= h  <=>  n >= z²/(2h) - z² = 38.415 - 3.841 = 34.6 -> 35
    assert runs_needed(0.0, 0.05) == runs_needed(1.0, 0.05) == 35
    assert runs_needed(0.5, 0.10) == math.ceil(Z * Z / (4 * 0.01) - Z * Z) == 93
    with pytest.raises(ValueError):
        runs_needed(0.5, 0.0)
    # the narrowest half-width planned for, ±0.01 points: z²/(4h²) - z² = 96,036,470.5 - 3.8 -> 96,036,467
    # (z to full precision here: Z's six decimals move n by 2 at this size)
    z = float(norm.ppf(0.975))
    assert runs_needed(0.5, 1e-4) == math.ceil(z * z / (4 * 1e-4**2) - z * z) == 96_036_467
    for h in (9.9e-5, 1e-155, 1e-300):  # 1e-155 raised OverflowError, 1e-300 ZeroDivisionError
        with pytest.raises(ValueError, match="half_width must be at least 0.0001"):
            runs_needed(0.5, h)


@pytest.mark.parametrize("command", ["score", "calibrate"])
@pytest.mark.parametrize("h", ["1e-155", "1e-300", "0.00009"])
def test_a_half_width_too_small_to_plan_for_is_a_usage_error(command, h, capsys):
    # score --half-width 1e-155 ended with an OverflowError traceback, 1e-300 with ZeroDivisionError
    with pytest.raises(SystemExit) as stop:
        main([command, "--half-width", h])
    assert stop.value.code == 2
    assert f"argument --half-width: must be at least 0.0001 (±0.01 points) and under 0.5, got {h}" in capsys.readouterr().err


@given(st.floats(0.0, 1.0), st.sampled_from([0.02, 0.05, 0.1, 0.2]))
def test_runs_needed_is_the_smallest_n_reaching_the_half_width(p, h):
    n = runs_needed(p, h)

    def half(n):  # Wilson half-width at proportion p with n runs (Wilson 1927)
        return Z * math.sqrt(p * (1 - p) * n + Z * Z / 4) / (n + Z * Z)

    assert half(n) <= h + 1e-9
    assert n == 1 or half(n - 1) > h - 1e-9


def test_labels_needed_at_the_opening_settings_and_in_the_cli(capsys):
    passed = np.array([False] * 4 + [True] + [False] * 5)
    human = np.array([1, 1, 1, 0, 0, 0, 1, 1, 0, 0], dtype=np.int8)
    need = labels_needed(agreement(passed, human))
    assert (need.acceptable.have, need.acceptable.rate, need.acceptable.needed) == (5, 0.0, 35)
    assert (need.unacceptable.have, need.unacceptable.rate) == (5, 0.8)
    assert need.unacceptable.needed == runs_needed(0.8, 0.05) and need.acceptable.needed_worst_case == 381
    assert main(["score", "--format", "json", "--half-width", "0.1"]) == 0
    s = json.loads(capsys.readouterr().out)["summary"]
    assert s["labels_needed"]["half_width"] == 0.1 and s["labels_needed"]["acceptable"]["needed_worst_case"] == 93
    assert main(["calibrate", "--format", "json"]) == 0
    need = json.loads(capsys.readouterr().out)["labels_needed"]
    assert (need["acceptable"]["have"], need["unacceptable"]["have"]) == (12, 8)  # the bundled 20 pairs
    with pytest.raises(SystemExit) as stop:  # argparse's usage error
        main(["score", "--half-width", "0.7"])
    assert stop.value.code == 2


def test_score_reports_unlabelled_runs(tmp_path, capsys):
    # clear E1 and E4's labels: the opening settings fail both
    labels = tmp_path / "labels.csv"
    labels.write_text("run_id,human_verdict\nE1,\nE4,\n")
    assert main(["score", "--labels", str(labels), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    u = out["unlabelled_runs"]
    assert (u["runs"], u["passed"]) == (2, 0)
    # labelled: acceptable E2 E3 E7 E8 all failed -> Se = 0; unacceptable E5 passed, E6 E9 E10 failed -> Sp = 0.75;
    # Se + Sp - 1 = -0.25 <= 0 -> undefined
    assert u["corrected"] is None and "-0.25 <= 0" in u["note"]
    assert out["summary"]["unlabelled"] == 2
    assert wilson(0, 2).to_dict() == u["pass_rate"]
