"""``--help`` renders for the program and every subcommand (no traceback).

Found by a newcomer: ``metric-explorer --help`` raised ``TypeError: %i format: a real number is
required, not dict`` because sweep's one-line help, "... 95 % interval ...", reached argparse's
%-formatting of the subcommand listing unescaped.
"""

from __future__ import annotations

import pytest

from explorer.cli import SUBCOMMANDS, main


@pytest.mark.parametrize("argv", [["--help"]] + [[name, "--help"] for name in SUBCOMMANDS])
def test_help_renders(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: metric-explorer")


def test_top_level_help_lists_sweep_with_its_percent_sign(capsys):
    # the sweep's help says "95 % interval": shown as typed, once the listing is formatted
    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "agreement's 95 % interval" in out


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_help_cites_no_internal_document(name, capsys):
    # a newcomer trial: "defaults: seed 002's opening run" named a design note no user has read
    with pytest.raises(SystemExit):
        main([name, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "seed" not in out.lower() and "issue " not in out.lower()
    if name == "score":
        assert ("scorer settings (defaults: exact trajectory with arguments compared, F1 >= 0.8, every check must pass, "
                "deny-list and key fields off)") in out
