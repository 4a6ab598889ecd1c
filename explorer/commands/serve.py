"""``metric-explorer serve``: serve the explorer app (placeholder until the app lands)."""

from __future__ import annotations

import argparse

HELP = "serve the explorer web app"


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``serve``."""
    p = sub.add_parser("serve", help=HELP, description=HELP)
    p.add_argument("--cases", metavar="PATH", help="case-set file (default: the bundled booking-agent set)")
    p.add_argument("--port", type=int, default=5006)
    p.add_argument("--address", default="127.0.0.1")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Not built yet."""
    from .common import CliError

    raise CliError("serve is not available yet")
