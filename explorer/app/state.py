"""One session's state as ``param`` classes: the scorer inputs and the replay clock.

Each browser session builds its own instances, so two sessions never share inputs.
"""

from __future__ import annotations

import html

from typing import Sequence

import param

from ..core.evaluation.replay import DURATION
from ..core.evaluation.settings import Settings
from ..core.scoring.arg_match import ARG_MODES
from ..core.scoring.trajectory_metrics import (
    DEFINITIONS, MATCH_FAMILIES, PARTIAL_SCORES, TRAJECTORY_CHOICES, canonical, scores_one_or_zero,
)

NOT_SCORED = "Not scored"
TRAJECTORY_GROUPS: dict[str, dict[str, str]] = {
    "Match, pass or fail per turn": {DEFINITIONS[f].label: f for f in (*MATCH_FAMILIES, "strict")},
    "Tool check, pass or fail per turn": {DEFINITIONS["single_tool_use"].label: "single_tool_use"},
    "Partial credit, 0 to 1": {DEFINITIONS[f].label: f for f in PARTIAL_SCORES if not scores_one_or_zero(f)},
    "Off": {NOT_SCORED: "none"},
}
"""The trajectory families as the card groups them: label (the field's name, from
``trajectory_metrics.DEFINITIONS``) -> ``Settings.trajectory``; every ``TRAJECTORY_CHOICES``."""
TRAJECTORY_OPTIONS = {label: value for group in TRAJECTORY_GROUPS.values() for label, value in group.items()}
"""Trajectory label -> ``Settings.trajectory`` (``EXACT``, ``IN_ORDER``, ``ANY_ORDER``, ..., ``Not scored``)."""
assert sorted(TRAJECTORY_OPTIONS.values()) == sorted(TRAJECTORY_CHOICES)
ARG_OPTIONS = {"exact": "exact", "ignore (names only)": "ignore", "subset": "subset", "superset": "superset"}
"""Argument mode label -> ``Settings.args`` (``arg_match.ARG_MODES``)."""
assert sorted(ARG_OPTIONS.values()) == sorted(ARG_MODES)
COMBINE_OPTIONS = {"Every scorer must pass": "all", "Mean of trajectory and F1": "mean"}
"""Combine scores label -> ``Settings.combine``."""
RESPONSE_OPTIONS = {
    "Unigram F1": "f1", "ROUGE-1 (ADK)": "rouge1", "Normalised exact match": "exact",
    "Embedding cosine": "cosine", "Cascade": "cascade",
}
"""Response scorer label -> ``Settings.response_scorer`` (issue 5)."""
DATE_OPTIONS = {"Day first (03/04 = 3 Apr)": True, "Month first (03/04 = 4 Mar)": False}
"""Date reading label -> ``Settings.day_first`` (issue 10, kind 7)."""
SPEED_OPTIONS = {"0.5x": 0.5, "1x": 1.0, "2x": 2.0, "4x": 4.0}
"""Replay speed label -> inspection seconds per wall second."""

INPUT_NAMES = (
    "trajectory", "args", "trajectory_threshold", "single_tool", "f1_threshold", "combine", "mean_threshold", "deny_check", "deny_tools",
    "key_fields", "response_scorer", "rung", "pass_above", "fail_below", "day_first",
)


def is_partial(family: str) -> bool:
    """True for a family that scores a turn 0 to 1 (precision, recall, F1, LCS); False for those
    that score it 1 or 0 (the match families and single tool use:
    :func:`~explorer.core.scoring.trajectory_metrics.scores_one_or_zero`) and ``none``."""
    return family != "none" and not scores_one_or_zero(family)


class Inputs(param.Parameterized):
    """The scorer settings a person changes (one per session); :meth:`settings` gives the core's
    immutable :class:`Settings`."""

    trajectory = param.Selector(objects=TRAJECTORY_OPTIONS, default="exact", doc="Trajectory metric")
    args = param.Selector(objects=ARG_OPTIONS, default="exact", doc="How arguments are compared")
    trajectory_threshold = param.Number(default=1.0, bounds=(0.0, 1.0), step=0.01, doc="Trajectory threshold")
    single_tool = param.String(default="", doc="The tool single tool use looks for")
    f1_threshold = param.Number(default=0.8, bounds=(0.0, 1.0), step=0.01, doc="Response F1 threshold")
    combine = param.Selector(objects=COMBINE_OPTIONS, default="all", doc="Combine scores")
    mean_threshold = param.Number(default=0.75, bounds=(0.0, 1.0), step=0.01, doc="Mean threshold")
    deny_check = param.Boolean(default=False, doc="Deny-list check")
    deny_tools = param.ListSelector(default=[], objects=[], doc="Denied tools")
    key_fields = param.Boolean(default=False, doc="Exact check on dates and booking ids")
    response_scorer = param.Selector(objects=RESPONSE_OPTIONS, default="f1", doc="Response scorer")
    rung = param.Integer(default=3, bounds=(1, 4), doc="Normalisation level (rung of the ladder)")
    pass_above = param.Number(default=0.85, bounds=(0.0, 1.0), step=0.01, doc="Cascade: pass above")
    fail_below = param.Number(default=0.6, bounds=(0.0, 1.0), step=0.01, doc="Cascade: fail below")
    day_first = param.Selector(objects=DATE_OPTIONS, default=True, doc="How numeric dates read, for every check")

    def __init__(self, tools: Sequence[str], settings: Settings, case_day_first: bool = True, one_turn: bool = False,
                 **params):
        super().__init__(**params)
        self.case_day_first = bool(case_day_first)
        """The case set's own date reading: ``settings()`` gives ``day_first=None`` when the
        inputs read dates that way, so default settings stay equal to the lesson's."""
        self.one_turn = bool(one_turn)
        """Every run of the case set has one invocation: a match family's run score is then 1 or
        0, and the trajectory threshold changes nothing above 0 (:meth:`choose_trajectory`)."""
        self.tools = tuple(tools)
        """The tools seen in the data (the deny-list and single tool use choose among them)."""
        # labels escaped: the MultiChoice renders option labels as HTML, and tool names come from
        # untrusted run files
        self.param.deny_tools.objects = {html.escape(t): t for t in tools}
        self.apply(settings)

    def settings(self) -> Settings:
        """The current inputs as :class:`Settings` (raises ValueError if a value is out of range)."""
        return Settings(
            trajectory=self.trajectory,
            args=self.args,
            trajectory_threshold=float(self.trajectory_threshold),
            # the tool only matters to single tool use: left out otherwise, so settings that
            # behave alike compare equal (a lesson step, the opening)
            single_tool=self.single_tool if canonical(self.trajectory) == "single_tool_use" else "",
            f1_threshold=float(self.f1_threshold),
            combine=self.combine,
            mean_threshold=float(self.mean_threshold),
            deny_check=bool(self.deny_check),
            deny_tools=tuple(self.deny_tools),
            key_fields=bool(self.key_fields),
            response_scorer=self.response_scorer,
            rung=int(self.rung),
            pass_above=float(self.pass_above),
            fail_below=min(float(self.fail_below), float(self.pass_above)),  # sliders may cross
            day_first=None if bool(self.day_first) == self.case_day_first else bool(self.day_first),
        )

    def apply(self, settings: Settings) -> None:
        """Set every input from ``settings`` in one batch (watchers fire once)."""
        tools = [t for t in settings.deny_tools if t in self.param.deny_tools.objects]
        single = settings.single_tool or self.single_tool or (self.tools[0] if self.tools else "")
        self.param.update(
            trajectory=settings.trajectory,
            args=settings.args,
            trajectory_threshold=min(max(settings.trajectory_threshold, 0.0), 1.0),
            single_tool=single,
            f1_threshold=settings.f1_threshold,
            combine=settings.combine,
            mean_threshold=min(max(settings.mean_threshold, 0.0), 1.0),
            deny_check=settings.deny_check,
            deny_tools=tools,
            key_fields=settings.key_fields,
            response_scorer=settings.response_scorer,
            rung=settings.rung,
            pass_above=min(max(settings.pass_above, 0.0), 1.0),
            fail_below=min(max(settings.fail_below, 0.0), 1.0),
            day_first=self.case_day_first if settings.day_first is None else settings.day_first,
        )


    def choose_trajectory(self, family: str) -> None:
        """Choose trajectory ``family`` as a person does (one recompute): on a case set of
        one-turn runs a 1/0 family's score (a match family's, single tool use's) is 1 or 0, so the
        threshold is put back to 1.00 (ADK's default; the card disables it); single tool use gets a
        tool when none is chosen."""
        changes: dict = {"trajectory": family}
        if family != "none" and not is_partial(family) and self.one_turn:
            changes["trajectory_threshold"] = 1.0
        if canonical(family) == "single_tool_use" and not self.single_tool and self.tools:
            changes["single_tool"] = self.tools[0]
        self.param.update(**changes)

    def threshold_unused(self) -> str:
        """Why the trajectory threshold changes nothing under these inputs, in one line, or
        ``""`` when it is used."""
        if self.trajectory == "none":
            return "Not used: the trajectory is not scored."
        if self.combine == "mean":
            return "Not used under “Mean”: the trajectory score goes into the mean as it is."
        if not is_partial(self.trajectory) and self.one_turn and self.trajectory_threshold > 0:
            # the chosen family's own name (strict, not EXACT), after the word "threshold": the
            # trial read "Not used: EXACT scores ..." as if EXACT were not used
            label = DEFINITIONS[self.trajectory].label
            return f"Threshold not used: {label} scores each one-turn run 1 (pass) or 0 (fail)."
        return ""


class Clock(param.Parameterized):
    """The replay clock: replay (inspection) time ``time`` in [0, 60] s, ``playing`` and ``speed``."""

    time = param.Number(default=0.0, bounds=(0.0, DURATION), doc="Replay time (s)")
    playing = param.Boolean(default=False)
    speed = param.Selector(objects=SPEED_OPTIONS, default=1.0, doc="Speed")


class PageState(param.Parameterized):
    """What one browser page shows besides the scorer settings: ``present`` is presenter mode
    (larger type, high contrast, data tools hidden; ``?present=true``)."""

    present = param.Boolean(default=False, doc="Presenter mode")
