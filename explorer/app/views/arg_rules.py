"""The argument rules of the trajectory card (issue 12): what the rules are, a box to edit them and
a file to load them from, and what became of the last change.

Rules are the per-tool and per-key comparisons of :mod:`explorer.core.scoring.arg_rules` (ignore a
key, compare text loosely, numbers with a tolerance, dates by day). They change which calls match,
so they change the features, not the settings: applying them recomputes the trajectory scores of
every run (:func:`explorer.core.evaluation.features.with_arg_rules`), which the session does (in
the background for a big set). This view only reads what the person gives it:

* the box holds a rules file (``{"format": "metric-explorer/arg-rules@1", "rules": [...]}``; a bare
  list of rules is read as its ``rules``), parsed with
  :func:`~explorer.core.scoring.arg_rules.arg_rules_file_from_data`;
* a file may be a rules file or a settings JSON (``metric-explorer/settings@1``, its ``arg_rules``).

A bad box or file shows one line naming it, the JSON path and the problem, and changes nothing;
an empty box clears the rules.

A line under the panel (``me-arg-rules-link``) says whether the page's link holds the rules in use
(:func:`explorer.app.url.rules_query_value`): short rules are in it, so a shared link applies them;
longer ones are not, and the line says to share the Settings JSON instead.
"""

from __future__ import annotations

import html
from typing import Any, Callable

import panel as pn

from ...core.io.errors import LoadError
from ...core.io.reading import parse_json, text_of
from ...core.scoring.arg_rules import ARG_RULES_FORMAT, NO_RULES, ArgRules, arg_rules_file_from_data, dumps_arg_rules
from ..url import LINK_RULES_LIMIT, rules_query_value
from .style import Deferred, LiveHTML, styled

BOX_NAME = "the rules box"
"""How errors name the text box (in place of a file name)."""
RULES_HELP = (
    'One rule per object: <code>{"tool": "*", "key": "*.timestamp", "rule": "ignore"}</code>. Rules: '
    "<code>ignore</code> (leave the key out), <code>text</code> (case and spaces ignored), <code>rung</code> "
    "(with <code>\"rung\": 1-4</code>), <code>number</code> (with <code>\"tolerance\"</code>), <code>date</code> "
    "(by day). Tool and key are globs; the first rule that names a key decides (docs/trajectory-metrics.md). "
    "An empty box clears the rules."
)
SMALL_BUTTON = ":host .bk-btn { padding: 3px 8px; font-size: 12.5px; }"


def rules_from_text(text: str, name: str = BOX_NAME) -> ArgRules:
    """Rules from the text of a rules file or settings JSON (a bare JSON list of rules is read as
    a rules file's ``rules``). Raises LoadError naming ``name``, the location and the problem."""
    data: Any = parse_json(text, name)
    if isinstance(data, list):
        data = {"format": ARG_RULES_FORMAT, "rules": data}
    return arg_rules_file_from_data(data, name)


def link_note(rules: ArgRules) -> str:
    """Whether the page's link holds ``rules``: ``""`` for no rules, ``"The page's link holds
    these rules: a shared link applies them."``, or why it does not (too long) and what to share."""
    if not rules.rules:
        return ""
    if rules_query_value(rules) is not None:
        return "The page’s link holds these rules: a shared link applies them."
    return (f"These {rules_count(rules)} are too long for the page’s link (over {LINK_RULES_LIMIT:,} characters): "
            "a shared link opens without them. Share the Settings JSON (Your data tab), which holds them.")


def rules_count(rules: ArgRules) -> str:
    """``"no rules"``, ``"1 rule"``, ``"3 rules"``."""
    n = len(rules.rules)
    return "no rules" if n == 0 else f"{n} rule" + ("" if n == 1 else "s")


class ArgRulesView:
    """The toggle that opens the rules (``me-arg-rules-toggle``, labelled with their count), and
    the rules panel (``me-arg-rules``: the box ``me-arg-rules-text``, ``Apply rules``
    ``me-arg-rules-apply``, the file input ``me-arg-rules-file``, the outcome line
    ``me-arg-rules-status``, the link line ``me-arg-rules-link``). ``apply(rules, source)`` is
    called with rules read without error (no rules for an empty box)."""

    def __init__(self, rules: ArgRules, apply: Callable[[ArgRules, str], None]) -> None:
        self._apply = apply
        # the toggle's tooltip is on its wrapper (Toggle takes no description)
        self.toggle = pn.widgets.Toggle(label="Rules", css_classes=["me-arg-rules-toggle"], width=82, margin=(5, 0, 0, 6),
                                        stylesheets=[SMALL_BUTTON])
        self.text = pn.widgets.TextAreaInput(value="", rows=7, css_classes=["me-arg-rules-text"], sizing_mode="stretch_width",
                                             margin=(2, 10), stylesheets=[":host textarea { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }"])
        self.apply_button = pn.widgets.Button(label="Apply rules", css_classes=["me-arg-rules-apply"], color="primary",
                                              width=100, stylesheets=[SMALL_BUTTON])
        # on its own line, the column's width: beside the button its "No file chosen" was cut to "No …en"
        self.file = pn.widgets.FileInput(accept=".json", multiple=False, css_classes=["me-arg-rules-file"],
                                         sizing_mode="stretch_width", margin=(4, 10),
                                         description="A rules file (metric-explorer/arg-rules@1) or a settings JSON")
        self.link = LiveHTML("", css_classes=["me-arg-rules-link"], visible=False,
                             **styled(margin=(0, 10), sizing_mode="stretch_width"))
        self.status = LiveHTML("", css_classes=["me-arg-rules-status"], visible=False,
                               **styled(margin=(0, 10), sizing_mode="stretch_width"))
        self.body = Deferred(  # its models join the page when the editor is first opened
            LiveHTML(f'<div class="me-hint">{RULES_HELP}</div>', **styled(margin=(0, 10), sizing_mode="stretch_width")),
            self.text,
            pn.Row(self.apply_button, margin=(0, 4)),
            self.file,
            self.status,
            self.link,
            css_classes=["me-arg-rules"], visible=False, sizing_mode="stretch_width", margin=0,
        )
        self.toggle.param.watch(lambda e: setattr(self.body, "visible", bool(e.new)), ["value"])
        self.apply_button.on_click(lambda _e: self._from_box())
        self.file.param.watch(lambda _e: self._from_file(), ["value"])
        self.show_rules(rules)

    def show_rules(self, rules: ArgRules) -> None:
        """Show ``rules`` (the ones the trajectory scores were computed under) in the box and the
        toggle's label (``Rules (2)``)."""
        n = len(rules.rules)
        self.toggle.label = f"Rules ({n})" if n else "Rules"
        self.text.value = dumps_arg_rules(rules)
        note = link_note(rules)
        self.link.object = f'<div class="me-hint">{html.escape(note)}</div>' if note else ""
        self.link.visible = bool(note)

    # --- reading what the person gives -------------------------------------------------------
    def _from_box(self) -> None:
        text = self.text.value or ""
        if not text.strip():  # an empty box clears the rules
            self._apply(NO_RULES, BOX_NAME)
            return
        self._read(lambda: rules_from_text(text, BOX_NAME), BOX_NAME)

    def _from_file(self) -> None:
        if self.file.value is None:
            return
        name = self.file.filename or "rules.json"
        data = self.file.value
        self._read(lambda: rules_from_text(text_of(bytes(data), name), name), name)

    def _read(self, read: Callable[[], ArgRules], source: str) -> None:
        try:
            rules = read()
        except LoadError as exc:
            self.show_error(str(exc))
            return
        self._apply(rules, source)

    # --- outcome lines -----------------------------------------------------------------------
    def show_error(self, message: str) -> None:
        """A read error (escaped): the rules in use stay."""
        self._say(f'<div class="me-input-error" role="alert">Could not use these rules. {html.escape(message)}</div>'
                  '<div class="me-hint">Nothing changed: the rules in use are as they were.</div>')

    def show_busy(self, text: str) -> None:
        """A line while the rules are being applied (``"Applying 2 rules to 1,000,000 runs: 40%"``)."""
        self._say(f'<div class="me-hint" role="status">{html.escape(text)}</div>')

    def show_done(self, text: str, changed: bool = True) -> None:
        """The outcome of an applied change, in a sentence (``changed`` False: the rules were
        already in use; the panel is not opened for that)."""
        self._say(f'<div class="me-load-ok" role="status">{html.escape(text)}</div>', open_panel=changed)

    def _say(self, markup: str, open_panel: bool = True) -> None:
        self.status.object = markup
        self.status.visible = True
        if open_panel and not self.toggle.value:  # a file dropped elsewhere applied rules: show what happened
            self.toggle.value = True
