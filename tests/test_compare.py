"""Comparing two settings (issue 11 item 3): paired interval, McNemar's exact test, the CLI."""

import json

import numpy as np
import pytest

from explorer.cli import main
from explorer.commands.common import BUNDLED_CASES
from explorer.core.evaluation.features import build_features
from explorer.core.evaluation.verdicts import evaluate
from explorer.core.io.casefile import load_case_set
from explorer.core.evaluation.compare import compare_evaluations, compare_verdicts, mcnemar_exact_p, mcnemar_words, paired_difference_interval
from explorer.core.evaluation.settings import Settings
from explorer.core.io.exports import dumps_settings


def test_mcnemar_exact_by_hand():
    # X ~ Bin(4, 1/2): P(X <= 1) + P(X >= 3) = (1 + 4 + 4 + 1)/16 = 0.625
    assert mcnemar_exact_p(3, 1) == pytest.approx(10 / 16)
    # 3 vs 0: P(X = 0) + P(X = 3) for Bin(3, 1/2) = 2/8 = 0.25 (the example)
    assert mcnemar_exact_p(3, 0) == pytest.approx(0.25)
    # 10 vs 0: 2/1024
    assert mcnemar_exact_p(0, 10) == pytest.approx(2 / 1024)
    assert mcnemar_exact_p(0, 0) == 1.0
    assert mcnemar_words(3, 0, 0.25) == "with 3 runs flipped one way and 0 the other, p = 0.25: not enough runs to tell"
    assert mcnemar_words(0, 10, 2 / 1024).endswith("unlikely to be chance (p < 0.05)")
    assert mcnemar_words(0, 0, 1.0, labelled=5) == "no labelled run flipped: the two settings agree with people on the same runs"


def test_with_no_labelled_run_the_test_says_there_is_nothing_to_test():
    # a newcomer trial: on an unlabelled set the reading said the two settings "agree with people
    # on the same runs", of which there are none
    ids = np.array(["r1", "r2"])
    c = compare_verdicts(ids, np.array([True, False]), np.array([False, False]), np.array([-1, -1], dtype=np.int8))
    assert c.labelled == 0
    assert c.reading == "no labelled run: nothing to test (label runs to compare the two settings against people)"


def test_newcombe_paired_interval_matches_the_published_example():
    # Fagerland, Lydersen & Laake (2017), Statistical Analysis of Contingency Tables, ch. 8: Cavo et
    # al. (2012) table [[59, 6], [16, 80]]; Newcombe square-and-add: -0.0621 (95 % CI -0.1186 to -0.0046)
    iv = paired_difference_interval(59, 6, 16, 80)
    assert (round(iv.value, 4), round(iv.low, 4), round(iv.high, 4)) == (-0.0621, -0.1186, -0.0046)
    assert iv.n == 161


def test_newcombe_interval_law_contains_the_difference():
    rng = np.random.default_rng(1)
    for _ in range(200):
        cells = rng.integers(0, 30, size=4)
        if cells.sum() == 0:
            continue
        iv = paired_difference_interval(*map(int, cells))
        assert -1.0 <= iv.low <= iv.value <= iv.high <= 1.0


def test_compare_verdicts_counts_flips_only_on_labelled_runs():
    ids = ["a", "b", "c", "d", "e"]
    human = np.array([1, 0, 1, -1, 0], dtype=np.int8)
    a = np.array([False, False, True, True, True])
    b = np.array([True, True, True, False, True])
    c = compare_verdicts(ids, a, b, human)
    # a: wrong under A (fail, acceptable), right under B -> fixed; b: right -> wrong -> broken;
    # d has no verdict; e wrong both
    assert (c.fixed, c.broken, c.changed_unlabelled) == (("a",), ("b",), ("d",))
    assert c.labelled == 4 and c.p_value == 1.0
    with pytest.raises(ValueError):
        compare_verdicts(ids, a[:4], b, human)


@pytest.fixture
def settings_files(tmp_path):
    a = tmp_path / "a.json"
    b = tmp_path / "b.json"
    a.write_text(dumps_settings(Settings()))
    b.write_text(dumps_settings(Settings(trajectory="any_order")))
    return str(a), str(b)


def test_compare_cli_opening_vs_any_order(capsys, settings_files):
    a, b = settings_files
    assert main(["compare", "--settings", a, "--settings", b, "--format", "json"]) == 0
    c = json.loads(capsys.readouterr().out)["comparison"]
    # opening: right on E4 E6 E9 E10; ANY_ORDER: right on E2 E3 E4 E8 E9 E10
    assert c["fixed"] == ["E2", "E3", "E8"] and c["broken"] == ["E6"]
    assert c["mcnemar_exact_p"] == 0.625
    assert (c["agreement_a"]["value"], c["agreement_b"]["value"], c["change"]["value"]) == (0.4, 0.6, 0.2)
    assert c["change"]["low"] < 0 < c["change"]["high"]
    assert main(["compare", "--settings", a, "--settings", b]) == 0
    out = capsys.readouterr().out
    assert "fixed (wrong under A, right under B): E2, E3, E8" in out
    assert "broken (right under A, wrong under B): E6" in out
    assert "with 3 runs flipped one way and 1 the other, p = 0.625: not enough runs to tell" in out


def test_compare_needs_two_settings(capsys, settings_files):
    assert main(["compare", "--settings", settings_files[0]]) == 2
    assert "exactly twice" in capsys.readouterr().err


def test_compare_evaluations_is_the_core_call_the_app_makes():
    features = build_features(load_case_set(BUNDLED_CASES))
    c = compare_evaluations(features, evaluate(features, Settings()), evaluate(features, Settings(trajectory="any_order")))
    assert (c.fixed, c.broken, c.p_value) == (("E2", "E3", "E8"), ("E6",), 0.625)


def test_compare_header_says_which_verdicts_are_a_runs_single_verdict(capsys, settings_files, tmp_path):
    # ana and bo label E1 and E2 alike, ana alone E3: at --min-labels 2 E1, E2 by consensus, E3 too
    # few labels, E4..E10 their single human_verdict from the bundled file (7)
    multi = tmp_path / "multi.csv"
    multi.write_text("run_id,annotator,human_verdict,note\nE1,ana,acceptable,\nE1,bo,acceptable,\n"
                     "E2,ana,unacceptable,\nE2,bo,unacceptable,\nE3,ana,acceptable,\n", encoding="utf-8")
    a, b = settings_files
    assert main(["compare", "--settings", a, "--settings", b, "--labels", str(multi), "--min-labels", "2"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith("; ground truth: consensus; 9 runs with a verdict: 2 by consensus, 7 by the run's single "
                          "human_verdict (no annotator labels; --min-labels does not apply to them)")
    assert main(["compare", "--settings", a, "--settings", b, "--labels", str(multi), "--min-labels", "2", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["comparison"]["labelled"], report["from_annotators"], report["from_single_verdict"]) == (9, 2, 7)
