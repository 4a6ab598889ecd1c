"""Scorer settings: the inputs a person changes, as one immutable value.

Defaults are seed 002's opening run: EXACT trajectory with arguments compared, F1 threshold 0.8,
every check must pass, no deny-list, no key-field check.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from ..io.errors import json_spelling
from ..scoring.arg_match import ARG_MODES
from ..scoring.passmark import quantise
from ..scoring.trajectory_metrics import TRAJECTORY_CHOICES, canonical

Combine = Literal["all", "mean"]
COMBINE_RULES: tuple[str, str] = ("all", "mean")
RESPONSE_SCORERS: tuple[str, ...] = ("f1", "rouge1", "exact", "cosine", "cascade")
"""What judges the answer text (issue 5): unigram F1 (default), ROUGE-1 (ADK), normalised exact
at ``rung``, embedding cosine, or seed 000's cascade with bands ``pass_above`` / ``fail_below``."""


@dataclass(frozen=True)
class Settings:
    """What the evaluator is set to.

    * ``trajectory``: a family of :mod:`explorer.core.scoring.trajectory_metrics`: the match
      families ``exact`` / ``in_order`` / ``any_order`` (ADK), ``subset`` / ``superset`` /
      ``unordered`` (agentevals; ``strict`` is accepted as agentevals' name for ``exact``), the
      partial scores ``precision`` / ``recall`` / ``f1`` / ``lcs`` / ``single_tool_use``, or
      ``none`` (not scored);
    * ``args``: argument mode, ``exact`` (ADK ``==``), ``ignore`` (names only), ``subset`` or
      ``superset`` (agentevals' modes, named from the actual call's side);
    * ``compare_args``: ``args != "ignore"``, kept for ADK's ``ignore_args`` wording: building
      ``Settings(compare_args=False)`` gives ``args="ignore"``, and ``with_(compare_args=True)``
      from ``ignore`` gives ``exact``; a contradiction (``compare_args=False`` with
      ``args="subset"``) raises ValueError;
    * ``trajectory_threshold``: in [0, 1]; the trajectory check passes when the run's trajectory
      score (mean over invocations) reaches it (``passmark.reaches``; 1.0: every invocation
      matches, as before; ADK's ``tool_trajectory_avg_score`` threshold);
    * ``single_tool``: the tool ``single_tool_use`` looks for (required for that family);
    * ``f1_threshold``: in [0, 1]; a run's F1 passes when it reaches the threshold
      (:func:`explorer.core.scoring.passmark.reaches`: equal passes; thresholds are stored
      quantised to 12 decimals, which never moves one past a score it came from);
    * ``combine``: ``"all"`` (every enabled check passes) or ``"mean"`` (hard checks first, then
      mean of trajectory score and F1 >= ``mean_threshold``);
    * ``deny_check`` and ``deny_tools``: when on, a run fails if it called any of these tools;
    * ``key_fields``: exact check on dates and booking ids;
    * ``mean_threshold``: 0.75 in seed 002;
    * ``response_scorer``: one of ``RESPONSE_SCORERS``; ``"f1"`` (default) is today's check.
      ``rouge1`` / ``exact`` / ``cosine`` replace F1 in the response check (still thresholded at
      ``f1_threshold``); ``cascade`` passes where seed 000's cascade passes (see
      :mod:`explorer.core.evaluation.response_features`);
    * ``rung``: 1..4, normalisation rung for ``exact`` and the cascade's first stage (default 3);
    * ``pass_above`` >= ``fail_below``, both in [-1, 1]: the cascade's cosine bands (defaults
      0.85 and 0.6, as ``score --pass-above/--fail-below``);
    * ``day_first``: how numeric dates such as ``04/03/2026`` read, for every check at once (key
      fields, the cascade's field rules, rung 4 of the ladder): True day-first (4 March), False
      month-first (3 April), None (default) the case set's own reading (``CaseSet.day_first``:
      a case-set file's ``key_fields.day_first``, else day-first). Argument ``date`` rules are
      applied when features are built and read the case set's own reading.

    Raises ValueError on construction for a value outside these ranges.
    """

    trajectory: str = "exact"
    compare_args: bool = True
    f1_threshold: float = 0.8
    combine: str = "all"
    deny_check: bool = False
    deny_tools: tuple[str, ...] = field(default=())
    key_fields: bool = False
    mean_threshold: float = 0.75
    response_scorer: str = "f1"
    rung: int = 3
    pass_above: float = 0.85
    fail_below: float = 0.6
    day_first: bool | None = None
    args: str = "exact"
    trajectory_threshold: float = 1.0
    single_tool: str = ""

    def __post_init__(self) -> None:
        if self.args not in ARG_MODES:
            raise ValueError(f"args must be one of {', '.join(ARG_MODES)}, got {json_spelling(self.args)}")
        if not isinstance(self.compare_args, bool):
            raise ValueError(f"compare_args must be true or false, got {json_spelling(self.compare_args)}")
        if not self.compare_args and self.args not in ("exact", "ignore"):
            raise ValueError(f"compare_args false contradicts args {json_spelling(self.args)}")
        if not self.compare_args:
            object.__setattr__(self, "args", "ignore")
        object.__setattr__(self, "compare_args", self.args != "ignore")
        if not isinstance(self.trajectory, str):  # a list or an object (settings JSON) is no family, and unhashable
            raise ValueError(f"trajectory must be one of {', '.join(TRAJECTORY_CHOICES)}, got {json_spelling(self.trajectory)}")
        if not isinstance(self.single_tool, str):
            raise ValueError(f"single_tool must be a tool name, got {json_spelling(self.single_tool)}")
        if canonical(self.trajectory) == "single_tool_use" and not self.single_tool:
            raise ValueError("trajectory single_tool_use needs single_tool (the tool to look for)")
        if self.response_scorer not in RESPONSE_SCORERS:
            raise ValueError(f"response_scorer must be one of {', '.join(RESPONSE_SCORERS)}, got {json_spelling(self.response_scorer)}")
        if isinstance(self.rung, bool) or self.rung not in (1, 2, 3, 4):
            raise ValueError(f"rung must be 1, 2, 3 or 4, got {json_spelling(self.rung)}")
        object.__setattr__(self, "rung", int(self.rung))
        for name in ("pass_above", "fail_below"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not -1.0 <= value <= 1.0:
                raise ValueError(f"{name} must be a number in [-1, 1], got {json_spelling(value)}")
            object.__setattr__(self, name, quantise(float(value)))
        if self.fail_below > self.pass_above:
            raise ValueError(f"fail_below ({self.fail_below}) must not exceed pass_above ({self.pass_above})")
        if self.trajectory not in TRAJECTORY_CHOICES:
            raise ValueError(f"trajectory must be one of {', '.join(TRAJECTORY_CHOICES)}, got {json_spelling(self.trajectory)}")
        if self.combine not in COMBINE_RULES:
            raise ValueError(f"combine must be \"all\" or \"mean\", got {json_spelling(self.combine)}")
        for name in ("f1_threshold", "mean_threshold", "trajectory_threshold"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be a number in [0, 1], got {json_spelling(value)}")
        # thresholds are kept at the precision scores are compared at (passmark): a slider's
        # 0.41000000000000003 is 0.41, and a threshold taken from a score still passes that score
        object.__setattr__(self, "f1_threshold", quantise(float(self.f1_threshold)))
        object.__setattr__(self, "mean_threshold", quantise(float(self.mean_threshold)))
        object.__setattr__(self, "trajectory_threshold", quantise(float(self.trajectory_threshold)))
        object.__setattr__(self, "deny_tools", tuple(sorted(set(self.deny_tools))))
        for name in ("deny_check", "key_fields"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false, got {json_spelling(getattr(self, name))}")
        if self.day_first is not None and not isinstance(self.day_first, bool):
            raise ValueError(f"day_first must be true, false or null (the case set's reading), got {json_spelling(self.day_first)}")

    @property
    def active_deny(self) -> frozenset[str]:
        """The tools denied in effect: ``deny_tools`` when ``deny_check`` is on, else none."""
        return frozenset(self.deny_tools) if self.deny_check else frozenset()

    def with_(self, **changes: Any) -> "Settings":
        """A copy with ``changes`` applied (validated again). Changing ``args`` alone sets
        ``compare_args`` to follow it; changing ``compare_args`` alone sets ``args`` to
        ``ignore`` (False) or, from ``ignore``, to ``exact`` (True)."""
        if "args" in changes and "compare_args" not in changes:
            changes["compare_args"] = changes["args"] != "ignore"
        elif "compare_args" in changes and "args" not in changes:
            if changes["compare_args"] is False:
                changes["args"] = "ignore"
            elif changes["compare_args"] is True and self.args == "ignore":
                changes["args"] = "exact"
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; ``Settings.from_dict`` reads it back."""
        d = asdict(self)
        d["deny_tools"] = list(self.deny_tools)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Settings":
        """Settings from a dict with any subset of the fields. Raises ValueError naming an unknown
        field or a bad value."""
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown setting {json_spelling(unknown[0])}; known: {', '.join(sorted(known))}")
        values = dict(data)
        if "deny_tools" in values:
            tools = values["deny_tools"]
            if not isinstance(tools, (list, tuple)) or not all(isinstance(t, str) for t in tools):
                raise ValueError("deny_tools must be a list of tool names")
            values["deny_tools"] = tuple(tools)
        return cls(**values)
