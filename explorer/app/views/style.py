"""Where our stylesheet lives and how components get it.

``static/explorer.css`` is served by ``metric-explorer serve`` at ``/assets/explorer.css``;
Panel renders each component in a shadow root, so components that show our markup get the
sheet through ``stylesheets=[STYLESHEET]`` as well as the page (``pn.config.css_files``).
"""

from __future__ import annotations

from pathlib import Path

STATIC_DIR = Path(__file__).resolve().parents[3] / "static"
"""The folder served at ``/assets`` (our CSS)."""
ASSETS_ROUTE = "assets"
STYLESHEET = f"/{ASSETS_ROUTE}/explorer.css"
"""URL of our stylesheet on the served app."""


def styled(**params) -> dict:
    """``params`` with our stylesheet added to ``stylesheets`` (for Panel component constructors)."""
    sheets = list(params.pop("stylesheets", []))
    return {**params, "stylesheets": [STYLESHEET, *sheets]}
