"""Several annotators (issue 11 item 2): loading per-annotator labels, consensus ground truth and
disputed runs, inter-annotator agreement against hand-worked and published values, human ceiling.

Fixtures: ``labels_two_annotators.csv`` gives ana the bundled verdicts and ben the same except
E3 (ben: unacceptable) and E6 (ben: acceptable); ``labels_three_annotators.csv`` adds cy, who
agrees with ana except E5 (cy: acceptable).
"""

import json
import math
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from statsmodels.stats.inter_rater import fleiss_kappa

from explorer.cli import main
from explorer.commands.common import BUNDLED_CASES
from explorer.core.evaluation.annotators import (
    alpha_nominal_weighted, annotations_from_labels, annotations_of, bootstrap_table, fleiss_kappa_weighted,
    ceiling_difference, ceiling_reading, ceiling_verdict, ground_truth, human_ceiling, inter_annotator,
    percent_agreement_weighted,
)
from explorer.core.evaluation.confidence import Interval, wilson
from explorer.core.evaluation.features import build_features
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.verdicts import evaluate
from explorer.core.io.casefile import case_set_to_data, case_set_from_data, load_case_set
from explorer.core.io.errors import LoadError
from explorer.core.io.loaders.flat import jsonl_from_text, csv_from_text, dumps_csv, dumps_jsonl
from explorer.core.io.loaders.labels import (
    apply_labels, dumps_annotated_labels, label_file_from_text, labels_from_text, load_label_file,
)
from explorer.core.io.model import AnnotatorLabel, majority_verdict

FIXTURES = Path(__file__).parent / "fixtures"
TWO = FIXTURES / "labels_two_annotators.csv"
THREE = FIXTURES / "labels_three_annotators.csv"
IDS = [f"E{i}" for i in range(1, 11)]

# Wikipedia, "Fleiss' kappa", worked example: 10 subjects, 14 raters, 5 categories; P̄ = 0.378,
# P̄_e = 0.213, kappa = 0.210.
WIKIPEDIA_FLEISS = np.array([
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
])
# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C: 4 observers,
# 12 units, values 1..5, missing data; nominal alpha = 0.743.
NAN = np.nan
KRIPPENDORFF_2011 = np.array([
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
])


def _value_counts(reliability: np.ndarray) -> np.ndarray:
    values = np.unique(reliability[~np.isnan(reliability)])
    return np.stack([(reliability == v).sum(axis=0) for v in values], axis=1)


def _annotations(path):
    return annotations_from_labels(IDS, load_label_file(str(path)).annotated)


# --- published worked examples -----------------------------------------------------------------


def test_fleiss_matches_the_wikipedia_worked_example():
    ones = np.ones(len(WIKIPEDIA_FLEISS))
    assert round(fleiss_kappa(WIKIPEDIA_FLEISS), 3) == 0.210
    assert round(float(fleiss_kappa_weighted(WIKIPEDIA_FLEISS, ones)), 3) == 0.210
    assert round(float(percent_agreement_weighted(WIKIPEDIA_FLEISS, ones)), 3) == 0.378


def test_alpha_matches_krippendorffs_worked_example():
    assert round(krippendorff.alpha(reliability_data=KRIPPENDORFF_2011, level_of_measurement="nominal"), 3) == 0.743
    counts = _value_counts(KRIPPENDORFF_2011)
    pairable = counts[counts.sum(axis=1) >= 2]
    assert round(float(alpha_nominal_weighted(pairable, np.ones(len(pairable)))), 3) == 0.743


def test_weighted_statistics_equal_the_libraries_on_resampled_units():
    # a bootstrap weight vector is the same as listing each unit that many times
    rng = np.random.default_rng(7)
    counts = _value_counts(KRIPPENDORFF_2011)
    pairable = counts[counts.sum(axis=1) >= 2]
    for _ in range(20):
        w = rng.multinomial(len(pairable), np.ones(len(pairable)) / len(pairable))
        listed = np.repeat(pairable, w, axis=0)
        if np.count_nonzero(listed.sum(axis=0)) < 2:
            continue
        ref = krippendorff.alpha(value_counts=listed, level_of_measurement="nominal")
        assert float(alpha_nominal_weighted(pairable, w)) == pytest.approx(ref)
        wf = rng.multinomial(10, np.ones(10) / 10)
        assert float(fleiss_kappa_weighted(WIKIPEDIA_FLEISS, wf)) == pytest.approx(fleiss_kappa(np.repeat(WIKIPEDIA_FLEISS, wf, axis=0)))


def test_row_patterns_equal_numpy_unique_rows():
    from explorer.core.evaluation.annotators import _row_patterns

    rng = np.random.default_rng(3)
    table = rng.integers(0, 6, size=(500, 3))
    patterns, mult = _row_patterns(table)
    ref_patterns, ref_mult = np.unique(table, axis=0, return_counts=True)
    order = np.lexsort(patterns.T[::-1])
    np.testing.assert_array_equal(patterns[order], ref_patterns)
    np.testing.assert_array_equal(mult[order], ref_mult)


def test_bootstrap_table_is_seeded_and_brackets_the_value():
    a = bootstrap_table(WIKIPEDIA_FLEISS, fleiss_kappa_weighted, 0.20993)
    assert a == bootstrap_table(WIKIPEDIA_FLEISS, fleiss_kappa_weighted, 0.20993)
    assert a.low < 0.20993 < a.high and a.n == 10


def test_bootstrap_table_with_no_spread_has_no_interval():
    # every run's two labels agree (2,0) or (0,2): percent agreement and alpha are 1 in every
    # resample (or undefined), so the percentiles are [1, 1]: no interval, and why
    table = np.array([[2, 0], [0, 2], [2, 0]])
    a = bootstrap_table(table, alpha_nominal_weighted, 1.0, name="Krippendorff's alpha")
    assert (a.value, a.low, a.high) == (1.0, None, None)
    assert a.reason == "the annotators agree on every run, so Krippendorff's alpha is 1 in every resample"
    assert bootstrap_table(table[:0], alpha_nominal_weighted, None).reason == "no run with two or more labels"


def test_cohen_kappa_of_two_annotators_when_one_gives_one_verdict():
    # ana says acceptable on all 4 runs, ben on 2: Cohen's kappa is 0 in every resample
    labels = {f"E{i}": (AnnotatorLabel("ana", "acceptable"), AnnotatorLabel("ben", "acceptable" if i < 3 else "unacceptable"))
              for i in range(1, 5)}
    inter = inter_annotator(annotations_from_labels([f"E{i}" for i in range(1, 5)], labels))
    k = inter.cohen_kappa
    assert (k.value, k.low, k.high) == (0.0, None, None)
    assert k.reason == "every run has the same verdict from ana, so kappa is 0 in every resample"
    assert inter.to_dict()["cohen_kappa"]["reason"] == k.reason


# --- two annotators, by hand -------------------------------------------------------------------


def test_two_annotators_by_hand():
    ann = _annotations(TWO)
    assert ann.annotators == ("ana", "ben")
    inter = inter_annotator(ann)
    # 8 of 10 runs agree (E3, E6 differ). 2×2 (ana × ben): both acceptable 4 (E1 E2 E7 E8), ana only 1
    # (E3), ben only 1 (E6), both unacceptable 4. p_o = 0.8, p_e = 0.5·0.5 + 0.5·0.5 = 0.5,
    # kappa = (0.8 - 0.5) / (1 - 0.5) = 0.6
    assert (inter.percent_agreement.count, inter.percent_agreement.n) == (8, 10)
    assert inter.percent_agreement.method == "wilson"
    assert inter.cohen_kappa.value == pytest.approx(0.6)
    assert inter.cohen_kappa.low <= 0.6 <= inter.cohen_kappa.high
    assert inter.fleiss_kappa is None  # two annotators: Cohen's kappa
    # alpha: n = 20 pairable values, 10 each; each disagreeing unit adds o_AU = o_UA = 1 -> 4;
    # alpha = 1 - 19·4 / (400 - 100 - 100) = 0.62
    assert inter.krippendorff_alpha.value == pytest.approx(0.62)
    assert [(p.a, p.b, p.n, p.agree) for p in inter.pairwise] == [("ana", "ben", 10, 8)]


def test_consensus_ground_truth_and_disputed_runs():
    ann = _annotations(TWO)
    truth = ground_truth(ann)
    # E3 and E6: one label each way -> tie -> disputed, no verdict
    assert list(ann.run_ids[truth.disputed]) == ["E3", "E6"]
    assert list(truth.dispute) == [0, 0, 1, 0, 0, 1, 0, 0, 0, 0]
    assert list(truth.human) == [1, 1, -1, 0, 0, -1, 1, 1, 0, 0]
    assert not truth.unlabelled.any()
    d = truth.to_dict(ann.run_ids)
    assert d["disputed"] == {"n": 2, "ties": ["E3", "E6"], "too_few_labels": [], "ids": ["E3", "E6"]}
    assert d["labelled"] == 8


def test_min_labels_and_one_annotator():
    labels = {
        "E1": (AnnotatorLabel("ana", "acceptable"),),  # one label
        "E2": (AnnotatorLabel("ana", "acceptable"), AnnotatorLabel("ben", "unacceptable"), AnnotatorLabel("cy", "unacceptable")),
    }
    ann = annotations_from_labels(["E1", "E2", "E3"], labels)
    t = ground_truth(ann, min_labels=2)
    assert list(t.human) == [-1, 0, -1] and list(t.dispute) == [2, 0, 0]  # E1 too few; E3 nobody
    # E1 has one label and nobody disagrees: too few labels, not disputed
    assert list(t.too_few) == [True, False, False] and not t.disputed.any()
    assert list(t.unlabelled) == [False, False, True]
    d = t.to_dict(["E1", "E2", "E3"])
    assert d["disputed"]["n"] == 0 and d["disputed"]["ids"] == [] and d["too_few_labels"] == {"n": 1, "ids": ["E1"]}
    assert list(ground_truth(ann, min_labels=1).human) == [1, 0, -1]
    assert list(ground_truth(ann, fallback=np.array([0, 0, 1], dtype=np.int8)).human) == [1, 0, 1]
    ben = ground_truth(ann, annotator="ben")
    assert list(ben.human) == [-1, 0, -1] and not ben.disputed.any() and ben.source == "annotator ben"
    with pytest.raises(ValueError, match="no annotator named 'zoe' \\(annotators: ana, ben, cy\\)"):
        ground_truth(ann, annotator="zoe")
    with pytest.raises(ValueError):
        ground_truth(ann, min_labels=0)


@given(st.lists(st.lists(st.sampled_from(["acceptable", "unacceptable", None]), min_size=3, max_size=3), min_size=1, max_size=30))
def test_vectorised_consensus_equals_the_per_run_majority(rows):
    ids = [f"r{i}" for i in range(len(rows))]
    labels = {rid: tuple(AnnotatorLabel(f"a{j}", v) for j, v in enumerate(row) if v) for rid, row in zip(ids, rows)}
    truth = ground_truth(annotations_from_labels(ids, labels))
    codes = {"acceptable": 1, "unacceptable": 0, None: -1}
    assert list(truth.human) == [codes[majority_verdict(labels[r])] for r in ids]
    ties = [bool(labels[r]) and majority_verdict(labels[r]) is None for r in ids]
    assert list(truth.disputed) == ties


def test_human_ceiling_with_two_annotators():
    features = build_features(load_case_set(BUNDLED_CASES))
    ann = _annotations(TWO)
    truth = ground_truth(ann)
    ev = evaluate(features.with_human(truth.human), Settings())
    # opening settings pass only E5; against the consensus (E3, E6 out): right on E4, E9, E10 -> 3/8
    assert (ev.summary.agree, ev.summary.labelled) == (3, 8)
    ceiling = human_ceiling(ev.passed, ann, truth, inter_annotator(ann))
    assert (ceiling.evaluator_vs_truth.count, ceiling.evaluator_vs_truth.n) == (3, 8)
    assert ceiling.annotators_vs_each_other.value == pytest.approx(0.8)
    # vs ana (the bundled verdicts) 4/10; vs ben the evaluator (fails all but E5) is right where ben
    # says unacceptable and it fails: E3, E4, E9, E10 -> 4/10 (E5 passed but unacceptable, E6 failed but acceptable)
    assert (ceiling.evaluator_vs_annotator["ana"].count, ceiling.evaluator_vs_annotator["ben"].count) == (4, 4)
    # 3/8 against 8/10: Newcombe's interval of the difference is about -70 to +2 points, 0 inside:
    # the runs cannot tell (the point values alone read "room to improve")
    assert ceiling.verdict == "cannot tell" and "room to improve" not in ceiling.reading
    assert ceiling.reading.endswith(": not enough runs to tell whether the scorer is as good as the people "
                                    "(difference -43 points, Newcombe 95 % CI -70 to +2)")  # 0.375 - 0.8 = -0.425


def _newcombe(k1, n1, k2, n2):
    """Newcombe 1998 method 10 from the two Wilson intervals, by its definition."""
    a, b = wilson(k1, n1), wilson(k2, n2)
    d = a.value - b.value
    return d - math.hypot(a.value - a.low, b.high - b.value), d + math.hypot(a.high - a.value, b.value - b.low)


def test_human_ceiling_of_the_trial_says_there_are_not_enough_runs():
    # two annotators agree on 2 of the 4 runs both labelled (R0, R1; R2, R3 tie, disputed); the
    # evaluator matches the consensus on 4 of the 8 runs with one: 4/8 against 2/4 read "as good as"
    rows = [("acceptable", "acceptable", True), ("unacceptable", "unacceptable", True),
            ("acceptable", "unacceptable", True), ("unacceptable", "acceptable", False),
            ("acceptable", None, True), ("acceptable", None, False), ("unacceptable", None, True),
            ("unacceptable", None, False), ("acceptable", None, True), ("unacceptable", None, True)]
    ids = [f"R{i}" for i in range(len(rows))]
    labels = {rid: tuple(AnnotatorLabel(name, v) for name, v in (("ana", a), ("ben", b)) if v) for rid, (a, b, _) in zip(ids, rows)}
    ann = annotations_from_labels(ids, labels)
    truth = ground_truth(ann)
    passed = np.array([p for _, _, p in rows])
    ceiling = human_ceiling(passed, ann, truth, inter_annotator(ann))
    assert (ceiling.evaluator_vs_truth.count, ceiling.evaluator_vs_truth.n) == (4, 8)
    assert (ceiling.annotators_vs_each_other.count, ceiling.annotators_vs_each_other.n) == (2, 4)
    # Wilson 4/8 = [0.215, 0.785], 2/4 = [0.150, 0.850]: ±sqrt(0.285² + 0.35²) = ±0.451
    low, high = _newcombe(4, 8, 2, 4)
    assert (ceiling.difference.low, ceiling.difference.high) == (pytest.approx(low), pytest.approx(high))
    assert low == pytest.approx(-0.4512, abs=1e-4)
    assert ceiling.verdict == "cannot tell" and "as good as the people are" not in ceiling.reading
    assert "not enough runs to tell" in ceiling.reading
    d = ceiling.to_dict()
    assert d["verdict"] == "cannot tell" and d["difference"]["low"] == pytest.approx(low, abs=1e-6) and "Newcombe" in d["method"]


@pytest.mark.parametrize("k1, n1, k2, n2, verdict", [
    (50, 100, 90, 100, "worse"),          # about -52 to -28 points: 0 left out
    (100, 100, 95, 100, "better"),        # about +0.3 to +11 points
    (990, 1000, 985, 1000, "as good as"),  # about -0.5 to +1.6 points: within ±5
    (80, 100, 80, 100, "cannot tell"),    # about ±11 points: 0 inside, wider than ±5
])
def test_ceiling_verdict_only_when_the_interval_of_the_difference_supports_it(k1, n1, k2, n2, verdict):
    diff = ceiling_difference(wilson(k1, n1), wilson(k2, n2))
    assert (diff.low, diff.high) == (pytest.approx(_newcombe(k1, n1, k2, n2)[0]), pytest.approx(_newcombe(k1, n1, k2, n2)[1]))
    assert ceiling_verdict(diff) == verdict
    words = {"worse": "worse than the people", "better": "agrees more often than the people", "as good as": "as good as the people are",
             "cannot tell": "not enough runs to tell"}
    assert words[verdict] in ceiling_reading("consensus", wilson(k1, n1), wilson(k2, n2), diff, verdict)


def test_ceiling_difference_from_a_bootstrap_figure_and_without_an_interval():
    # three or more labels per run: the people's figure is a bootstrap mean, [0.70, 0.90] around 0.80;
    # evaluator 3/10 (Wilson [0.108, 0.603]): -0.5 - sqrt(0.192² + 0.1²), -0.5 + sqrt(0.303² + 0.1²)
    ev = wilson(3, 10)
    people = Interval(0.8, 0.7, 0.9, 10, None, "bootstrap")
    diff = ceiling_difference(ev, people)
    assert diff.low == pytest.approx(-0.5 - math.hypot(0.3 - ev.low, 0.1))
    assert diff.high == pytest.approx(-0.5 + math.hypot(ev.high - 0.3, 0.1))
    assert ceiling_verdict(diff) == "worse"
    flat = ceiling_difference(ev, Interval(1.0, None, None, 3, None, "bootstrap", "the annotators agree on every run"))
    assert (flat.low, flat.high, ceiling_verdict(flat)) == (None, None, "cannot tell")
    assert ceiling_difference(wilson(0, 0), people) is None and ceiling_verdict(None) is None


# --- three annotators, by hand -----------------------------------------------------------------


def test_three_annotators_fleiss_and_alpha_by_hand():
    inter = inter_annotator(_annotations(THREE))
    # per run (acceptable, unacceptable): E1 E2 E7 E8 (3,0); E4 E9 E10 (0,3); E3 (2,1); E5 E6 (1,2).
    # Fleiss: P_i = (Σ n² - 3)/6 -> 1 for unanimous runs, 1/3 for split -> P̄ = (7 + 3·1/3)/10 = 0.8;
    # category shares 16/30 and 14/30 -> P̄_e = (256 + 196)/900 = 452/900;
    # kappa = (720 - 452)/(900 - 452) = 268/448 = 0.598214
    assert inter.fleiss_kappa.value == pytest.approx(268 / 448)
    assert inter.fleiss_runs == 10
    # alpha: o_AA = 4·3 + 1 = 13, o_UU = 3·3 + 2·1 = 11, n = 30, n_A = 16, n_U = 14;
    # alpha = 1 - 29·(30 - 24)/(900 - 256 - 196) = 1 - 174/448 = 274/448 = 0.611607
    assert inter.krippendorff_alpha.value == pytest.approx(274 / 448)
    assert inter.percent_agreement.value == pytest.approx(0.8) and inter.percent_agreement.method == "bootstrap"
    assert inter.cohen_kappa is None
    # pairwise: ana×ben 8/10 (E3, E6), ana×cy 9/10 (E5), ben×cy 7/10 (E3, E5, E6)
    assert [(p.a, p.b, p.agree) for p in inter.pairwise] == [("ana", "ben", 8), ("ana", "cy", 9), ("ben", "cy", 7)]
    for fig in (inter.fleiss_kappa, inter.krippendorff_alpha):
        assert fig.low <= fig.value <= fig.high


# --- formats -----------------------------------------------------------------------------------


def test_labels_csv_with_annotator_column():
    lf = load_label_file(str(TWO))
    assert lf.annotators == ("ana", "ben")
    assert lf.labels["E3"].verdict is None and lf.labels["E1"].verdict == "acceptable"  # tie -> no verdict
    assert lf.annotated["E6"][1] == AnnotatorLabel("ben", "acceptable", "the old booking was the user's to cancel")
    text = dumps_annotated_labels(lf.annotated)
    assert label_file_from_text(text, "again.csv").annotated == lf.annotated
    with pytest.raises(LoadError, match=r"x.csv: row 3, column annotator: annotator \"ana\" labels run \"E1\" twice \(first at row 2\)"):
        label_file_from_text("run_id,annotator,human_verdict\nE1,ana,acceptable\nE1,ana,unacceptable\n", "x.csv")
    with pytest.raises(LoadError, match="row 2, column annotator: empty annotator name"):
        label_file_from_text("run_id,annotator,human_verdict\nE1,,acceptable\n", "x.csv")
    # the one-label-per-run reader ignores the column while each run has one row, as before
    assert labels_from_text("run_id,annotator,human_verdict\nE1,ana,acceptable\n", "x.csv")["E1"].verdict == "acceptable"
    with pytest.raises(LoadError, match='row 3, column annotator: run "E1" has labels from several annotators'):
        labels_from_text("run_id,annotator,human_verdict\nE1,ana,acceptable\nE1,ben,acceptable\n", "x.csv")
    # an empty verdict: that annotator gave none
    lf2 = label_file_from_text("run_id,annotator,human_verdict\nE1,ana,\nE1,ben,unacceptable\n", "y.csv")
    assert lf2.annotated == {"E1": (AnnotatorLabel("ben", "unacceptable"),)}


def test_apply_annotated_labels_sets_runs_labels_and_majority():
    cs = load_case_set(BUNDLED_CASES)
    lf = load_label_file(str(TWO))
    labelled, unknown = apply_labels(cs, lf.labels, lf.annotated)
    assert unknown == []
    e3 = next(r for r in labelled.runs if r.id == "E3")
    assert e3.human_verdict is None and len(e3.labels) == 2
    assert list(annotations_of(labelled).codes[:, 1]) == [1, 1, 0, 0, 0, 1, 1, 1, 0, 0]


def test_case_set_labels_list_round_trip_and_errors():
    data = case_set_to_data(load_case_set(BUNDLED_CASES))
    run = data["runs"][0]
    del run["human_verdict"]
    run["labels"] = [{"annotator": "ana", "verdict": "acceptable", "note": "fine"}, {"annotator": "ben", "verdict": "acceptable"}]
    cs = case_set_from_data(data, "multi.json")
    assert cs.runs[0].human_verdict == "acceptable" and cs.runs[0].labels[0] == AnnotatorLabel("ana", "acceptable", "fine")
    again = case_set_from_data(case_set_to_data(cs), "again.json")
    assert again.runs[0].labels == cs.runs[0].labels and "human_verdict" not in case_set_to_data(cs)["runs"][0]
    run["labels"].append({"annotator": "ana", "verdict": "unacceptable"})
    with pytest.raises(LoadError, match=r"multi.json: runs\[0\].labels\[2\].annotator: annotator \"ana\" labels this run twice"):
        case_set_from_data(data, "multi.json")
    run["labels"] = [{"annotator": "ana", "verdict": "maybe"}]
    with pytest.raises(LoadError, match=r"runs\[0\].labels\[0\].verdict"):
        case_set_from_data(data, "multi.json")
    run["labels"] = [{"annotator": "ana", "verdict": "acceptable"}]
    run["human_verdict"] = "acceptable"
    with pytest.raises(LoadError, match=r"runs\[0\]: give \"human_verdict\" or \"labels\""):
        case_set_from_data(data, "multi.json")


def test_flat_jsonl_and_csv_labels():
    line = {"id": "r1", "expected_calls": "a", "actual_calls": "a", "answer": "x", "reference": "x",
            "labels": [{"annotator": "ana", "verdict": "unacceptable"}, {"annotator": "ben", "verdict": "Unacceptable "}]}
    cs = jsonl_from_text(json.dumps(line) + "\n", "runs.jsonl")
    assert cs.runs[0].human_verdict == "unacceptable" and [lab.annotator for lab in cs.runs[0].labels] == ["ana", "ben"]
    assert jsonl_from_text(dumps_jsonl(cs), "again.jsonl").runs[0].labels == cs.runs[0].labels
    assert csv_from_text(dumps_csv(cs), "again.csv").runs[0].labels == cs.runs[0].labels
    bad = dict(line, labels=[{"annotator": "ana"}])
    with pytest.raises(LoadError, match=r"runs.jsonl: line 1, labels\[0\].verdict"):
        jsonl_from_text(json.dumps(bad) + "\n", "runs.jsonl")
    both = dict(line, human_verdict="acceptable")
    with pytest.raises(LoadError, match="not both"):
        jsonl_from_text(json.dumps(both) + "\n", "runs.jsonl")


# --- CLI ---------------------------------------------------------------------------------------


def test_score_json_with_two_annotators(capsys):
    assert main(["score", "--labels", str(TWO), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    s = out["summary"]
    assert (s["agree"], s["labelled"], s["unlabelled"], s["disputed"]) == (3, 8, 0, 2)
    a = out["annotators"]
    assert a["ground_truth"]["disputed"]["ties"] == ["E3", "E6"]
    ia = a["inter_annotator"]
    assert ia["percent_agreement"]["value"] == 0.8 and ia["cohen_kappa"]["value"] == 0.6
    assert ia["pairwise"][0]["agree"] == 8
    assert a["human_ceiling"]["evaluator_vs_consensus"]["value"] == 0.375
    e3 = next(r for r in out["runs"] if r["id"] == "E3")
    assert e3["disputed"] is True and e3["labels"] == {"ana": "acceptable", "ben": "unacceptable"}


def test_score_against_one_annotator_and_min_labels(capsys):
    assert main(["score", "--labels", str(TWO), "--annotator", "ben", "--format", "json"]) == 0
    s = json.loads(capsys.readouterr().out)["summary"]
    assert (s["agree"], s["labelled"], s["disputed"]) == (4, 10, 0)
    assert main(["score", "--labels", str(THREE), "--min-labels", "4", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["summary"]["labelled"] == 0 and out["annotators"]["ground_truth"]["disputed"]["too_few_labels"] == IDS
    # three labels per run, four needed: every run has too few labels, none is disputed
    assert (out["summary"]["disputed"], out["summary"]["too_few_labels"], out["summary"]["unlabelled"]) == (0, 10, 0)
    assert out["annotators"]["ground_truth"]["too_few_labels"] == {"n": 10, "ids": IDS}
    assert not any(r["disputed"] for r in out["runs"]) and all(r["too_few_labels"] for r in out["runs"])
    assert main(["score", "--labels", str(THREE), "--min-labels", "4"]) == 0
    text = capsys.readouterr().out
    assert "agreement: no labelled run (10 with too few labels)" in text and "disputed: none" in text
    assert "too few labels (fewer than 4; left out of agreement, counted apart): 10 (E1, E2," in text
    assert "disputed (left out" not in text


def test_score_table_marks_disputed_runs(capsys):
    assert main(["score", "--labels", str(TWO)]) == 0
    out = capsys.readouterr().out
    e3 = next(line for line in out.splitlines() if line.strip().startswith("E3 "))
    assert "1 acc / 1 unacc" in e3 and "disputed" in e3
    assert "agreement 3/8 · 95 % CI 14–69 % (2 disputed)" in out
    assert "disputed (left out of agreement, counted apart): 2 (tie: E3, E6)" in out


def test_score_table_shows_the_inter_annotator_section(capsys):
    assert main(["score", "--labels", str(THREE)]) == 0
    out = capsys.readouterr().out
    assert "ground truth: consensus of 3 annotators (ana, ben, cy)" in out
    assert "Fleiss' kappa 0.60" in out and "Krippendorff's alpha 0.61" in out
    assert "ben × cy: 7/10 agree" in out and "human ceiling:" in out


def test_annotator_errors_exit_2(capsys):
    assert main(["score", "--annotator", "ana"]) == 2
    assert "no run has several annotators' labels" in capsys.readouterr().err
    assert main(["score", "--labels", str(TWO), "--annotator", "zoe"]) == 2
    assert "no annotator named 'zoe'" in capsys.readouterr().err


def test_labels_over_a_big_sets_id_column_read_only_the_listed_runs():
    """A big set's ids are a TextColumn (issue 14): the table is built without a Python string per
    run, the ids kept as that column, and the codes are those of the plain id list: "R2" has
    ann's 1 and bob's 0, "R4" bob's 1, an id not in the set is ignored, an empty list is no label
    (written by hand from the labels below)."""
    import pyarrow as pa

    from explorer.core.evaluation.textcolumn import TextColumn

    ids = ["R1", "R2", "R3", "R4"]
    labels = {"R4": (AnnotatorLabel("bob", "acceptable"),), "nowhere": (AnnotatorLabel("ann", "acceptable"),),
              "R2": (AnnotatorLabel("ann", "acceptable", "fine"), AnnotatorLabel("bob", "unacceptable")), "R3": ()}
    column = TextColumn(pa.array(ids))
    big = annotations_from_labels(column, labels)
    assert big.run_ids is column
    assert big.annotators == ("ann", "bob")
    assert big.codes.tolist() == [[-1, -1], [1, 0], [-1, -1], [-1, 1]]
    assert big.notes == {("R2", "ann"): "fine"}
    plain = annotations_from_labels(ids, labels)
    assert plain.codes.tolist() == big.codes.tolist() and list(plain.run_ids) == ids
    assert annotations_from_labels(column, {}).codes.shape == (4, 0)
    with pytest.raises(ValueError, match="run R4: annotator 'bob' labels it twice"):
        annotations_from_labels(column, {"R4": (AnnotatorLabel("bob", "acceptable"), AnnotatorLabel("bob", "unacceptable"))})


def _trial_consensus_args(tmp_path):
    """The newcomer trial's labels: ana and bo on E1 (acceptable) and E2 (unacceptable), ana alone
    on E3; ``score`` with their consensus and at least 2 labels a run."""
    multi = tmp_path / "multi.csv"
    multi.write_text("run_id,annotator,human_verdict\nE1,ana,acceptable\nE1,bo,acceptable\n"
                     "E2,ana,unacceptable\nE2,bo,unacceptable\nE3,ana,acceptable\n", encoding="utf-8")
    return ["score", "--labels", str(multi), "--consensus", "--min-labels", "2"]


def test_consensus_header_says_which_verdicts_are_a_runs_single_verdict(tmp_path, capsys):
    """The newcomer trial's input: ana and bo label E1 (both acceptable) and E2 (both
    unacceptable), ana alone E3; E4..E10 keep the bundled file's single human_verdict. With
    --min-labels 2: E1, E2 by consensus (2), E4..E10 their single verdict (7), 9 in all; E3 too few."""
    args = _trial_consensus_args(tmp_path)
    assert main(args) == 0
    assert ("ground truth: consensus of 2 annotators (ana, bo), at least 2 labels per run; 9 runs with a verdict: "
            "2 by consensus, 7 by the run's single human_verdict (no annotator labels; --min-labels does not apply to them)"
            ) in capsys.readouterr().out.splitlines()
    assert main(args + ["--format", "json"]) == 0
    gt = json.loads(capsys.readouterr().out)["annotators"]["ground_truth"]
    assert (gt["labelled"], gt["from_annotators"], gt["from_single_verdict"]) == (9, 2, 7)
    assert gt["too_few_labels"] == {"n": 1, "ids": ["E3"]}


def test_human_ceiling_counts_only_the_runs_the_annotators_decide(tmp_path, capsys):
    """The trial's input again: the ceiling's evaluator figure is over E1 and E2 (the consensus),
    not the 7 runs keeping the file's single verdict (it read "agrees with the consensus on 56 %
    of runs (5/9)"). Opening settings pass only E5: E1 (acceptable) fails, E2 (unacceptable)
    fails -> 1/2; the annotators agree on E1 and E2 -> 2/2. Newcombe from the Wilson limits of 1/2
    (0.0945, 0.9055) and 2/2 (0.3424, 1): -0.5 - 0.4055 = -0.91, -0.5 + hypot(0.4055, 0.6576) = +0.27."""
    args = _trial_consensus_args(tmp_path)
    assert main(args) == 0
    assert ("human ceiling: the evaluator agrees with the consensus on 50 % of the runs the annotators' labels decide "
            "(1/2; 7 runs with only the file's single verdict left out), the annotators with each other on 100 % (2/2): "
            "not enough runs to tell whether the scorer is as good as the people (difference -50 points, "
            "Newcombe 95 % CI -91 to +27)") in capsys.readouterr().out.splitlines()
    assert main(args + ["--format", "json"]) == 0
    c = json.loads(capsys.readouterr().out)["annotators"]["human_ceiling"]
    assert (c["evaluator_vs_consensus"]["value"], c["evaluator_vs_consensus"]["n"], c["single_verdict_left_out"]) == (0.5, 2, 7)
    low, high = _newcombe(1, 2, 2, 2)
    assert (c["difference"]["low"], c["difference"]["high"]) == (pytest.approx(low, abs=1e-6), pytest.approx(high, abs=1e-6))
    # without single verdicts (every run labelled by an annotator) the sentence is as before
    assert main(["score", "--labels", str(TWO)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("human ceiling:"))
    assert "agrees with the consensus on 38 % of runs (3/8)," in line and "left out" not in line


def test_ground_truth_marks_the_runs_that_keep_their_single_verdict():
    from explorer.core.evaluation.annotators import Annotations

    codes = np.full((4, 2), -1, dtype=np.int8)
    codes[0] = (1, 1)
    codes[1] = (1, -1)  # one label: too few at min_labels 2, its fallback is not used
    ann = Annotations(np.array(["a", "b", "c", "d"], dtype=object), ("x", "y"), codes, {})
    fallback = np.array([0, 0, 1, -1], dtype=np.int8)  # d: nobody labelled it and it has no verdict
    g = ground_truth(ann, min_labels=2, fallback=fallback)
    assert g.human.tolist() == [1, -1, 1, -1]
    assert g.from_single.tolist() == [False, False, True, False]
    assert g.from_annotators.tolist() == [True, False, False, False]
    # one annotator as the ground truth: no run's verdict is a single human_verdict
    assert not ground_truth(ann, annotator="x").from_single.any()
    assert not ground_truth(ann, min_labels=2).from_single.any()
