"""The worked examples of docs/formats.md for the issue 13 formats read as the text says."""

from __future__ import annotations

import re
from pathlib import Path

from explorer.core.io.loaders import loads_runs
from explorer.core.io.loaders.options import ReadOptions
from explorer.core.io.model import ToolCall

DOC = (Path(__file__).resolve().parents[1] / "docs" / "formats.md").read_text(encoding="utf-8")


def block_after(heading: str, lang: str) -> str:
    section = DOC[DOC.index(heading):]
    return re.search(rf"```{lang}\n(.*?)```", section, re.S).group(1)


def test_otlp_worked_example():
    text = block_after("## OpenTelemetry traces (OTLP JSON)", "json")
    (run,) = loads_runs(text, "traces.jsonl", options=ReadOptions(join_key="eval.example_id")).runs
    assert run.id == "5b8efff798038103d269b633813fc60c"
    assert run.invocations[0].actual_calls == (ToolCall("search_flights", {"destination": "LIS"}), ToolCall("book_flight", {"flight": "TP1351"}))
    assert (run.invocations[0].answer, run.user_input, run.extra["example_id"]) == ("Booked TP1351.", "Book me to Lisbon on 12 March", "E1")


def test_parquet_worked_example(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(block_after("## Parquet", "python"), {})
    r1, r2 = loads_runs((tmp_path / "runs.parquet").read_bytes(), "runs.parquet").runs
    assert r1.invocations[0].actual_calls == (ToolCall("search", {"q": "LIS"}),)
    assert r2.invocations[0].expected_calls == (ToolCall("book", {"flight": "TP1"}),) and r2.invocations[0].actual_calls == ()
