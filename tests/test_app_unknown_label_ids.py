"""A labels CSV upload naming ids that name no run: the page names them.

Found by a newcomer trial: on the page, a labels CSV with an id naming no run said only "1 run id
in the file matches no run here and was skipped." while the CLI named it (``warning: ... names no
loaded run: ZZ9``). The page now names the first three (each over ``ID_SHOWN`` = 40 characters cut
to 39 and ``…``), the first with its CSV row (header = row 1), and escapes them (run text is
untrusted). The booking set (cases/booking_agent.json) has runs E1..E10."""

from __future__ import annotations

import os

os.environ.setdefault("BOKEH_RESOURCES", "server")

from explorer.app.page import WorkspacePage  # noqa: E402
from explorer.app.views.upload import labels_message  # noqa: E402
from html_text import shown  # noqa: E402
from test_upload_drop import drop, process  # noqa: E402,F401 - the module fixture and the drop helper


def test_the_trial_file_names_its_unknown_id_and_row(process):
    page = WorkspacePage(process)
    drop(page, ("labels.csv", b"run_id,human_verdict,note\nE5,acceptable,fine\nZZ9,unacceptable,\n"))
    assert shown(page.upload.status.object) == (
        "Applied the labels in labels.csv. 1 run id in the file matches no run here and was skipped: ZZ9 (row 3).")


def test_many_unknown_ids_show_three_cut_and_escaped(process):
    long_id = "<b>" + "x" * 60  # 63 characters: cut to its first 39 and "…"
    rows = ["run_id,human_verdict", "E1,acceptable", f"{long_id},acceptable", "Q2,acceptable", "Q3,acceptable",
            "Q4,acceptable", "Q5,acceptable"]
    page = WorkspacePage(process)
    drop(page, ("many.csv", "\n".join(rows).encode()))
    html = page.upload.status.object
    assert "<b>xxx" not in html and "&lt;b&gt;" in html
    assert shown(html) == ("Applied the labels in many.csv. 5 run ids in the file match no run here and were skipped: "
                           "<b>" + "x" * 36 + "… (row 3), Q2, Q3 (+2 more).")


def test_labels_message_without_ids_reads_as_before():
    assert labels_message("l.csv", 1) == "Applied the labels in l.csv. 1 run id in the file matches no run here and was skipped."
    assert labels_message("l.csv", 2, unknown_ids=["A", "B"]) == (
        "Applied the labels in l.csv. 2 run ids in the file match no run here and were skipped: A, B.")
