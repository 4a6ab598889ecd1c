"""Applying other argument rules in a session (issue 12): the trajectory scores of every run are
computed again (:func:`explorer.core.evaluation.features.with_arg_rules`, a loop over the runs,
about 12 s at 1M runs), so for a big set it runs in a background thread, like a load, while the
page keeps working on the old scores; a periodic callback of the session shows the progress and
swaps the new features in when they are ready. A small set is done at once.

The new features belong to the session (and, through the page, to its workspace): other sessions
keep the shared ones.
"""

from __future__ import annotations

from typing import Callable

from ..core.evaluation.features import Features, with_arg_rules
from ..core.scoring.arg_rules import ArgRules
from .loading import BackgroundLoad, LatestJob
from .views.arg_rules import ArgRulesView, rules_count

BACKGROUND_ABOVE = 20_000
"""Sets with more runs than this apply rules in a background thread (about 0.3 s of work at this size)."""


def done_text(rules: ArgRules, source: str, n_runs: int) -> str:
    """``"Applied 2 rules from rules.json: the trajectory scores of 10 runs were computed again."``"""
    where = f" from {source}" if source else ""
    what = "Removed the argument rules" if not rules.rules else f"Applied {rules_count(rules)}{where}"
    runs = f"{n_runs:,} run" + ("" if n_runs == 1 else "s")
    return f"{what}: the trajectory scores of {runs} were computed again."


class RulesChange:
    """One session's rules changes, shown in ``view``: at most one computes at a time, and only
    the latest asked for meanwhile is computed next and handed over
    (:class:`~explorer.app.loading.LatestJob`)."""

    def __init__(self, view: ArgRulesView) -> None:
        self.view = view
        self.jobs: LatestJob[Features] = LatestJob("the rules", waiting=self._progress)
        self._latest: tuple[ArgRules, int] = (ArgRules(), 0)
        """(rules, runs) of the latest change asked for, which the progress line names."""

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
        self._latest = (rules, features.n)

        def computed(result: Features | None, error: str | None) -> None:
            if result is not None:
                self._finish(result, rules, source, done)
            else:
                self.view.show_error(error or "")

        self.jobs.submit(lambda progress: with_arg_rules(features, rules, progress), computed, source or "the rules")
        self.view.show_busy(f"Applying {rules_count(rules)} to {features.n:,} runs: starting. "
                            "The page shows the scores under the old rules until then.")

    def _progress(self, job: BackgroundLoad[Features], queued: bool) -> None:
        rules, n = self._latest
        progress = "waiting for the change before it" if queued else f"{job.percent()}%"
        self.view.show_busy(f"Applying {rules_count(rules)} to {n:,} runs: {progress}. "
                            "The page shows the scores under the old rules until then.")

    @property
    def job(self) -> BackgroundLoad[Features] | None:
        """The change computing, or computed and not handed over yet (None when idle)."""
        return self.jobs.job

    def poll(self) -> None:
        """Show the running change's progress, hand its result over when it has finished, or
        start the change asked for meanwhile (what the session's periodic callback calls)."""
        self.jobs.poll()

    def _finish(self, features: Features, rules: ArgRules, source: str, done: Callable[[Features], None]) -> None:
        done(features)
        self.view.show_rules(rules)
        self.view.show_done(done_text(rules, source, features.n))

    def stop(self) -> None:
        """Stop following a running change (its result is dropped)."""
        self.jobs.stop()
