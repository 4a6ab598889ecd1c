"""Settings and figures in plain words, for the summary bar and the lesson stepper (pure, no Panel).

Every setting is named the way its control is labelled on the page, so a person can match the
words to the controls: ``settings_words(Settings())`` is
``"Trajectory EXACT, arguments compared · F1 threshold 0.80 · every scorer must pass · deny-list
off · exact check on dates and booking ids off"``; the argument rules in use, when there are any,
come last (``"… · 1 argument rule: sent_at of send_confirmation ignored"``).
"""

from __future__ import annotations

from ..core.evaluation.settings import Settings
from ..core.plural import counted, half_width_words, noun  # noqa: F401  (re-exported: counts in words for the views)
from ..core.scoring.arg_rules import NO_RULES, ArgRule, ArgRules
from ..core.scoring.passmark import show_limit
from ..core.scoring.trajectory_metrics import DEFINITIONS, canonical, scores_one_or_zero

TRAJECTORY_WORDS = {**{f: d.label for f, d in DEFINITIONS.items()}, "none": "not scored"}
"""``Settings.trajectory`` -> its label in the trajectory card (the field's name: ``EXACT``,
``IN_ORDER``, ``subset``, ``recall``, ``F1``, ``LCS``, ``single tool use``, ...)."""
ARGS_WORDS = {
    "exact": "arguments compared",
    "ignore": "names only (arguments ignored)",
    "subset": "arguments: subset (no unexpected keys)",
    "superset": "arguments: superset (every expected key, extras allowed)",
}
"""``Settings.args`` -> how the trajectory part of the settings names it."""
SCORER_WORDS = {
    "f1": "F1", "rouge1": "ROUGE-1", "exact": "normalised exact match", "cosine": "embedding cosine", "cascade": "cascade",
}
"""``Settings.response_scorer`` -> its short name in sentences."""


def _threshold(value: float) -> str:
    """A threshold as the reasons print it (:func:`~explorer.core.scoring.passmark.show_limit`:
    ``0.80``, ``0.675``), never rounded to another value."""
    return show_limit(value)


def response_words(s: Settings) -> str:
    """The response check alone: ``"F1 threshold 0.80"``, ``"ROUGE-1 threshold 0.80"``,
    ``"normalised exact match at level 3, threshold 0.80"``, ``"cascade: pass above 0.85, fail
    below 0.60, review in between"``."""
    name = s.response_scorer
    if name == "f1":
        return f"F1 threshold {_threshold(s.f1_threshold)}"
    if name == "cascade":
        return f"cascade: pass above {_threshold(s.pass_above)}, fail below {_threshold(s.fail_below)}, review in between"
    if name == "exact":
        return f"normalised exact match at level {s.rung}, threshold {_threshold(s.f1_threshold)}"
    return f"{SCORER_WORDS[name]} threshold {_threshold(s.f1_threshold)}"


def trajectory_words(s: Settings) -> str:
    """The trajectory part: ``"Trajectory EXACT, arguments compared"``, ``"Trajectory recall ≥
    0.67, names only (arguments ignored)"``, ``"Trajectory single tool use of book_flight"``,
    ``"Trajectory not scored"``. The threshold is named where it is read (combine all) and not
    ADK's default 1 for a family that scores a turn 1 or 0 (a match family, single tool use);
    single tool use reads no arguments."""
    if s.trajectory == "none":
        return "Trajectory not scored"
    family = canonical(s.trajectory)
    name = TRAJECTORY_WORDS[s.trajectory]
    if family == "single_tool_use":
        name += f" of {s.single_tool}"
    if s.combine == "all" and (not scores_one_or_zero(family) or s.trajectory_threshold != 1.0):
        name += f" ≥ {_threshold(s.trajectory_threshold)}"
    if family == "single_tool_use":
        return f"Trajectory {name}"
    return f"Trajectory {name}, {ARGS_WORDS[s.args]}"


RULES_LISTED = 3
"""How many argument rules the settings words list (then ``+N more``)."""
RULE_WORDS = {"ignore": "ignored", "text": "as text", "date": "as dates"}
"""``ArgRule.kind`` -> how a rule reads in the settings words (rung and number add their value)."""


NAME_SHOWN = 40
"""Longest tool or key a rule's words show whole (then cut with ``…``): a link is anyone's text, and
a 400-character key pushed the summary card 3,000 px wide."""


def _name(text: str) -> str:
    return text if len(text) <= NAME_SHOWN else text[: NAME_SHOWN - 1] + "…"


def rule_words(rule: ArgRule) -> str:
    """One argument rule: ``"sent_at of send_confirmation ignored"``, ``"*.timestamp ignored"``
    (every tool), ``"name of book_table as text"``, ``"city as rung 3"``, ``"people as a number
    ±0.5"``, ``"date as dates"``; a tool or key over ``NAME_SHOWN`` characters is cut (the
    file's text: escape it for HTML)."""
    key, tool = _name(rule.key), _name(rule.tool)
    where = key if rule.tool == "*" else f"{key} of {tool}"
    if rule.kind == "rung":
        how = f"as rung {rule.rung}"
    elif rule.kind == "number":
        how = f"as a number ±{rule.tolerance:g}" if rule.tolerance else "as a number"
    else:
        how = RULE_WORDS[rule.kind]
    return f"{where} {how}"


def rules_words(rules: ArgRules) -> str:
    """The argument rules in use: ``""`` for none, ``"1 argument rule: sent_at of
    send_confirmation ignored"``, ``"5 argument rules: a ignored; b as text; c as dates; +2 more"``
    (the first ``RULES_LISTED``, in file order)."""
    n = len(rules.rules)
    if n == 0:
        return ""
    listed = "; ".join(rule_words(r) for r in rules.rules[:RULES_LISTED])
    more = f"; +{n - RULES_LISTED} more" if n > RULES_LISTED else ""
    return f"{n} argument rule{'' if n == 1 else 's'}: {listed}{more}"


def settings_words(s: Settings, rules: ArgRules = NO_RULES) -> str:
    """Every setting of ``s`` in words, joined by ``" · "`` (see the module doc), and the argument
    ``rules`` in use when there are any (:func:`rules_words`). Under the mean rule the response
    threshold is not used, so the combine part names the mean instead."""
    parts = [trajectory_words(s)]
    if s.combine == "mean":
        what = SCORER_WORDS[s.response_scorer] if s.trajectory == "none" else f"trajectory and {SCORER_WORDS[s.response_scorer]}"
        parts.append(f"mean of {what} ≥ {_threshold(s.mean_threshold)}")
    else:
        parts += [response_words(s), "every scorer must pass"]
    if s.deny_check:
        tools = ", ".join(s.deny_tools) or "no tools chosen"
        parts.append(f"deny-list on ({tools})")
    else:
        parts.append("deny-list off")
    parts.append(f"exact check on dates and booking ids {'on' if s.key_fields else 'off'}")
    day_first = getattr(s, "day_first", None)  # None: the case set's own reading
    if day_first is not None:
        parts.append(f"numeric dates read {'day' if day_first else 'month'} first")
    if rules.rules:
        parts.append(rules_words(rules))
    return " · ".join(parts)


def figure(agree: int, labelled: int) -> str:
    """``"4/10"``: runs agreeing of labelled runs; thousands separated (``"63,284/91,983"``)."""
    return f"{agree:,}/{labelled:,}"
