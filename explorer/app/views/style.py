"""Where our stylesheet lives and how components get it.

``static/explorer.css`` is served by ``metric-explorer serve`` at ``/assets/explorer.css``;
Panel renders each component in a shadow root, so components that show our markup get the
sheet through ``stylesheets=[STYLESHEET]`` as well as the page (``pn.config.css_files``).
"""

from __future__ import annotations

from pathlib import Path

import panel as pn
import param

STATIC_DIR = Path(__file__).resolve().parents[3] / "static"
"""The folder served at ``/assets`` (our CSS)."""
ASSETS_ROUTE = "assets"
STYLESHEET = f"/{ASSETS_ROUTE}/explorer.css"
"""URL of our stylesheet on the served app."""


def styled(**params) -> dict:
    """``params`` with our stylesheet added to ``stylesheets`` (for Panel component constructors)."""
    sheets = list(params.pop("stylesheets", []))
    return {**params, "stylesheets": [STYLESHEET, *sheets]}


def inline_label(width: int, **params) -> dict:
    """``styled`` keyword arguments of a label pane set before its input in a row: ``width`` px at
    normal type, growing with presenter mode's larger type (``--me-scale``), so that the label
    never runs under its input (a fixed width did at 1.18x: "Trajectory" under its Select)."""
    grow = f"calc({width}px * var(--me-scale, 1))"
    sheet = (f":host {{ width: {grow} !important; min-width: {grow} !important; }} "
             f":host > div {{ width: {grow} !important; min-width: {grow} !important; }}")  # Panel's inner wrapper too
    return styled(width=width, stylesheets=[sheet], **params)


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


HIDE_TOOLTIP_JS = """
const tip = source.tooltip;
if (tip != null) {
  tip.visible = false;
  setTimeout(() => { tip.visible = false; }, (source.tooltip_delay || 0) + 100);
}
"""
"""Browser side of :func:`hide_tooltip_on_click` (``source``: the Bokeh button model, which
Panel's callbacks are given; passing the button in ``args`` instead kept every closed session
alive: Panel's callback registry is weak on the button, and the callback would hold it)."""


def hide_tooltip_on_click(button):
    """Hide ``button``'s tooltip (its ``description``) when it is clicked or tapped, and again once
    the tooltip's delay has passed; returns ``button``.

    Panel's button shows its tooltip ``tooltip_delay`` (500 ms) after the pointer enters it and
    hides it only when the pointer leaves. A tap on a touch screen enters the button and never
    leaves it, so after a tap on "Pin as A" or a lesson chip the tooltip stayed up over the page
    until the next tap elsewhere (a browser test taps them); the second hide catches the show
    that the tap's entry has already scheduled. (Play's click is caught by the page's replay
    clock before the button sees it: ``replay_clock.js`` hides its tooltip the same way.)"""
    button.js_on_click(code=HIDE_TOOLTIP_JS)
    return button


def write_through(obj, **params) -> None:
    """Set ``params`` of the Panel component ``obj`` (a widget or a pane: ``color``,
    ``disabled``, ``visible``...) and write the Bokeh properties they map to straight into the
    models it already has in the page, in one ``update`` per model (issue 15).

    Panel's own path for a parameter change (its watchers, the design's style modifiers, the
    model update) costs a few hundred microseconds of server CPU per parameter, and a settings
    change sets a dozen of them; the page needs only the changed properties. Only what differs is
    set; nothing at all when nothing differs. The values stay in ``obj``'s parameters, so a model
    built later (a tab opened again) shows them too. Outside a session, in a callback thread
    (``serve --num-threads``) or before the page has loaded, Panel's usual path is taken: it
    knows how to schedule the change on the session's loop."""
    changed = {k: v for k, v in params.items() if getattr(obj, k) != v}
    if not changed:
        return
    from panel.io.document import unlocked
    from panel.io.state import state

    models = [model for model, _ in obj._models.values()]
    if not models or any(model.document is None or not state._unblocked(model.document) for model in models):
        obj.param.update(**changed)
        return
    with param.parameterized.discard_events(obj):
        for name, value in changed.items():  # not ``param.update``: it reads every parameter to roll back
            setattr(obj, name, value)
    props = obj._process_param_change(dict(changed))
    if props:
        with unlocked():
            for model in models:
                model.update(**props)


SETTING_EVENTS = ("value", "value_throttled", "value_input", "active")
"""What a settings widget sends from the page."""


def not_busy(*widgets) -> None:
    """Handle these widgets' changes without marking the server busy (issue 15). Panel marks
    ``pn.state.busy`` around every widget event, which makes the state's ~70 parameters writable
    and read-only again several times (~0.8 ms of server CPU per settings change, about a tenth of
    it); the flag drives Panel's busy indicators, and this app shows none. Uses the widgets'
    ``_busy__ignore`` list (Panel's own, e.g. a layout's ``scroll_position``); with a Panel that
    no longer reads it, nothing changes but the cost."""
    for widget in widgets:
        widget._busy__ignore = [*type(widget)._busy__ignore, *SETTING_EVENTS]


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

    def show(self, text: str, visible: bool | None = None) -> None:
        """Replace the text (and set ``visible`` when given), written straight into the page's
        models (:func:`write_through`); the cheap way for views that change on every settings
        change."""
        params: dict = {"object": text}
        if visible is not None:
            params["visible"] = visible
        write_through(self, **params)


class Deferred(pn.Column):
    """A column whose children join the page only when it is first shown (issue 9 item 11: a
    room of 40 opening the link at once).

    Every Bokeh model in a session's first document costs server CPU to build and to serialise
    (a few milliseconds each, ~300 in the first page), and a hidden card (the selected run's
    panel, the review queue, the comparison strip, the rules editor) is as dear as a shown one.
    Created hidden (``visible=False``), the column holds ``objects`` aside and puts them in the
    page the first time it becomes visible (or on :meth:`fill`); created visible, it is a plain
    column. The children are the same objects either way, so views keep updating them while
    they are held aside, and what the page shows once filled is what it would have shown."""

    def __init__(self, *objects, build=None, **params) -> None:
        visible = params.get("visible", True)
        if build is not None and visible:
            objects, build = tuple(build()), None
        super().__init__(*(objects if visible else ()), **params)
        self._build = build
        """Called for the children instead (a list), when given: the children themselves are made then."""
        self._held: list | None = None if visible else list(objects)
        if self._held is not None:
            self._fill_watcher = self.param.watch(lambda _e: self.fill(), ["visible"])

    @property
    def filled(self) -> bool:
        """Whether the children are in the page (always, once shown)."""
        return self._held is None

    def fill(self) -> None:
        """Put the held children in the column (nothing when they already are)."""
        if self._held is None:
            return
        held, self._held = self._held, None
        self.param.unwatch(self._fill_watcher)
        if self._build is not None:
            held, self._build = list(self._build()), None
        self.objects = held


class LazyTab(pn.Column):
    """A tab's content built the first time the tab is opened (:meth:`fill`), by ``build()``:
    a session whose person never opens the tab never builds its widgets and models."""

    def __init__(self, build, **params) -> None:
        params.setdefault("sizing_mode", "stretch_width")
        params.setdefault("margin", 0)
        super().__init__(**params)
        self._build = build

    @property
    def filled(self) -> bool:
        """Whether the content has been built."""
        return self._build is None

    def fill(self) -> None:
        """Build the content and put it in the tab (once)."""
        if self._build is None:
            return
        build, self._build = self._build, None
        self.objects = [build()]
