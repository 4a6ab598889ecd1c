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
take their defaults.

ADK ``test_config.json``: google-adk ``evaluation/eval_config.py`` (``EvalConfig.criteria``: a
metric name -> a threshold or a criterion object) and ``eval_metrics.py``
(``ToolTrajectoryCriterion``: ``threshold``, ``match_type`` EXACT / IN_ORDER / ANY_ORDER,
``ignore_args`` in the versions whose ``trajectory_evaluator.py`` reads it). What ADK cannot
express is listed in ``"_metric_explorer_notes"``, a top-level key ADK's ``EvalConfig`` ignores
(pydantic's default ``extra="ignore"``).
"""

from __future__ import annotations

import io
import json
import os
from typing import Any

import pandas as pd

from .csv_cells import neutralise_frame
from ..scoring.passmark import show_threshold
from .errors import LoadError
from ..evaluation.verdicts import TABLE_COLUMNS, Evaluation, result_table
from ..evaluation.features import Features
from .loaders._common import show
from .loaders.labels import Label, dumps_labels
from .reading import parse_json, read_bytes, text_of
from ..evaluation.settings import Settings

SETTINGS_FORMAT = "metric-explorer/settings@1"
ADK_MATCH_TYPES = {"exact": "EXACT", "in_order": "IN_ORDER", "any_order": "ANY_ORDER"}
"""Our trajectory modes -> ADK ``ToolTrajectoryCriterion.MatchType`` names."""
ADK_NOTES_KEY = "_metric_explorer_notes"


# --- settings JSON ---------------------------------------------------------------------------


def settings_to_data(settings: Settings) -> dict[str, Any]:
    """``{"format": "metric-explorer/settings@1", "settings": Settings.to_dict()}``."""
    return {"format": SETTINGS_FORMAT, "settings": settings.to_dict()}


def dumps_settings(settings: Settings) -> str:
    """Settings JSON text (pretty, trailing newline)."""
    return json.dumps(settings_to_data(settings), indent=2) + "\n"


def settings_from_data(data: Any, name: str) -> Settings:
    """Settings from parsed settings JSON. Raises LoadError ``"<name>: settings.<field>: ..."``
    for a wrong format tag, a missing ``settings`` object, an unknown field or a bad value."""
    if not isinstance(data, dict):
        raise LoadError(name, "(top level)", f'expected an object with "format": "{SETTINGS_FORMAT}"')
    if data.get("format") != SETTINGS_FORMAT:
        got = "missing" if "format" not in data else f"got {data['format']!r}"
        raise LoadError(name, "format", f'expected "{SETTINGS_FORMAT}", {got}')
    unknown = sorted(set(data) - {"format", "settings"})
    if unknown:
        raise LoadError(name, show(unknown[0]), f'unknown field "{show(unknown[0])}"')
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
        # name the field: the one whose removal makes the rest valid, else one bad on its own
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


def loads_settings(data: bytes | str, name: str) -> Settings:
    """Settings from settings JSON bytes or text; ``name`` labels errors."""
    text = text_of(data, name)
    return settings_from_data(parse_json(text, name), name)


def load_settings(path: str | os.PathLike[str]) -> Settings:
    """Read a settings JSON file. Raises LoadError."""
    return loads_settings(read_bytes(path), str(path))


# --- ADK test_config.json --------------------------------------------------------------------


def adk_unsupported(settings: Settings) -> list[str]:
    """One sentence per part of ``settings`` an ADK ``test_config.json`` cannot express."""
    notes = []
    if settings.trajectory == "none":
        notes.append("Trajectory not scored: tool_trajectory_avg_score is left out of the criteria.")
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
    if not settings.compare_args and settings.trajectory != "none":
        notes.append("ignore_args is read only by google-adk versions whose ToolTrajectoryCriterion has it; older ones compare args.")
    if scorer == "f1":
        notes.append(
            "response_match_score is ROUGE-1 with Porter stemming; it equals our unigram F1 on plain English "
            "without stemmable words and can differ slightly otherwise."
        )
    return notes


def adk_test_config(settings: Settings, with_notes: bool = True) -> dict[str, Any]:
    """ADK ``test_config.json`` content for ``settings``: ``criteria`` with
    ``tool_trajectory_avg_score`` ``{"threshold": 1.0, "match_type": ..., "ignore_args": ...}``
    (left out for trajectory ``none``; threshold 1.0 because our trajectory check passes only at
    1.0) and ``response_match_score`` = the F1 threshold; plus the notes of
    :func:`adk_unsupported` under ``_metric_explorer_notes`` when ``with_notes``."""
    criteria: dict[str, Any] = {}
    if settings.trajectory != "none":
        criteria["tool_trajectory_avg_score"] = {
            "threshold": 1.0,
            "match_type": ADK_MATCH_TYPES[settings.trajectory],
            "ignore_args": not settings.compare_args,
        }
    criteria["response_match_score"] = settings.f1_threshold
    out: dict[str, Any] = {"criteria": criteria}
    if with_notes:
        out[ADK_NOTES_KEY] = adk_unsupported(settings)
    return out


def dumps_adk_test_config(settings: Settings, with_notes: bool = True) -> str:
    """:func:`adk_test_config` as pretty JSON text."""
    return json.dumps(adk_test_config(settings, with_notes), indent=2) + "\n"


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
