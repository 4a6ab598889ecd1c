"""Labelling runs in the table: buttons (mouse, in the selected run's side panel) and the a / u / c keys.

Select a row in the table, then press **a** (acceptable), **u** (unacceptable) or **c** (clear),
or click the buttons. The label goes into the session's
:class:`~explorer.app.labels.SessionLabels`, so agreement, chart and table update at once;
unlabelled runs are counted in ``me-unlabelled`` and never counted as either verdict.
"""

from __future__ import annotations

import html
from typing import Callable

import numpy as np
import panel as pn
import param
from panel.reactive import ReactiveHTML

from .style import LiveHTML, flex_item, hide_tooltip_on_click, styled, tooltip_below
from ..highlight import escape_whole

KEY_VERDICTS: dict[str, str | None] = {"a": "acceptable", "u": "unacceptable", "c": None}
"""Key pressed (lower case) -> the verdict it records (None clears the label)."""


def verdict_for_key(key: str) -> tuple[bool, str | None]:
    """``(known, verdict)`` for a key name as the browser reports it (``"a"``, ``"U"``...):
    ``(True, "acceptable")`` for a/A, ``(True, "unacceptable")`` for u/U, ``(True, None)`` for
    c/C, ``(False, None)`` for any other key."""
    k = key.lower()
    return (k in KEY_VERDICTS, KEY_VERDICTS.get(k))


def unlabelled_text(human: np.ndarray, disputed: np.ndarray | None = None, too_few: np.ndarray | None = None) -> str:
    """``"Unlabelled: 3 of 10 runs (counted as neither verdict) · 4 acceptable · 3 unacceptable"``
    from int8 verdict codes (1 / 0 / -1); runs marked in ``disputed`` (bool (N,), their annotators
    tie) and ``too_few`` (bool (N,), fewer labels than the minimum) are counted apart:
    ``... · 1 disputed · 2 with too few labels · 4 acceptable ...``. Counts with thousands
    separators (``1,000 of 1,000 runs``), as the summary bar writes them."""
    n = int(human.size)
    n_disputed = 0 if disputed is None else int(np.count_nonzero(disputed))
    n_few = 0 if too_few is None else int(np.count_nonzero(too_few))
    unl = int(np.count_nonzero(human < 0)) - n_disputed - n_few
    acc = int(np.count_nonzero(human == 1))
    unacc = int(np.count_nonzero(human == 0))
    apart = (f"{n_disputed:,} disputed · " if n_disputed else "") + (f"{n_few:,} with too few labels · " if n_few else "")
    return (f"Unlabelled: {unl:,} of {n:,} run{'s' if n != 1 else ''} (counted as neither verdict) · {apart}"
            f"{acc:,} acceptable · {unacc:,} unacceptable")


class KeyListener(ReactiveHTML):
    """Listens for single a / u / c key presses on the page (not while typing in an input) and
    reports each one in ``press`` as ``"<key>:<count>"`` (the count makes repeats distinct)."""

    press = param.String(default="", doc="last key pressed and a counter, e.g. 'a:3'")

    _template = '<div id="keys" class="me-label-keys" style="display:none"></div>'
    _scripts = {
        "render": """
          if (window.__meLabelKeys) document.removeEventListener('keydown', window.__meLabelKeys);
          let count = 0;
          window.__meLabelKeys = (e) => {
            if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
            const t = e.composedPath()[0];
            const tag = ((t && t.tagName) || '').toLowerCase();
            if (tag === 'input' || tag === 'textarea' || tag === 'select' || (t && t.isContentEditable)) return;
            const k = (e.key || '').toLowerCase();
            if (k === 'a' || k === 'u' || k === 'c') { count += 1; data.press = k + ':' + count; }
          };
          document.addEventListener('keydown', window.__meLabelKeys);
        """,
    }


class LabelBar:
    """The label buttons, the selected-run line and the unlabelled count.

    ``label(verdict)`` is called with ``"acceptable"``, ``"unacceptable"`` or None (clear) for
    the selected run; :meth:`show` updates the selected run and the counts."""

    def __init__(self, label: Callable[[str | None], None]) -> None:
        self._label = label

        def button(text: str, css: str, key: str, verdict: str | None, kind: str) -> pn.widgets.Button:
            b = pn.widgets.Button(label=text, color=kind, css_classes=[css], width=118,
                                  # below: to the right it covered the next button and "Clear" ran off the page
                                  description=tooltip_below(f"Label the selected run (key {key})"))
            hide_tooltip_on_click(b)
            b.on_click(lambda _e: self._label(verdict))
            return b

        self.accept = button("Acceptable (a)", "me-label-accept", "a", "acceptable", "success")
        self.reject = button("Unacceptable (u)", "me-label-reject", "u", "unacceptable", "danger")
        self.clear = button("Clear (c)", "me-label-clear", "c", None, "default")
        self.selected = LiveHTML("", css_classes=["me-label-selected"], **styled(margin=(4, 10)))
        self.unlabelled = LiveHTML("", css_classes=["me-unlabelled"],
                                       **styled(margin=(6, 10), sizing_mode="stretch_width", styles=flex_item(260)))

    def show(self, selected: str | None, human: np.ndarray, disputed: np.ndarray | None = None,
             too_few: np.ndarray | None = None) -> None:
        """Name the selected run (``selected`` id, escaped) and count the labels (``disputed``
        and ``too_few`` runs apart)."""
        if selected is None:
            self.selected.object = '<div class="me-hint">Select a row in the table, then press a / u / c.</div>'
        else:
            self.selected.object = f'<div>Selected run: <b>{escape_whole(selected)}</b></div>'
        self.unlabelled.object = (f'<div class="me-sub">Select a run to read and label it. '
                                  f"{html.escape(unlabelled_text(human, disputed, too_few))}</div>")

    def panel(self, *extra: pn.viewable.Viewable) -> pn.Column:
        """The label buttons for the selected run (in the run's side panel), ``extra`` under them
        (the "Label as" annotator picker, issue 11); the unlabelled count (:attr:`unlabelled`) is
        placed by the page above the table."""
        return pn.Column(
            LiveHTML(
                "<h2>Label this run</h2><div class=\"me-hint\">Or press <kbd>a</kbd> acceptable, <kbd>u</kbd> "
                "unacceptable, <kbd>c</kbd> clear. Agreement updates as you label; unlabelled runs count as neither "
                "verdict.</div>",
                **styled(margin=(0, 10)),
            ),
            pn.Row(self.accept, self.reject, self.clear),
            *extra,
            self.selected,
            css_classes=["me-labelling"],
            sizing_mode="stretch_width",
            margin=(6, 0, 0, 0),
        )
