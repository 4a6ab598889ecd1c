"""Where our stylesheet lives and how components get it.

``static/explorer.css`` is served by ``metric-explorer serve`` at ``/assets/explorer.css``;
Panel renders each component in a shadow root, so components that show our markup get the
sheet through ``stylesheets=[STYLESHEET]`` as well as the page (``pn.config.css_files``).
"""

from __future__ import annotations

from pathlib import Path

import panel as pn

STATIC_DIR = Path(__file__).resolve().parents[3] / "static"
"""The folder served at ``/assets`` (our CSS)."""
ASSETS_ROUTE = "assets"
STYLESHEET = f"/{ASSETS_ROUTE}/explorer.css"
"""URL of our stylesheet on the served app."""


def styled(**params) -> dict:
    """``params`` with our stylesheet added to ``stylesheets`` (for Panel component constructors)."""
    sheets = list(params.pop("stylesheets", []))
    return {**params, "stylesheets": [STYLESHEET, *sheets]}


WRAP = {"flex-wrap": "wrap", "min-width": "0"}
"""Inline styles of a row that wraps its items on a narrow screen. ``min-width: 0`` undoes the
minimum width Panel gives a stretching row (the sum of its items' widths), which would otherwise
widen the whole page instead of wrapping."""


def flex_item(basis: int, grow: int = 1, max_width: int | None = None) -> dict:
    """Inline styles of a stretching item in a :data:`WRAP` row: it starts at ``basis`` px, grows
    by ``grow`` (0: not) and wraps to the next line when the row is narrower than its items."""
    out = {"flex": f"{grow} 1 {basis}px", "min-width": "0"}
    if max_width is not None:
        out["max-width"] = f"{max_width}px"
    return out


def tooltip_below(text: str):
    """A widget's ``description`` shown below it (plain text). Panel puts a description to the
    right of its widget, where it covers the next button while the pointer rests on this one
    (the lesson's chips, the header's tools)."""
    from bokeh.models import Tooltip

    return Tooltip(content=text, position="bottom", stylesheets=[":host { white-space: initial; max-width: 300px; }"])


class LiveHTML(pn.pane.HTML):
    """An HTML pane whose text is replaced as the session changes (a figure, a line of status).

    ``pn.pane.HTML`` sends its whole property set when its object changes, stylesheets included,
    and on the first change the list differs from the one the page was built with (the design's
    sheets are left out), so the browser re-applies the stylesheets and lays out the whole page
    again: about half a second on the first settings change after load (issue 9's "first change
    no slower than the rest"). The text is all that an object change alters, so only the text is
    sent; every other parameter (visibility, classes, size) still goes through Panel's usual path.
    """

    def _update(self, ref: str, model) -> None:
        model.update(text=self._transform_object(self.object)["object"])
