"""Damaged OTLP traces, Inspect logs and Parquet files give runs or one LoadError, never another
exception (issue 13; as tests/test_loaders_robust.py does for the other formats): hypothesis
mutates valid files made by the real producers."""

from __future__ import annotations

import copy
import functools
import io
import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings, strategies as st

from explorer.core.io.errors import LoadError
from explorer.core.io.loaders import loads_runs
from explorer.core.io.loaders.options import ReadOptions
from explorer.core.io.model import CaseSet, Invocation, Run, ToolCall
from test_loaders_robust import damage
from producers import flat_records, inspect_log_of, otlp_json, trace_of_run, tracer_and_exporter, write_parquet

RUN = Run("E1", "t", "Book TP1351", (Invocation((ToolCall("search", {"q": "LIS"}),),
                                                (ToolCall("search", {"q": "LIS"}), ToolCall("book", {"flight": "TP1351", "n": 1})),
                                                "Booked TP1351.", ("Booked.",)),), "acceptable")
SMALL = CaseSet("small", "", (RUN,))
LEAVES = [None, True, 0, 1.5, "", "a", "[", "{}", "zz", [], {}, [1], {"stringValue": 3}, {"kvlistValue": {"values": [1]}},
          "5b8efff798038103d269b633813fc60c", "acceptable", -1]
OPTIONS = [ReadOptions(), ReadOptions(run_unit="agent-span", join_key="eval.example_id", verdict_attribute="human.verdict"),
           ReadOptions(verdict_attribute="human.verdict", verdict_score="includes")]


@functools.cache
def otlp_base() -> dict:
    tracer, exporter = tracer_and_exporter()
    trace_of_run(tracer, RUN, "genai", "eval.example_id", "human.verdict")
    trace_of_run(tracer, RUN, "openinference", "eval.example_id", "human.verdict", verdict_event="review")
    return otlp_json(exporter.get_finished_spans())


OTLP_BASE = otlp_base()  # made before any strategy runs: the SDK draws its ids from the random module


@functools.cache
def eval_log_bytes() -> bytes:
    with tempfile.TemporaryDirectory() as d:
        return inspect_log_of(SMALL, Path(d)).read_bytes()


@functools.cache
def parquet_bytes() -> bytes:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "runs.parquet"
        write_parquet(flat_records(SMALL, nested=True), path)
        return path.read_bytes()


@st.composite
def damaged_otlp(draw):
    return damage(draw, copy.deepcopy(OTLP_BASE), LEAVES)


def _check(data, name, options=None, input_format="auto"):
    try:
        loads_runs(data, name, input_format, options)
    except LoadError as err:
        assert err.file == name and "\n" not in str(err)


@settings(max_examples=400, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(damaged_otlp(), st.sampled_from(OPTIONS), st.sampled_from(["auto", "otlp"]), st.booleans())
def test_damaged_otlp_gives_runs_or_load_error(value, options, input_format, as_lines):
    if as_lines and isinstance(value, dict) and isinstance(value.get("resourceSpans"), list):
        text = "\n".join(json.dumps({"resourceSpans": [rs]}) for rs in value["resourceSpans"])
    else:
        text = json.dumps(value)
    _check(text, "traces.jsonl", options, input_format)


def _damage(data: bytes, edits) -> bytes:
    out = bytearray(data)
    for where, byte, cut in edits:
        i = min(int(where * len(out)), len(out) - 1)
        if cut:
            del out[i:]
        else:
            out[i] = byte
        if not out:
            break
    return bytes(out)


EDITS = st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255), st.booleans()), min_size=1, max_size=3)


@settings(max_examples=150, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(EDITS)
@example(edits=[(0.265625, 128, False)])  # broke once: a column name no longer UTF-8 raised UnicodeDecodeError from the schema
def test_damaged_parquet_gives_runs_or_load_error(edits):
    _check(_damage(parquet_bytes(), edits), "runs.parquet")


@settings(max_examples=30, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(EDITS, st.sampled_from(OPTIONS))
def test_damaged_eval_log_gives_runs_or_load_error(edits, options):
    _check(_damage(eval_log_bytes(), edits), "log.eval", options)
