"""When do two tool calls match: the argument mode and the per-key rules together.

Two calls match only when their tool names are equal; then the argument mode decides which keys
must be present, and each key present on both sides is compared by its rule
(:mod:`explorer.core.scoring.arg_rules`; JSON value equality when no rule names it). Keys a rule
ignores are left out on both sides. Modes are named from the actual call's point of view, as
LangChain agentevals names its ``tool_args_match_mode`` (``agentevals/trajectory/utils.py``):

* ``exact``: the same keys, every value agreeing (ADK ``trajectory_evaluator``: ``args ==``);
* ``ignore``: names only (ADK ``ignore_args``; agentevals ``ignore``);
* ``subset``: the actual call's keys are among the expected call's (an expected key may be
  missing, an unexpected key fails), values agreeing (agentevals ``subset``: every key-value pair
  of the output call is in the reference call);
* ``superset``: the actual call has every expected key, extras allowed, values agreeing
  (agentevals ``superset``).

The modes apply to top-level keys; nested objects are compared whole (same keys once ignored ones
are left out, values by their rules), arrays item by item. Rules make the relation no longer an
equivalence (a tolerance is not transitive; subset is not symmetric), which is why calls are
paired by a maximum matching (:mod:`explorer.core.scoring.matching`).

Issue 12 words the two partial modes from the expected call's side ("subset: actual args include
the expected ones"); the explorer follows agentevals, whose names it uses, and words them from the
actual call's side as above (``superset`` = the actual args include the expected ones).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..io.model import ToolCall
from .arg_diff import ArgDifference
from .arg_rules import NO_RULES, ArgRule, ArgRules, values_agree

ARG_MODES: tuple[str, ...] = ("exact", "ignore", "subset", "superset")
"""Argument modes, in the order of ``Features.trajectory``'s second axis."""
EXACT, IGNORE, SUBSET, SUPERSET = 1, 2, 4, 8
"""Bits of :func:`relation`: the modes under which two calls match."""
MODE_BIT = {"exact": EXACT, "ignore": IGNORE, "subset": SUBSET, "superset": SUPERSET}
ALL_MODES = EXACT | IGNORE | SUBSET | SUPERSET


def _agree(a: Any, e: Any, tool: str, path: str, rules: ArgRules, day_first: bool) -> bool:
    """One key's values agree under the rules (nested objects key by key, arrays item by item)."""
    if a is e:
        return True
    rule = rules.rule_for(tool, path)
    if rule is not None:
        return values_agree(a, e, rule, day_first)
    if isinstance(a, dict) and isinstance(e, dict):
        for k in a.keys() | e.keys():
            sub = f"{path}.{k}"
            r = rules.rule_for(tool, sub)
            if r is not None and r.kind == "ignore":
                continue
            if k not in a or k not in e or not _agree(a[k], e[k], tool, sub, rules, day_first):
                return False
        return True
    if isinstance(a, list) and isinstance(e, list):
        return len(a) == len(e) and all(_agree(x, y, tool, f"{path}[{i}]", rules, day_first) for i, (x, y) in enumerate(zip(a, e)))
    return a == e


def relation(actual: ToolCall, expected: ToolCall, rules: ArgRules = NO_RULES, day_first: bool = True) -> int:
    """The modes under which ``actual`` matches ``expected``, as bits (``EXACT | IGNORE | SUBSET |
    SUPERSET``); 0 when the names differ. ``day_first`` reads dates for ``date`` and rung-4 rules.

    JSON-equal args match under every mode and every rule (each rule accepts equal values), so
    ``exact`` implies ``subset`` and ``superset``, and each implies ``ignore``.
    """
    if actual.name != expected.name:
        return 0
    return args_relation(actual.name, actual.args, expected.args, rules, day_first)


def args_relation(tool: str, a: Mapping[str, Any], e: Mapping[str, Any], rules: ArgRules = NO_RULES, day_first: bool = True) -> int:
    """:func:`relation` of two calls to the same ``tool`` from their args: ``a`` the actual
    call's, ``e`` the expected call's."""
    if a is e or a == e:
        return ALL_MODES
    missing = extra = False
    if rules:
        for k in a.keys() | e.keys():
            rule = rules.rule_for(tool, k)
            if rule is not None and rule.kind == "ignore":
                continue
            if k not in a:
                missing = True
            elif k not in e:
                extra = True
            elif not _agree(a[k], e[k], tool, k, rules, day_first):
                return IGNORE
    else:
        n_missing = 0
        for k, v in e.items():
            if k not in a:
                n_missing += 1
            elif a[k] != v:
                return IGNORE
        missing = n_missing > 0
        extra = len(a) > len(e) - n_missing  # keys of ``a`` beyond the expected ones it has
    bits = IGNORE
    if not extra:
        bits |= SUBSET
    if not missing:
        bits |= SUPERSET
    if not extra and not missing:
        bits |= EXACT
    return bits


@dataclass(frozen=True)
class ArgMatcher:
    """How calls are compared: ``mode`` (one of ``ARG_MODES``), ``rules`` and the case set's
    ``day_first``. ``ArgMatcher()`` is ADK's default (names and ``args ==``);
    ``ArgMatcher("ignore")`` is ADK ``ignore_args``."""

    mode: str = "exact"
    rules: ArgRules = NO_RULES
    day_first: bool = True

    def __post_init__(self) -> None:
        if self.mode not in MODE_BIT:
            raise ValueError(f"argument mode must be one of {', '.join(ARG_MODES)}, got {self.mode!r}")

    @classmethod
    def adk(cls, compare_args: bool = True) -> "ArgMatcher":
        """ADK's comparison: ``args ==`` (``compare_args``) or names only (``ignore_args``)."""
        return cls("exact" if compare_args else "ignore")

    def match(self, actual: ToolCall, expected: ToolCall) -> bool:
        """True when ``actual`` matches ``expected`` under this mode and these rules."""
        return bool(relation(actual, expected, self.rules, self.day_first) & MODE_BIT[self.mode])

    def differences(self, actual: ToolCall, expected: ToolCall) -> list[ArgDifference]:
        """The top-level keys that keep two same-name calls from matching under this mode, expected
        keys first (in their order) then keys only the actual call has; each names the rule that
        judged it (``ArgDifference.rule``, empty for JSON equality). Empty under ``ignore``."""
        if self.mode == "ignore":
            return []
        a, e, tool = actual.args, expected.args, actual.name
        out = []
        for key, want in e.items():
            rule = self.rules.rule_for(tool, key)
            if rule is not None and rule.kind == "ignore":
                continue
            if key not in a:
                if self.mode != "subset":
                    out.append(ArgDifference(str(key), None, want, False, True))
            elif not _agree(a[key], want, tool, key, self.rules, self.day_first):
                out.append(ArgDifference(str(key), a[key], want, True, True, _rule_words(rule)))
        if self.mode != "superset":
            for key, got in a.items():
                rule = self.rules.rule_for(tool, key)
                if key not in e and not (rule is not None and rule.kind == "ignore"):
                    out.append(ArgDifference(str(key), got, None, True, False))
        return out

    def forgiven(self, actual: ToolCall, expected: ToolCall) -> list[str]:
        """The keys a rule let through although their JSON values differ (or one call lacks
        them), e.g. ``["query ignored by rule", "people equal by number rule ±0.5"]``; empty
        without rules or under ``ignore``."""
        if not self.rules or self.mode == "ignore" or actual.name != expected.name:
            return []
        a, e, tool = actual.args, expected.args, actual.name
        out = []
        for key in list(e) + [k for k in a if k not in e]:
            rule = self.rules.rule_for(tool, key)
            if rule is None:
                continue
            same = key in a and key in e and a[key] == e[key]
            if same:
                continue
            if rule.kind == "ignore":
                out.append(f"{key} {rule.describe()}")
            elif key in a and key in e and _agree(a[key], e[key], tool, key, self.rules, self.day_first):
                out.append(f"{key} equal by {rule.describe()}")
        return out


def _rule_words(rule: ArgRule | None) -> str:
    return "" if rule is None else rule.describe()
