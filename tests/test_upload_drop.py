"""Several files dropped together (``views/upload.UploadView.handle_arrived``): every file is
applied or named in an error, and the drop's outcomes are shown together.

Found by a newcomer trial in the browser: a run file and its labels dropped together, run file
first, loaded the runs and never applied the labels (the page was rebuilt while the browser was
still sending the labels); a truncated run file dropped with a good labels file showed only
"Applied the labels in labels_ok.csv.", the error hidden by the next file's success. The page is
driven here without a browser: the drop's files are handed over as the drop zone hands them over
once the drop has settled (its arrival order); the browser tests drop real files.

Figures: the flat files below hold runs whose calls and answers match exactly, so every run
passes; a run labelled unacceptable is then a false pass, one labelled acceptable agrees."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("BOKEH_RESOURCES", "server")

import pytest  # noqa: E402

from explorer.app.page import WorkspacePage  # noqa: E402
from explorer.app.shared import load_shared  # noqa: E402
from explorer.app.workspace import ProcessSets  # noqa: E402
from html_text import shown  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BOOKING = ROOT / "cases" / "booking_agent.json"
RUN = b'{"id": "r1", "expected_calls": "a>b", "actual_calls": "a>b", "answer": "ok done", "reference": "ok done", "human_verdict": "acceptable"}\n'
TRUNCATED = RUN + b'{"id": "r2", "expected_calls": "a>b", "answer": "ok do\n'
FLIP_R1 = b"run_id,human_verdict,note\nr1,unacceptable,flip\n"
E5_ACCEPTABLE = b"run_id,human_verdict,note\nE5,acceptable,fine\n"


@pytest.fixture(scope="module")
def process():
    return ProcessSets(load_shared(BOOKING), str(BOOKING))


def drop(page: WorkspacePage, *files: tuple[str, bytes]) -> None:
    """The files of one drop, arrived in this order and then handed over together."""
    page.upload._arrived.extend(files)
    page.upload.handle_arrived()


def whole(page: WorkspacePage) -> str:
    return shown(page.session.metrics.summary.object)


def test_runs_then_their_labels_dropped_together_both_apply(process):
    page = WorkspacePage(process)
    drop(page, ("good.jsonl", RUN), ("labels_r1.csv", FLIP_R1))
    assert page.session.features.n == 1
    assert "All runs: 0/1 agree" in whole(page)  # r1 passes, the labels say unacceptable: a false pass
    status = shown(page.upload.status.object)
    assert status == ("Loaded 1 run from good.jsonl. It is scored with the settings you had; press Play to list it. "
                      "Applied the labels in labels_r1.csv.")  # once, not the runs' sentence twice
    assert page.upload.status.visible and not page.upload.error.visible


def test_labels_then_their_runs_dropped_together_both_apply_and_the_wait_is_not_shown(process):
    page = WorkspacePage(process)
    drop(page, ("labels_r1.csv", FLIP_R1), ("good.jsonl", RUN))
    assert "All runs: 0/1 agree" in whole(page)
    status = shown(page.upload.status.object)
    assert status == ("Loaded 1 run from good.jsonl. It is scored with the settings you had; press Play to list it. "
                      "Applied the labels in labels_r1.csv.")
    assert "me-load-ok" in page.upload.status.object and "will apply to the next run file" not in status


def test_a_bad_file_and_a_good_one_dropped_together_show_the_error_and_the_success(process):
    page = WorkspacePage(process)
    assert "All runs: 4/10 agree" in whole(page)
    drop(page, ("truncated.jsonl", TRUNCATED), ("labels_ok.csv", E5_ACCEPTABLE))
    # E5 passes at the opening settings; labelled acceptable it agrees: 5/10
    assert "All runs: 5/10 agree" in whole(page) and page.session.features.n == 10
    error = shown(page.upload.error.object)
    assert page.upload.error.visible and error.startswith("Could not load this file. truncated.jsonl: line 2")
    assert "the drop's other files were applied" in error
    assert page.upload.status.visible and shown(page.upload.status.object) == "Applied the labels in labels_ok.csv."
    tabs = page.attached.tabs
    assert tabs.active == len(tabs) - 1 and tabs[-1] is page.data_tab  # the drop ends where its error is


def test_two_bad_files_dropped_together_are_both_named_and_nothing_changes(process):
    page = WorkspacePage(process)
    drop(page, ("truncated.jsonl", TRUNCATED), ("empty.jsonl", b""))
    assert "All runs: 4/10 agree" in whole(page) and page.session.features.n == 10
    error = shown(page.upload.error.object)
    assert error.startswith("Could not load 2 files.")
    assert "truncated.jsonl: line 2" in error and "empty.jsonl" in error
    assert error.endswith("Nothing changed: the case set, labels and settings are as they were.")
    assert not page.upload.status.visible


def test_one_file_alone_reads_as_before(process):
    page = WorkspacePage(process)
    drop(page, ("truncated.jsonl", TRUNCATED))
    assert shown(page.upload.error.object).endswith("Nothing changed: the case set, labels and settings are as they were.")
    drop(page, ("good.jsonl", RUN))  # the next drop's success hides the last drop's error
    assert not page.upload.error.visible and page.upload.status.visible


def test_a_labels_csv_with_a_wrong_column_is_named_as_a_labels_file(process):
    """Found by the newcomer trial: ``run_id,verdict`` was read as a runs CSV ('missing column
    "id"'); the CLI's --labels says what a labels CSV holds, and so does the upload now."""
    page = WorkspacePage(process)
    page.received("labels_header.csv", b"run_id,verdict\nE5,acceptable\n")
    error = shown(page.upload.error.object)
    assert 'labels_header.csv: row 1 (header): missing column "human_verdict" (a labels CSV has run_id,human_verdict,note)' in error
    assert "All runs: 4/10 agree" in whole(page)


def test_a_runs_csv_with_a_run_id_column_is_still_named_as_a_runs_file(process):
    """A CSV with an ``id`` column is a runs file (its extra ``run_id`` column is its error)."""
    page = WorkspacePage(process)
    page.received("runs.csv", b"id,run_id,expected_calls,actual_calls,answer,reference\nr1,x,a>b,a>b,ok done,ok done\n")
    assert 'runs.csv: row 2, column run_id: unknown field "run_id"' in shown(page.upload.error.object)


def test_a_settings_file_of_another_version_names_the_format(process):
    """Found by the newcomer trial: ``{"format": "metric-explorer/settings@2"}`` was read as a
    flat run in the browser ('unknown field "format"') and answered with the rules file's format
    by the CLI."""
    page = WorkspacePage(process)
    page.received("settings_ver.json", b'{"format": "metric-explorer/settings@2"}')
    error = shown(page.upload.error.object)
    assert ('settings_ver.json: format: expected "metric-explorer/settings@1", got "metric-explorer/settings@2": '
            "a settings file of a version this explorer does not read") in error


def test_a_new_drop_arriving_hides_the_last_drop_s_error(process):
    # the trial's finding: "Could not load this file. deep.json: ..." stayed under the next file's
    # "Received ...; reading it..." line, as if the new file had failed
    page = WorkspacePage(process)
    drop(page, ("broken.jsonl", TRUNCATED))
    assert page.upload.error.visible and "broken.jsonl" in shown(page.upload.error.object)
    page.upload.show_receiving(["good.jsonl"])  # what the drop zone shows while the new drop settles
    assert not page.upload.error.visible
    assert shown(page.upload.status.object) == "Received good.jsonl; reading it..." and page.upload.status.visible
