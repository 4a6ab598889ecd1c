"""Issue 10, kind 9: CSVs written for people never hold a live spreadsheet formula.

OWASP's rule: a text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is
written with a ``'`` in front; reading it back with our readers (or :func:`restore`) gives the
original text. The issue's cell ``=HYPERLINK("http://example.invalid","click")`` as a run id,
title, answer and note.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from hypothesis import given, strategies as st

from explorer.cli import main
from explorer.core.evaluation.features import build_features
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.verdicts import evaluate
from explorer.core.io.csv_cells import neutralise, restore
from explorer.core.io.exports import dumps_scored_table
from explorer.core.io.loaders import loads_runs
from explorer.core.io.loaders.flat import dumps_csv, loads_csv
from explorer.core.io.loaders.labels import Label, dumps_labels, loads_labels

FORMULA = '=HYPERLINK("http://example.invalid","click")'
RUN = {"id": FORMULA, "title": "+1 title", "expected_calls": "", "actual_calls": "", "answer": "@SUM(A1:A2)",
       "reference": "-2+3", "human_verdict": "acceptable", "human_note": "\tnote"}


def cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_neutralise_by_hand():
    assert neutralise(FORMULA) == "'" + FORMULA
    assert [neutralise(x) for x in ("+1", "-1", "@x", "\tx", "\rx", "ok", "'ok", "'=x", "")] == [
        "'+1", "'-1", "'@x", "'\tx", "'\rx", "ok", "'ok", "''=x", ""]


@given(st.text())
def test_restore_undoes_neutralise(text):
    safe = neutralise(text)
    assert restore(safe) == text
    assert not safe or safe[0] not in "=+-@\t\r"


def test_scored_table_neutralises_text_and_keeps_numbers():
    cs = loads_runs(json.dumps(RUN) + "\n", "r.jsonl")
    f = build_features(cs)
    text = dumps_scored_table(f, evaluate(f, Settings(trajectory="none")))
    header, row = cells(text)
    got = dict(zip(header, row))
    assert got["id"] == "'" + FORMULA and got["title"] == "'+1 title"
    assert restore(got["id"]) == FORMULA
    assert got["f1"] == "0.0"  # numbers stay numbers
    assert not any(v and v[0] in "=+-@\t\r" for v in row)


def test_labels_csv_round_trip():
    labels = {FORMULA: Label("acceptable", "-looks fine"), "plain": Label(None, "")}
    text = dumps_labels(labels)
    assert cells(text)[1] == ["'" + FORMULA, "acceptable", "'-looks fine"]
    assert loads_labels(text, "l.csv") == labels


def test_annotated_labels_csv_round_trip():
    from explorer.core.io.loaders.labels import dumps_annotated_labels, label_file_from_text
    from explorer.core.io.model import AnnotatorLabel

    annotated = {FORMULA: (AnnotatorLabel("@ann", "acceptable", "=1+1"), AnnotatorLabel("bo", "unacceptable", ""))}
    text = dumps_annotated_labels(annotated)
    assert cells(text)[1] == ["'" + FORMULA, "'@ann", "acceptable", "'=1+1"]
    assert label_file_from_text(text, "l.csv").annotated == annotated


def test_flat_csv_round_trip():
    cs = loads_runs(json.dumps(RUN) + "\n", "r.jsonl")
    text = dumps_csv(cs)
    row = cells(text)[1]
    assert row[0] == "'" + FORMULA and row[5] == "'@SUM(A1:A2)"
    back = loads_csv(text, "r.csv").runs[0]
    assert (back.id, back.title, back.invocations[0].answer, back.invocations[0].references, back.human_note) == (
        FORMULA, "+1 title", "@SUM(A1:A2)", ("-2+3",), "\tnote")


def test_cli_csv_outputs(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(RUN) + "\n")
    assert main(["score", "--cases", str(path), "--format", "csv"]) == 0
    rows = cells(capsys.readouterr().out)
    assert rows[1][0] == "'" + FORMULA
    for argv in (["sweep", "--cases", str(path), "--format", "csv", "--top", "3"], ["calibrate", "--cases", str(path), "--format", "csv"]):
        assert main(argv) == 0
        assert not any(c and c[0] in "=+@\t\r" for r in cells(capsys.readouterr().out) for c in r)


def test_app_downloads(tmp_path):
    from explorer.app.views.downloads import Downloads
    from explorer.app.labels import SessionLabels
    from explorer.app.workspace import shared_from_case_set

    shared = shared_from_case_set(loads_runs(json.dumps(RUN) + "\n", "r.jsonl"))
    ev = evaluate(shared.features, shared.defaults)
    labels = SessionLabels.from_features(shared.features)
    d = Downloads(lambda: (shared.features, ev, labels, "r"))
    assert cells(d._table())[1][0] == "'" + FORMULA
    assert cells(d._labels())[1] == ["'" + FORMULA, "acceptable", "'\tnote"]
