"""Counts in words: the noun agrees with the count on the page and in the CLI (a trial read
``1 labelled runs``, ``1 false passes`` and ``run(s)``)."""

import json

from explorer.cli import main
from explorer.core.evaluation.annotators import annotations_from_labels, inter_annotator
from explorer.core.io.model import AnnotatorLabel
from explorer.core.plural import counted, noun, plural_of


def test_counted_by_the_rule():
    assert [counted(n, "run") for n in (0, 1, 2, 1000)] == ["0 runs", "1 run", "2 runs", "1,000 runs"]
    assert (counted(1, "false pass"), counted(3, "false pass")) == ("1 false pass", "3 false passes")
    assert (counted(1, "false fail"), counted(2, "false fail")) == ("1 false fail", "2 false fails")
    assert counted(1, "labelled run") == "1 labelled run" and counted(5, "labelled run") == "5 labelled runs"
    assert counted(2, "run with a verdict", "runs with a verdict") == "2 runs with a verdict"
    assert (noun(-1, "point"), noun(-2, "point"), plural_of("box")) == ("point", "points", "boxes")


def _two_annotator_runs(tmp_path):
    """R0 labelled by ana and ben (both acceptable), R1 by ana only: at --min-labels 2 one run has
    a verdict, one run has two labels, and one has too few."""
    ref = "Your flight TP1351 is booked."
    rows = [("R0", [("ana", "acceptable"), ("ben", "acceptable")]), ("R1", [("ana", "unacceptable")])]
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps({"id": rid, "expected_calls": "search_flights", "actual_calls": "search_flights",
                                        "answer": ref, "reference": ref,
                                        "labels": [{"annotator": a, "verdict": v} for a, v in labs]}) + "\n"
                            for rid, labs in rows))
    return str(path), {rid: tuple(AnnotatorLabel(a, v) for a, v in labs) for rid, labs in rows}


def test_score_annotator_lines_in_the_singular(tmp_path, capsys):
    path, _ = _two_annotator_runs(tmp_path)
    assert main(["score", "--cases", path, "--min-labels", "2"]) == 0
    out = capsys.readouterr().out
    assert "at least 2 labels per run; 1 run with a verdict" in out
    assert "inter-annotator (1 run with 2+ labels): percent agreement 100 % of 1 run ·" in out
    assert "label(s)" not in out and "1 runs" not in out
    assert main(["score", "--cases", path]) == 0
    assert "at least 1 label per run; 2 runs with a verdict" in capsys.readouterr().out


def test_page_annotator_card_in_the_singular(tmp_path):
    from explorer.app.views.annotators import inter_html

    _, labels = _two_annotator_runs(tmp_path)
    inter = inter_annotator(annotations_from_labels(["R0", "R1"], labels))
    assert '1 run labelled by two or more of ana, ben' in inter_html(inter, 2) and "run(s)" not in inter_html(inter, 2)


def test_sweep_best_line_in_the_singular(tmp_path, capsys):
    # two runs the evaluator passes at every F1 threshold up to 1: R0 acceptable, R1 unacceptable:
    # the best setting has exactly 1 false pass
    ref = "Your flight TP1351 is booked."
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps({"id": rid, "expected_calls": "search_flights", "actual_calls": "search_flights",
                                        "answer": ref, "reference": ref, "human_verdict": v}) + "\n"
                            for rid, v in (("R0", "acceptable"), ("R1", "unacceptable"))))
    assert main(["sweep", "--cases", str(path), "--grid", "adk"]) == 0
    out = capsys.readouterr().out
    assert ", 1 false pass, 0 false fails, reached by " in out and "1 false passes" not in out


# --- n of a total, half-widths, and the loaders' notes ---------------------------------------------

def test_counted_of_and_half_width_words_by_the_rule():
    from explorer.core.plural import counted_of, half_width_words

    assert counted_of(1, 10, "trace") == "1 of 10 traces" and counted_of(1, 1, "trace") == "1 of 1 trace"
    assert counted_of(2, 1_000, "agent span") == "2 of 1,000 agent spans"
    assert [half_width_words(h) for h in (0.05, 0.01, 0.025, 0.1)] == ["±5 points", "±1 point", "±2.5 points", "±10 points"]


def test_labels_needed_at_one_point_reads_in_the_singular(capsys):
    # --half-width 0.01 printed "labels for ±1 points"
    assert main(["score", "--half-width", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "labels for ±1 point (95 %):" in out and "±1 points" not in out


def test_a_difference_of_one_point_reads_in_the_singular():
    from explorer.core.evaluation.annotators import ceiling_reading
    from explorer.core.evaluation.confidence import Interval

    # 81/100 against 80/100: +1 point, the interval wide enough that nothing is claimed
    reading = ceiling_reading("consensus", Interval(0.81, 0.72, 0.87, 100, 81), Interval(0.8, 0.71, 0.87, 100, 80),
                              Interval(0.01, -0.1, 0.12, 100), "cannot tell")
    assert reading.endswith("(difference +1 point, Newcombe 95 % CI -10 to +12)")


def test_one_run_without_an_expectation_is_counted_in_the_singular():
    from explorer.core.io.loaders.expectations import missing_note

    assert missing_note(["t9"], 10) == ("1 of 10 runs has no expectation (expected calls and references left as "
                                         "loaded): t9")
    assert missing_note(["t8", "t9"], 10).startswith("2 of 10 runs have no expectation")


def test_one_unknown_run_id_in_a_labels_file_is_named_in_the_singular(tmp_path, capsys):
    labels = tmp_path / "labels.csv"
    labels.write_text("run_id,human_verdict\nE1,acceptable\nE99,unacceptable\n")
    assert main(["score", "--labels", str(labels)]) == 0
    assert "labels.csv: 1 run id names no loaded run: E99" in capsys.readouterr().err
    only = tmp_path / "only.csv"
    only.write_text("run_id,human_verdict\nE99,unacceptable\n")
    assert main(["score", "--labels", str(only)]) != 0
    assert "its one run id names no loaded run by run id or example id (E99)" in capsys.readouterr().err
