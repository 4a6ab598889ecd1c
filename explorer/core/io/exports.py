"""What the explorer writes out: settings JSON, an ADK ``test_config.json``, the scored table
(CSV or Parquet) and the labels CSV. Pure functions from values to text (the app offers them as downloads,
the CLI reads the settings JSON back with ``--settings``). The CSVs are guarded against CSV
injection (:mod:`explorer.core.io.csv_cells`).

Settings JSON (``metric-explorer/settings@1``)::

    {"format": "metric-explorer/settings@1",
     "settings": {"trajectory": "any_order", "compare_args": true, "f1_threshold": 0.4,
                  "combine": "all", "deny_check": true, "deny_tools": ["delete_booking"],
                  "key_fields": true, "mean_threshold": 0.75}}

``settings`` may hold any subset of :class:`~explorer.core.evaluation.settings.Settings` fields; the rest
take their defaults. An optional top-level ``"arg_rules"`` list holds per-tool and per-key
argument rules (:mod:`explorer.core.scoring.arg_rules`); they are not settings (they change the
features, see :func:`explorer.core.evaluation.features.with_arg_rules`) and are read with
:func:`explorer.core.scoring.arg_rules.load_arg_rules`.

ADK ``test_config.json``: google-adk ``evaluation/eval_config.py`` (``EvalConfig.criteria``: a
metric name -> a threshold or a criterion object) and ``eval_metrics.py``
(``ToolTrajectoryCriterion``: ``threshold``, ``match_type`` EXACT / IN_ORDER / ANY_ORDER,
``ignore_args`` in the versions whose ``trajectory_evaluator.py`` reads it). What ADK cannot
express (the agentevals and Vertex families, partial credit, argument modes other than exact /
ignore, argument rules, deny-list, key fields, the mean rule, other response scorers) is listed in
``"_metric_explorer_notes"``, a top-level key ADK's ``EvalConfig`` ignores (pydantic's default
``extra="ignore"``).
"""

from __future__ import annotations

import io
import json
import os
from typing import Any

import pandas as pd

from .csv_cells import neutralise_frame
from ..scoring.passmark import show_limit, show_threshold
from .errors import LoadError, json_spelling
from ..evaluation.verdicts import TABLE_COLUMNS, Evaluation, result_table
from ..evaluation.features import Features
from .loaders._common import json_type, show
from .loaders.labels import Label, dumps_labels
from .reading import parse_json, read_bytes, text_of
from ..evaluation.settings import Settings
from ..scoring.arg_rules import ArgRules, arg_rules_from_data
from ..scoring.trajectory_metrics import DEFINITIONS, canonical

SETTINGS_FORMAT = "metric-explorer/settings@1"
ADK_MATCH_TYPES = {"exact": "EXACT", "in_order": "IN_ORDER", "any_order": "ANY_ORDER", "superset": "ANY_ORDER"}
"""Our trajectory families ADK expresses -> ADK ``ToolTrajectoryCriterion.MatchType`` names
(``strict`` is ``exact``; agentevals' ``superset`` is ANY_ORDER)."""
ADK_NOTES_KEY = "_metric_explorer_notes"


# --- settings JSON ---------------------------------------------------------------------------


def settings_to_data(settings: Settings, arg_rules: ArgRules | None = None) -> dict[str, Any]:
    """``{"format": "metric-explorer/settings@1", "settings": Settings.to_dict()}``, with
    ``"arg_rules"`` when ``arg_rules`` holds any."""
    out: dict[str, Any] = {"format": SETTINGS_FORMAT, "settings": settings.to_dict()}
    if arg_rules:
        out["arg_rules"] = arg_rules.to_data()
    return out


def dumps_settings(settings: Settings, arg_rules: ArgRules | None = None) -> str:
    """Settings JSON text (pretty, trailing newline), with the argument rules when given."""
    return json.dumps(settings_to_data(settings, arg_rules), indent=2) + "\n"


def _nesting_hint(data: dict[str, Any]) -> str:
    """``; settings go inside "settings": {"format": ..., "settings": {"trajectory": ...}}`` when
    top-level keys of ``data`` are setting names (a trial wrote them at the top), else ``""``."""
    named = [k for k in data if k in Settings.__dataclass_fields__]
    if not named:
        return ""
    return f'; settings go inside "settings": {{"format": "{SETTINGS_FORMAT}", "settings": {{"{show(named[0])}": ...}}}}'


def settings_from_data(data: Any, name: str) -> Settings:
    """Settings from parsed settings JSON, or from an ADK ``test_config.json`` (an object with
    ``criteria`` and no ``format``: :func:`settings_from_adk_test_config`). Raises LoadError ``"<name>: settings.<field>: ..."``
    for a wrong format tag, a missing ``settings`` object, an unknown field or a bad value."""
    if not isinstance(data, dict):
        raise LoadError(name, "(top level)", f'expected an object with "format": "{SETTINGS_FORMAT}"')
    if "format" not in data and "criteria" in data:
        return settings_from_adk_test_config(data, name)
    if data.get("format") != SETTINGS_FORMAT:
        got = "missing" if "format" not in data else f"got {json_spelling(data['format'])}"
        raise LoadError(name, "format", f'expected "{SETTINGS_FORMAT}", {got}{_nesting_hint(data)}')
    unknown = sorted(set(data) - {"format", "settings", "arg_rules"})
    if unknown:
        listed = ", ".join(f'"{show(k)}"' for k in unknown)
        raise LoadError(name, show(unknown[0]), f"unknown field{'s' if len(unknown) > 1 else ''} {listed}"
                        + (_nesting_hint(data) or ' (known: "format", "settings", "arg_rules")'))
    if "arg_rules" in data:
        arg_rules_from_data(data["arg_rules"], name, "arg_rules")  # a bad rule is named here too
    if "settings" not in data:
        raise LoadError(name, "(top level)", 'missing "settings"')
    values = data["settings"]
    if not isinstance(values, dict):
        raise LoadError(name, "settings", "expected an object")
    known = set(Settings.__dataclass_fields__)
    for key in values:
        if key not in known:
            raise LoadError(name, f"settings.{show(key)}", f'unknown setting "{show(key)}" (known: {", ".join(sorted(known))})')
    try:
        return Settings.from_dict(values)
    except (ValueError, TypeError) as exc:
        # name the field: the one the error is about when it is bad on its own (Settings' messages
        # start with it: "single_tool must be a tool name"), else the one whose removal makes the
        # rest valid (a rule across fields), else one bad on its own
        said = str(exc)
        for key, value in values.items():
            if said.startswith(f"{key} "):
                try:
                    Settings.from_dict({key: value})
                except (ValueError, TypeError):
                    raise LoadError(name, f"settings.{show(key)}", said) from None
        for key in values:
            try:
                Settings.from_dict({k: v for k, v in values.items() if k != key})
            except (ValueError, TypeError):
                continue
            raise LoadError(name, f"settings.{show(key)}", str(exc)) from None
        for key, value in values.items():
            try:
                Settings.from_dict({key: value})
            except (ValueError, TypeError) as one:
                raise LoadError(name, f"settings.{show(key)}", str(one)) from None
        raise LoadError(name, "settings", str(exc)) from None


ADK_CRITERIA_READ = ("tool_trajectory_avg_score", "response_match_score")
"""The ADK criteria a ``test_config.json`` may hold that the explorer scores itself."""
_ADK_MATCH_NAMES = {"EXACT": "exact", "IN_ORDER": "in_order", "ANY_ORDER": "any_order",
                    0: "exact", 1: "in_order", 2: "any_order"}


def _adk_threshold(value: Any, name: str, where: str) -> tuple[float, dict[str, Any]]:
    """A criterion's threshold and its other fields: ADK's ``Threshold`` (a number) or a
    ``BaseCriterion`` object ``{"threshold": ...}``. LoadError naming ``where`` otherwise."""
    fields: dict[str, Any] = {}
    if isinstance(value, dict):
        fields = dict(value)
        if "threshold" not in fields:
            raise LoadError(name, f"{where}.threshold", "missing (a number from 0 to 1)")
        value = fields.pop("threshold")
        where = f"{where}.threshold"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:  # no float(): a 400-digit int overflows
        raise LoadError(name, where, f"expected a number from 0 to 1, got {json_spelling(value)}")
    return float(value), fields


def settings_from_adk_test_config(data: dict[str, Any], name: str) -> Settings:
    """Settings that score as an ADK ``test_config.json`` says (google-adk
    ``evaluation/eval_config.py`` ``EvalConfig.criteria``; ``eval_metrics.py``
    ``ToolTrajectoryCriterion``), the inverse of :func:`adk_test_config` for what ADK expresses:

    * ``tool_trajectory_avg_score``: a number (the threshold, match type EXACT, ADK's default) or
      ``{"threshold", "match_type": "EXACT" | "IN_ORDER" | "ANY_ORDER" (or 0 / 1 / 2),
      "ignore_args"}`` -> trajectory family, trajectory threshold, argument mode; absent ->
      trajectory not scored (``none``);
    * ``response_match_score`` -> the ROUGE-1 response scorer (ADK's metric) at that threshold;
      absent -> threshold 0 (an answer empty after normalisation still fails: the explorer's
      empty-answer rule);
    * no ``criteria`` at all -> ADK's defaults, which are the explorer's (EXACT at 1.0, 0.8).

    Raises LoadError naming the file, the JSON path and the field for a bad value, and for a
    criterion the explorer does not score (LLM judges, rubrics, hallucinations, safety...)."""
    criteria = data.get("criteria", {})
    if not isinstance(criteria, dict):
        raise LoadError(name, "criteria", f"expected an object, got {json_type(criteria)}")
    unknown = [key for key in criteria if key not in ADK_CRITERIA_READ]
    if unknown:
        raise LoadError(name, f"criteria.{show(unknown[0])}",
                        f"an ADK criterion the explorer does not score (it reads {' and '.join(ADK_CRITERIA_READ)}); "
                        "remove it from a copy of the file to explore the rest")
    values: dict[str, Any] = {}
    if "criteria" in data:
        values["trajectory"] = "none"
    if "tool_trajectory_avg_score" in criteria:
        where = "criteria.tool_trajectory_avg_score"
        threshold, fields = _adk_threshold(criteria["tool_trajectory_avg_score"], name, where)
        match = fields.pop("match_type", fields.pop("matchType", "EXACT"))
        key = match.upper() if isinstance(match, str) else match
        if isinstance(key, bool) or not isinstance(key, (str, int)) or key not in _ADK_MATCH_NAMES:  # a list is unhashable
            raise LoadError(name, f"{where}.match_type", f"expected EXACT, IN_ORDER or ANY_ORDER, got {json_spelling(match)}")
        ignore = fields.pop("ignore_args", fields.pop("ignoreArgs", False))
        if not isinstance(ignore, bool):
            raise LoadError(name, f"{where}.ignore_args", f"expected true or false, got {json_spelling(ignore)}")
        values.update(trajectory=_ADK_MATCH_NAMES[key], trajectory_threshold=threshold, args="ignore" if ignore else "exact")
        values["compare_args"] = not ignore
    if "response_match_score" in criteria:
        threshold, _ = _adk_threshold(criteria["response_match_score"], name, "criteria.response_match_score")
        values.update(response_scorer="rouge1", f1_threshold=threshold)
    elif "criteria" in data:
        values.update(response_scorer="rouge1", f1_threshold=0.0)
    return Settings.from_dict(values)


def loads_settings(data: bytes | str, name: str) -> Settings:
    """Settings from settings JSON bytes or text; ``name`` labels errors."""
    text = text_of(data, name)
    return settings_from_data(parse_json(text, name), name)


def load_settings(path: str | os.PathLike[str]) -> Settings:
    """Read a settings JSON file. Raises LoadError."""
    return loads_settings(read_bytes(path), str(path))


# --- ADK test_config.json --------------------------------------------------------------------


def adk_unsupported(settings: Settings, arg_rules: ArgRules | None = None) -> list[str]:
    """One sentence per part of ``settings`` (and ``arg_rules``) an ADK ``test_config.json``
    cannot express."""
    notes = []
    family = canonical(settings.trajectory)
    adk_family = family in ADK_MATCH_TYPES
    if settings.trajectory == "none":
        notes.append("Trajectory not scored: tool_trajectory_avg_score is left out of the criteria.")
    elif not adk_family:
        d = DEFINITIONS[family]
        what = "partial score" if d.kind == "partial" else "match family"
        thr = f" >= {show_limit(settings.trajectory_threshold)}" if d.kind == "partial" else ""
        notes.append(
            f"Trajectory {d.label}{thr} ({what}, {d.source}) has no ADK criterion: tool_trajectory_avg_score "
            f"is left out; ADK's match types are EXACT, IN_ORDER and ANY_ORDER, scored 1/0 per invocation."
        )
    if settings.trajectory != "none" and adk_family and settings.args in ("subset", "superset"):
        notes.append(
            f"Argument mode {settings.args} has no ADK counterpart: exported with args compared exactly "
            f"(ignore_args false), which is stricter."
        )
    if settings.trajectory != "none" and adk_family and arg_rules and settings.args != "ignore":
        kinds = ", ".join(f"{r.tool}.{r.key} {r.kind}" for r in arg_rules.rules[:3]) + (
            f" and {len(arg_rules.rules) - 3} more" if len(arg_rules.rules) > 3 else "")
        notes.append(f"ADK compares args with ==: the argument rules ({kinds}) are not applied.")
    if settings.deny_check and settings.deny_tools:
        notes.append(f"ADK has no deny-list: runs calling {', '.join(settings.deny_tools)} are not failed by ADK.")
    if settings.key_fields:
        notes.append("ADK has no key-field check: dates and booking ids are not compared exactly.")
    if settings.combine == "mean":
        notes.append(
            f"ADK has no mean combine: each criterion passes on its own threshold; our rule was "
            f"mean(trajectory, F1) >= {show_threshold(settings.mean_threshold)}."
        )
    scorer = getattr(settings, "response_scorer", "f1")
    if scorer in ("exact", "cosine", "cascade"):
        notes.append(
            f"Response scorer {scorer} has no ADK counterpart here: response_match_score (ROUGE-1) is "
            f"exported at the same threshold instead."
        )
    if settings.args == "ignore" and adk_family:
        notes.append("ignore_args is read only by google-adk versions whose ToolTrajectoryCriterion has it; older ones compare args.")
    if scorer == "f1":
        notes.append(
            "response_match_score is ROUGE-1 with Porter stemming; it equals our unigram F1 on plain English "
            "without stemmable words and can differ slightly otherwise."
        )
    return notes


def adk_test_config(settings: Settings, with_notes: bool = True, arg_rules: ArgRules | None = None) -> dict[str, Any]:
    """ADK ``test_config.json`` content for ``settings``: ``criteria`` with
    ``tool_trajectory_avg_score`` ``{"threshold": ..., "match_type": ..., "ignore_args": ...}``
    (for the families ADK has: exact / strict -> EXACT, in_order -> IN_ORDER, any_order /
    superset -> ANY_ORDER; ``threshold`` is our trajectory threshold, 1.0 by default: ADK's
    threshold on the mean of per-invocation 1/0 results is the same rule; left out for the
    other families and ``none``) and ``response_match_score`` = the F1 threshold; plus the
    notes of :func:`adk_unsupported` under ``_metric_explorer_notes`` when ``with_notes``."""
    criteria: dict[str, Any] = {}
    family = canonical(settings.trajectory)
    if family in ADK_MATCH_TYPES:
        criteria["tool_trajectory_avg_score"] = {
            "threshold": settings.trajectory_threshold,
            "match_type": ADK_MATCH_TYPES[family],
            "ignore_args": settings.args == "ignore",
        }
    criteria["response_match_score"] = settings.f1_threshold
    out: dict[str, Any] = {"criteria": criteria}
    if with_notes:
        out[ADK_NOTES_KEY] = adk_unsupported(settings, arg_rules)
    return out


def dumps_adk_test_config(settings: Settings, with_notes: bool = True, arg_rules: ArgRules | None = None) -> str:
    """:func:`adk_test_config` as pretty JSON text."""
    return json.dumps(adk_test_config(settings, with_notes, arg_rules), indent=2) + "\n"


# --- tables ----------------------------------------------------------------------------------


def scored_table(features: Features, ev: Evaluation) -> pd.DataFrame:
    """The scored table of every run (``evaluation.TABLE_COLUMNS`` plus ``adk_*`` extras)."""
    return result_table(features, ev)


def dumps_scored_table(features: Features, ev: Evaluation) -> str:
    """The scored table as CSV text (header row; booleans ``True``/``False``; empty for NaN);
    text cells that could run as spreadsheet formulas get a leading ``'``
    (:mod:`explorer.core.io.csv_cells`; :func:`~explorer.core.io.csv_cells.restore` reads them back)."""
    return dumps_csv_frame(scored_table(features, ev))


def dumps_csv_frame(frame: pd.DataFrame) -> str:
    """``frame`` as CSV text for people: no index, ``\n`` line ends, text cells neutralised
    against CSV injection (:func:`~explorer.core.io.csv_cells.neutralise_frame`)."""
    return neutralise_frame(frame).to_csv(index=False, lineterminator="\n")


RESPONSE_TABLE_COLUMNS = ("response_score", "response_stage", "response_note")


def extra_columns(table: pd.DataFrame) -> list[str]:
    """The loader's extra columns of a scored table (``adk_*``, ``otel_*``, ``inspect_*``,
    ``example_id``: ``Run.extra``), in table order: every column that is neither one of
    ``TABLE_COLUMNS`` nor a response-scorer column."""
    return [c for c in table.columns if c not in TABLE_COLUMNS and c not in RESPONSE_TABLE_COLUMNS]


def scored_table_parquet(table: pd.DataFrame) -> bytes:
    """A scored table (:func:`scored_table`, or ``score``'s table) as Parquet file bytes, written
    by pyarrow. Columns keep their types (bool, float with NaN as null, text); an extra column
    whose values mix types (e.g. Inspect scores ``"C"`` and ``0.5``) is written as text."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns: dict[str, Any] = {}
    for name in table.columns:
        col = table[name]
        try:
            columns[str(name)] = pa.array(col.tolist() if col.dtype == object else col.to_numpy(), from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError):
            columns[str(name)] = pa.array(
                [None if v is None or (isinstance(v, float) and v != v) else str(v) for v in col], type=pa.string())
    out = io.BytesIO()
    pq.write_table(pa.table(columns), out)
    return out.getvalue()


def dumps_scored_table_parquet(features: Features, ev: Evaluation) -> bytes:
    """The scored table of every run as Parquet bytes (same columns as :func:`dumps_scored_table`;
    the app's download and ``metric-explorer score --format parquet``)."""
    return scored_table_parquet(scored_table(features, ev))


def dumps_labels_csv(labels: dict[str, Label]) -> str:
    """Labels CSV text ``run_id,human_verdict,note`` (see :mod:`.loaders.labels`)."""
    return dumps_labels(labels)
