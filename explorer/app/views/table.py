"""The runs table: a Tabulator of the revealed runs, with marked calls and coloured outcomes. It
scrolls inside its card (fixed height; columns keep their widths and scroll sideways on a narrow
screen, the run id frozen at the left), and says so when nothing is revealed yet.

Every value from the runs is escaped with ``html.escape`` before our own markup is added, and
every column uses Tabulator's ``html`` formatter, so what reaches the cell is exactly what we built.
"""

from __future__ import annotations

import html
import math
from typing import Callable

import numpy as np
import pandas as pd
import panel as pn

from ...core.evaluation.verdicts import Evaluation, matcher_for, response_score_text, result_table
from ...core.evaluation.features import Features
from ...core.scoring.passmark import show_score
from ...core.scoring.trajectory_metrics import allowed_marks
from ...core.scoring.trajectory import MarkedCall, mark_calls
from ..highlight import escape_whole, keep_tokens_whole
from .style import LiveHTML, flex_item, styled

COLUMNS = (
    "ID", "Title", "Outcome", "Reason", "Evaluator", "Person", "Decided by",
    "Trajectory", "F1", "Key fields", "Expected calls", "Actual calls",
)
"""The outcome and why first: at 1440 px the card shows about 1,050 px of the table's 1,330, with
a run selected about 560, at 1024 px about 640, and what is cut off scrolls sideways. ID, Title,
Outcome and Reason take 490 px, so the reason (wrapped in its cell) is whole in each of them (a
trial found Outcome, Decided by and Reason cut off when they came last, and then the reason cut to
"F1 0.62 < 0." at 1024 px behind Evaluator and Person, which the outcome already implies). The
calls, the last columns, are also in the selected run's panel with their marks (``views.detail``)."""
WIDTHS = {
    "ID": 48, "Title": 116, "Expected calls": 128, "Actual calls": 200, "Trajectory": 88, "F1": 56,
    "Key fields": 82, "Evaluator": 86, "Person": 104, "Outcome": 96, "Decided by": 96, "Reason": 230,
}
"""Column widths in px (headers fit on one or two lines, never cut); Reason stretches to fill a wide
table. Wider than the card, the table scrolls sideways inside it with ID frozen. ID's is the
narrowest (the bundled E1..E10); :func:`id_width` widens it to the case set's ids."""
ID_CHAR_PX = 9.5
"""Width of one character of a bold run id at the table's font (13 px bold sans-serif: digits ~9 px,
lower case 8-9; at 8.5 an 8-digit synthetic id was still cut in Chromium)."""
ID_MAX_PX = 220
"""The ID column's widest: longer ids end in an ellipsis, whole in the cell's tooltip (at 1024 px
the table card shows about 640 px, and ID stays frozen at the left: a third of it at most)."""


def id_width(longest_id: int) -> int:
    """The ID column's width in px for ids of at most ``longest_id`` characters: the text and the
    cell's padding (16 px), between ``WIDTHS["ID"]`` and :data:`ID_MAX_PX`. A trial found an ADK
    eval id, ``book_cheapest_flight``, cut to two letters in a 48 px column."""
    return int(min(ID_MAX_PX, max(WIDTHS["ID"], math.ceil(16 + ID_CHAR_PX * longest_id))))


TABLE_HEIGHT = 310
"""Height of the table in px: its rows scroll inside it, so the page keeps its one-screen layout."""
EMPTY_TEXT = "Nothing revealed yet: press Play or Next event (or drag the replay time), then select a run to read it."
_SLUG = {"agree": "agree", "false pass": "false-pass", "false fail": "false-fail", "unlabelled": "unlabelled"}


def _esc(value: object) -> str:
    return html.escape(str(value))


def call_html(m: MarkedCall, allowed: frozenset[str] = frozenset(), keep_whole: bool = False) -> str:
    """One marked call as HTML: the name, or for ``args differ`` the call with the differing
    arguments (``confirm_booking(booking_id: "BK-4407" ≠ "BK-4470")``), then the mark as a tag;
    class ``me-call-<mark>`` (``args differ`` -> ``me-call-args-differ``), the full call in the
    tooltip. A mark in ``allowed`` (the family's score does not count it,
    :func:`~explorer.core.scoring.trajectory_metrics.allowed_marks`) reads ``extra, allowed`` and
    is shown muted (``me-call-allowed``): a trial saw E2 pass IN_ORDER while still marked EXTRA.
    ``keep_whole``: hyphenated tokens of the text (``"BK-4407"``) kept on one line (the side
    panel and the table, :func:`~explorer.app.highlight.keep_tokens_whole`)."""
    slug = m.mark.replace(" ", "-")
    ok_here = m.mark in allowed
    word = f"{m.mark}, allowed" if ok_here else m.mark
    tag = "" if m.mark == "ok" else f' <small class="me-tag">{_esc(word)}</small>'
    text = m.label if m.mark == "args differ" else m.name
    extra_class = " me-call-allowed" if ok_here else ""
    shown = keep_tokens_whole(_esc(text)) if keep_whole else _esc(text)
    return f'<span class="me-call me-call-{slug}{extra_class}" title="{_esc(m.label)}">{shown}{tag}</span>'


def calls_html(features: Features, ev: Evaluation, i: int, keep_whole: bool = False) -> tuple[str, str]:
    """(expected, actual) call lists of run ``i`` as HTML; actual calls carry their mark
    (``extra``, ``missing``, ``out of order``, ``denied``, ``args differ``) as a class and as
    visible text (:func:`call_html`). Calls are paired as the settings' family pairs them, under
    their argument mode and the features' argument rules (``verdicts.matcher_for``);
    ``keep_whole`` as :func:`call_html`'s (the call names too)."""
    s = ev.settings
    matcher = matcher_for(features, s)
    allowed = allowed_marks(s.trajectory) if s.trajectory != "none" else frozenset()
    expected_parts, actual_parts = [], []
    for k, inv in enumerate(features.runs[i].invocations):
        prefix = f'<span class="me-inv">#{k + 1}</span> ' if features.n_invocations[i] > 1 else ""
        name = (lambda c: keep_tokens_whole(_esc(c.name))) if keep_whole else (lambda c: _esc(c.name))
        exp = "<br>".join(f'<span class="me-call" title="{_esc(c.label())}">{name(c)}</span>' for c in inv.expected_calls)
        expected_parts.append(prefix + (exp or '<span class="me-none">none</span>'))
        marked = mark_calls(inv.expected_calls, inv.actual_calls, s.trajectory, matcher, s.active_deny)
        items = [call_html(m, allowed, keep_whole) for m in marked]
        actual_parts.append(prefix + ("<br>".join(items) or '<span class="me-none">none</span>'))
    return "<br>".join(expected_parts), "<br>".join(actual_parts)


def table_frame(features: Features, ev: Evaluation, k: int, start: int = 0,
                person_cell: Callable[[int, str], str] | None = None) -> pd.DataFrame:
    """The display table of runs ``start..k-1`` (all cells escaped HTML), columns ``COLUMNS``; the
    run's text (ID, Title, Reason, the calls) with its hyphenated words (``"BK-4470"``) kept on one
    line (:func:`~explorer.app.highlight.escape_whole`): Reason broke E10's at ``BK-|4470``.
    ``person_cell(i, verdict word)`` gives the Person cell's HTML (several annotators: disputed and
    split runs marked, issue 11); default the word, escaped."""
    if k <= start:
        return table_frame_empty()
    rows = np.arange(start, k)
    base = result_table(features, ev, rows)
    s = ev.settings
    data: dict[str, list[str]] = {c: [] for c in COLUMNS}
    for j, rec in enumerate(base.to_dict(orient="records")):
        i = int(rows[j])
        expected, actual = calls_html(features, ev, i, keep_whole=True)
        if s.trajectory == "none":
            traj = '<span class="me-none">not scored</span>'
        else:
            score = rec["trajectory_score"]
            word = "pass" if rec["trajectory_pass"] else "fail"
            traj = f'<span class="me-{word}">{word}</span> {show_score(score, s.trajectory_threshold)}' if not math.isnan(score) else "—"
        f1_word = "pass" if rec["f1_pass"] else "fail"
        f1 = f'<span class="me-{f1_word}-num">{show_score(rec["f1"], s.f1_threshold)}</span>'
        if ev.response is not None:  # the chosen response scorer's score under F1 (issue 5)
            rs = rec["response_score"]
            model = f' title="{_esc(ev.response.embedding.label())}"' if ev.response.embedding is not None else ""
            f1 += f'<br><small class="me-response-score"{model}>{_esc(s.response_scorer)} {"–" if math.isnan(rs) else response_score_text(rs, s)}</small>'
            if rec.get("response_note"):  # ROUGE-1 0 on non-Latin text, a windowed cosine (issue 10)
                f1 += f'<br><small class="me-response-note">{_esc(rec["response_note"])}</small>'
        if s.key_fields:
            # the why is in the tooltip, the trace and (when it decided) the reason column
            key = '<span class="me-pass">pass</span>' if rec["key_pass"] else f'<span class="me-fail" title="{_esc(features.key_columns(s.day_first)[1][i])}">fail</span>'
        else:
            key = '<span class="me-none">off</span>'
        verdict = rec["verdict"]
        person = rec["human_verdict"] or "unlabelled"
        outcome = rec["outcome"]
        data["ID"].append(f"<b title=\"{_esc(rec['id'])}\">{escape_whole(rec['id'])}</b>")
        data["Title"].append(escape_whole(rec["title"]))
        data["Expected calls"].append(expected)
        data["Actual calls"].append(actual)
        data["Trajectory"].append(traj)
        data["F1"].append(f1)
        data["Key fields"].append(key)
        data["Evaluator"].append(f'<span class="me-{verdict}">{verdict}</span>')
        data["Person"].append(_esc(person) if person_cell is None else person_cell(i, person))
        data["Outcome"].append(f'<span class="me-outcome me-outcome-{_SLUG[outcome]}">{_esc(outcome)}</span>')
        data["Decided by"].append(f'<span class="me-decided-by">{_esc(rec["decided_by"])}</span>')
        data["Reason"].append(escape_whole(rec["reason"]))
    return pd.DataFrame(data, index=rows)


PAGE_SIZE = 25
PAGINATE_ABOVE = 50
"""Sets with more runs than this page the table on the server (only a page is sent)."""
WINDOW_ABOVE = 2000
"""Sets with more runs than this build rows for the page shown only (our own page buttons), so a
reveal step or an input change at 100k-1M runs costs one page of rows, not every revealed run."""


class TableView:
    """The Tabulator card; ``ids`` holds the raw run id of each displayed row."""

    def __init__(self, n_runs: int = 0, longest_id: int = 0) -> None:
        """``n_runs``: runs of the case set (how the table pages); ``longest_id``: characters of its
        longest run id (the ID column's width, :func:`id_width`)."""
        self.ids: list[str] = []
        self.person_cell: Callable[[int, str], str] | None = None
        """Set by the session when several annotators label: marks disputed and split runs."""
        self._ev: Evaluation | None = None
        self._built = table_frame_empty()  # rows 0..len-1 of the current evaluation, built once each
        self.windowed = n_runs > WINDOW_ABOVE
        self._shown: tuple = ()  # windowed: (features, ev, k) last shown, for the page buttons
        self._page_key: tuple = ()  # windowed: (ev, start, stop) of the rows in the table
        paged = {"pagination": "remote", "page_size": PAGE_SIZE} if PAGINATE_ABOVE < n_runs <= WINDOW_ABOVE else {}
        self.page = pn.widgets.IntInput(label="Page", value=1, start=1, width=90, css_classes=["me-table-page"], visible=self.windowed)
        self.page_info = LiveHTML("", css_classes=["me-table-page-info"], visible=self.windowed, **styled(margin=(22, 10)))
        self.page.param.watch(lambda *_: self._show_page(), ["value"])
        self.table = pn.widgets.Tabulator(
            table_frame_empty(),
            css_classes=["me-table"],
            show_index=False,
            disabled=True,
            selectable=1,
            formatters={c: "html" for c in COLUMNS},
            widths={**WIDTHS, "ID": id_width(longest_id)},
            header_align="left",
            layout="fit_data_stretch",
            frozen_columns=["ID"],
            sizing_mode="stretch_width",
            height=TABLE_HEIGHT,
            configuration={"columnDefaults": {"headerSort": False, "resizable": False}, "placeholder": EMPTY_TEXT},
            **paged,
            **styled(),
        )

    def show(self, features: Features, ev: Evaluation, k: int) -> None:
        """Show runs ``0..k-1``. Rows are built once per evaluation, when first revealed (a replay
        over a large set builds each row once, not at every reveal)."""
        if self.windowed:
            self._shown = (features, ev, k)
            self._show_page()
            return
        if ev is not self._ev:
            self._ev, self._built = ev, _EMPTY  # never mutated (rows are added with pd.concat)
        if k == 0 and not self.ids and len(self.table.value) == 0:
            return  # empty before and now (an input change rewinds to t = 0): no Tabulator update
        built = len(self._built)
        if k > built:
            more = table_frame(features, ev, k, start=built, person_cell=self.person_cell)
            self._built = more if built == 0 else pd.concat([self._built, more])
        self.ids = [str(x) for x in features.run_ids[:k]]
        self.table.value = self._built.iloc[:k]

    def _show_page(self) -> None:
        """Windowed: build and show the rows of the chosen page of the ``k`` revealed runs (page
        clamped to the last one); rows are rebuilt only when the evaluation or the page changes."""
        if not self._shown:
            return
        features, ev, k = self._shown
        pages = max(1, math.ceil(k / PAGE_SIZE))
        if self.page.value is None or self.page.value > pages:
            self.page.value = pages  # comes back here through the watcher
            return
        self.page.end = pages
        start = (self.page.value - 1) * PAGE_SIZE
        stop = min(k, start + PAGE_SIZE)
        self.page_info.object = (
            f'<span class="me-hint">Runs {start + 1:,}-{stop:,} of {k:,} revealed, page {self.page.value:,} of {pages:,}</span>'
            if k else '<span class="me-hint">No runs revealed yet</span>'
        )
        if self._page_key and self._page_key[0] is ev and self._page_key[1:] == (start, stop):
            return
        self._page_key = (ev, start, stop)
        self.ids = [str(x) for x in features.run_ids[start:stop]]
        if self.table.selection:  # row positions now name other runs; the session clears its detail
            self.table.selection = []
        if stop == start and len(self.table.value) == 0:
            return  # still empty: no Tabulator update
        self.table.value = table_frame(features, ev, stop, start=start, person_cell=self.person_cell)

    def panel(self) -> pn.Column:
        """The table (with the page buttons of a windowed set)."""
        return pn.Column(
            pn.Row(self.page, self.page_info, visible=self.windowed),
            self.table,
            sizing_mode="stretch_width",
            margin=0,
            styles=flex_item(460),
            css_classes=["me-table-column"],
        )


def table_frame_empty() -> pd.DataFrame:
    """An empty display table with ``COLUMNS``."""
    return pd.DataFrame({c: pd.Series([], dtype=object) for c in COLUMNS})


_EMPTY = table_frame_empty()
