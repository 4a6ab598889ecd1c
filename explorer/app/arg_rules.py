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
        self._next: tuple[Features, ArgRules, str, Callable[[Features], None]] | None = None
        """The latest change asked for while :attr:`job` computed (it starts when that one ends)."""
        self._wanted: tuple[ArgRules, str, Callable[[Features], None], int] = (ArgRules(), "", lambda _f: None, 0)
        """(rules, source, done, runs) of :attr:`job`."""
        self._callback: Any = None

    def start(self, features: Features, rules: ArgRules, source: str, done: Callable[[Features], None],
              background: bool | None = None) -> None:
        """Compute ``features`` again under ``rules`` and hand the result to ``done``; in the
        background when ``background`` (default: above ``BACKGROUND_ABOVE`` runs). While a
        background change computes (a thread cannot be stopped), a new one waits for it and only
        the latest of those made meanwhile is computed next: two changes ran side by side, each
        about 12 s at 1M runs on the server's shared cores."""
        if rules == features.arg_rules:
            self.stop()
            self.view.show_rules(rules)
            same = ("No argument rules are in use: nothing to clear." if not rules.rules
                    else f"These are the rules in use ({rules_count(rules)}): nothing to compute again.")
            self.view.show_done(same, changed=False)
            return
        if background is None:
            background = features.n > BACKGROUND_ABOVE
        if not background:
            self.stop()
            self._finish(with_arg_rules(features, rules), rules, source, done)
            return
        if self.job is not None and not self.job.finished:
            self._next = (features, rules, source, done)  # computed when the running change ends
        else:
            self._launch(features, rules, source, done)
        self.view.show_busy(f"Applying {rules_count(rules)} to {features.n:,} runs: starting. "
                            "The page shows the scores under the old rules until then.")
        if self._callback is None and pn.state.curdoc is not None:
            self._callback = pn.state.add_periodic_callback(self.poll, period=POLL_MS, start=True)

    def _launch(self, features: Features, rules: ArgRules, source: str, done: Callable[[Features], None]) -> None:
        self._next = None
        self._wanted = (rules, source, done, features.n)
        self.job = BackgroundLoad(lambda progress: with_arg_rules(features, rules, progress), source or "the rules",
                                  on_error=lambda _message: None).start()

    def poll(self) -> None:
        """Show the running change's progress, hand its result over when it has finished, or
        start the change asked for meanwhile (what the session's periodic callback calls)."""
        job = self.job
        if job is None:
            return
        rules, source, done, n = self._wanted
        if not job.finished:
            progress = "waiting for the change before it" if self._next is not None else f"{job.percent()}%"
            latest = self._next[1] if self._next is not None else rules
            self.view.show_busy(f"Applying {rules_count(latest)} to {n:,} runs: {progress}. "
                                "The page shows the scores under the old rules until then.")
            return
        if self._next is not None:  # asked for while this one computed: its result is stale
            self._launch(*self._next)
            return
        self.stop()
        if job.result is not None:
            self._finish(job.result, rules, source, done)
        else:
            self.view.show_error(job.error or "")

    def _finish(self, features: Features, rules: ArgRules, source: str, done: Callable[[Features], None]) -> None:
        done(features)
        self.view.show_rules(rules)
        self.view.show_done(done_text(rules, source, features.n))

    def stop(self) -> None:
        """Stop following a running change (its result is dropped)."""
        self.job = None
        self._next = None
        if self._callback is not None and self._callback.running:
            self._callback.stop()
        self._callback = None
