"""The app's upload path takes the issue 13 formats (no browser; the page test comes with the
page redesign): an OTLP JSON file written by the real producer, then a labels CSV keyed by trace
id, load into a session's workspace and score.

Expected values, by hand: the upload carries no expectations, so every run has no expected calls
and the reference ""; every booking run made at least one call, so EXACT fails all ten runs. The
person judged E1, E2, E3, E7, E8 acceptable (false fails) and E4, E5, E6, E9, E10 unacceptable
(agreements): 5/10. The Parquet and Inspect uploads carry the same runs."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("BOKEH_RESOURCES", "server")

from explorer.app.shared import load_shared  # noqa: E402
from explorer.app.labels import SessionLabels  # noqa: E402
from explorer.app.workspace import ProcessSets, Workspace, labels_from_upload, looks_like_labels_csv  # noqa: E402
from explorer.commands.common import BUNDLED_CASES  # noqa: E402
from explorer.core.evaluation.settings import Settings  # noqa: E402
from explorer.core.evaluation.verdicts import evaluate  # noqa: E402
from explorer.core.io.casefile import load_case_set  # noqa: E402
from explorer.core.io.errors import LoadError  # noqa: E402
from producers import booking_as_otlp, flat_records, inspect_log_of, labels_csv, write_parquet  # noqa: E402

BOOKING = load_case_set(BUNDLED_CASES)
VERDICTS = {r.id: r.human_verdict for r in BOOKING.runs}


@pytest.fixture(scope="module")
def process():
    return ProcessSets(load_shared(BUNDLED_CASES), str(BUNDLED_CASES))


def test_otlp_upload_then_labels_by_trace_id_load_and_score(process, tmp_path):
    traces = tmp_path / "traces.jsonl"
    trace_ids = booking_as_otlp(BOOKING, traces)
    ws = Workspace(process)
    key = ws.add_upload(traces.read_bytes(), "traces.jsonl")
    shared = ws.select(key)
    assert list(shared.features.run_ids) == [trace_ids[r.id] for r in BOOKING.runs]
    labels = labels_csv({trace_ids[rid]: v for rid, v in VERDICTS.items()}).encode()
    assert looks_like_labels_csv(labels, "labels.csv")
    got = labels_from_upload(labels, "labels.csv", shared.features.run_ids)
    assert got.unknown == 0
    session_labels = SessionLabels.from_shared(shared)
    session_labels.apply_single(got.single)
    ev = evaluate(session_labels.apply_to(shared.features), Settings())
    assert (ev.summary.agree, ev.summary.labelled, ev.summary.false_fail, ev.summary.false_pass) == (5, 10, 5, 0)
    assert not ev.passed.any()


def test_parquet_and_inspect_uploads_load(process, tmp_path):
    ws = Workspace(process)
    parquet = tmp_path / "runs.parquet"
    write_parquet(flat_records(BOOKING, nested=True), parquet)
    shared = ws.select(ws.add_upload(parquet.read_bytes(), "runs.parquet"))
    assert list(shared.features.run_ids) == [r.id for r in BOOKING.runs]
    log = inspect_log_of(BOOKING, tmp_path / "logs")
    shared = ws.select(ws.add_upload(log.read_bytes(), log.name))
    assert sorted(shared.features.run_ids) == sorted(r.id for r in BOOKING.runs)


def test_a_bad_trace_upload_changes_nothing(process):
    ws = Workspace(process)
    before = ws.options()
    with pytest.raises(LoadError) as info:
        ws.add_upload(b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": "zz"}]}]}]}', "bad.json")
    assert str(info.value) == 'bad.json: line 1, resourceSpans[0].scopeSpans[0].spans[0].spanId: expected a 16-digit hex id, got "zz"'
    assert ws.options() == before and ws.active == "served"
    assert np.array_equal(ws.shared().features.run_ids, process.served.features.run_ids)
