"""Issue 4 in the app, the pure parts and the page without a browser: workspace and picker,
uploads with clear errors that lose nothing, label keys, filters, sweep data, label downloads.

Expected values come from seed 002's bundled set: at the opening settings (EXACT with args, F1 0.8,
every check must pass) the five acceptable runs E1, E2, E3, E7, E8 all fail (E1 F1 0.62, E7 F1 0.41;
E2 extra call, E3 reorder, E8 retry fail EXACT), E5 passes although unacceptable, E4, E6, E9, E10
fail and are unacceptable: agreement 4/10.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("BOKEH_RESOURCES", "server")

from explorer.app.labels import SessionLabels  # noqa: E402
from explorer.app.page import WorkspacePage  # noqa: E402
from explorer.app.shared import load_shared  # noqa: E402
from explorer.app.views.downloads import session_labels_csv  # noqa: E402
from explorer.app.views.filters import filter_mask, search_text  # noqa: E402
from explorer.app.views.labelling import unlabelled_text, verdict_for_key  # noqa: E402
from explorer.app.views.sweep import heat_rows, sweep_view_data  # noqa: E402
from explorer.app.workspace import (  # noqa: E402
    ProcessSets, Workspace, bundled_run_sets, labels_from_upload, load_upload, looks_like_labels_csv,
)
from explorer.core.io.errors import LoadError  # noqa: E402
from explorer.core.evaluation.verdicts import evaluate  # noqa: E402
from explorer.core.io.loaders.labels import loads_labels  # noqa: E402
from explorer.core.evaluation.settings import Settings  # noqa: E402
from html_text import shown  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BOOKING = ROOT / "cases" / "booking_agent.json"
IDS = [f"E{i}" for i in range(1, 11)]


@pytest.fixture(scope="module")
def shared():
    return load_shared(BOOKING)


@pytest.fixture
def process(shared):
    return ProcessSets(shared, str(BOOKING))


def flat_jsonl(ids: list[str], verdict: str | None = None) -> bytes:
    lines = []
    for rid in ids:
        v = f', "human_verdict": "{verdict}"' if verdict else ""
        lines.append(
            f'{{"id": "{rid}", "expected_calls": "a>b", "actual_calls": "a>b", "answer": "ok done", '
            f'"reference": "ok done"{v}}}'
        )
    return ("\n".join(lines) + "\n").encode()


# --- workspace and picker ---------------------------------------------------------------------

def test_bundled_run_sets_are_the_run_case_sets_only():
    names = [p.name for p in bundled_run_sets()]
    # labelled_pairs.json is pairs@1; refund_agent.json is issue 12's partial-credit lesson
    assert names == ["booking_agent.json", "refund_agent.json", "token_overlap.json"]


def test_served_bundled_set_is_not_listed_twice_and_bundled_sets_load_once(process):
    keys = [e.key for e in process.entries()]
    assert keys == ["served", "bundled:refund_agent.json", "bundled:token_overlap.json"]
    first = process.get("bundled:token_overlap.json")
    again = process.get("bundled:token_overlap.json")
    assert first is again and process.loads == 1
    assert first.features.n == 3  # one reference and three candidates (seed 000)
    with pytest.raises(KeyError):
        process.get("bundled:nope.json")


def test_picker_names_bundled_sets_by_their_own_name(process):
    # the picker read "refund_agent (bundled)", the file's stem; the sets' "name" fields are
    # cases/refund_agent.json's and cases/token_overlap.json's, read from the files by hand
    labels = {e.key: e.label for e in process.entries()}
    assert labels == {
        "served": "Booking agent: ten judged runs (served, 10 runs)",
        "bundled:refund_agent.json": "Refund agent: partial credit (bundled)",
        "bundled:token_overlap.json": "Token overlap and where it fails (seed 000) (bundled)",
    }
    process.get("bundled:refund_agent.json")  # loaded: its run count joins the label, the key stays
    assert Workspace(process).options()["Refund agent: partial credit (bundled, 8 runs)"] == "bundled:refund_agent.json"


def test_picker_adds_the_file_name_to_sets_of_one_name(shared, tmp_path):
    body = json.loads((BOOKING.parent / "token_overlap.json").read_text())
    for file, name in (("a.json", "Same"), ("b.json", "Same"), ("c.json", "  Other  "), ("d.json", "")):
        (tmp_path / file).write_text(json.dumps({**body, "name": name}))
    (tmp_path / "e.json").write_text('{"format": "metric-explorer/cases@1", "name": ')  # cut short
    files = sorted(tmp_path.glob("*.json"))
    labels = [e.label for e in ProcessSets(shared, str(BOOKING), bundled=files).entries()][1:]
    assert labels == ["Same (a.json, bundled)", "Same (b.json, bundled)", "Other (bundled)", "d (bundled)", "e (bundled)"]


def test_uploads_belong_to_their_session(process):
    a, b = Workspace(process), Workspace(process)
    key = a.add_upload(flat_jsonl(["r1", "r2"]), "mine.jsonl")
    assert a.shared(key).features.n == 2
    assert "mine.jsonl (uploaded, 2 runs)" in a.options()
    assert key not in b.options().values() and len(b.entries()) == 3  # served + the two other bundled sets
    assert a.shared("served") is b.shared("served")  # shared read-only, not copied


@pytest.mark.parametrize(
    "name, data, where",
    [
        ("empty.json", b"", "empty.json: file is empty"),
        ("blank.csv", b"  \n\n", "blank.csv: file is empty"),
        ("image.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image.png: binary file"),
        ("notes.txt", b"hello there\nnothing here\n", "notes.txt: line 1: not JSON, JSONL or CSV"),
        ("zero.json", b'{"format": "metric-explorer/cases@1", "name": "z", "runs": []}', "zero.json: runs: no runs"),
        ("typed.json", b'{"format": "metric-explorer/cases@1", "name": "x", "runs": [{"id": true}]}', "typed.json: runs[0].id: expected a string"),
        ("broken.json", b'{"runs": [', "broken.json: line 1, column 11: invalid JSON"),
        # a booking-id regex that backtracks without end held the server's loop for every session
        ("redos.json", json.dumps({
            "format": "metric-explorer/cases@1", "name": "r", "key_fields": {"id_pattern": "(a|aa)+$"},
            "runs": [{"id": "r1", "invocations": [{"expected_calls": [], "actual_calls": [],
                                                   "answer": "a" * 34 + "!", "references": ["ok"]}]}],
        }).encode(), "redos.json: key_fields.id_pattern: the booking-id regex '(a|aa)+$' took over 0.5 s on one text"),
    ],
)
def test_bad_upload_names_file_location_and_leaves_the_workspace_as_it_was(process, name, data, where):
    ws = Workspace(process)
    ws.labels_for().set(0, "unacceptable")
    before = (ws.active, dict(ws.options()), ws.labels_for().human.copy())
    with pytest.raises(LoadError) as err:
        ws.add_upload(data, name)
    assert str(err.value).startswith(where)
    assert (ws.active, ws.options()) == before[:2]
    assert np.array_equal(ws.labels_for().human, before[2])


def test_missing_field_is_named(process):
    with pytest.raises(LoadError) as err:
        load_upload(b'{"id": "r1", "expected_calls": "a", "answer": "x", "reference": "x"}\n', "runs.jsonl")
    assert "runs.jsonl" in str(err.value) and "actual_calls" in str(err.value)


def test_size_limit_is_configurable(monkeypatch):
    monkeypatch.setenv("METRIC_EXPLORER_MAX_BYTES", "100")
    # 530 bytes against 100 (the sizes read "0.0 MB, over the 0 MB limit" before)
    with pytest.raises(LoadError, match=r"big\.jsonl: file is 530 bytes, over the 100 bytes limit"):
        load_upload(flat_jsonl([f"r{i}" for i in range(5)]), "big.jsonl")


def test_labels_csv_upload_applies_over_current_codes(shared):
    data = b"run_id,human_verdict,note\nE1,unacceptable,wrong after all\nE9,,\nX99,acceptable,\n"
    assert looks_like_labels_csv(data, "l.csv")
    assert not looks_like_labels_csv(b"id,answer\n", "runs.csv")
    got = labels_from_upload(data, "l.csv", shared.features.run_ids)
    assert got.single == {0: ("unacceptable", "wrong after all"), 8: (None, "")} and got.unknown == 1 and not got.annotated
    labels = SessionLabels.from_shared(shared)
    labels.apply_single(got.single)
    assert labels.human[0] == 0 and labels.human[8] == -1 and labels.notes == {"0": "wrong after all"}
    assert shared.features.human[0] == 1  # the shared features are not touched
    with pytest.raises(LoadError, match=r'its one run id names no run of this case set \("Z"\)'):
        labels_from_upload(b"run_id,human_verdict\nZ,acceptable\n", "z.csv", shared.features.run_ids)


# --- labelling keys, filters ------------------------------------------------------------------

def test_label_keys():
    assert verdict_for_key("a") == (True, "acceptable")
    assert verdict_for_key("U") == (True, "unacceptable")
    assert verdict_for_key("c") == (True, None)
    assert verdict_for_key("x") == (False, None)


def test_unlabelled_text_counts_neither_verdict():
    assert unlabelled_text(np.array([1, -1, 0, -1], dtype=np.int8)) == (
        "Unlabelled: 2 of 4 runs (counted as neither verdict) · 1 acceptable · 1 unacceptable"
    )
    # 1,000 runs, 998 unlabelled: thousands separators, as the summary bar's "(1,000 unlabelled)"
    human = np.full(1000, -1, dtype=np.int8)
    human[:2] = (1, 0)
    assert unlabelled_text(human) == "Unlabelled: 998 of 1,000 runs (counted as neither verdict) · 1 acceptable · 1 unacceptable"
    assert unlabelled_text(np.full(1000, -1, dtype=np.int8)).startswith("Unlabelled: 1,000 of 1,000 runs")


def test_filters_on_the_opening_run(shared):
    ev = evaluate(shared.features, Settings())
    ids = np.array(IDS)
    assert list(ids[filter_mask(ev, ["false fail"])]) == ["E1", "E2", "E3", "E7", "E8"]
    assert list(ids[filter_mask(ev, ["false pass"])]) == ["E5"]
    assert list(ids[filter_mask(ev, ["agree"])]) == ["E4", "E6", "E9", "E10"]
    # E1 and E7 fail on F1 alone; E2, E3, E8 on the trajectory
    assert list(ids[filter_mask(ev, ["false fail"], ["trajectory"])]) == ["E2", "E3", "E8"]
    text = search_text(shared.features)
    assert list(ids[filter_mask(ev, search="  PARAPHRASE ", text=text)]) == ["E7"]
    assert list(ids[filter_mask(ev, search="e1", text=text)]) == ["E1", "E10"]
    assert filter_mask(ev).all()
    labelled = shared.features.with_human(np.where(np.arange(10) == 0, -1, shared.features.human).astype(np.int8))
    assert list(ids[filter_mask(evaluate(labelled, Settings()), ["unlabelled"])]) == ["E1"]
    with pytest.raises(ValueError):
        filter_mask(ev, ["maybe"])


# --- sweep ------------------------------------------------------------------------------------

def test_sweep_view_finds_ten_of_ten_on_the_bundled_set(shared):
    d = sweep_view_data(shared.features, shared.defaults)
    assert (d.agree, d.labelled, d.false_pass, d.false_fail) == (10, 10, 0, 0)
    # issue 12's full grid: per F1 threshold (101), deny x key (4) and, per family and argument
    # mode, combine all with its trajectory thresholds plus combine mean: 5 match families x 4
    # modes x (1 + 1), 4 partial scores x 4 modes x (21 + 1), not scored x 1 x (1 + 1)
    assert len(d.table) == 101 * 4 * (5 * 4 * 2 + 4 * 4 * 22 + 1 * 2) == 159_176
    assert d.reading.n_settings == len(d.table) and d.reading.n_tied == d.n_best
    assert d.reading.warning.startswith(f"{d.n_best:,} settings reach 10/10 on 10 runs: the runs cannot tell them apart")
    # the best's slice: 5 x 4 + 4 x 4 + 1 rows (family x argument mode), 101 F1 thresholds each
    assert d.best_slice()["combine"] == "all" and len(d.heat) == 37 * 101 and d.heat["row"].nunique() == 37
    # seed 002's last lesson step: ANY_ORDER, deny-list on delete_booking, key fields on
    assert any(g["trajectory"] == "any_order" and g["deny_check"] and g["key_fields"] for g in d.groups)
    for settings in d.choices.values():
        s = evaluate(shared.features, settings).summary
        assert (s.agree, s.labelled) == (10, 10)


def test_sweep_tab_says_it_is_computing_until_its_table_is_drawn(shared):
    # the trial: the tab stayed blank for ~30 s on an uploaded ADK set, with no sign of work
    from explorer.app.views.sweep import SweepView, computing_text

    assert computing_text(shared.features, shared.defaults) == "Computing the sweep over 159,176 settings on 10 labelled runs…"
    view = SweepView(lambda _settings: None)
    view.panel()
    view.start(shared.features, shared.defaults, background=True)
    assert view.status.visible and shown(view.status.object) == "Computing the sweep over 159,176 settings on 10 labelled runs…"
    assert view.results.loading and view.data is None
    view.job.join(60)
    view.poll()  # what the session's periodic callback does
    assert view.job is None and not view.status.visible and not view.results.loading
    assert (view.data.agree, view.data.labelled) == (10, 10) and "Best agreement 10/10" in shown(view.best.object)


def test_sweep_with_no_tool_chosen_to_deny_sweeps_the_deny_list_off_only(shared):
    # a deny-list of no tools passes every run: the tab listed each deny-list-on setting beside its
    # off twin (159,176 settings), as `metric-explorer sweep` did before --deny was needed
    from explorer.app.views.sweep import SweepView, computing_text, headline_html

    none_chosen = shared.defaults.with_(deny_tools=())
    half = 101 * 2 * (5 * 4 * 2 + 4 * 4 * 22 + 1 * 2)  # F1 x key fields x rows, deny-list off alone
    assert half == 79_588
    assert computing_text(shared.features, none_chosen) == "Computing the sweep over 79,588 settings on 10 labelled runs…"
    d = sweep_view_data(shared.features, none_chosen)
    assert len(d.table) == half and not d.table["deny_check"].any() and d.deny_checks == (False,)
    note = ("Deny-list off only (no tool to deny: choose one under Denied tools on the Explorer tab to sweep the "
            "deny-list on as well).")
    assert d.deny_note == note and note in shown(headline_html(d))
    assert "deny-list on," not in shown(headline_html(d))
    # E6 (unacceptable) calls delete_booking and only the deny-list fails it on every family that
    # passes the other nine: the best passes it wrongly
    assert (d.agree, d.labelled, d.false_pass, d.false_fail) == (9, 10, 1, 0)
    view = SweepView(lambda _settings: None)
    view.panel()
    view.start(shared.features, none_chosen, background=False)
    assert view.deny.options == {"off": False} and view.deny.disabled and view.deny.value is False
    # delete_booking chosen: both again, no note
    d = sweep_view_data(shared.features, shared.defaults)
    assert len(d.table) == 2 * half and d.deny_checks == (False, True) and d.deny_note == ""
    view.start(shared.features, shared.defaults, background=False)
    assert view.deny.options == {"off": False, "on": True} and not view.deny.disabled


def test_sweep_of_runs_that_call_no_tool_says_there_is_none_to_deny():
    runs = "".join(f'{{"id": "r{i}", "expected_calls": "", "actual_calls": "", "answer": "ok", "reference": "ok", '
                   f'"human_verdict": "acceptable"}}\n' for i in range(2)).encode()
    calls_none = load_upload(runs, "no_calls.jsonl")
    assert calls_none.tools == ()
    d = sweep_view_data(calls_none.features, calls_none.defaults)
    assert d.deny_checks == (False,) and d.deny_note == "Deny-list off only (no tool to deny: no run calls a tool)."


def sweep_threads() -> int:
    import threading

    return sum(1 for t in threading.enumerate() if t.name == "metric-explorer-load" and t.is_alive())


def test_label_changes_while_the_sweep_computes_run_one_sweep_at_a_time_and_draw_the_last(shared):
    # labelling five runs in a row started five sweeps side by side (a thread cannot be stopped),
    # so the last one's result came five sweeps' time later; now one computes, the latest waits
    from dataclasses import replace
    from explorer.app.views.sweep import SweepView

    view = SweepView(lambda _settings: None)
    view.panel()
    for n in range(1, 6):  # the first n runs labelled as the file has them, the others not
        human = np.full_like(shared.features.human, -1)
        human[:n] = shared.features.human[:n]
        view.start(replace(shared.features, human=human), shared.defaults, background=True)
        assert sweep_threads() <= 1
    assert shown(view.status.object) == "Computing the sweep over 159,176 settings on 5 labelled runs…"
    first = view.job
    first.join(60)
    view.poll()  # the first has ended: its result (1 labelled run) is dropped and the fifth starts
    assert view.job is not first and view.data is None and view.results.loading
    view.job.join(60)
    view.poll()
    assert view.job is None and not view.results.loading
    assert view.data.labelled == 5 and view.data.agree == 5  # 10/10 on all ten runs: 5/5 on five of them


def test_two_sessions_sweeping_at_once_each_count_their_own_labels(process):
    # two browser tabs of one served set: A unlabels E1-E5, B keeps the file's ten verdicts
    a, b = WorkspacePage(process), WorkspacePage(process)
    for i in range(5):
        a.session.labels.set(i, None)
    for page in (a, b):
        page.attached.sweep.panel()
        page.attached.sweep.start(page.session.features, page.session.ev.settings, background=True)
    for page in (a, b):
        page.attached.sweep.job.join(60)
        page.attached.sweep.poll()
    assert (a.attached.sweep.data.agree, a.attached.sweep.data.labelled) == (5, 5)
    assert (b.attached.sweep.data.agree, b.attached.sweep.data.labelled) == (10, 10)
    assert int(np.count_nonzero(b.session.labels.human >= 0)) == 10  # B's labels untouched by A's


def test_a_file_uploaded_while_the_sweep_computes_drops_that_sweep(process):
    # the sweep of the set left behind must not be drawn over the new set's page
    page = WorkspacePage(process)
    old = page.attached.sweep
    old.panel()
    old.start(page.session.features, page.session.ev.settings, background=True)
    job = old.job
    page.received("mine.jsonl", flat_jsonl(["r1", "r2"], "acceptable"))
    assert page.session.features.n == 2 and old.job is None
    job.join(60)
    old.poll()
    assert old.data is None  # dropped, not drawn
    page.attached.open_sweep()  # the new set's own sweep: 2 labelled runs
    assert page.attached.sweep is not old and page.attached.sweep.data.labelled == 2


def test_sweep_with_one_labelled_run_offers_each_tied_group_its_middle_threshold(shared):
    # one labelled run (E1, acceptable) ties 103,080 settings in 1,572 groups: each group offers
    # the setting at its middle F1 threshold, which agrees on E1 (1/1)
    from dataclasses import replace

    human = np.full_like(shared.features.human, -1)
    human[0] = shared.features.human[0]
    features = replace(shared.features, human=human)
    d = sweep_view_data(features, shared.defaults)
    assert (d.agree, d.labelled, d.n_best, len(d.groups)) == (1, 1, 103_080, 1_572) and len(d.choices) == 1_572
    first = d.groups[0]  # EXACT, arguments exact, all, deny-list off, key fields off: E1 passes at F1 thresholds <= 0.61 (its F1 is 8/13 = 0.615)
    assert first["f1_thresholds"] == "0.00-0.61"
    assert d.choices[next(iter(d.choices))].f1_threshold == 0.3  # the 31st of 62 thresholds, (62 - 1) // 2 = 30
    for settings in list(d.choices.values())[::100]:
        s = evaluate(features, settings).summary
        assert (s.agree, s.labelled) == (1, 1)


def test_sweep_heatmap_slices_read_the_lesson_figures(shared):
    d = sweep_view_data(shared.features, shared.defaults)

    def cell(row, f1, **fixed):
        heat = heat_rows(d.table, **fixed)
        return int(heat[(heat["row"] == row) & np.isclose(heat["f1_threshold"], f1)]["agree"].iloc[0])

    off = dict(combine="all", deny_check=False, key_fields=False, trajectory_threshold=1.0)
    on = dict(off, deny_check=True, key_fields=True)
    assert cell("EXACT · exact", 0.8, **off) == 4  # the lesson's opening (seed 002)
    assert cell("ANY_ORDER · exact", 0.8, **off) == 6  # step 3
    assert cell("ANY_ORDER · exact", 0.4, **on) == 10  # step 7
    # recall at 0.65 passes E4 (2 of 3 expected calls, 0.667): E4, E5, E6 pass wrongly, E1, E7
    # fail on F1 -> 5/10; at 0.70 E4 fails -> 6/10 (by hand from the cases file)
    assert cell("recall ≥ 0.65 · exact", 0.8, **dict(off, trajectory_threshold=0.65)) == 5
    assert cell("recall ≥ 0.70 · exact", 0.8, **dict(off, trajectory_threshold=0.7)) == 6
    mean = heat_rows(d.table, combine="mean", deny_check=False, key_fields=False, trajectory_threshold=0.5)
    assert mean["row"].nunique() == 37 and "recall · exact" in set(mean["row"])  # no threshold is read under mean


# --- the page (Panel objects, no browser) -----------------------------------------------------

def test_page_failed_upload_keeps_set_labels_and_settings(process):
    page = WorkspacePage(process)
    page.layout()
    page.session.clock.time = 60.0
    page.session.table.table.selection = [0]
    page._on_key(type("E", (), {"new": "u:1"})())  # the key listener reports 'u'
    assert "All runs: 5/10 agree" in shown(page.session.metrics.summary.object)
    page.session.inputs.f1_threshold = 0.5
    session, settings = page.session, page.session.inputs.settings()
    page.received("broken.json", b'{"format": "metric-explorer/cases@1", "name": "x", "runs": [{"id": true}]}')
    assert page.upload.error.visible and "broken.json" in page.upload.error.object and "runs[0].id" in page.upload.error.object
    assert page.session is session and page.session.inputs.settings() == settings
    assert page.session.labels.human[0] == 0


def test_page_upload_then_switch_back_keeps_labels_and_settings(process):
    page = WorkspacePage(process)
    page.layout()
    page.session.clock.time = 60.0
    page.session.table.table.selection = [0]
    page.attached.label_selected("unacceptable")
    page.session.inputs.f1_threshold = 0.5
    page.received("mine.jsonl", flat_jsonl(["r1", "r2", "r3"], "acceptable"))
    assert page.session.features.n == 3 and page.picker.value == "upload:1"
    assert page.session.inputs.f1_threshold == 0.5  # settings carried over
    # both runs match exactly: pass and acceptable
    assert "All runs: 3/3 agree" in shown(page.session.metrics.summary.object)
    page.picker.value = "served"
    assert page.session.labels.human[0] == 0  # the label made before the upload is kept
    assert page.session.inputs.f1_threshold == 0.5
    csv_text = session_labels_csv(page.session.shared.features, page.session.labels)
    labels = loads_labels(csv_text, "labels.csv")
    assert labels["E1"].verdict == "unacceptable" and len(labels) == 10


def test_downloads_settings_adk_and_table(process):
    from explorer.core.io.exports import loads_settings
    import json

    page = WorkspacePage(process)
    page.layout()
    page.session.inputs.param.update(trajectory="any_order", deny_check=True, key_fields=True, f1_threshold=0.4)
    settings = loads_settings(page.downloads._settings(), "settings.json")  # what score/serve --settings read
    assert settings == page.session.inputs.settings()
    adk = json.loads(page.downloads._adk())
    assert adk["criteria"]["tool_trajectory_avg_score"] == {"threshold": 1.0, "match_type": "ANY_ORDER", "ignore_args": False}
    assert adk["criteria"]["response_match_score"] == 0.4
    notes = " ".join(adk["_metric_explorer_notes"])
    assert "deny-list" in notes and "key-field" in notes
    table = page.downloads._table().splitlines()
    assert len(table) == 11 and table[0].startswith("id,title,")
    assert page.downloads.labels.filename == "Booking-agent-ten-judged-runs-labels.csv"


def test_labelling_on_a_page_of_a_big_set_labels_the_run_on_that_row(process):
    import json
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    import synth

    page = WorkspacePage(process)
    page.layout()
    records = [synth.flat_record(r) for r in synth.runs(2100, seed=1)]
    for rec in records:
        rec.pop("human_verdict", None)
    page.received("big.jsonl", "".join(json.dumps(r) + "\n" for r in records).encode())
    session = page.session
    assert session.table.windowed  # over 2,000 runs: the table holds one page of rows
    session.clock.time = 60.0
    session.table.page.value = 3  # runs 50..74 (25 a page)
    session.table.table.selection = [2]
    page._on_key(type("E", (), {"new": "a:1"})())
    assert session.labels.human[52] == 1 and np.count_nonzero(session.labels.human >= 0) == 1
    assert f"<b>{records[52]['id']}</b>" in page.attached.label_bar.selected.object
    page._on_key(type("E", (), {"new": "c:2"})())  # still selected: clear it again
    assert np.count_nonzero(session.labels.human >= 0) == 0


def test_page_unknown_format_upload_does_not_point_at_a_command_line_flag(process):
    # found by a newcomer: dropping cases/labelled_pairs.json (a calibration pairs file, not runs)
    # said "give --input-format (cases, adk, ...)", a flag the drop zone has no place for
    page = WorkspacePage(process)
    page.layout()
    page.received("labelled_pairs.json", (ROOT / "cases" / "labelled_pairs.json").read_bytes())
    text = shown(page.upload.error.object)
    assert page.upload.error.visible and "labelled_pairs.json" in text and "cannot tell the format" in text
    assert "--input-format" not in text
    assert "docs/formats.md" in text


def test_sweep_tab_with_no_labelled_run_says_so_and_offers_nothing_to_apply():
    # found by a newcomer: on an uploaded ADK result (no labels) the Settings sweep tab stayed
    # blank for ~30 s, then listed every setting as "best" at 0/0 with all 1,576 groups to apply
    from explorer.app.views.sweep import headline_html
    from explorer.app.workspace import load_upload

    adk = {"eval_set_result_id": "r", "eval_set_id": "s", "eval_case_results": [{
        "eval_set_id": "s", "eval_id": "one", "final_eval_status": 2,
        "eval_metric_result_per_invocation": [{
            "actual_invocation": {"final_response": {"parts": [{"text": "Booked."}]},
                                  "intermediate_data": {"tool_uses": [{"name": "book", "args": {}}]}},
            "expected_invocation": {"final_response": {"parts": [{"text": "Booked it."}]},
                                    "intermediate_data": {"tool_uses": [{"name": "book", "args": {}}]}},
        }],
    }]}
    import json
    shared = load_upload(json.dumps(adk).encode(), "one.evalset_result.json")
    d = sweep_view_data(shared.features, shared.defaults)
    assert d.labelled == 0
    assert d.choices == {} and d.groups == []
    text = shown(headline_html(d))
    assert "No labelled runs: the sweep cannot rank the settings" in text
    assert "Best agreement" not in text
    assert "label" in text.lower() and "Your data" in text  # how to give labels


def test_sweep_apply_button_is_disabled_while_there_is_nothing_to_apply(shared):
    # found by a newcomer: with no labelled run the list of best settings is empty and the
    # "Apply this setting" button did nothing when pressed
    from explorer.app.views.sweep import SweepView
    view = SweepView(lambda _settings: None)
    unlabelled = shared.features.with_human(np.full(len(shared.features.human), -1))
    view.show(unlabelled, shared.defaults)
    assert view.choice.options == [] and view.apply_button.disabled
    view.show(shared.features, shared.defaults)  # 10 labelled runs: 10/10 reachable
    assert view.choice.options and not view.apply_button.disabled
