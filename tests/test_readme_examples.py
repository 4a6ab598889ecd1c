"""The README's compare and sweep examples say what the commands read and print.

Found by a newcomer trial: the compare example named only ``"format": "metric-explorer/settings@1"``
(a file with that line alone is no settings file: the settings sit in a ``"settings"`` object), and
the sweep example said "the 20 best results" while the output first prints the best result and the
settings reaching it, then the table of distinct results (one row per tie)."""

from __future__ import annotations

import re
from pathlib import Path

from explorer.cli import main
from explorer.core.evaluation.settings import Settings
from explorer.core.io.exports import loads_settings

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _compare_files() -> list[str]:
    block = README.split("**Compare two settings.**", 1)[1].split("```json\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_the_compare_example_files_load_and_give_the_readme_s_flips(tmp_path, capsys):
    a_text, b_text = _compare_files()
    assert loads_settings(a_text, "a.json") == Settings()  # nothing given: the defaults, the opening
    assert loads_settings(b_text, "b.json").trajectory == "any_order"
    (tmp_path / "a.json").write_text(a_text)
    (tmp_path / "b.json").write_text(b_text)
    assert main(["compare", "--settings", str(tmp_path / "a.json"), "--settings", str(tmp_path / "b.json")]) == 0
    out = capsys.readouterr().out
    # the README's figures: E2, E3, E8 fixed and E6 broken, 3 flipped one way and 1 the other
    assert "fixed (wrong under A, right under B): E2, E3, E8" in out
    assert "broken (right under A, wrong under B): E6" in out
    assert "with 3 runs flipped one way and\n1 the other, p = 0.625" in README
    assert "with 3 runs flipped one way and 1 the other, p = 0.625: not enough runs to tell" in out


def test_the_sweep_example_says_what_is_printed_in_order(capsys):
    line = next(ln for ln in README.splitlines() if ln.startswith("metric-explorer sweep --deny delete_booking"))
    assert "the 20 best results" not in line
    assert main(["sweep", "--deny", "delete_booking"]) == 0
    out = capsys.readouterr().out
    best = out.index("best: agreement 10/10, 0 false passes, 0 false fails, reached by 1,848 settings:")
    table = out.index("20 of 26 distinct results, best first")
    assert best < table
    tied = re.findall(r"^  trajectory .*F1 threshold [0-9.-]+$", out[best:table], re.M)
    assert len(tied) == 44
    assert "10/10, reached by 1,848 settings, listed as 44 lines" in line and "20 of the 26 distinct results" in line
    assert "`trajectory any_order, combine all, deny-list on, key fields on, F1 threshold 0.00-0.41`" in README
    assert tied[0] == "  trajectory any_order, combine all, deny-list on, key fields on, F1 threshold 0.00-0.41"
