"""Labels CSV run_id,human_verdict,note: read, write, apply to runs and to features."""

import numpy as np
import pytest

from explorer.core.io.casefile import load_case_set
from explorer.core.io.errors import LoadError
from explorer.core.evaluation.features import build_features
from explorer.core.io.loaders.labels import (
    Label, apply_labels, dumps_labels, human_codes, labels_from_codes, labels_from_runs, load_labels, loads_labels,
)
from explorer.commands.common import BUNDLED_CASES


def test_read_labels(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text('\ufeffrun_id,human_verdict,note\nE1,acceptable,"fine, reworded"\nE4, Unacceptable ,no confirm\nE7,,\n\n')
    labels = load_labels(str(path))
    assert labels == {
        "E1": Label("acceptable", "fine, reworded"),
        "E4": Label("unacceptable", "no confirm"),
        "E7": Label(None, ""),
    }


def test_note_column_is_optional():
    assert loads_labels("human_verdict,run_id\nacceptable,a\n", "l.csv") == {"a": Label("acceptable", "")}


def test_apply_to_runs_and_report_unknown_ids():
    cs = load_case_set(BUNDLED_CASES)
    before = {r.id: r.human_verdict for r in cs.runs}
    assert before["E1"] == "acceptable" and before["E4"] == "unacceptable"
    labels = {"E1": Label("unacceptable", "changed my mind"), "E4": Label(None), "X9": Label("acceptable")}
    out, unknown = apply_labels(cs, labels)
    after = {r.id: r for r in out.runs}
    assert unknown == ["X9"]
    assert (after["E1"].human_verdict, after["E1"].human_note) == ("unacceptable", "changed my mind")
    assert after["E4"].human_verdict is None
    assert all(after[i].human_verdict == before[i] for i in before if i not in ("E1", "E4"))
    assert cs.runs[0].human_verdict == "acceptable"  # the original is untouched


def test_apply_to_features():
    features = build_features(load_case_set(BUNDLED_CASES))
    codes = human_codes(features, {"E1": Label("unacceptable"), "E2": Label(None), "nope": Label("acceptable")})
    ids = list(features.run_ids)
    assert codes[ids.index("E1")] == 0 and codes[ids.index("E2")] == -1
    unchanged = [i for i in range(len(ids)) if ids[i] not in ("E1", "E2")]
    assert np.array_equal(codes[unchanged], features.human[unchanged])
    assert features.with_human(codes).human[ids.index("E1")] == 0


def test_write_and_read_back():
    labels = {"a": Label("acceptable", 'said "ok", twice'), "b": Label("unacceptable", "line\nbreak"), "c": Label(None, "")}
    text = dumps_labels(labels)
    assert text.splitlines()[0] == "run_id,human_verdict,note"
    assert loads_labels(text, "x") == labels


def test_labels_from_runs_and_codes():
    cs = load_case_set(BUNDLED_CASES)
    labels = labels_from_runs(cs)
    assert len(labels) == 10 and labels["E4"].verdict == "unacceptable" and labels["E1"].note
    got = labels_from_codes(["a", "b", "c"], np.array([1, -1, 0], dtype=np.int8), {"a": "n"})
    assert got == {"a": Label("acceptable", "n"), "c": Label("unacceptable", "")}
    assert labels_from_codes(["b"], np.array([-1]), include_unlabelled=True) == {"b": Label(None, "")}


@pytest.mark.parametrize("text, location, problem", [
    ("id,verdict\nE1,acceptable\n", "row 1 (header)", 'missing column "run_id"'),
    ("run_id,note\nE1,x\n", "row 1 (header)", 'missing column "human_verdict"'),
    ("run_id,human_verdict,note\n", "", "no labels (the file has a header but no rows)"),
    ("run_id,human_verdict,note\nE1,pass,\n", "row 2, column human_verdict", 'expected "acceptable", "unacceptable" or empty, got "pass"'),
    ("run_id,human_verdict,note\nE1,acceptable,\nE1,unacceptable,\n", "row 3, column run_id", 'duplicate run id "E1" (first at row 2)'),
    ("run_id,human_verdict,note\n ,acceptable,\n", "row 2, column run_id", "empty run id"),
    ("run_id,human_verdict,note\nE1,acceptable,x,y\n", "row 2", "has 4 cells, the header has 3"),
])
def test_bad_labels(tmp_path, text, location, problem):
    path = tmp_path / "labels.csv"
    path.write_text(text)
    with pytest.raises(LoadError) as info:
        load_labels(str(path))
    assert (info.value.file, info.value.location) == (str(path), location)
    assert info.value.problem.startswith(problem)


def test_empty_and_binary_labels(tmp_path):
    empty, binary = tmp_path / "e.csv", tmp_path / "b.csv"
    empty.write_bytes(b"")
    binary.write_bytes(b"\x00\x01run_id")
    with pytest.raises(LoadError, match="file is empty"):
        load_labels(str(empty))
    with pytest.raises(LoadError, match="binary file"):
        load_labels(str(binary))


def test_labels_over_a_big_set_keep_its_features(tmp_path):
    """A case set whose runs are a RunStore with features (the parallel JSONL loader) is
    labelled through a view: features are not recomputed, verdicts and runs read labelled."""
    from explorer.core.io.bigload import load_jsonl_features
    from explorer.core.io.loaders.flat import dumps_jsonl

    cs = load_case_set(BUNDLED_CASES)
    path = tmp_path / "runs.jsonl"
    path.write_text(dumps_jsonl(cs))
    big = load_jsonl_features(path, workers=1)
    assert big.runs.features is not None
    labelled, unknown = apply_labels(big, {"E1": Label("unacceptable", "no"), "E2": Label(None), "Q": Label("acceptable")})
    assert unknown == ["Q"]
    features = build_features(labelled)
    assert features is labelled.runs.features
    ids = list(features.run_ids)
    assert features.human[ids.index("E1")] == 0 and features.human[ids.index("E2")] == -1
    assert features.human[ids.index("E4")] == 0 and features.human[ids.index("E3")] == 1
    assert labelled.runs[0].id == "E1" and labelled.runs[0].human_verdict == "unacceptable"
    assert labelled.runs[0].human_note == "no" and labelled.runs[3].human_verdict == "unacceptable"
    assert [r.id for r in labelled.runs[:2]] == ["E1", "E2"] and len(labelled.runs) == 10
    assert np.array_equal(features.f1, build_features(cs).f1)


def test_features_with_the_same_labels_are_the_same_and_a_relabel_shares_what_labels_do_not_change():
    from explorer.core.evaluation.settings import Settings
    from explorer.core.evaluation.verdicts import evaluate

    features = build_features(load_case_set(BUNDLED_CASES))
    assert features.with_human(features.human.copy()) is features  # a session that changed nothing
    f1_q = features.f1_q
    ids = list(features.run_ids)
    codes = features.human.copy()
    codes[ids.index("E1")] = 0  # the seed's E1 (good, failed at the opening) now judged unacceptable
    relabelled = features.with_human(codes)
    assert relabelled is not features and relabelled.f1_q is f1_q  # 80 MB at 10M runs, not made again
    before, after = evaluate(features, Settings()).summary, evaluate(relabelled, Settings()).summary
    # seed 002's opening: TP 0, FP 1, FN 5, TN 4; E1 moves from false fail to true fail
    assert (before.true_pass, before.false_pass, before.false_fail, before.true_fail) == (0, 1, 5, 4)
    assert (after.true_pass, after.false_pass, after.false_fail, after.true_fail) == (0, 1, 4, 5)
    assert relabelled.prepared_labels.acceptable == features.prepared_labels.acceptable - 1
