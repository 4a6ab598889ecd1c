"""Scorer settings: the inputs a person changes, as one immutable value.

Defaults are seed 002's opening run: EXACT trajectory with arguments compared, F1 threshold 0.8,
every check must pass, no deny-list, no key-field check.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from .trajectory import TRAJECTORY_MODES

Combine = Literal["all", "mean"]
COMBINE_RULES: tuple[str, str] = ("all", "mean")


@dataclass(frozen=True)
class Settings:
    """What the evaluator is set to.

    * ``trajectory``: ``"exact" | "in_order" | "any_order" | "none"`` (ADK match types; none =
      not scored);
    * ``compare_args``: True compares names and args (ADK default), False is ADK ``ignore_args``;
    * ``f1_threshold``: in [0, 1]; a run's F1 passes when ``f1 >= f1_threshold``;
    * ``combine``: ``"all"`` (every enabled check passes) or ``"mean"`` (hard checks first, then
      mean of trajectory score and F1 >= ``mean_threshold``);
    * ``deny_check`` and ``deny_tools``: when on, a run fails if it called any of these tools;
    * ``key_fields``: exact check on dates and booking ids;
    * ``mean_threshold``: 0.75 in seed 002.

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

    def __post_init__(self) -> None:
        if self.trajectory not in TRAJECTORY_MODES:
            raise ValueError(f"trajectory must be one of {', '.join(TRAJECTORY_MODES)}, got {self.trajectory!r}")
        if self.combine not in COMBINE_RULES:
            raise ValueError(f"combine must be 'all' or 'mean', got {self.combine!r}")
        for name in ("f1_threshold", "mean_threshold"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
        # thresholds come from sliders (0.41000000000000003): keep them to 1e-9
        object.__setattr__(self, "f1_threshold", round(float(self.f1_threshold), 9))
        object.__setattr__(self, "mean_threshold", round(float(self.mean_threshold), 9))
        object.__setattr__(self, "deny_tools", tuple(sorted(set(self.deny_tools))))
        for name in ("compare_args", "deny_check", "key_fields"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false, got {getattr(self, name)!r}")

    @property
    def active_deny(self) -> frozenset[str]:
        """The tools denied in effect: ``deny_tools`` when ``deny_check`` is on, else none."""
        return frozenset(self.deny_tools) if self.deny_check else frozenset()

    def with_(self, **changes: Any) -> "Settings":
        """A copy with ``changes`` applied (validated again)."""
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
            raise ValueError(f"unknown setting {unknown[0]!r}; known: {', '.join(sorted(known))}")
        values = dict(data)
        if "deny_tools" in values:
            tools = values["deny_tools"]
            if not isinstance(tools, (list, tuple)) or not all(isinstance(t, str) for t in tools):
                raise ValueError("deny_tools must be a list of tool names")
            values["deny_tools"] = tuple(tools)
        return cls(**values)
