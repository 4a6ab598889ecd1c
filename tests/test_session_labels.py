"""Session labels: start from the file, change per run, never share arrays with the features."""

from pathlib import Path

import pytest

from explorer.app.labels import SessionLabels
from explorer.core.io.casefile import load_case_set
from explorer.core.evaluation.verdicts import evaluate
from explorer.core.evaluation.features import build_features
from explorer.core.evaluation.settings import Settings

CASES = Path(__file__).resolve().parents[1] / "cases" / "booking_agent.json"


def test_labels_change_agreement_without_touching_shared_features():
    features = build_features(load_case_set(CASES))
    labels = SessionLabels.from_features(features)
    assert labels.counts() == {"acceptable": 5, "unacceptable": 5, "unlabelled": 0}
    # E5 (index 4) is the opening run's false pass; relabel it acceptable -> 5/10 agree
    labels.set(4, "acceptable", note="date typo is fine here")
    ev = evaluate(labels.apply_to(features), Settings())
    assert ev.summary.agree == 5 and ev.summary.false_pass == 0
    assert features.human[4] == 0  # the shared features keep the file's label
    labels.set(4, None)
    ev = evaluate(labels.apply_to(features), Settings())
    assert (ev.summary.labelled, ev.summary.unlabelled, ev.summary.agree) == (9, 1, 4)
    assert labels.version == 2 and labels.notes == {"4": "date typo is fine here"}


def test_bad_label_and_index():
    features = build_features(load_case_set(CASES))
    labels = SessionLabels.from_features(features)
    with pytest.raises(ValueError):
        labels.set(0, "fine")  # type: ignore[arg-type]
    with pytest.raises(IndexError):
        labels.set(10, "acceptable")
