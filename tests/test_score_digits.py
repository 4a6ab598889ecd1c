"""A shown score never reads on the wrong side of its threshold (passmark.show_score /
show_limit), in reasons, the page's Runs table and the CLI table. Values by hand on the bundled
booking runs: E4 makes 2 of 3 expected calls (recall 2/3 = 0.6667), E9 1 of 3 (0.3333), E1's
answer has F1 8/13 = 0.6154, E8's 16/19 = 0.8421."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.app.shared import load_shared
from explorer.app.views.table import table_frame
from explorer.cli import main
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.verdicts import evaluate, reason
from explorer.core.scoring.passmark import reaches, show_limit, show_pair, show_score

BOOKING = Path(__file__).resolve().parent.parent / "cases" / "booking_agent.json"


def test_a_threshold_prints_its_own_value_with_at_least_two_decimals():
    assert [show_limit(t) for t in (0.8, 0.67, 0.675, 1.0, 0.0)] == ["0.80", "0.67", "0.675", "1.00", "0.00"]
    assert show_limit(14 / 27) == "0.518518518519"


def test_a_score_gets_a_third_decimal_only_when_two_read_on_the_wrong_side():
    assert show_score(2 / 3, 0.67) == "0.667"  # "0.67" would read as reaching 0.67
    assert show_score(2 / 3, 0.5) == "0.67"
    assert show_score(1 / 3, 0.67) == "0.33"
    assert show_score(0.674, 0.6731) == "0.674"  # passes; "0.67" would read below 0.6731
    assert show_score(0.8, 0.8) == "0.80"  # equal passes and reads equal
    assert show_pair(2 / 3, 0.67) == ("0.667", "0.67")
    assert show_pair(1 / 3, 0.67) == ("0.33", "0.67")  # the same threshold text beside each score


@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_a_shown_score_is_on_the_side_of_the_threshold_it_is_on(score, threshold):
    text = float(show_score(score, threshold))
    assert bool(reaches(text, float(show_limit(threshold)))) == bool(reaches(score, threshold))


@pytest.fixture(scope="module")
def booking():
    return load_shared(BOOKING).features


def _row(frame, run_id):
    return frame[frame["ID"].str.contains(f">{run_id}<")].iloc[0]


def test_recall_at_067_reads_0667_in_reason_and_table(booking):
    ev = evaluate(booking, Settings(trajectory="recall", trajectory_threshold=0.67))
    ids = list(booking.run_ids)
    e4, e9 = ids.index("E4"), ids.index("E9")
    assert reason(booking, ev, e4) == "trajectory recall 0.667 < 0.67: missing call confirm_booking"
    assert reason(booking, ev, e9) == "trajectory recall 0.33 < 0.67: missing calls book_flight, confirm_booking"
    frame = table_frame(booking, ev, booking.n)
    assert _row(frame, "E4")["Trajectory"] == '<span class="me-fail">fail</span> 0.667'
    assert _row(frame, "E9")["Trajectory"] == '<span class="me-fail">fail</span> 0.33'
    assert _row(frame, "E1")["Trajectory"] == '<span class="me-pass">pass</span> 1.00'


def test_f1_cells_read_on_the_right_side_of_the_f1_threshold(booking):
    frame = table_frame(booking, evaluate(booking, Settings(f1_threshold=0.62)), booking.n)
    assert _row(frame, "E1")["F1"] == '<span class="me-fail-num">0.615</span>'  # 8/13 fails 0.62
    frame = table_frame(booking, evaluate(booking, Settings(f1_threshold=0.8421)), booking.n)
    assert _row(frame, "E8")["F1"] == '<span class="me-pass-num">0.8421</span>'  # 16/19 = 0.842105 passes 0.8421


def test_cli_table_shows_e4s_recall_as_0667(capsys):
    assert main(["score", "--cases", str(BOOKING), "--trajectory", "recall", "--trajectory-threshold", "0.67"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.split()[:1] and line.split()[0].startswith("E")}
    assert " 0.667 0.95 " in lines["E4"] and "trajectory recall 0.667 < 0.67" in lines["E4"]
    assert " 0.33 0.00 " in lines["E9"] and "trajectory recall 0.33 < 0.67" in lines["E9"]
