"""Subcommands of ``metric-explorer``: one module each, each with ``add_parser`` and ``run``."""
