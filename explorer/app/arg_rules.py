"""Applying other argument rules in a session (issue 12): the trajectory scores of every run are
computed again (:func:`explorer.core.evaluation.features.with_arg_rules`, a loop over the runs,
about 12 s at 1M runs), so for a big set it runs in a background thread, like a load, while the
page keeps working on the old scores; a periodic callback of the session shows the progress and
swaps the new features in when they are ready. A small set is done at once.

The new features belong to the session (and, through the page, to its workspace): other sessions
keep the shared ones.
"""

from __future__ import annotations

from typing import Any, Callable

import panel as pn

from ..core.evaluation.features import Features, with_arg_rules
from ..core.scoring.arg_rules import ArgRules
from .loading import BackgroundLoad
from .views.arg_rules import ArgRulesView, rules_count

BACKGROUND_ABOVE = 20_000
"""Sets with more runs than this apply rules in a background thread (about 0.3 s of work at this size)."""
POLL_MS = 250
"""How often a background change reports its progress (ms)."""


def done_text(rules: ArgRules, source: str, n_runs: int) -> str:
    """``"Applied 2 rules from rules.json: the trajectory scores of 10 runs were computed again."``"""
    where = f" from {source}" if source else ""
    what = "Removed the argument rules" if not rules.rules else f"Applied {rules_count(rules)}{where}"
    runs = f"{n_runs:,} run" + ("" if n_runs == 1 else "s")
    return f"{what}: the trajectory scores of {runs} were computed again."


class RulesChange:
    """One session's rules changes, shown in ``view``; at most one runs at a time (a new change
    supersedes a running one, whose result is then dropped)."""

    def __init__(self, view: ArgRulesView) -> None:
        self.view = view
        self.job: BackgroundLoad[Features] | None = None
        self._callback: Any = None

    def start(self, features: Features, rules: ArgRules, source: str, done: Callable[[Features], None],
              background: bool | None = None) -> None:
        """Compute ``features`` again under ``rules`` and hand the result to ``done``; in the
        background when ``background`` (default: above ``BACKGROUND_ABOVE`` runs)."""
        self.stop()
        if rules == features.arg_rules:
            self.view.show_rules(rules)
            same = ("No argument rules are in use: nothing to clear." if not rules.rules
                    else f"These are the rules in use ({rules_count(rules)}): nothing to compute again.")
            self.view.show_done(same, changed=False)
            return
        if background is None:
            background = features.n > BACKGROUND_ABOVE
        if not background:
            self._finish(with_arg_rules(features, rules), rules, source, done)
            return
        errors: list[str] = []
        job = BackgroundLoad(lambda progress: with_arg_rules(features, rules, progress), source or "the rules",
                             on_error=errors.append)
        self.job = job.start()
        self.view.show_busy(f"Applying {rules_count(rules)} to {features.n:,} runs: starting. "
                            "The page shows the scores under the old rules until then.")

        def poll() -> None:
            if self.job is not job:
                return
            if job.result is not None:
                self.stop()
                self._finish(job.result, rules, source, done)
            elif errors:
                self.stop()
                self.view.show_error(errors[0])
            else:
                self.view.show_busy(f"Applying {rules_count(rules)} to {features.n:,} runs: {job.percent()}%. "
                                    "The page shows the scores under the old rules until then.")

        self.poll = poll
        if pn.state.curdoc is not None:
            self._callback = pn.state.add_periodic_callback(poll, period=POLL_MS, start=True)

    def _finish(self, features: Features, rules: ArgRules, source: str, done: Callable[[Features], None]) -> None:
        done(features)
        self.view.show_rules(rules)
        self.view.show_done(done_text(rules, source, features.n))

    def stop(self) -> None:
        """Stop following a running change (its result is dropped)."""
        self.job = None
        if self._callback is not None and self._callback.running:
            self._callback.stop()
        self._callback = None
