"""An expectations file dropped on the page joins the runs of an uploaded trace file, as
``score --expectations`` joins them (the core's ``apply_expectations``; the join key found from the
traces' span attributes, the page having no ``--join-key``).

Found by a newcomer trial: the page had no way to take an expectations file, so uploaded traces
scored every call as an extra call, and ``expected.jsonl`` dropped after the traces was read as a
run file (``missing "actual_calls"``).

The traces are written by the real producer (tests/producers.py): booking runs E1, E3 and E4 as
three traces, each agent span carrying its run id under ``eval.example_id``. The expectations give
E1 and E3 their expected calls and reference (keyed by that id); E4 gets none.

Expected values, by hand (docs/metrics.md's trajectory families):

* E1's actual calls equal its 3 expected calls in order: EXACT 1, ANY_ORDER 1;
* E3 made its 4 expected calls with ``get_profile`` and ``search_flights`` swapped: EXACT 0,
  ANY_ORDER 1;
* E4 has no expected calls (no expectation) and made 2 calls: EXACT 0 (2 extra calls), ANY_ORDER 1
  (every one of its 0 expected calls was made; ANY_ORDER allows extra calls);
* before the join none of the three has an expected call: EXACT 0 for each.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ.setdefault("BOKEH_RESOURCES", "server")

import pytest  # noqa: E402

from explorer.app.page import WorkspacePage  # noqa: E402
from explorer.app.shared import load_shared  # noqa: E402
from explorer.app.workspace import ProcessSets  # noqa: E402
from explorer.core.evaluation.settings import Settings  # noqa: E402
from explorer.core.evaluation.verdicts import evaluate  # noqa: E402
from explorer.core.io.casefile import load_case_set  # noqa: E402
from explorer.core.io.loaders.expectations import looks_like_expectations  # noqa: E402
from explorer.core.io.loaders.otlp import attributes_naming  # noqa: E402
from explorer.core.io.model import CaseSet  # noqa: E402
from html_text import shown  # noqa: E402
from producers import booking_as_otlp, expectations_jsonl, labels_csv  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BOOKING_PATH = ROOT / "cases" / "booking_agent.json"
BOOKING = load_case_set(BOOKING_PATH)
THREE = CaseSet("three", "", tuple(r for r in BOOKING.runs if r.id in ("E1", "E3", "E4")), "")
TWO_EXPECTED = CaseSet("two", "", tuple(r for r in BOOKING.runs if r.id in ("E1", "E3")), "")
NO_EXPECTED = ("These traces have no expected calls yet, so every call counts as an extra call (an exact trajectory "
               "fails every run that made one): drop an expectations file (JSONL: id, expected_calls, reference; "
               "docs/formats.md) to join them.")
LOADED = "Loaded 3 runs from traces.jsonl. They are scored with the settings you had; press Play to list them."


@pytest.fixture(scope="module")
def process():
    return ProcessSets(load_shared(BOOKING_PATH), str(BOOKING_PATH))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """(traces.jsonl bytes, expected.jsonl bytes for E1 and E3, {run id: trace id})."""
    path = tmp_path_factory.mktemp("otlp") / "traces.jsonl"
    trace_ids = booking_as_otlp(THREE, path)
    return path.read_bytes(), expectations_jsonl(TWO_EXPECTED).encode(), trace_ids


def drop(page: WorkspacePage, *files: tuple[str, bytes]) -> None:
    """The files of one drop, arrived in this order and then handed over together."""
    page.upload._arrived.extend(files)
    page.upload.handle_arrived()


def scores(page: WorkspacePage, trajectory: str) -> list[float]:
    """The shown runs' trajectory scores under ``trajectory`` (E1, E3, E4 in file order)."""
    return list(evaluate(page.session.features, Settings(trajectory=trajectory)).trajectory_score)


def status(page: WorkspacePage) -> str:
    return shown(page.upload.status.object)


def joined_line(trace_ids: dict[str, str]) -> str:
    return (f"Joined expected.jsonl: expected calls and references for 2 of 3 runs (joined by span attribute "
            f"eval.example_id). 1 run has no expectation: {trace_ids['E4']}.")


def test_expectations_dropped_after_the_traces_join_them(process, files):
    traces, expected, trace_ids = files
    page = WorkspacePage(process)
    drop(page, ("traces.jsonl", traces))
    assert scores(page, "exact") == [0.0, 0.0, 0.0]
    assert status(page) == f"{LOADED} {NO_EXPECTED}"  # said before any expectations are joined
    drop(page, ("expected.jsonl", expected))
    assert not page.upload.error.visible  # the old code: 'expected.jsonl: line 1: missing "actual_calls"'
    assert scores(page, "exact") == [1.0, 0.0, 0.0]
    assert scores(page, "any_order") == [1.0, 1.0, 1.0]
    assert status(page) == f"{LOADED} {joined_line(trace_ids)}"  # the hint has gone: expected calls are joined
    runs = page.session.shared.case_set.runs
    assert runs[0].invocations[0].references == BOOKING.runs[0].invocations[0].references
    assert runs[2].invocations[0].references == ("",)  # E4: left as loaded
    assert page.workspace.active.startswith("upload:") and page.session.features.n == 3


def test_expectations_before_the_traces_wait_for_them_and_labels_follow(process, files):
    traces, expected, trace_ids = files
    page = WorkspacePage(process)
    drop(page, ("expected.jsonl", expected))
    assert status(page) == ("The 2 expectations in expected.jsonl will join the next trace or log file you upload "
                            "(drop the traces now, or drop both together).")
    assert "me-load-waiting" in page.upload.status.object
    assert "All runs: 4/10 agree" in shown(page.session.metrics.summary.object)  # the booking set, untouched
    labels = labels_csv({trace_ids["E1"]: "acceptable", trace_ids["E3"]: "acceptable", trace_ids["E4"]: "unacceptable"})
    drop(page, ("traces.jsonl", traces), ("labels.csv", labels.encode()))
    assert scores(page, "any_order") == [1.0, 1.0, 1.0]
    assert status(page) == f"{LOADED} {joined_line(trace_ids)} Applied the labels in labels.csv."
    assert page.pending_expectations is None


def test_traces_labels_and_expectations_dropped_together_read_as_one_line(process, files):
    traces, expected, trace_ids = files
    page = WorkspacePage(process)
    labels = labels_csv({trace_ids["E1"]: "acceptable"}).encode()
    drop(page, ("traces.jsonl", traces), ("labels.csv", labels), ("expected.jsonl", expected))
    # a drop is handled runs, expectations, labels (page.drop_order), whatever the arrival order
    assert status(page) == f"{LOADED} {joined_line(trace_ids)} Applied the labels in labels.csv."
    assert page.session.ev.summary.labelled == 1  # the labels survive the join's rebuild
    assert scores(page, "exact") == [1.0, 0.0, 0.0]


def test_expectations_keyed_by_trace_id_join_by_trace_id(process, files):
    traces, _, trace_ids = files
    by_trace = "".join(json.dumps({**json.loads(line), "id": trace_ids[json.loads(line)["id"]]}) + "\n"
                       for line in expectations_jsonl(THREE).splitlines())
    page = WorkspacePage(process)
    drop(page, ("traces.jsonl", traces), ("by_trace.jsonl", by_trace.encode()))
    assert status(page) == f"{LOADED} Joined by_trace.jsonl: expected calls and references for 3 of 3 runs (joined by trace id)."
    assert scores(page, "exact") == [1.0, 0.0, 0.0]  # E4 now expects 3 calls and made 2


def test_expectations_naming_no_run_are_an_error_and_change_nothing(process, files):
    traces, _, _ = files
    page = WorkspacePage(process)
    drop(page, ("traces.jsonl", traces))
    page.session.inputs.apply(page.session.inputs.settings().with_(trajectory="any_order"))
    before = page.session.shared
    drop(page, ("other.jsonl", b'{"id": "X1", "expected_calls": "a>b"}\n{"id": "X2", "reference": "hi"}\n'))
    error = shown(page.upload.error.object)
    assert ('other.jsonl: none of the 2 expectation ids names a run shown here (by trace id or any span attribute; '
            'first: "X1", line 1)') in error
    assert error.endswith("Nothing changed: the case set, labels and settings are as they were.")
    assert page.session.shared is before and page.session.inputs.settings().trajectory == "any_order"
    assert scores(page, "exact") == [0.0, 0.0, 0.0]


def test_waiting_expectations_that_name_none_of_the_traces_are_an_error_the_traces_load(process, files):
    traces, _, _ = files
    page = WorkspacePage(process)
    other = ("other.jsonl", b'{"id": "X1", "expected_calls": "a>b"}\n')
    drop(page, other)  # waits for a trace file
    drop(page, ("traces.jsonl", traces))
    assert page.session.features.n == 3
    assert status(page) == f"{LOADED} The expectations in other.jsonl were not joined: they name none of these runs. {NO_EXPECTED}"
    assert 'other.jsonl: line 1, id: its one expectation id, "X1", names no run shown here' in shown(page.upload.error.object)
    assert page.pending_expectations is None
    # in one drop the traces are handled first, then the expectations, which name none of them
    page = WorkspacePage(process)
    drop(page, other, ("traces.jsonl", traces))
    assert page.session.features.n == 3 and status(page) == f"{LOADED} {NO_EXPECTED}"
    error = shown(page.upload.error.object)
    assert 'other.jsonl: line 1, id: its one expectation id, "X1", names no run shown here' in error
    assert "the drop's other files were applied" in error
    assert page.pending_expectations is None


def test_expectations_on_a_set_not_from_traces_wait(process, files):
    """The booking set's run ids are E1..E10, as the expectations' ids: they are not joined onto
    it (its runs carry their own expected calls) but wait for a trace file."""
    _, expected, _ = files
    page = WorkspacePage(process)
    before = page.session.shared
    drop(page, ("expected.jsonl", expected))
    assert page.session.shared is before and page.pending_expectations is not None


def test_looks_like_expectations_by_content():
    assert looks_like_expectations(b'{"id": "E1", "expected_calls": "a>b", "reference": "ok"}\n')
    assert looks_like_expectations(b'[{"id": "E1", "references": ["ok"]}]')
    assert not looks_like_expectations(b'{"id": "r1", "expected_calls": "a", "actual_calls": "a", "answer": "x"}\n')
    assert not looks_like_expectations(b"run_id,human_verdict,note\nE1,acceptable,\n")
    assert not looks_like_expectations(BOOKING_PATH.read_bytes())  # a case set loads as runs
    assert not looks_like_expectations(b'{"resourceSpans": []}\n')
    # expectations per turn, and (a newcomer's trial) an unlabelled run whose turns say what the agent did
    assert looks_like_expectations(b'{"id": "E1", "invocations": [{"expected_calls": "a", "reference": "x"}]}\n')
    assert not looks_like_expectations(b'{"id": "r1", "invocations": [{"expected_calls": "a", "actual_calls": "a"}]}\n')
    assert not looks_like_expectations(b'{"id": "r1", "invocations": [{"reference": "x", "answer": "x"}]}\n')


def test_attributes_naming_finds_the_join_key(files):
    traces, _, _ = files
    assert attributes_naming(traces, "traces.jsonl", ["E1", "E3"]) == ["eval.example_id"]
    assert attributes_naming(traces, "traces.jsonl", ["nothing"]) == []


def test_expectations_join_every_epoch_of_an_inspect_sample_by_sample_id(process, files, tmp_path):
    """Two epochs of E1, E3 and E4: run ids ``E1#1``, ``E1#2``, ... with sample id ``E1``; E1 and
    E3's expectations reach both epochs (4 of 6 runs), E4's two epochs get none. EXACT as above."""
    from producers import inspect_log_of

    _, expected, _ = files
    log = inspect_log_of(THREE, tmp_path / "logs", epochs=2)
    page = WorkspacePage(process)
    drop(page, (log.name, log.read_bytes()))
    assert "These logs have no expected calls yet" in status(page)
    drop(page, ("expected.jsonl", expected))
    assert status(page).endswith("Joined expected.jsonl: expected calls and references for 4 of 6 runs (joined by "
                                 "sample id). 2 runs have no expectation: E4#1, E4#2.")
    exact = dict(zip(page.session.features.run_ids, scores(page, "exact")))
    assert exact == {"E1#1": 1.0, "E1#2": 1.0, "E3#1": 0.0, "E3#2": 0.0, "E4#1": 0.0, "E4#2": 0.0}
    # a label by sample id E4 could be either epoch: not guessed, and said how to key it
    drop(page, ("labels.csv", labels_csv({"E1#1": "acceptable", "E4": "unacceptable"}).encode()))
    assert status(page).endswith("Applied the labels in labels.csv. Not applied: E4 names 2 runs (epochs E4#1, E4#2): "
                                 "key their labels by run id.")
    assert list(page.session.labels.human) == [1, -1, -1, -1, -1, -1]


# --- labels keyed by example id (a newcomer trial) -----------------------------------------------
# The trial: traces written with each run's booking id under eval.example_id, labels and
# expectations keyed E1..E10. Traces and labels dropped together, then the expectations: the
# labels were kept for "the next run file" and lost once the expectations joined ("All runs: no
# labelled run (10 unlabelled)"). They now wait for the join and apply by example id.

TEN_LOADED = "Loaded 10 runs from traces.jsonl. They are scored with the settings you had; press Play to list them."


@pytest.fixture(scope="module")
def ten(tmp_path_factory):
    """(traces.jsonl, expected.jsonl, labels.csv keyed E1..E10 as the booking set labels its runs, {run id: trace id})."""
    d = tmp_path_factory.mktemp("otlp_ten")
    trace_ids = booking_as_otlp(BOOKING, d / "traces.jsonl")
    (d / "expected.jsonl").write_text(expectations_jsonl(BOOKING))
    (d / "labels.csv").write_text(labels_csv({r.id: r.human_verdict for r in BOOKING.runs}))
    return d, trace_ids


def test_labels_by_example_id_wait_for_the_expectations_and_agree_with_score(process, ten, capsys):
    from explorer.cli import main

    d, trace_ids = ten
    page = WorkspacePage(process)
    drop(page, ("traces.jsonl", (d / "traces.jsonl").read_bytes()), ("labels.csv", (d / "labels.csv").read_bytes()))
    assert status(page).startswith(f"{TEN_LOADED} None of the 10 run ids in labels.csv names a trace shown here: its labels "
                                   "will apply by example id once an expectations file joins these traces (drop it now), "
                                   "or to the next run file you upload.")
    assert page.pending_labels is not None and page.session.ev.summary.labelled == 0
    drop(page, ("expected.jsonl", (d / "expected.jsonl").read_bytes()))
    assert status(page) == (f"{TEN_LOADED} Joined expected.jsonl: expected calls and references for 10 of 10 runs (joined "
                            "by span attribute eval.example_id). Applied the labels in labels.csv (matched by example id).")
    assert page.pending_labels is None
    # the booking set's opening figures (tests/test_cli_formats.py): 4/10 agree, false pass E5,
    # false fails E1, E2, E3, E7, E8 -- here under each run's trace id
    s = page.session.ev.summary
    false_pass = page.session.ev.ids_with(page.session.features, "false pass")
    false_fail = page.session.ev.ids_with(page.session.features, "false fail")
    assert (s.agree, s.labelled) == (4, 10)
    assert sorted(false_pass) == [trace_ids["E5"]]
    assert sorted(false_fail) == sorted(trace_ids[r] for r in ("E1", "E2", "E3", "E7", "E8"))
    # ...the same as score of the same files
    assert main(["score", "--format", "json", "--cases", str(d / "traces.jsonl"), "--join-key", "eval.example_id",
                 "--expectations", str(d / "expected.jsonl"), "--labels", str(d / "labels.csv")]) == 0
    cli = json.loads(capsys.readouterr().out)["summary"]
    assert (cli["agree"], cli["labelled"]) == (s.agree, s.labelled)
    assert (sorted(cli["false_pass"]), sorted(cli["false_fail"])) == (sorted(false_pass), sorted(false_fail))


def test_the_side_panel_names_a_traces_example_id(process, ten):
    """The table shows trace ids and, once joined, the expectations' titles: the example id E1 the
    labels and expectations are keyed by showed nowhere (the trial). The side panel says it, escaped."""
    from dataclasses import replace as dc_replace

    from explorer.app.views.detail import detail_html
    from explorer.app.workspace import shared_from_case_set

    d, trace_ids = ten
    page = WorkspacePage(process)
    drop(page, ("traces.jsonl", (d / "traces.jsonl").read_bytes()), ("expected.jsonl", (d / "expected.jsonl").read_bytes()))
    session = page.session
    row = '<div class="me-detail-row"><span class="me-k">Example</span><span class="me-v">E1</span></div>'
    assert row in detail_html(session.features, session.ev, 0)
    assert "me-k\">Example" not in detail_html(load_shared(BOOKING_PATH).features, session.ev, 0)  # run id E1 = example id: no row
    odd = shared_from_case_set(CaseSet("odd", "", (dc_replace(BOOKING.runs[0], id="T1", extra={"example_id": "<b>E1</b>"}),), ""))
    assert '<span class="me-v">&lt;b&gt;E1&lt;/b&gt;</span>' in detail_html(odd.features, session.ev, 0)


def test_labels_by_example_id_dropped_before_the_traces_keep_waiting_for_the_expectations(tmp_path):
    """Labels first (the set shown names none of their ids), then the traces (which name none
    either: no example id yet), then the expectations: the labels apply at the join."""
    from dataclasses import replace as dc_replace

    from explorer.app.workspace import shared_from_case_set

    other = CaseSet("other", "", tuple(dc_replace(r, id=f"R{i}") for i, r in enumerate(BOOKING.runs)), "")
    page = WorkspacePage(ProcessSets(shared_from_case_set(other), None, bundled=[]))
    path = tmp_path / "traces.jsonl"
    booking_as_otlp(THREE, path)
    drop(page, ("labels.csv", labels_csv({"E1": "acceptable", "E3": "unacceptable", "E4": "unacceptable"}).encode()))
    drop(page, ("traces.jsonl", path.read_bytes()))
    assert status(page) == (f"{LOADED} The labels in labels.csv name none of these traces yet: they will apply by example id "
                            f"once an expectations file joins them. {NO_EXPECTED}")
    drop(page, ("expected.jsonl", expectations_jsonl(THREE).encode()))
    assert status(page).endswith("Applied the labels in labels.csv (matched by example id).")
    assert list(page.session.labels.human) == [1, 0, 0]  # E1, E3, E4 in file order


def test_the_load_report_cuts_an_id_of_500_characters():
    # an expectations file's 500-character id was named whole: the page scrolled 5,422 px wide
    from explorer.app.views.upload import expectations_message

    assert expectations_message("e.jsonl", "trace id", 1, 1, [], ["X" * 500, "E2"]) == (
        "Joined e.jsonl: expected calls and references for 1 of 1 run (joined by trace id). "
        "2 expectation ids name no run here: " + "X" * 39 + "…, E2.")


def test_a_run_file_whose_first_record_lacks_the_runs_fields_is_read_as_runs(process):
    # its first record read as an expectation, so the page said 'line 2, actual_calls: unknown
    # field' of a run file; read as runs, the error names what line 1 lacks
    page = WorkspacePage(process)
    before = page.session.shared
    drop(page, ("runs.jsonl", b'{"id": "r1", "expected_calls": "a", "reference": "x"}\n'
                              b'{"id": "r2", "expected_calls": "a", "actual_calls": "a", "answer": "x", "reference": "x"}\n'))
    assert shown(page.upload.error.object) == ('Could not load this file. runs.jsonl: line 1: missing "actual_calls" '
                                               "Nothing changed: the case set, labels and settings are as they were.")
    assert page.session.shared is before and page.pending_expectations is None


@pytest.mark.parametrize("order", [
    ("traces.jsonl", "expected.jsonl", "labels.csv"), ("labels.csv", "traces.jsonl", "expected.jsonl"),
    ("expected.jsonl", "labels.csv", "traces.jsonl"), ("labels.csv", "expected.jsonl", "traces.jsonl"),
])
def test_one_drop_of_traces_expectations_and_labels_gives_the_same_page_in_any_arrival_order(process, ten, order):
    # a second trial: the browser hands a drop's files over as each finishes uploading, so the small
    # labels CSV arrived first and was applied to the booking set shown (its ids E1..E10), and the
    # traces loaded unlabelled; a drop is now handled runs, expectations, labels
    d, _trace_ids = ten
    page = WorkspacePage(process)
    drop(page, *((name, (d / name).read_bytes()) for name in order))
    s = page.session.ev.summary
    assert (s.agree, s.labelled) == (4, 10)  # the booking set's opening figures, on its traces
    assert status(page) == (f"{TEN_LOADED} Joined expected.jsonl: expected calls and references for 10 of 10 runs (joined "
                            "by span attribute eval.example_id). Applied the labels in labels.csv (matched by example id).")
    # the set shown before the drop keeps its own labels (nothing was applied to it)
    assert page.workspace.labels_for("served").human.tolist() == [int(r.human_verdict == "acceptable") for r in BOOKING.runs]


def test_a_drop_hands_over_runs_then_expectations_then_labels_then_settings():
    from explorer.app.page import drop_order

    files = [("labels.csv", b"run_id,human_verdict\nE1,acceptable\n"),
             ("settings.json", b'{"format": "metric-explorer/settings@1", "settings": {}}'),
             ("expected.jsonl", b'{"id": "E1", "expected_calls": "a>b"}\n'),
             ("runs.jsonl", b'{"id": "r1", "expected_calls": "a", "actual_calls": "a", "answer": "x", "reference": "x"}\n'),
             ("more.jsonl", b'{"id": "r2", "expected_calls": "a", "actual_calls": "a", "answer": "x", "reference": "x"}\n')]
    # each kind in arrival order
    assert [n for n, _ in drop_order(files)] == ["runs.jsonl", "more.jsonl", "expected.jsonl", "labels.csv", "settings.json"]
