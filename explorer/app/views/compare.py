"""Compare two settings (issue 11, item 3): "Pin as A" keeps the current settings; every later
change is B. Under the summary bar a strip shows A's and B's agreement, the change with its paired
95 % interval (Newcombe 1998), the runs whose verdict flipped (fixed: wrong under A, right under B;
broken: the reverse), each a button that selects the run in the table and opens its detail, and
McNemar's exact test on the flips in words; "Unpin" ends the comparison.

The figures are :func:`explorer.core.evaluation.compare.compare_evaluations` (O(N) numpy per
settings change); :class:`PinnedSettings` is the session's state, :func:`compare_html` the text.
"""

from __future__ import annotations

import html
from typing import Callable, Sequence

import panel as pn
import param
from panel.reactive import ReactiveHTML

from ...core.evaluation.compare import Comparison
from ...core.evaluation.settings import Settings
from ..intervals import change_tone, pct, points_text
from ..words import counted, settings_words
from .style import WRAP, Deferred, LiveHTML, hide_tooltip_on_click, styled, tooltip_below, write_through

TONE_TIPS = {"better": "; the interval lies above 0: B agrees more often",
             "worse": "; the interval lies below 0: B agrees less often",
             "unclear": "; the interval holds 0 (or there is none): not shown as better or worse"}
"""The change's tooltip ends with what its colour says."""
MAX_FLIP_BUTTONS = 20
"""Flipped runs shown as buttons per direction; more are counted."""


class PinnedSettings(param.Parameterized):
    """One session's pinned setting A (None: nothing pinned)."""

    settings = param.ClassSelector(class_=Settings, default=None, allow_None=True, doc="setting A")

    def pin(self, settings: Settings) -> None:
        """Pin ``settings`` as A (replacing any A pinned before)."""
        self.settings = settings

    def unpin(self) -> None:
        """Nothing pinned."""
        self.settings = None


class ScrollIntoView(ReactiveHTML):
    """Scrolls the page so the first element with CSS class ``target`` starts just under the
    sticky bar ``under`` each time ``count`` changes (when it is not already in view): the selected
    run's panel after a flipped run is clicked, which on a small screen lies below the fold.
    Panel renders in shadow roots, so the search goes into them."""

    target = param.String(default="me-detail-panel", doc="CSS class of the element to show")
    under = param.String(default="me-summary", doc="CSS class of the sticky bar it goes just under")
    count = param.Integer(default=0, doc="bumped to scroll")

    _template = '<div id="scroll" class="me-scroll-into-view" style="display:none"></div>'
    _scripts = {
        "count": """
          const find = (root, cls) => {
            const hit = root.querySelector('.' + cls);
            if (hit) return hit;
            for (const el of root.querySelectorAll('*')) {
              if (el.shadowRoot) { const h = find(el.shadowRoot, cls); if (h) return h; }
            }
            return null;
          };
          setTimeout(() => {
            const el = find(document, data.target);
            if (!el) return;
            const bar = find(document, data.under);  // sticky: it stays over the page's top
            const top = bar ? bar.getBoundingClientRect().bottom : 0;
            const r = el.getBoundingClientRect();
            if (r.top < top || r.top > window.innerHeight - 80) {
              window.scrollBy({top: r.top - top - 8, behavior: 'smooth'});
            }
          }, 200);
        """,
    }

    def scroll(self) -> None:
        """Scroll the target into view (in the browser)."""
        self.count += 1


def _agreement(iv) -> str:
    return "n/a" if iv.value is None else f"{iv.count:,}/{iv.n:,} ({pct(iv.value)} %)"


def compare_html(c: Comparison, a: Settings, b: Settings) -> str:
    """The strip's text: ``A 4/10 (40 %) → B 6/10 (60 %) · change +20 points (95 % CI …, paired)``
    and McNemar's test in words (class ``me-compare-reading``); each setting in words in a
    tooltip; changed verdicts of runs without ground truth counted apart. The change is coloured
    as better (``me-change-better``) or worse (``me-change-worse``) only when its interval leaves
    out 0, else neutral (``me-change-unclear``, :func:`~explorer.app.intervals.change_tone`)."""
    a_words, b_words = html.escape(settings_words(a)), html.escape(settings_words(b))
    same = " (the same settings)" if a == b else ""
    unl = (f' <span class="me-hint">{counted(len(c.changed_unlabelled), "run")} without a verdict (unlabelled, disputed '
           f"or with too few labels) changed too; not counted.</span>") if c.changed_unlabelled else ""
    return (
        '<div class="me-compare-line">'
        f'<span class="me-compare-a" title="A: {a_words}"><b>A</b> (pinned) {_agreement(c.agreement_a)}</span> → '
        f'<span class="me-compare-b" title="B: {b_words}"><b>B</b> (now){same} {_agreement(c.agreement_b)}</span> · '
        f'<span class="me-compare-change me-change-{change_tone(c.change)}" title="B minus A over the same '
        f'{counted(c.labelled, "labelled run")}; 95 % interval for paired proportions, Newcombe (1998) hybrid score method'
        f'{TONE_TIPS[change_tone(c.change)]}">change in agreement <b>{points_text(c.change)}</b>, paired</span>'
        "</div>"
        f'<div class="me-compare-reading" title="McNemar\'s exact test: two-sided binomial test on the runs that flipped">'
        f"McNemar's exact test: {html.escape(c.reading)}.{unl}</div>"
    )


class CompareView:
    """The "Pin as A" button (beside the summary bar) and the comparison strip (under it, hidden
    while nothing is pinned). ``pin()`` / ``unpin()`` are the session's commands,
    ``select_run(run_id)`` selects a run in the table and shows its detail."""

    def __init__(self, pin: Callable[[], None], unpin: Callable[[], None], select_run: Callable[[str], None]) -> None:
        self._select_run = select_run
        self.scroller = ScrollIntoView(margin=0, height=0, width=0)
        self.pin_button = pn.widgets.Button(
            label="Pin as A", css_classes=["me-pin"], width=96, margin=(10, 10, 4, 4), color="default",
            # below, not Panel's default right: at the page's right edge a tooltip to the right is cut off
            description=tooltip_below("Keep the current settings as A; every change after it is B, compared run by run with A"),
        )
        hide_tooltip_on_click(self.pin_button)
        self.pin_button.on_click(lambda _e: pin())
        self.unpin_button = pn.widgets.Button(label="Unpin", css_classes=["me-unpin"], width=80, margin=(2, 6))
        self.unpin_button.on_click(lambda _e: unpin())
        self.text = LiveHTML("", css_classes=["me-compare"], **styled(sizing_mode="stretch_width", margin=(0, 10)))

        def flips(css: str, colour: str) -> pn.widgets.CheckButtonGroup:
            group = pn.widgets.CheckButtonGroup(options=[], value=[], css_classes=[css], color=colour,
                                                variant="outline", margin=(2, 4))
            group.param.watch(self._clicked, ["value"])
            return group

        self.fixed = flips("me-compare-fixed", "success")
        self.broken = flips("me-compare-broken", "danger")
        self.fixed_label = LiveHTML("", css_classes=["me-compare-fixed-label"], **styled(margin=(8, 2, 0, 10)))
        self.broken_label = LiveHTML("", css_classes=["me-compare-broken-label"], **styled(margin=(8, 2, 0, 14)))
        self.strip = Deferred(  # its models join the page when a setting is first pinned
            self.text,
            pn.Row(self.fixed_label, self.fixed, self.broken_label, self.broken, self.unpin_button, self.scroller,
                   sizing_mode="stretch_width", styles=WRAP, margin=0),
            css_classes=["me-compare-strip"], sizing_mode="stretch_width", visible=False, margin=(0, 0, 4, 0),
        )

    def _clicked(self, event) -> None:
        if not event.new:
            return
        run_id = event.new[-1]
        event.obj.value = []  # a button, not a toggle: the next click selects again
        self._select_run(run_id)
        self.scroller.scroll()

    @staticmethod
    def _flip_label(word: str, css: str, ids: Sequence[str], tip: str) -> str:
        more = f" (+{len(ids) - MAX_FLIP_BUTTONS:,} more)" if len(ids) > MAX_FLIP_BUTTONS else ""
        return (f'<span class="me-compare-flip {css}" title="{tip}"><b>{word}</b> {len(ids):,}{more}'
                f'{":" if ids else ""}</span>')

    def show(self, comparison: Comparison | None, a: Settings | None = None, b: Settings | None = None) -> None:
        """Show the comparison of B with A (None: nothing pinned, the strip hidden)."""
        if comparison is None or a is None or b is None:
            if self.strip.visible:
                self.strip.visible = False
            write_through(self.pin_button, label="Pin as A")  # only what differs: this runs on every settings change
            return
        c = comparison
        self.text.show(compare_html(c, a, b))
        self.fixed_label.show(self._flip_label("Fixed", "me-fixed-text", c.fixed,
                                               "Wrong under A, right under B: click one to read it"))
        self.broken_label.show(self._flip_label("Broken", "me-broken-text", c.broken,
                                                "Right under A, wrong under B: click one to read it"))
        fixed, broken = list(c.fixed[:MAX_FLIP_BUTTONS]), list(c.broken[:MAX_FLIP_BUTTONS])
        if self.fixed.options != fixed:
            self.fixed.param.update(options=fixed, value=[], visible=bool(fixed))
        if self.broken.options != broken:
            self.broken.param.update(options=broken, value=[], visible=bool(broken))
        write_through(self.pin_button, label="Pin B as A")
        if not self.strip.visible:
            self.strip.visible = True
