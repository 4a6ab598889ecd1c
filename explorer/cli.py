"""``metric-explorer``: the command line over the scoring core.

Each subcommand lives in :mod:`explorer.commands` (``score``, ``serve``, ...). Bad input exits 2
with one line naming the file, the location and the problem; bad options exit 2 with one line
(argparse's message and where the options are listed). Never a traceback for a user's mistake.
Human-readable output (stderr, and stdout in the table and text formats) goes through
:mod:`explorer.commands.terminal`: a hidden character from a run export is printed as its escape.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__
from .core.io.errors import LoadError

SUBCOMMANDS = ("score", "compare", "serve", "sweep", "calibrate", "featurize")
"""Modules under ``explorer.commands``, in the order ``--help`` lists them."""

HUMAN_FORMATS = ("table", "text")
"""``--format`` values whose stdout is read by a person (a command without ``--format``, such as
``serve``, counts as one); csv, json and parquet are data and written as they are."""


class OneLineErrors(argparse.ArgumentParser):
    """argparse, except that a bad option is reported in one line and where to read the options,
    not after the command's whole usage text (20 lines for ``score``, which hid the line that
    says what was wrong: a trial finding). Exit status 2, as argparse's."""

    def error(self, message: str):  # noqa: D401 - argparse's hook
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered (their parsers are
    :class:`OneLineErrors` too: argparse makes them of the parent's class)."""
    parser = OneLineErrors(
        prog="metric-explorer",
        description="Metric Trade-off Explorer: how often does your agent scorer agree with a person, and why?",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f".commands.{name}", __package__).add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 2 bad input or options, 130 stopped with Ctrl-C)."""
    from .commands.terminal import visible_output

    parser = build_parser()
    with visible_output(stdout=False):
        args = parser.parse_args(argv)
    args.own_process = argv is None  # run as the command itself (not called from Python with arguments)
    from .commands.common import CliError

    try:
        with visible_output(stdout=getattr(args, "format", "table") in HUMAN_FORMATS):
            return int(args.func(args) or 0)
    except (LoadError, CliError) as exc:
        with visible_output(stdout=False):
            print(f"metric-explorer: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return 0
    except KeyboardInterrupt:  # Ctrl-C: how the README says to stop serve; a long sweep too
        print("metric-explorer: stopped", file=sys.stderr)
        return 130  # the shell's status for a command ended by SIGINT


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
