"""Issue 10, kind 8 (fixed in the core by explorer/core/scoring/arg_diff.py): the issue's run gives the
reason naming the key and both values, actual first, in every place a reason is shown: the CLI's
table, JSON and CSV, the scored-table download, the app's table and detail, and the replay trace."""

from __future__ import annotations

import csv
import html
import io
import json

from explorer.cli import main
from explorer.core.evaluation.features import build_features
from explorer.core.evaluation.replay import DURATION, reveal_times, trace_events
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.verdicts import evaluate
from explorer.core.io.exports import dumps_scored_table
from explorer.core.io.loaders import loads_runs

ARGDIFF = ('{"id":"argdiff","expected_calls":[{"name":"web_search","args":{"query":"AI news"}}],'
           '"actual_calls":[{"name":"web_search","args":{"query":"AI news 2025"}}],"answer":"ok","reference":"ok"}\n')
WANT = 'web_search at position 1: query "AI news 2025" ≠ "AI news"'


def test_cli_table_json_csv(tmp_path, capsys):
    path = tmp_path / "a.jsonl"
    path.write_text(ARGDIFF)
    for mode in ("exact", "in_order", "any_order"):
        assert main(["score", "--cases", str(path), "--trajectory", mode, "--format", "json"]) == 0
        assert json.loads(capsys.readouterr().out)["runs"][0]["reason"] == WANT
    assert main(["score", "--cases", str(path)]) == 0
    assert WANT in capsys.readouterr().out
    assert main(["score", "--cases", str(path), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows[0]["reason"] == WANT


def test_download_app_and_trace():
    from explorer.app.main import ExplorerSession
    from explorer.app.views.detail import detail_html
    from explorer.app.views.table import table_frame
    from explorer.app.workspace import shared_from_case_set

    cs = loads_runs(ARGDIFF, "a.jsonl")
    f = build_features(cs)
    ev = evaluate(f, Settings())
    assert list(csv.DictReader(io.StringIO(dumps_scored_table(f, ev))))[0]["reason"] == WANT
    assert any(WANT in e.text for e in trace_events(f, ev, reveal_times(f.n), DURATION))
    s = ExplorerSession(shared_from_case_set(cs))
    assert html.escape(WANT) in table_frame(s.features, s.ev, 1)["Reason"][0]
    assert html.escape(WANT) in detail_html(s.features, s.ev, 0)
