"""`score`'s table output names each run's example id beside its id when runs have example ids
(traces read with --join-key, joined to expectations by example id): it listed only the 32-hex
trace ids, so which booking a row was could not be told without the JSON or CSV."""

from __future__ import annotations

import pandas as pd

from explorer.cli import main
from explorer.commands.common import BUNDLED_CASES
from explorer.commands.score import example_ids_column
from explorer.core.io.casefile import load_case_set
from producers import booking_as_otlp, expectations_jsonl

BOOKING = load_case_set(BUNDLED_CASES)


def table_rows(out: str) -> list[list[str]]:
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split()[:1] == ["id"])
    return [line.split() for line in lines[head:head + 11]]


def test_traces_joined_by_example_id_show_it_beside_the_trace_id(tmp_path, capsys):
    traces = tmp_path / "traces.jsonl"
    trace_ids = booking_as_otlp(BOOKING, traces, example_key="eval.example_id")
    exp = tmp_path / "expectations.jsonl"
    exp.write_text(expectations_jsonl(BOOKING))
    assert main(["score", "--cases", str(traces), "--join-key", "eval.example_id", "--expectations", str(exp)]) == 0
    rows = table_rows(capsys.readouterr().out)
    assert rows[0][:3] == ["id", "example_id", "title"]
    # each trace in file order (the booking set's order), its example id the booking id it was written from
    assert [r[:2] for r in rows[1:]] == [[trace_ids[r.id], r.id] for r in BOOKING.runs]


def test_runs_without_example_ids_have_no_such_column(capsys):
    assert main(["score"]) == 0
    assert table_rows(capsys.readouterr().out)[0][:2] == ["id", "title"]


def test_the_column_only_when_an_example_id_differs_from_its_run_id():
    # an Inspect sample of one epoch: its example id is its run id; traces without the key: none
    same = pd.DataFrame({"id": ["s1", "s2"], "example_id": ["s1", "s2"]})
    assert example_ids_column(same) is None
    assert example_ids_column(pd.DataFrame({"id": ["t1"]})) is None
    epochs = pd.DataFrame({"id": ["s1#1", "s1#2", "t9"], "example_id": ["s1", "s1", None]})
    assert example_ids_column(epochs) == ["s1", "s1", "-"]
