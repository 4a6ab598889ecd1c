"""Data loaded once per server process and shared read-only by every session."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..core.io.casefile import load_case_set
from ..core.io.featurestore import is_features_path, open_features
from ..core.evaluation.features import Features, build_features
from ..core.io.model import CaseSet
from ..core.evaluation.settings import Settings

DEFAULT_DENIED_TOOL = "delete_booking"
"""Chosen in the deny-list when the data has it (seed 002), with the check itself left off."""


@dataclass(frozen=True, eq=False)
class SharedData:
    """A loaded case set and its features (never mutated after loading), plus the default inputs.

    ``tools``: the tool names seen in actual calls, sorted (the deny-list choices);
    ``defaults``: seed 002's opening settings, with ``delete_booking`` chosen when present.
    """

    case_set: CaseSet
    features: Features
    tools: tuple[str, ...]
    defaults: Settings


def load_shared(path: str | Path) -> SharedData:
    """Load the case set at ``path`` (a case file, or a features dataset: issue 14) and build its
    features once. Raises LoadError."""
    case_set = open_features(path) if is_features_path(path) else load_case_set(path)
    features = build_features(case_set)
    tools = tuple(features.tool_names)
    deny = (DEFAULT_DENIED_TOOL,) if DEFAULT_DENIED_TOOL in tools else ()
    return SharedData(case_set, features, tools, Settings(deny_tools=deny))
