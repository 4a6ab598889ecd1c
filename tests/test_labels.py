"""Labels CSV run_id,human_verdict,note: read, write, apply to runs and to features."""

import numpy as np
import pytest

from explorer.core.io.casefile import load_case_set
from explorer.core.io.errors import LoadError
from explorer.core.evaluation.features import build_features
from explorer.core.io.loaders.labels import (
    Label, apply_labels, dumps_labels, human_codes, label_file_from_text, labels_from_codes, labels_from_runs, load_labels, loads_labels,
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


# --- labels keyed by example id (a newcomer trial: labels E1..E10 for traces named no run) ------


def _traces_read_with_join_key(tmp_path):
    """The booking set written as OTLP traces by the real producer (each agent span carrying its
    booking id under ``eval.example_id``), read back with that attribute as the join key: run ids
    are trace ids, example ids E1..E10."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from producers import booking_as_otlp
    from explorer.core.io.loaders.detect import loads_runs
    from explorer.core.io.loaders.options import ReadOptions

    path = tmp_path / "traces.jsonl"
    trace_ids = booking_as_otlp(load_case_set(BUNDLED_CASES), path)
    return loads_runs(path.read_bytes(), "traces.jsonl", options=ReadOptions(join_key="eval.example_id")), trace_ids


def test_labels_keyed_by_example_id_label_the_traces_of_those_examples(tmp_path):
    from explorer.core.io.loaders.labels import apply_matched_labels

    traces, trace_ids = _traces_read_with_join_key(tmp_path)
    booking = load_case_set(BUNDLED_CASES)
    labels = {r.id: Label(r.human_verdict, r.human_note) for r in booking.runs}  # keyed E1..E10
    out, match = apply_matched_labels(traces, labels)
    assert match.unknown == () and match.several == {} and match.key_words == "example id"
    assert match.run_of == {rid: trace_ids[rid] for rid in labels}
    by_trace = {r.id: r for r in out.runs}
    for run in booking.runs:  # each trace carries its booking run's verdict and note
        assert (by_trace[trace_ids[run.id]].human_verdict, by_trace[trace_ids[run.id]].human_note) == (run.human_verdict, run.human_note)
    # apply_labels reports the ids applied to no run: none (the old code: all ten)
    assert apply_labels(traces, labels)[1] == []


def test_an_example_id_of_several_runs_is_not_guessed():
    """Inspect names a sample's epochs E4#1, E4#2, both with example id E4: a label E4 could be
    either (or both), so it applies to none and the note says to key it by run id."""
    from dataclasses import replace as dc_replace

    from explorer.core.io.loaders.labels import apply_matched_labels, several_note
    from explorer.core.io.model import CaseSet

    base = load_case_set(BUNDLED_CASES).runs
    runs = (dc_replace(base[3], id="E4#1", extra={"example_id": "E4", "inspect_epoch": 1}),
            dc_replace(base[3], id="E4#2", extra={"example_id": "E4", "inspect_epoch": 2}),
            dc_replace(base[4], id="E5", extra={"example_id": "E5", "inspect_epoch": 1}))
    cs = CaseSet("epochs", "", runs, "")
    out, match = apply_matched_labels(cs, {"E4": Label("acceptable"), "E5": Label("acceptable"), "E4#2": Label(None)})
    assert match.several == {"E4": ("E4#1", "E4#2")} and match.unknown == ()
    assert match.run_of == {"E5": "E5", "E4#2": "E4#2"} and match.key_words == "run id"
    assert [r.human_verdict for r in out.runs] == ["unacceptable", None, "acceptable"]  # E4#1 as it was
    assert several_note(match.several) == "E4 names 2 runs (epochs E4#1, E4#2): key their labels by run id"
    assert apply_labels(cs, {"E4": Label("acceptable")})[1] == ["E4"]


def test_a_run_id_wins_over_another_runs_example_id():
    """Label "E1" names run E1 even when run T2's example id is E1 (as expectations join); a
    label by example id onto a run the file also names by its id is not applied."""
    from dataclasses import replace as dc_replace

    from explorer.core.io.loaders.labels import apply_matched_labels
    from explorer.core.io.model import CaseSet

    base = load_case_set(BUNDLED_CASES).runs
    cs = CaseSet("ids", "", (dc_replace(base[0], extra={"example_id": "X"}), dc_replace(base[1], id="T2", extra={"example_id": "E1"})), "")
    out, match = apply_matched_labels(cs, {"E1": Label("unacceptable"), "X": Label("acceptable")})
    assert match.run_of == {"E1": "E1"} and match.unknown == ("X",)
    assert [r.human_verdict for r in out.runs] == ["unacceptable", "acceptable"]  # T2 keeps its own (E2's) verdict


@pytest.mark.parametrize("text, problem", [
    # a trial: "E1" alone cleared E1's label, exit 0 (a row too long was refused)
    ("run_id,human_verdict,note\nE1\n", "labels.csv: row 2: has 1 cell, the header has 3: no human_verdict cell "
                                        "(an empty one, as in E7,, clears a label)"),
    # a trial: a misspelt annotator column was ignored, several annotators' labels read as one each
    ("run_id,annotater,human_verdict\nE1,ann,acceptable\n", 'labels.csv: row 1 (header): unknown column "annotater" '
                                                            "(a labels CSV has run_id, human_verdict, and optionally note and annotator)"),
])
def test_a_short_row_or_an_unknown_column_is_refused(text, problem):
    with pytest.raises(LoadError) as info:
        label_file_from_text(text, "labels.csv")
    assert str(info.value) == problem


def test_a_row_may_leave_off_its_note():
    labels = label_file_from_text("run_id,human_verdict,note\nE1,acceptable\nE7,,\n", "labels.csv").labels
    assert (labels["E1"].verdict, labels["E1"].note) == ("acceptable", "") and labels["E7"].verdict is None
