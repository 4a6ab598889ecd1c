"""Calibration: threshold table and bands checked by hand; the bundled 20 pairs reproduce seed 000."""

import json
import math

import pytest

from explorer.core.evaluation.calibration import choose_bands, seed_reading, threshold_table
from explorer.core.io.pairs import load_pairs
from explorer.core.io.errors import LoadError

SCORES = [0.9, 0.8, 0.7, 0.6]
GOOD = [True, False, True, False]


def test_threshold_table_by_hand():
    t = threshold_table(SCORES, GOOD)
    assert list(t["threshold"]) == [0.6, 0.7, 0.8, 0.9]
    # t=0.6: all pass, TP 2 FP 2 -> P 1/2, R 1, F 2/3
    # t=0.7: TP 2 FP 1 -> P 2/3, R 1, F 0.8
    # t=0.8: TP 1 FP 1 -> P 1/2, R 1/2, F 1/2
    # t=0.9: TP 1 FP 0 -> P 1, R 1/2, F 2/3
    assert list(t["tp"]) == [2, 2, 1, 1] and list(t["fp"]) == [2, 1, 1, 0]
    assert list(t["fn"]) == [0, 0, 1, 1] and list(t["tn"]) == [0, 1, 1, 2]
    assert t["precision"].tolist() == pytest.approx([0.5, 2 / 3, 0.5, 1.0])
    assert t["recall"].tolist() == pytest.approx([1.0, 1.0, 0.5, 0.5])
    assert t["f_measure"].tolist() == pytest.approx([2 / 3, 0.8, 0.5, 2 / 3])


def test_bands_by_hand():
    b = choose_bands(SCORES, GOOD, 0.6)
    # lowest threshold with precision >= 0.6 is 0.7; below 0.7 only the bad 0.6 -> fail_below 0.7
    assert (b.pass_above, b.fail_below) == (0.7, 0.7)
    assert b.counts == {"pass": {"acceptable": 2, "unacceptable": 1}, "gray": {"acceptable": 0, "unacceptable": 0}, "fail": {"acceptable": 0, "unacceptable": 1}}
    b = choose_bands(SCORES, GOOD, 0.9)
    # precision >= 0.9 only at 0.9; below 0.8 the pairs are {0.7 good, 0.6 bad}: 1/2 < 0.9
    assert (b.pass_above, b.fail_below) == (0.9, 0.7)
    assert b.counts["gray"] == {"acceptable": 1, "unacceptable": 1}
    assert b.pass_precision == 1.0 and b.fail_purity == 1.0


def test_unreachable_target_leaves_the_pass_band_empty():
    b = choose_bands([0.9, 0.8], [False, True], 1.0)
    assert b.pass_above is None and math.isnan(b.pass_precision)
    assert b.counts["pass"] == {"acceptable": 0, "unacceptable": 0}


def test_bad_input():
    with pytest.raises(ValueError, match="equal length"):
        threshold_table([0.1, 0.2], [True])
    with pytest.raises(ValueError, match="target precision"):
        choose_bands([0.1], [True], 0.0)


def test_bundled_pairs_reproduce_the_seed_reading():
    pairs = load_pairs("cases/labelled_pairs.json")
    labels = pairs.labels()
    assert (int(labels.sum()), int((~labels).sum())) == (12, 8)
    reading = seed_reading(pairs.stored_scores(), labels, 0.8)
    # "To accept every good answer you also accept six of eight bad ones. To get precision
    # above 0.8 you reject seven good answers."
    assert reading == {"bad_accepted_when_all_good_pass": 6, "good_rejected_for_precision": 7}


def test_pairs_file_errors_name_file_and_path(tmp_path):
    bad = tmp_path / "p.json"
    bad.write_text('{"format": "metric-explorer/pairs@1", "name": "x", "pairs": [{"id": "a", "references": ["r"], "candidate": "c"}]}')
    with pytest.raises(LoadError) as err:
        load_pairs(bad)
    assert str(err.value) == f'{bad}: pairs[0]: missing "human_verdict"'


def test_pairs_verdict_ignores_case_and_spaces_and_names_a_bad_one(tmp_path):
    """As the case set and the flat reader read verdicts; null is not a choice in a pairs file."""
    def pairs_with(verdict):
        path = tmp_path / "p.json"
        path.write_text(json.dumps({"format": "metric-explorer/pairs@1", "name": "x",
                                    "pairs": [{"id": "a", "references": ["r"], "candidate": "c", "human_verdict": verdict}]}))
        return path

    assert [p.acceptable for p in load_pairs(pairs_with(" Acceptable")).pairs] == [True]
    assert [p.acceptable for p in load_pairs(pairs_with("UNACCEPTABLE")).pairs] == [False]
    for verdict, shown in (("ok", '"ok"'), (None, "null")):
        with pytest.raises(LoadError) as err:
            load_pairs(pairs_with(verdict))
        assert str(err.value) == f'{tmp_path / "p.json"}: pairs[0].human_verdict: expected "acceptable" or "unacceptable", got {shown}'


@pytest.mark.parametrize(
    "score, problem",
    [(1e999, "pairs[0].stored_score: Input should be a finite number"), (5, "pairs[0].stored_score: Input should be less than or equal to 1")],
)
def test_stored_score_must_be_a_finite_similarity(tmp_path, score, problem):
    # found by a newcomer: 1e999 was accepted and calibrate printed "Infinity", which is not JSON
    import json

    from explorer.core.io.errors import LoadError
    from explorer.core.io.pairs import load_pairs

    p = tmp_path / "pairs.json"
    pair = {"id": "a", "references": ["r"], "candidate": "c", "human_verdict": "acceptable", "stored_score": score}
    p.write_text(json.dumps({"format": "metric-explorer/pairs@1", "name": "x", "pairs": [pair]}).replace("Infinity", "1e999"))
    with pytest.raises(LoadError) as info:
        load_pairs(p)
    assert str(info.value) == f"{p}: {problem}"
