"""OpenTelemetry traces in the OTLP JSON encoding -> runs (issue 13; mapping in ``docs/formats.md``).

Input: the JSON encoding of ``ExportTraceServiceRequest`` (opentelemetry-proto
``collector/trace/v1/trace_service.proto``; OTLP specification, "JSON Protobuf Encoding"), one
request per line as the OpenTelemetry Collector's file exporter writes it, or one JSON document.
Field names are lowerCamelCase (the proto names in snake_case are read too); ``traceId`` /
``spanId`` / ``parentSpanId`` are hex as the OTLP specification requires (base64, which a plain
protobuf JSON printer writes, is read too); 64-bit integers may be strings; an attribute value
is an ``AnyValue`` object (``stringValue``, ``intValue``, ``doubleValue``, ``boolValue``,
``arrayValue``, ``kvlistValue``, ``bytesValue``).

Mapping (attribute names from opentelemetry-semantic-conventions ``gen_ai_attributes`` and
openinference-semantic-conventions ``SpanAttributes``):

* run: one trace (``run_unit="trace"``, id = trace id) or one outermost agent span
  (``run_unit="agent-span"``, id = span id); the run's *top span* is the trace's root span or that
  agent span. Agent spans: GenAI ``gen_ai.operation.name = invoke_agent`` or OpenInference
  ``openinference.span.kind = AGENT``;
* actual calls: the run's tool spans (GenAI ``gen_ai.operation.name = execute_tool``, or
  OpenInference ``openinference.span.kind = TOOL``) in start-time order; a tool span inside another
  tool span is part of that call and not counted again; ADK's ``(merged tools)`` span is skipped.
  Name: ``gen_ai.tool.name``, else ``tool.name``, else the span name without ``execute_tool ``.
  Arguments: the first of ``gen_ai.tool.call.arguments`` (a JSON object, as text or structured),
  ``tool.parameters``, ``input.value`` (when it is a JSON object), ADK's legacy
  ``gcp.vertex.agent.tool_call_args``; none = ``{}``;
* answer: the output of the top span, else of the outermost agent span, else of the last LLM span
  (by end time) that recorded one. Output = the text parts of the first of
  ``gen_ai.output.messages``; on agent and top spans also OpenInference ``output.value``; on LLM
  spans (``gen_ai.operation.name`` ``chat`` / ``generate_content`` / ``text_completion``,
  OpenInference ``LLM``, or ADK's legacy ``call_llm`` span) also ``llm.output_messages.<i>.message.content``,
  ``gen_ai.completion.<i>.content`` and ADK's legacy ``gcp.vertex.agent.llm_response``;
* user input: the last user message of the same spans' input (``gen_ai.input.messages``,
  ``input.value``, ``llm.input_messages.<i>``, ``gen_ai.prompt.<i>``, ADK's legacy
  ``gcp.vertex.agent.llm_request``), first found in the same order;
* expected calls and references: none here (empty calls, reference ``""``): they come from an
  expectations file (:mod:`.expectations`) joined by run id or by ``Run.extra["example_id"]``,
  the value of the ``join_key`` attribute (top span first, then the run's spans by start time);
* person's verdict: the ``verdict_attribute`` attribute on a span or a span event of the run
  (the latest by time wins), or none (then a labels CSV keyed by run id gives it);
* ``Run.extra``: ``otel_trace_id``, ``otel_top_span`` (the top span's name) and ``example_id``.

A trace without tool spans is a run with no calls; one without any output an empty answer; the
counts are in ``CaseSet.notes``. Attributes not named here are ignored (their values are not even
decoded). Errors: ``"<file>: line 3, span 5b8efff798038103, attributes[2] (gen_ai.tool.call.arguments): not a JSON object"``.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..errors import LoadError
from ..model import EXAMPLE_ID, CaseSet, Invocation, Run, ToolCall
from ..reading import json_lines, json_message, loads_json, nested_too_deeply, text_of
from ...numbers import whole_number
from ...plural import counted_of, noun
from ._common import Problem, expect_list, expect_object, expect_str, json_type, make_case_set, parse_verdict, show
from .options import DEFAULT_OPTIONS, ReadOptions

# GenAI semantic conventions (opentelemetry-semantic-conventions, gen_ai_attributes)
GEN_AI_OPERATION_NAME = "gen_ai.operation.name"
GEN_AI_TOOL_NAME = "gen_ai.tool.name"
GEN_AI_TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments"
GEN_AI_INPUT_MESSAGES = "gen_ai.input.messages"
GEN_AI_OUTPUT_MESSAGES = "gen_ai.output.messages"
EXECUTE_TOOL, INVOKE_AGENT = "execute_tool", "invoke_agent"
LLM_OPERATIONS = ("chat", "generate_content", "text_completion")
# OpenInference semantic conventions (openinference-semantic-conventions, SpanAttributes)
OPENINFERENCE_SPAN_KIND = "openinference.span.kind"
TOOL_NAME, TOOL_PARAMETERS = "tool.name", "tool.parameters"
INPUT_VALUE, OUTPUT_VALUE = "input.value", "output.value"
# ADK's own attributes of its legacy telemetry schema (google-adk telemetry/tracing.py)
ADK_TOOL_CALL_ARGS = "gcp.vertex.agent.tool_call_args"
ADK_LLM_REQUEST, ADK_LLM_RESPONSE = "gcp.vertex.agent.llm_request", "gcp.vertex.agent.llm_response"
ADK_MERGED_TOOLS = "(merged tools)"
# flattened message lists: (prefix, role suffix, content suffix)
_OPENINFERENCE_IN = ("llm.input_messages.", ".message.role", ".message.content")
_OPENINFERENCE_OUT = ("llm.output_messages.", ".message.role", ".message.content")
_GENAI_PROMPT = ("gen_ai.prompt.", ".role", ".content")
_GENAI_COMPLETION = ("gen_ai.completion.", ".role", ".content")

_HEX = re.compile(r"[0-9a-fA-F]+")


def _get(obj: dict[str, Any], camel: str, snake: str | None = None) -> Any:
    """``obj[camel]``, else ``obj[snake]`` (protobuf JSON parsers accept both names)."""
    if camel in obj:
        return obj[camel]
    return obj.get(snake) if snake else None


def _id(value: Any, n_bytes: int, path: str, required: bool) -> str:
    """A trace (16 bytes) or span (8 bytes) id as lowercase hex; hex or base64 accepted."""
    if value is None or value == "":
        if required:
            raise Problem(path, "missing id")
        return ""
    text = expect_str(value, path)
    if len(text) == 2 * n_bytes and _HEX.fullmatch(text):
        return text.lower()
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) == n_bytes:
        return raw.hex()
    raise Problem(path, f'expected a {2 * n_bytes}-digit hex id, got "{show(text)}"')


def _nanos(value: Any, path: str) -> int:
    """A ``fixed64`` time in nanoseconds (a number or a string of digits); absent = 0."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise Problem(path, f"expected nanoseconds (a string of digits), got {json_type(value)}")
    if isinstance(value, int):
        return value
    try:
        return whole_number(value)  # ASCII digits: int() also took "１２" and "1_000"
    except ValueError:
        raise Problem(path, f'expected nanoseconds (a string of digits), got "{show(value)}"') from None


def any_value(value: Any, path: str, depth: int = 0) -> Any:
    """An OTLP ``AnyValue`` JSON object -> Python (str, bool, int, float, list, dict or None for an
    empty value). Raises Problem for a value of the wrong JSON type."""
    if depth > 64:
        raise Problem(path, "value nested too deeply")
    if value is None:
        return None
    obj = expect_object(value, path)
    for camel, snake in (("stringValue", "string_value"), ("boolValue", "bool_value"), ("intValue", "int_value"),
                         ("doubleValue", "double_value"), ("arrayValue", "array_value"),
                         ("kvlistValue", "kvlist_value"), ("bytesValue", "bytes_value")):
        key = camel if camel in obj else snake if snake in obj else None
        if key is None:
            continue
        v, vpath = obj[key], f"{path}.{key}"
        if camel in ("stringValue", "bytesValue"):
            return expect_str(v, vpath)
        if camel == "boolValue":
            if not isinstance(v, bool):
                raise Problem(vpath, f"expected true or false, got {json_type(v)}")
            return v
        if camel == "intValue":
            if isinstance(v, bool) or not isinstance(v, (int, str)):
                raise Problem(vpath, f"expected an integer, got {json_type(v)}")
            try:
                return int(v)
            except ValueError:
                raise Problem(vpath, f'expected an integer, got "{show(v)}"') from None
        if camel == "doubleValue":
            if isinstance(v, bool) or not isinstance(v, (int, float, str)):
                raise Problem(vpath, f"expected a number, got {json_type(v)}")
            try:
                return float(v)
            except (ValueError, OverflowError):  # OverflowError: an integer of hundreds of digits
                raise Problem(vpath, f'expected a number, got "{show(v)}"') from None
        inner = expect_object(v, vpath) if v is not None else {}
        items = expect_list(inner.get("values") or [], f"{vpath}.values")
        if camel == "arrayValue":
            return [any_value(item, f"{vpath}.values[{i}]", depth + 1) for i, item in enumerate(items)]
        out: dict[str, Any] = {}
        for i, kv in enumerate(items):
            kv = expect_object(kv, f"{vpath}.values[{i}]")
            key_name = expect_str(kv.get("key"), f"{vpath}.values[{i}].key")
            out[key_name] = any_value(kv.get("value"), f"{vpath}.values[{i}].value", depth + 1)
        return out
    return None  # an empty AnyValue (or a kind this reader does not know): no value


@dataclass
class Span:
    """One span as read from the file: ids (hex), name, times (ns), attributes kept undecoded
    (key -> (AnyValue JSON, path)) and events ``(time, name, attributes)``; ``place`` names it in
    errors (``line 3, span 5b8efff798038103``)."""

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start: int
    end: int
    order: int
    place: str
    attributes: dict[str, tuple[Any, str]] = field(default_factory=dict)
    events: list[tuple[int, str, dict[str, tuple[Any, str]]]] = field(default_factory=list)

    def has(self, key: str) -> bool:
        return key in self.attributes

    def get(self, key: str) -> Any:
        """Decoded value of attribute ``key`` (None when absent). Raises Problem naming it."""
        if key not in self.attributes:
            return None
        raw, path = self.attributes[key]
        return any_value(raw, f"{path} ({key})")

    def text(self, key: str) -> str | None:
        """Attribute ``key`` as text (numbers and booleans as written; None when absent)."""
        value = self.get(key)
        if value is None or isinstance(value, str):
            return value
        if isinstance(value, (list, dict)):
            return json.dumps(value, ensure_ascii=False)
        return str(value).lower() if isinstance(value, bool) else str(value)

    def operation(self) -> str:
        return (self.text(GEN_AI_OPERATION_NAME) or "").strip()

    def kind(self) -> str:
        return (self.text(OPENINFERENCE_SPAN_KIND) or "").strip().upper()

    def is_tool(self) -> bool:
        return self.operation() == EXECUTE_TOOL or self.kind() == "TOOL"

    def is_agent(self) -> bool:
        return self.operation() == INVOKE_AGENT or self.kind() == "AGENT"

    def is_llm(self) -> bool:
        """GenAI inference operations, OpenInference LLM spans, and ADK's legacy ``call_llm`` span
        (no operation name; its request and response as ``gcp.vertex.agent.llm_*``)."""
        if self.operation() in LLM_OPERATIONS or self.kind() == "LLM":
            return True
        return self.has(ADK_LLM_RESPONSE) and not self.is_tool()


def _attributes(items: Any, path: str) -> dict[str, tuple[Any, str]]:
    out: dict[str, tuple[Any, str]] = {}
    for i, kv in enumerate(expect_list(items or [], path)):
        kv = expect_object(kv, f"{path}[{i}]")
        key = expect_str(kv.get("key"), f"{path}[{i}].key")
        out[key] = (kv.get("value"), f"{path}[{i}].value")
    return out


def spans_of_request(request: Any, place: str, first_order: int) -> list[Span]:
    """The spans of one parsed ``ExportTraceServiceRequest`` (``place``: ``line 3`` or ``""``).
    Raises LoadError naming the place and the JSON path (file name left empty: the caller adds it)."""
    spans: list[Span] = []
    try:
        req = expect_object(request, "(top level)")
        resource_spans = _get(req, "resourceSpans", "resource_spans")
        if resource_spans is None:
            raise Problem("(top level)", 'missing "resourceSpans" (not an OTLP ExportTraceServiceRequest)')
        for r, rs in enumerate(expect_list(resource_spans, "resourceSpans")):
            rpath = f"resourceSpans[{r}]"
            rs = expect_object(rs, rpath)
            scope_key = "scopeSpans" if "scopeSpans" in rs else "scope_spans" if "scope_spans" in rs else "instrumentationLibrarySpans"
            for s, ss in enumerate(expect_list(rs.get(scope_key) or [], f"{rpath}.{scope_key}")):
                spath = f"{rpath}.{scope_key}[{s}]"
                ss = expect_object(ss, spath)
                for k, sp in enumerate(expect_list(ss.get("spans") or [], f"{spath}.spans")):
                    kpath = f"{spath}.spans[{k}]"
                    sp = expect_object(sp, kpath)
                    span_id = _id(_get(sp, "spanId", "span_id"), 8, f"{kpath}.spanId", True)
                    where = f"{place}, span {span_id}" if place else f"span {span_id}"
                    try:
                        spans.append(_span(sp, span_id, where, first_order + len(spans)))
                    except Problem as p:
                        raise LoadError("", f"{where}, {p.path}" if p.path else where, p.message) from None
    except Problem as p:
        raise LoadError("", f"{place}, {p.path}" if place else p.path, p.message) from None
    return spans


def _span(sp: dict[str, Any], span_id: str, where: str, order: int) -> Span:
    name = sp.get("name")
    name = "" if name is None else expect_str(name, "name")
    span = Span(
        trace_id=_id(_get(sp, "traceId", "trace_id"), 16, "traceId", True),
        span_id=span_id,
        parent_id=_id(_get(sp, "parentSpanId", "parent_span_id"), 8, "parentSpanId", False),
        name=name,
        start=_nanos(_get(sp, "startTimeUnixNano", "start_time_unix_nano"), "startTimeUnixNano"),
        end=_nanos(_get(sp, "endTimeUnixNano", "end_time_unix_nano"), "endTimeUnixNano"),
        order=order,
        place=where,
        attributes=_attributes(sp.get("attributes"), "attributes"),
    )
    for e, ev in enumerate(expect_list(sp.get("events") or [], "events")):
        ev = expect_object(ev, f"events[{e}]")
        ev_name = ev.get("name")
        span.events.append((
            _nanos(_get(ev, "timeUnixNano", "time_unix_nano"), f"events[{e}].timeUnixNano"),
            "" if ev_name is None else expect_str(ev_name, f"events[{e}].name"),
            _attributes(ev.get("attributes"), f"events[{e}].attributes"),
        ))
    return span


# --- messages and texts ----------------------------------------------------------------------


def _json_value(value: Any, path: str) -> Any:
    """A structured attribute value, or the JSON it holds as text. Raises Problem for bad JSON."""
    if isinstance(value, str):
        try:
            return loads_json(value)
        except (ValueError, RecursionError) as exc:
            raise Problem(path, f"not JSON: {getattr(exc, 'msg', 'nested too deeply')}") from None
    return value


def _parts_text(message: Any) -> str:
    """Text of one GenAI message: its ``parts`` of type ``text`` (``content``) joined by newline,
    or a plain ``content`` string (older instrumentations)."""
    if not isinstance(message, dict):
        return ""
    parts = message.get("parts")
    if isinstance(parts, list):
        texts = [p.get("content") for p in parts if isinstance(p, dict) and p.get("type", "text") == "text"]
        return "\n".join(t for t in texts if isinstance(t, str) and t)
    content = message.get("content")
    if isinstance(content, str):
        return content
    return ""


def _messages(span: Span, key: str) -> list[Any] | None:
    if not span.has(key):
        return None
    path = span.attributes[key][1]
    value = _json_value(span.get(key), f"{path} ({key})")
    if value is None:
        return None
    if not isinstance(value, list):
        raise Problem(f"{path} ({key})", f"expected a list of messages, got {json_type(value)}")
    return value


def _flattened(span: Span, spec: tuple[str, str, str]) -> list[dict[str, str]] | None:
    """Messages written as flattened attributes (``llm.output_messages.0.message.content``)."""
    prefix, role_suffix, content_suffix = spec
    found: dict[int, dict[str, str]] = {}
    for key in span.attributes:
        if not key.startswith(prefix):
            continue
        head = key[len(prefix):].split(".", 1)[0]
        if not (head.isascii() and head.isdigit()):  # "²".isdigit() is True and int("²") raises
            continue
        i = int(head)
        if key == f"{prefix}{i}{content_suffix}":
            found.setdefault(i, {})["content"] = span.text(key) or ""
        elif key == f"{prefix}{i}{role_suffix}":
            found.setdefault(i, {})["role"] = span.text(key) or ""
    return [found[i] for i in sorted(found)] if found else None


def _adk_content_text(value: Any, user: bool) -> str | None:
    """Text of ADK's legacy llm_request (last user content) or llm_response (its content)."""
    if isinstance(value, dict) and not user:
        content = value.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        if isinstance(parts, list):
            return "\n".join(p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str) and p["text"])
        return None
    if isinstance(value, dict) and user:
        contents = value.get("contents")
        if isinstance(contents, list):
            users = [c for c in contents if isinstance(c, dict) and c.get("role") == "user"]
            if users:
                parts = users[-1].get("parts") or []
                return "\n".join(p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str) and p["text"])
    return None


def output_text(span: Span, llm: bool) -> str | None:
    """The output text ``span`` recorded (None: it recorded none). ``llm``: also read the LLM
    span attributes (flattened messages, ADK legacy)."""
    messages = _messages(span, GEN_AI_OUTPUT_MESSAGES)
    if messages is not None:
        return _parts_text(messages[0]) if messages else ""
    if not llm:
        return span.text(OUTPUT_VALUE)
    for spec in (_OPENINFERENCE_OUT, _GENAI_COMPLETION):
        flat = _flattened(span, spec)
        if flat is not None:
            return flat[0].get("content", "")
    if span.has(ADK_LLM_RESPONSE):
        path = span.attributes[ADK_LLM_RESPONSE][1]
        return _adk_content_text(_json_value(span.get(ADK_LLM_RESPONSE), f"{path} ({ADK_LLM_RESPONSE})"), user=False)
    return None  # an LLM span's output.value is the provider's raw response, not the answer


def _last_user(messages: Iterable[Any]) -> str | None:
    users = [m for m in messages if isinstance(m, dict) and m.get("role") in ("user", "human")]
    return _parts_text(users[-1]) if users else None


def input_text(span: Span, llm: bool) -> str | None:
    """The user's text in ``span``'s input (the last user message), None when it recorded none."""
    messages = _messages(span, GEN_AI_INPUT_MESSAGES)
    if messages is not None:
        found = _last_user(messages)
        if found is not None:
            return found
    if not llm:
        return span.text(INPUT_VALUE)
    for spec in (_OPENINFERENCE_IN, _GENAI_PROMPT):
        flat = _flattened(span, spec)
        if flat is not None:
            found = _last_user(flat)
            if found is not None:
                return found
    if span.has(ADK_LLM_REQUEST):
        path = span.attributes[ADK_LLM_REQUEST][1]
        return _adk_content_text(_json_value(span.get(ADK_LLM_REQUEST), f"{path} ({ADK_LLM_REQUEST})"), user=True)
    return None


# --- tool calls ------------------------------------------------------------------------------


def _args_object(span: Span, key: str, strict: bool) -> dict[str, Any] | None:
    """Attribute ``key`` as an arguments object (JSON text or structured). ``strict``: a value
    that is not a JSON object is an error; else it is passed over (None)."""
    if not span.has(key):
        return None
    path = f"{span.attributes[key][1]} ({key})"
    value = span.get(key)
    if isinstance(value, str):
        try:
            value = loads_json(value) if value.strip() else {}
        except (ValueError, RecursionError) as exc:
            if not strict:
                return None
            raise Problem(path, f"arguments are not JSON: {getattr(exc, 'msg', 'nested too deeply')}") from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        if not strict:
            return None
        raise Problem(path, f"expected a JSON object of arguments, got {json_type(value)}")
    return value


def tool_call(span: Span) -> ToolCall | None:
    """The call a tool span made (None for ADK's ``(merged tools)`` summary span)."""
    name = span.text(GEN_AI_TOOL_NAME) or span.text(TOOL_NAME) or span.name.removeprefix("execute_tool").strip()
    if name == ADK_MERGED_TOOLS:
        return None
    if not name.strip():
        raise Problem("name", "tool span without a tool name (gen_ai.tool.name, tool.name or the span name)")
    for key, strict in ((GEN_AI_TOOL_CALL_ARGUMENTS, True), (TOOL_PARAMETERS, True), (INPUT_VALUE, False), (ADK_TOOL_CALL_ARGS, False)):
        args = _args_object(span, key, strict)
        if args is not None:
            return ToolCall(name, args)
    return ToolCall(name, {})


# --- verdicts --------------------------------------------------------------------------------


def _verdict_value(value: Any, path: str) -> str | None:
    if isinstance(value, bool):
        return "acceptable" if value else "unacceptable"
    return parse_verdict(value, path)


def verdict_of(spans: list[Span], attribute: str) -> str | None:
    """The latest value of ``attribute`` on the spans (at their start) or their events (at the
    event's time) read as a verdict; None when no span has it. Raises LoadError placed at the span."""
    found: list[tuple[int, int, str | None]] = []
    for span in spans:
        try:
            if span.has(attribute):
                found.append((span.start, 0, _verdict_value(span.get(attribute), f"{span.attributes[attribute][1]} ({attribute})")))
            for e, (time, _name, attrs) in enumerate(span.events):
                if attribute in attrs:
                    raw, path = attrs[attribute]
                    found.append((time, 1 + e, _verdict_value(any_value(raw, f"{path} ({attribute})"), f"{path} ({attribute})")))
        except Problem as p:
            raise LoadError("", f"{span.place}, {p.path}", p.message) from None
    if not found:
        return None
    return max(found, key=lambda t: (t[0], t[1]))[2]


# --- runs ------------------------------------------------------------------------------------


@dataclass
class _Counts:
    runs: int = 0
    no_tools: int = 0
    no_answer: int = 0
    joined: int = 0  # runs given an example id by the join key
    verdicts: int = 0  # runs given a verdict by the verdict attribute


def _with_place(span: Span, fn, *args):
    """Call ``fn(*args)`` turning a Problem into a LoadError placed at ``span``."""
    try:
        return fn(*args)
    except Problem as p:
        raise LoadError("", f"{span.place}, {p.path}" if p.path else span.place, p.message) from None


def _run(spans: list[Span], top: Span, run_id: str, options: ReadOptions, counts: _Counts) -> Run:
    """One run from ``spans`` (the trace, or the agent span's subtree) whose top span is ``top``."""
    by_id = {s.span_id: s for s in spans}
    ordered = sorted(spans, key=lambda s: (s.start, s.order))

    def inside_tool(span: Span) -> bool:
        seen = {span.span_id}
        parent = by_id.get(span.parent_id)
        while parent is not None and parent.span_id not in seen and parent is not top:
            seen.add(parent.span_id)
            if parent.is_tool():
                return True
            parent = by_id.get(parent.parent_id)
        return False

    calls: list[ToolCall] = []
    for span in ordered:
        if _with_place(span, span.is_tool) and not inside_tool(span):
            call = _with_place(span, tool_call, span)
            if call is not None:
                calls.append(call)

    def depth(span: Span) -> int:
        d, parent, seen = 0, by_id.get(span.parent_id), set()
        while parent is not None and parent.span_id not in seen:
            seen.add(parent.span_id)
            d, parent = d + 1, by_id.get(parent.parent_id)
        return d

    agents = sorted((s for s in ordered if s is not top and _with_place(s, s.is_agent)), key=lambda s: (depth(s), s.start, s.order))
    llms = [s for s in ordered if _with_place(s, s.is_llm)]
    heads = [top, *agents]
    answer = next((t for s in heads if (t := _with_place(s, output_text, s, False)) is not None), None)
    if answer is None:
        for span in sorted(llms, key=lambda s: (s.end, s.start, s.order), reverse=True):
            answer = _with_place(span, output_text, span, True)
            if answer is not None:
                break
    user = next((t for s in heads if (t := _with_place(s, input_text, s, False)) is not None), None)
    if user is None:
        user = next((t for s in llms if (t := _with_place(s, input_text, s, True)) is not None), "")
    extra: dict[str, Any] = {"otel_trace_id": top.trace_id, "otel_top_span": top.name}
    title = top.name
    if options.join_key:
        holder = top if top.has(options.join_key) else next((s for s in ordered if s.has(options.join_key)), None)
        if holder is not None:
            value = _with_place(holder, holder.text, options.join_key)
            if value is not None and value.strip():
                extra[EXAMPLE_ID] = value.strip()
                title = value.strip()
    verdict = verdict_of(ordered, options.verdict_attribute) if options.verdict_attribute else None
    counts.runs += 1
    counts.joined += EXAMPLE_ID in extra
    counts.verdicts += verdict is not None
    counts.no_tools += not calls
    answer = answer or ""
    counts.no_answer += not answer.strip()
    return Run(
        id=run_id,
        title=title,
        user_input=user or "",
        invocations=(Invocation(expected_calls=(), actual_calls=tuple(calls), answer=answer, references=("",)),),
        human_verdict=verdict,  # type: ignore[arg-type]
        extra=extra,
    )


def runs_from_spans(spans: list[Span], options: ReadOptions = DEFAULT_OPTIONS) -> tuple[list[Run], list[str]]:
    """Runs of ``spans`` (every span of the file) and the load notes. Traces keep the order in
    which their first span appears in the file."""
    traces: dict[str, list[Span]] = {}
    for span in spans:
        traces.setdefault(span.trace_id, []).append(span)
    runs: list[Run] = []
    counts = _Counts()
    no_agent = 0
    for trace_id, members in traces.items():
        by_id = {s.span_id: s for s in members}
        roots = [s for s in members if not s.parent_id or s.parent_id not in by_id]
        if not roots:  # a cycle of parents: take the earliest span
            roots = list(members)
        if options.run_unit == "trace":
            top = min(roots, key=lambda s: (s.start, s.order))
            runs.append(_run(members, top, trace_id, options, counts))
            continue
        children: dict[str, list[Span]] = {}
        for s in members:
            children.setdefault(s.parent_id, []).append(s)
        outermost: list[Span] = []

        def walk(span: Span, under_agent: bool, seen: set[str]) -> None:
            if span.span_id in seen:
                return
            seen.add(span.span_id)
            agent = _with_place(span, span.is_agent)
            if agent and not under_agent:
                outermost.append(span)
            for child in children.get(span.span_id, []):
                walk(child, under_agent or agent, seen)

        seen: set[str] = set()
        for root in sorted(roots, key=lambda s: (s.start, s.order)):
            walk(root, False, seen)
        if not outermost:
            no_agent += 1
        for agent in sorted(outermost, key=lambda s: (s.start, s.order)):
            subtree, stack, taken = [], [agent], {agent.span_id}
            while stack:  # ``taken``: a damaged file's parent ids may form a cycle
                s = stack.pop()
                subtree.append(s)
                for child in children.get(s.span_id, []):
                    if child.span_id not in taken:
                        taken.add(child.span_id)
                        stack.append(child)
            runs.append(_run(subtree, agent, agent.span_id, options, counts))
    notes = []
    unit = "trace" if options.run_unit == "trace" else "agent span"
    if counts.no_tools:
        notes.append(f"{counted_of(counts.no_tools, counts.runs, unit)} {noun(counts.no_tools, 'has', 'have')} no tool "
                     "spans: read as runs with no calls")
    if counts.no_answer:
        notes.append(f"{counted_of(counts.no_answer, counts.runs, unit)} {noun(counts.no_answer, 'has', 'have')} no "
                     "answer: read as runs with an empty answer")
    if no_agent:
        notes.append(f"{counted_of(no_agent, len(traces), 'trace')} {noun(no_agent, 'has', 'have')} no agent span and "
                     f"{noun(no_agent, 'gives', 'give')} no run (run unit agent-span)")
    # a join key or verdict attribute no span carries is most likely misspelt: say so, not silence
    if options.join_key and counts.runs and not counts.joined:
        notes.append(f'no span has the join key attribute "{show(options.join_key)}": no run has an example id')
    if options.verdict_attribute and counts.runs and not counts.verdicts:
        notes.append(f'no span or span event has a verdict in the attribute "{show(options.verdict_attribute)}": '
                     "every run is unlabelled")
    return runs, notes


def _requests_of_text(text: str, name: str) -> list[tuple[str, Any]]:
    """``[(place, request)]``: one JSON document (place ``""``, or ``line 1`` when the text is one
    line) or one request per line."""
    try:
        return [("line 1" if "\n" not in text.strip() else "", loads_json(text))]
    except RecursionError:  # named at the first bracket past 1,000 levels, as every reader names it
        raise nested_too_deeply(name, text) from None
    except json.JSONDecodeError as whole:
        first = next((ln for ln in text.split("\n") if ln.strip()), "")
        try:
            loads_json(first)
        except (ValueError, RecursionError):
            raise LoadError(name, f"line {whole.lineno}, column {whole.colno}", f"invalid JSON: {json_message(whole)}") from None
    return json_lines(text, name)


def otlp_from_requests(requests: list[tuple[str, Any]], name: str, options: ReadOptions = DEFAULT_OPTIONS) -> CaseSet:
    """Runs from parsed ``ExportTraceServiceRequest`` objects ``[(place, request)]``. Raises
    LoadError ``"<name>: <place>, span <id>, <path>: <problem>"``."""
    spans: list[Span] = []
    try:
        for place, request in requests:
            spans.extend(spans_of_request(request, place, len(spans)))
        if not spans:
            raise LoadError(name, "", "no spans in the file (0 runs)")
        runs, notes = runs_from_spans(spans, options)
    except LoadError as err:
        raise LoadError(name, err.location, err.problem) from None
    if not runs:
        raise LoadError(name, "", "no runs: no trace has an agent span (invoke_agent or AGENT); try --run-unit trace")
    base = name.replace("\\", "/").rsplit("/", 1)[-1] or name
    unit = "trace" if options.run_unit == "trace" else "agent span"
    cs = make_case_set(runs, name, base, f"OpenTelemetry traces from {base} (one run per {unit})")
    return CaseSet(cs.name, cs.description, cs.runs, cs.source, notes=tuple(f"{name}: {n}" for n in notes))


def otlp_from_data(data: Any, name: str, options: ReadOptions = DEFAULT_OPTIONS) -> CaseSet:
    """Runs from one parsed JSON document (a request)."""
    return otlp_from_requests([("", data)], name, options)


def loads_otlp(data: bytes | str, name: str, options: ReadOptions = DEFAULT_OPTIONS) -> CaseSet:
    """Runs from OTLP JSON bytes or text (one document, or one request per line)."""
    text = text_of(data, name)
    return otlp_from_requests(_requests_of_text(text, name), name, options)


def is_otlp_request(data: Any) -> bool:
    """True for a parsed object that is an ``ExportTraceServiceRequest`` (has ``resourceSpans``)."""
    return isinstance(data, dict) and ("resourceSpans" in data or "resource_spans" in data)


def attributes_naming(data: bytes | str, name: str, ids: Iterable[str], limit: int = 3) -> list[str]:
    """The span attributes of OTLP file ``data`` whose value (as text, stripped) is one of ``ids``
    on some span, most such spans first (ties: the first seen first), at most ``limit``: the
    attributes a ``join_key`` could be (the page has no ``--join-key``; it tries these). A value
    that cannot be decoded is skipped. Raises LoadError as :func:`loads_otlp` for a bad file."""
    wanted = set(ids)
    text = text_of(data, name)
    hits: dict[str, int] = {}
    order = 0
    try:
        for place, request in _requests_of_text(text, name):
            spans = spans_of_request(request, place, order)
            order += len(spans)
            for span in spans:
                for key in span.attributes:
                    try:
                        value = span.text(key)
                    except Problem:
                        continue
                    if value is not None and value.strip() in wanted:
                        hits[key] = hits.get(key, 0) + 1
    except LoadError as err:
        raise LoadError(name, err.location, err.problem) from None
    return sorted(hits, key=lambda k: -hits[k])[:limit]
