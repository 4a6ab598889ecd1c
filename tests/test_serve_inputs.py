"""``metric-explorer serve`` takes the run inputs of ``score``: repeatable ``--cases``,
``--input-format``, ``--labels``, ``--settings``; a bad one exits 2 with one line naming the file."""

from __future__ import annotations

from pathlib import Path

from explorer.cli import main

ROOT = Path(__file__).resolve().parents[1]
BOOKING = ROOT / "cases" / "booking_agent.json"


def one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


def test_bad_labels_file_exits_2(tmp_path, capsys):
    labels = tmp_path / "labels.csv"
    labels.write_text("run_id,human_verdict\nE1,maybe\n")
    assert main(["serve", "--cases", str(BOOKING), "--labels", str(labels), "--port", "5998"]) == 2
    err = one_line(capsys)
    assert str(labels) in err and "row 2, column human_verdict" in err


def test_labels_naming_no_run_exit_2(tmp_path, capsys):
    labels = tmp_path / "labels.csv"
    labels.write_text("run_id,human_verdict\nZ1,acceptable\n")
    assert main(["serve", "--cases", str(BOOKING), "--labels", str(labels), "--port", "5998"]) == 2
    assert "its one run id names no loaded run by run id or example id (Z1)" in one_line(capsys)


def test_bad_settings_file_exits_2(tmp_path, capsys):
    settings = tmp_path / "settings.json"
    settings.write_text('{"format": "metric-explorer/settings@1", "settings": {"f1_threshold": 2}}')
    assert main(["serve", "--cases", str(BOOKING), "--settings", str(settings), "--port", "5998"]) == 2
    err = one_line(capsys)
    assert str(settings) in err and "settings.f1_threshold" in err


def test_second_cases_file_with_a_duplicate_id_exits_2(capsys, tmp_path):
    copy = tmp_path / "copy.json"
    copy.write_bytes(BOOKING.read_bytes())
    assert main(["serve", "--cases", str(BOOKING), "--cases", str(copy), "--port", "5998"]) == 2
    assert "duplicate run id" in one_line(capsys)
    assert main(["serve", "--cases", str(BOOKING), "--cases", str(BOOKING), "--port", "5998"]) == 2  # one file given twice
    assert one_line(capsys) == f"metric-explorer: error: --cases: {BOOKING} is given twice: give each file once"


def test_wrong_input_format_exits_2(capsys):
    assert main(["serve", "--cases", str(BOOKING), "--input-format", "csv", "--port", "5998"]) == 2
    assert str(BOOKING) in one_line(capsys)
