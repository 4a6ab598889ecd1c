"""Hidden characters from run exports are printed as escapes (explorer.core.visible, the CLI's
terminal streams). A trial found run ids with ESC and U+202E printed raw by `score` (newline and
tab were escaped by pandas, nothing else)."""

from __future__ import annotations

import io
import json
import unicodedata

import pytest

from explorer.cli import main
from explorer.commands.terminal import VisibleStream
from explorer.core.io.errors import json_spelling, show
from explorer.core.plural import listed
from explorer.core.visible import visible

HIDDEN_IDS = {  # id as written in the export -> as the terminal must show it
    "E1\x1b[31mRED": "E1\\u001b[31mRED",  # ESC: a terminal colour sequence
    "E2\u202eevil": "E2\\u202eevil",  # RIGHT-TO-LEFT OVERRIDE reverses the rest of the line
    "E3\x9b2J": "E3\\u009b2J",  # C1 CSI: clear screen on some terminals
    "E4\x7f": "E4\\u007f",  # DEL
    "E5\u200b": "E5\\u200b",  # ZERO WIDTH SPACE: an id that looks like E5
    "E6\nnl": "E6\\nnl",
    "E7\ttab": "E7\\ttab",
}


@pytest.mark.parametrize("raw, shown", [
    *HIDDEN_IDS.items(),
    ("a\u2028b\u2029c\x85d", "a\\u2028b\\u2029c\\u0085d"),  # line/paragraph separators, NEL
    ("\ud800x", "\\ud800x"),  # a lone surrogate (cannot be encoded) as JSON writes it
    ("tag\U000e0001", "tag\\U000e0001"),  # LANGUAGE TAG, a format character past the BMP
    ("👩\u200d💻 café\u00a0Ω\ue000", "👩\u200d💻 café\u00a0Ω\ue000"),  # ZWJ, marks, NBSP, private use kept
])
def test_visible_escapes_controls_format_characters_and_separators(raw, shown):
    assert visible(raw) == shown


def test_visible_keeps_line_breaks_when_asked():
    assert visible("a\x1b\nb\u202e\n", keep_newlines=True) == "a\\u001b\nb\\u202e\n"


def test_messages_escape_what_json_leaves():
    # show() already escaped C0 controls (JSON); DEL, C1 and bidi overrides went through raw
    assert show('E2\u202e"x"\x9b\x7f') == 'E2\\u202e\\"x\\"\\u009b\\u007f'
    assert json_spelling(["a\u202eb"]) == '["a\\u202eb"]'
    assert listed(["E1\x1b[2J", "E6\nnl"]) == "E1\\u001b[2J, E6\\nnl"


def test_the_stream_escapes_every_write_and_keeps_newlines():
    inner = io.StringIO()
    stream = VisibleStream(inner)
    assert stream.write("E1\x1b[31m\n") == len("E1\x1b[31m\n")
    print("x\u202ey", file=stream)
    assert inner.getvalue() == "E1\\u001b[31m\nx\\u202ey\n"


def _write_cases(tmp_path):
    from pathlib import Path
    data = json.loads((Path(__file__).parents[1] / "cases" / "booking_agent.json").read_text())
    for run, raw in zip(data["runs"], HIDDEN_IDS):
        run["id"] = raw
        run["title"] += "\x1b]0;pwned\x07"  # OSC: sets the terminal's window title
    path = tmp_path / "hidden.json"
    path.write_text(json.dumps(data))
    return path


def _hidden_in(text: str) -> list[str]:
    return [f"U+{ord(c):04X}" for c in text
            if c != "\n" and (unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") and c != "\u200d")]


def test_score_table_prints_hidden_characters_as_escapes_in_aligned_columns(tmp_path, capsys):
    assert main(["score", "--cases", str(_write_cases(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert _hidden_in(out) == []
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["id", "title"])
    rows = lines[header + 1: header + 11]
    assert [r.split()[0] for r in rows] == list(HIDDEN_IDS.values()) + ["E8", "E9", "E10"]
    assert {len(r) for r in lines[header: header + 11]} == {len(lines[header])}  # columns line up
    assert "Reworded confirmation\\u001b]0;pwned\\u0007" in rows[0]
    # the summary lists: E5 is the one false pass; E1-E3, E7 and E8 the false fails (seed 002)
    assert "false passes: E5\\u200b\n" in out
    assert "false fails: E1\\u001b[31mRED, E2\\u202eevil, E3\\u009b2J, E7\\ttab, E8\n" in out


def test_json_output_keeps_the_ids_as_they_are(tmp_path, capsys):
    assert main(["score", "--cases", str(_write_cases(tmp_path)), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in report["runs"]][:7] == list(HIDDEN_IDS)


def test_an_error_about_a_hidden_id_is_escaped_on_stderr(tmp_path, capsys):
    path = _write_cases(tmp_path)
    data = json.loads(path.read_text())
    data["runs"][1]["id"] = data["runs"][0]["id"] = "R\u202e1"
    path.write_text(json.dumps(data))
    assert main(["score", "--cases", str(path)]) == 2
    err = capsys.readouterr().err
    assert _hidden_in(err) == [] and 'duplicate run id "R\\u202e1"' in err


def test_the_progress_bar_draws_on_the_terminal_itself(monkeypatch):
    # the escaping stream turned the bar's carriage returns into "\r" text, one long line
    import sys

    from explorer.commands.progress import byte_bar
    from explorer.commands.terminal import visible_output

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with visible_output(stdout=False):
        with byte_bar("loading a\x1b[2J.jsonl") as progress:
            progress(50, 100)
    drawn = terminal.getvalue()
    assert "\r" in drawn and "\\r" not in drawn
    assert "loading a\\u001b[2J.jsonl" in drawn and "\x1b[2J" not in drawn  # the file name escaped
