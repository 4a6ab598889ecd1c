"""The page header: title and the case set shown, with the page's tools: Presenter mode, Reset to
opening and Copy link.

Presenter mode (``?present=true`` or the toggle) is for a projector: larger type (the all-runs
figure at 72 px), high contrast, and the data tools hidden. The page hides the tools and puts the
class ``me-present`` on its root; static/explorer.css gives that class larger sizes and darker
colours as CSS variables, which every component inherits through its shadow root.

Copy link runs in the browser: it puts the page's URL (the settings are in its query; the
``present`` flag is left out, so the link opens the normal view) on the clipboard, and shows it in
a text box either way, so it can be copied by hand where the clipboard is not available (a page
served over plain http to other machines).
"""

from __future__ import annotations

from typing import Callable

import panel as pn

from ..state import PageState
from .style import WRAP, LiveHTML, flex_item, hide_tooltip_on_click, styled, tooltip_below
from ..highlight import escape_whole

COPY_LINK_JS = """
const url = new URL(window.location.href);
url.searchParams.delete('present');
const link = url.toString();
out.value = link;
out.visible = true;
const say = (copied) => { out.title = copied ? 'Link copied to the clipboard' : 'Copy this link'; };
say(false);
if (navigator.clipboard && window.isSecureContext) {
  navigator.clipboard.writeText(link).then(() => say(true), () => say(false));
}
"""
"""Browser side of Copy link (``out``: the link's text box)."""

SMALL_BUTTON = ":host .bk-btn { padding: 4px 10px; font-size: 13px; }"


def title_html(set_name: str) -> str:
    """Title and the shown case set (escaped)."""
    return (
        '<div class="me-header"><span class="me-title">Metric Trade-off Explorer</span>'
        f'<span class="me-subtitle">{escape_whole(set_name)} · how often does the evaluator agree with the '
        "person, and why?</span></div>"
    )


class PageHeader:
    """Title line and tools. ``on_reset`` is the page's Reset to opening."""

    def __init__(self, state: PageState, on_reset: Callable[[], None]) -> None:
        self.state = state
        self.title = LiveHTML(title_html(""), **styled(sizing_mode="stretch_width", margin=(4, 6), styles=flex_item(360)))
        self.present = pn.widgets.Toggle.from_param(
            state.param.present, label="Presenter mode", css_classes=["me-present-toggle"], width=140,
            stylesheets=[SMALL_BUTTON],
        )
        self.reset = pn.widgets.Button(label="Reset to opening", css_classes=["me-reset"], width=140, stylesheets=[SMALL_BUTTON],
                                       description=tooltip_below("Back to the opening settings and the replay's start"))
        hide_tooltip_on_click(self.reset)
        self.reset.on_click(lambda _e: on_reset())
        self.copy = pn.widgets.Button(label="Copy link", css_classes=["me-copy-link"], width=110, stylesheets=[SMALL_BUTTON],
                                      description=tooltip_below("A link that opens on these settings"))
        self.link = pn.widgets.TextInput(label="Copy this link", value="", visible=False, css_classes=["me-copy-link-text"],
                                         width=380, margin=(0, 6, 4, 6))
        self.copy.js_on_click(args={"out": self.link}, code=COPY_LINK_JS)
        hide_tooltip_on_click(self.copy)

    def show_set(self, set_name: str) -> None:
        """Name the shown case set."""
        self.title.object = title_html(set_name)

    def panel(self, *below: pn.viewable.Viewable) -> pn.Column:
        """The header band (``below``: lines shown under the title, e.g. what the last upload did)."""
        return pn.Column(
            pn.Row(self.title, self.present, self.reset, self.copy, sizing_mode="stretch_width",
                   styles={**WRAP, "align-items": "center"}),
            self.link,
            *below,
            css_classes=["me-header-band"],
            sizing_mode="stretch_width",
            margin=(0, 0, 2, 0),
        )
