"""OTLP JSON traces -> runs (issue 13): spans made with the OpenTelemetry SDK using the GenAI and
OpenInference attribute names from their semantic-convention packages, encoded by the OTLP
exporter's protobuf encoder; an ADK agent with a scripted model under ADK's own instrumentation.

Expected values are the calls, texts and ids the test itself gave the spans."""

from __future__ import annotations

import asyncio
import base64
import json

import pytest
from openinference.semconv.trace import OpenInferenceSpanKindValues, SpanAttributes as OI
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as GA
from opentelemetry.trace import set_span_in_context

from explorer.core.io.errors import LoadError
from explorer.core.io.loaders import loads_runs
from explorer.core.io.loaders.options import ReadOptions
from explorer.core.io.model import ToolCall
from producers import MS, T0, genai_messages, otlp_json, tracer_and_exporter

AGENT = {GA.GEN_AI_OPERATION_NAME: "invoke_agent", GA.GEN_AI_AGENT_NAME: "booker"}


def tool_attrs(name, args, convention="genai"):
    if convention == "genai":
        return {GA.GEN_AI_OPERATION_NAME: "execute_tool", GA.GEN_AI_TOOL_NAME: name,
                GA.GEN_AI_TOOL_CALL_ARGUMENTS: json.dumps(args)}
    return {OI.OPENINFERENCE_SPAN_KIND: OpenInferenceSpanKindValues.TOOL.value, OI.TOOL_NAME: name,
            OI.TOOL_PARAMETERS: json.dumps(args)}


def span(tracer, name, attrs, start, end, parent=None):
    ctx = set_span_in_context(parent) if parent is not None else None
    s = tracer.start_span(name, context=ctx, attributes=attrs, start_time=T0 + start * MS)
    return s, (lambda: s.end(end_time=T0 + end * MS))


def load(request_or_text, name="traces.json", **options):
    text = request_or_text if isinstance(request_or_text, str) else json.dumps(request_or_text)
    return loads_runs(text, name, "auto", ReadOptions(**options))


def test_genai_tool_spans_in_start_order_answer_and_input_from_the_agent_span():
    tracer, exporter = tracer_and_exporter()
    agent, end_agent = span(tracer, "invoke_agent booker", {
        **AGENT,
        GA.GEN_AI_INPUT_MESSAGES: genai_messages("user", "Book me to Lisbon on 12 March"),
        GA.GEN_AI_OUTPUT_MESSAGES: genai_messages("assistant", "Booked TP1351.", finish=True),
        "app.unknown": "ignored",
    }, 0, 100)
    # started in the reverse of their times: the run must follow start time, not file order
    b, end_b = span(tracer, "execute_tool book_flight", tool_attrs("book_flight", {"flight": "TP1351"}), 40, 50, agent)
    a, end_a = span(tracer, "execute_tool search_flights", tool_attrs("search_flights", {"destination": "LIS", "n": 2}), 10, 20, agent)
    end_b(); end_a(); end_agent()
    trace_id = format(agent.get_span_context().trace_id, "032x")
    cs = load(otlp_json(exporter.get_finished_spans()))
    (run,) = cs.runs
    assert run.id == trace_id
    inv = run.invocations[0]
    assert inv.actual_calls == (ToolCall("search_flights", {"destination": "LIS", "n": 2}), ToolCall("book_flight", {"flight": "TP1351"}))
    assert inv.answer == "Booked TP1351." and run.user_input == "Book me to Lisbon on 12 March"
    assert inv.expected_calls == () and inv.references == ("",)
    assert run.extra == {"otel_trace_id": trace_id, "otel_top_span": "invoke_agent booker"}
    assert cs.notes == ()


def test_openinference_tool_spans_and_agent_output_value():
    tracer, exporter = tracer_and_exporter()
    agent, end_agent = span(tracer, "agent", {OI.OPENINFERENCE_SPAN_KIND: "AGENT", OI.INPUT_VALUE: "hi", OI.OUTPUT_VALUE: "done"}, 0, 90)
    t1, end1 = span(tracer, "lookup", {OI.OPENINFERENCE_SPAN_KIND: "TOOL", OI.TOOL_NAME: "lookup",
                                      OI.INPUT_VALUE: json.dumps({"q": "x"})}, 10, 20, agent)
    t2, end2 = span(tracer, "notify", tool_attrs("notify", {"to": "ana"}, "openinference"), 30, 40, agent)
    end1(); end2(); end_agent()
    (run,) = load(otlp_json(exporter.get_finished_spans())).runs
    assert run.invocations[0].actual_calls == (ToolCall("lookup", {"q": "x"}), ToolCall("notify", {"to": "ana"}))
    assert (run.invocations[0].answer, run.user_input) == ("done", "hi")


def test_a_tool_span_inside_a_tool_span_is_one_call_and_adk_merged_span_is_skipped():
    tracer, exporter = tracer_and_exporter()
    root, end_root = span(tracer, "invoke_agent booker", AGENT, 0, 100)
    outer, end_outer = span(tracer, "execute_tool planner", tool_attrs("planner", {"goal": "trip"}), 10, 60, root)
    inner, end_inner = span(tracer, "execute_tool search", tool_attrs("search", {"q": "LIS"}), 20, 30, outer)
    merged, end_merged = span(tracer, "execute_tool (merged tools)", {GA.GEN_AI_OPERATION_NAME: "execute_tool",
                                                                       GA.GEN_AI_TOOL_NAME: "(merged tools)"}, 70, 80, root)
    end_inner(); end_outer(); end_merged(); end_root()
    (run,) = load(otlp_json(exporter.get_finished_spans())).runs
    assert run.invocations[0].actual_calls == (ToolCall("planner", {"goal": "trip"}),)


def test_trace_without_tool_spans_or_answer_is_a_run_and_the_notes_count_it():
    tracer, exporter = tracer_and_exporter()
    a, end_a = span(tracer, "invoke_agent booker", AGENT, 0, 10)
    end_a()
    b, end_b = span(tracer, "invoke_agent booker", {**AGENT, GA.GEN_AI_OUTPUT_MESSAGES: genai_messages("assistant", "ok")}, 20, 40)
    t, end_t = span(tracer, "execute_tool x", tool_attrs("x", {}), 25, 30, b)
    end_t(); end_b()
    cs = load(otlp_json(exporter.get_finished_spans()), name="t.json")
    assert [(len(r.invocations[0].actual_calls), r.invocations[0].answer) for r in cs.runs] == [(0, ""), (1, "ok")]
    assert cs.notes == (
        "t.json: 1 of 2 traces has no tool spans: read as runs with no calls",
        "t.json: 1 of 2 traces has no answer: read as runs with an empty answer",
    )


def test_run_unit_agent_span_gives_one_run_per_outermost_agent_span():
    tracer, exporter = tracer_and_exporter()
    root, end_root = span(tracer, "session", {}, 0, 200)
    first, end_first = span(tracer, "invoke_agent booker", {**AGENT, GA.GEN_AI_OUTPUT_MESSAGES: genai_messages("assistant", "one")}, 10, 90, root)
    sub, end_sub = span(tracer, "invoke_agent helper", AGENT, 20, 60, first)  # inside an agent: part of it
    t1, end_t1 = span(tracer, "execute_tool a", tool_attrs("a", {}), 30, 40, sub)
    second, end_second = span(tracer, "invoke_agent booker", {**AGENT, GA.GEN_AI_OUTPUT_MESSAGES: genai_messages("assistant", "two")}, 100, 190, root)
    t2, end_t2 = span(tracer, "execute_tool b", tool_attrs("b", {}), 110, 120, second)
    for end in (end_t1, end_sub, end_first, end_t2, end_second, end_root):
        end()
    request = otlp_json(exporter.get_finished_spans())
    by_trace = load(request).runs
    assert len(by_trace) == 1 and [c.name for c in by_trace[0].invocations[0].actual_calls] == ["a", "b"]
    by_agent = load(request, run_unit="agent-span").runs
    ids = [format(s.get_span_context().span_id, "016x") for s in (first, second)]
    assert [r.id for r in by_agent] == ids
    assert [([c.name for c in r.invocations[0].actual_calls], r.invocations[0].answer) for r in by_agent] == [(["a"], "one"), (["b"], "two")]


def test_verdict_from_a_span_attribute_or_the_latest_event():
    tracer, exporter = tracer_and_exporter()
    agent, end_agent = span(tracer, "invoke_agent booker", {**AGENT, "human.verdict": "unacceptable"}, 0, 100)
    agent.add_event("review", {"human.verdict": "Acceptable "}, timestamp=T0 + 50 * MS)  # later than the span start: wins
    end_agent()
    (run,) = load(otlp_json(exporter.get_finished_spans()), verdict_attribute="human.verdict").runs
    assert run.human_verdict == "acceptable"
    tracer, exporter = tracer_and_exporter()
    agent, end_agent = span(tracer, "invoke_agent booker", {**AGENT, "review.ok": False}, 0, 10)
    end_agent()
    (run,) = load(otlp_json(exporter.get_finished_spans()), verdict_attribute="review.ok").runs
    assert run.human_verdict == "unacceptable"  # a boolean: false = unacceptable


def test_join_key_names_the_example_and_titles_the_run():
    tracer, exporter = tracer_and_exporter()
    agent, end_agent = span(tracer, "invoke_agent booker", AGENT, 0, 10)
    child, end_child = span(tracer, "step", {"dataset.example.id": "E7"}, 2, 5, agent)
    end_child(); end_agent()
    (run,) = load(otlp_json(exporter.get_finished_spans()), join_key="dataset.example.id").runs
    assert run.extra["example_id"] == "E7" and run.title == "E7"


def test_a_join_key_or_verdict_attribute_no_span_carries_is_noted():
    # a misspelt --join-key / --verdict-attribute was silent: every run unlabelled, or expectations
    # told "for traces give --join-key ATTR" when one was given
    tracer, exporter = tracer_and_exporter()
    agent, end_agent = span(tracer, "invoke_agent booker", {**AGENT, "dataset.example.id": "E7", "human.verdict": "acceptable"}, 0, 10)
    end_agent()
    request = otlp_json(exporter.get_finished_spans())
    cs = load(request, join_key="dataset.example_id", verdict_attribute="human_verdict")
    assert cs.notes[-2:] == (
        'traces.json: no span has the join key attribute "dataset.example_id": no run has an example id',
        'traces.json: no span or span event has a verdict in the attribute "human_verdict": every run is unlabelled',
    )
    spelt = load(request, join_key="dataset.example.id", verdict_attribute="human.verdict")
    assert not any("join key" in n or "verdict in" in n for n in spelt.notes)
    assert spelt.runs[0].human_verdict == "acceptable" and spelt.runs[0].extra["example_id"] == "E7"


def base64_ids(value):
    """The same request as protobuf's plain JSON printer writes it: ids in base64."""
    if isinstance(value, dict):
        return {k: (base64.b64encode(bytes.fromhex(v)).decode() if k in ("traceId", "spanId", "parentSpanId") else base64_ids(v))
                for k, v in value.items()}
    if isinstance(value, list):
        return [base64_ids(v) for v in value]
    return value


def test_base64_ids_one_document_and_one_request_per_line_read_the_same():
    tracer, exporter = tracer_and_exporter()
    agent, end_agent = span(tracer, "invoke_agent booker", AGENT, 0, 50)
    tool, end_tool = span(tracer, "execute_tool a", tool_attrs("a", {"k": 1}), 10, 20, agent)
    end_tool()
    request1 = otlp_json(exporter.get_finished_spans())  # the tool span, exported first (it ended first)
    exporter.clear()
    end_agent()
    request2 = otlp_json(exporter.get_finished_spans())
    # the Collector's file exporter: one request per line; a trace split over two lines is one run
    lines = load(json.dumps(request1) + "\n" + json.dumps(request2) + "\n", name="t.jsonl").runs
    assert len(lines) == 1 and lines[0].invocations[0].actual_calls == (ToolCall("a", {"k": 1}),)
    merged = {"resourceSpans": request1["resourceSpans"] + request2["resourceSpans"]}
    assert load(merged).runs == lines
    assert load(base64_ids(merged)).runs == lines


def test_structured_arguments_kvlist_read_as_an_object():
    request = {"resourceSpans": [{"scopeSpans": [{"spans": [{
        "traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "name": "execute_tool a",
        "startTimeUnixNano": "1", "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": "a"}},
            {"key": "gen_ai.tool.call.arguments", "value": {"kvlistValue": {"values": [
                {"key": "n", "value": {"intValue": "3"}}, {"key": "ok", "value": {"boolValue": True}},
                {"key": "xs", "value": {"arrayValue": {"values": [{"doubleValue": 1.5}, {"stringValue": "b"}]}}}]}}},
            {"key": "weird", "value": {"kvlistValue": "not an object, and never read"}},
        ]}]}]}]}
    (run,) = load(request).runs
    assert run.invocations[0].actual_calls == (ToolCall("a", {"n": 3, "ok": True, "xs": [1.5, "b"]}),)


@pytest.mark.parametrize("mutate, location, problem", [
    (lambda sp: sp["attributes"].append({"key": "gen_ai.tool.call.arguments", "value": {"stringValue": "{oops"}}),
     "line 1, span eee19b7ec3c1b174, attributes[2].value (gen_ai.tool.call.arguments)", "arguments are not JSON: Expecting property name enclosed in double quotes"),
    (lambda sp: sp.update(traceId="xyz"), "resourceSpans[0].scopeSpans[0].spans[0]", None),
    (lambda sp: sp.update(startTimeUnixNano="soon"), "line 1, span eee19b7ec3c1b174, startTimeUnixNano", 'expected nanoseconds (a string of digits), got "soon"'),
    (lambda sp: sp["attributes"].append({"key": "human.verdict", "value": {"stringValue": "fine"}}),
     None, 'expected "acceptable", "unacceptable" or empty, got "fine"'),
])
def test_bad_spans_name_the_file_the_span_and_the_attribute(mutate, location, problem):
    sp = {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "name": "execute_tool a",
          "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                         {"key": "gen_ai.tool.name", "value": {"stringValue": "a"}}]}
    mutate(sp)
    with pytest.raises(LoadError) as info:
        load({"resourceSpans": [{"scopeSpans": [{"spans": [sp]}]}]}, verdict_attribute="human.verdict")
    err = info.value
    assert err.file == "traces.json" and "\n" not in str(err)
    if location == "resourceSpans[0].scopeSpans[0].spans[0]":
        assert err.location == "line 1, span eee19b7ec3c1b174, traceId" and err.problem == 'expected a 32-digit hex id, got "xyz"'
        return
    if location:
        assert err.location == location
    else:
        assert err.location.endswith("attributes[2].value (human.verdict)")
    assert err.problem == problem


def test_a_bad_line_names_its_number():
    good = json.dumps({"resourceSpans": []})
    with pytest.raises(LoadError) as info:
        load(good + "\n{\"resourceSpans\": [}\n", name="t.jsonl")
    assert str(info.value).startswith("t.jsonl: line 2, column 20: invalid JSON")
    with pytest.raises(LoadError) as info:
        load(good, name="t.json")
    assert str(info.value) == "t.json: no spans in the file (0 runs)"


def test_a_cut_trace_file_reads_as_a_whole_phrase():
    # the same fault as the flat loaders' (newcomer trial): Python's "Unterminated string starting at"
    # was shown cut after "at"; the place (line 1, column 19 where the string opens) gives the position
    from explorer.core.io.loaders.otlp import loads_otlp

    with pytest.raises(LoadError) as info:
        loads_otlp('{"resourceSpans": "cut', "t.json")
    assert str(info.value) == "t.json: line 1, column 19: invalid JSON: Unterminated string starting here"


def test_a_trace_file_nested_too_deeply_names_the_bracket():
    # read as OTLP (--input-format otlp, and the page's join key search) it was "t.jsonl: invalid
    # JSON: nested too deeply", with no place; the bracket past 1,000 levels is at column 18 + 1,000
    from explorer.core.io.loaders.otlp import attributes_naming

    deep = '{"resourceSpans": ' + "[" * 2000 + "]" * 2000 + "}"
    where = "line 1, column 1018: invalid JSON: nested too deeply (over 1,000 levels of [ and {)"
    with pytest.raises(LoadError) as info:
        loads_runs(deep.encode(), "t.jsonl", "otlp")
    assert str(info.value) == f"t.jsonl: {where}"
    with pytest.raises(LoadError) as info:
        attributes_naming(deep, "t.jsonl", ["E1"])
    assert str(info.value) == f"t.jsonl: {where}"


def test_agent_span_unit_without_agents_is_a_clear_error():
    tracer, exporter = tracer_and_exporter()
    s, end = span(tracer, "work", {}, 0, 1)
    end()
    with pytest.raises(LoadError) as info:
        load(otlp_json(exporter.get_finished_spans()), run_unit="agent-span")
    assert str(info.value) == "traces.json: no runs: no trace has an agent span (invoke_agent or AGENT); try --run-unit trace"


# --- ADK, under its own OpenTelemetry instrumentation ---------------------------------------------


def run_adk_agent(monkeypatch, schema: str):
    """An ADK LlmAgent with a scripted model (no network): search, then book, then answer.
    Returns (OTLP request, trace id)."""
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "SPAN_ONLY")
    monkeypatch.setenv("ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS", "true")
    monkeypatch.setenv("ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN", schema)
    from typing import AsyncGenerator

    from google.adk.agents import LlmAgent
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_response import LlmResponse
    from google.adk.runners import InMemoryRunner
    from google.genai import types
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    # ADK's tracers come from the global provider: set it once per process (OpenTelemetry refuses a second)
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        trace.set_tracer_provider(provider)
    else:
        trace.get_tracer_provider().add_span_processor(SimpleSpanProcessor(exporter))

    class ScriptedModel(BaseLlm):
        model: str = "scripted"
        script: list = []

        async def generate_content_async(self, llm_request, stream=False) -> AsyncGenerator[LlmResponse, None]:
            step = self.script.pop(0)
            part = (types.Part(function_call=types.FunctionCall(name=step[0], args=step[1])) if isinstance(step, tuple)
                    else types.Part(text=step))
            yield LlmResponse(content=types.Content(role="model", parts=[part]))

    def search_flights(destination: str, date: str) -> dict:
        """Search flights."""
        return {"flights": ["TP1351"]}

    def book_flight(flight: str) -> dict:
        """Book a flight."""
        return {"booking": "BK-1001"}

    model = ScriptedModel(script=[("search_flights", {"destination": "LIS", "date": "2026-03-12"}),
                                  ("book_flight", {"flight": "TP1351"}), "Booked TP1351, reference BK-1001."])
    agent = LlmAgent(name="booker", model=model, instruction="Book flights.", tools=[search_flights, book_flight])
    runner = InMemoryRunner(agent=agent, app_name="app")

    async def go():
        session = await runner.session_service.create_session(app_name="app", user_id="u")
        async for _ in runner.run_async(user_id="u", session_id=session.id,
                                        new_message=types.Content(role="user", parts=[types.Part(text="Book me to Lisbon")])):
            pass

    asyncio.run(go())
    spans = exporter.get_finished_spans()
    return otlp_json(spans), format(spans[0].context.trace_id, "032x")


@pytest.mark.parametrize("schema", ["2", "1"], ids=["semconv-aligned", "legacy"])
def test_adk_agent_trace_reads_as_its_run(monkeypatch, schema):
    request, trace_id = run_adk_agent(monkeypatch, schema)
    cs = load(request)
    (run,) = cs.runs
    assert run.id == trace_id
    assert run.invocations[0].actual_calls == (
        ToolCall("search_flights", {"destination": "LIS", "date": "2026-03-12"}), ToolCall("book_flight", {"flight": "TP1351"}))
    assert run.invocations[0].answer == "Booked TP1351, reference BK-1001."
    assert run.user_input == "Book me to Lisbon"


def test_parent_id_cycles_and_repeated_span_ids_end_the_walk():
    # damaged ids: b and c are each other's parent (a cycle off the tree); two spans share id d,
    # the second the child of the first (a cycle below the agent)
    def sp(span_id, parent, name, attrs):
        return {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": span_id, "parentSpanId": parent, "name": name,
                "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()]}
    tool = {"gen_ai.operation.name": "execute_tool"}
    spans = [sp("000000000000000a", "", "agent", {"gen_ai.operation.name": "invoke_agent"}),
             sp("000000000000000b", "000000000000000c", "execute_tool t", tool),
             sp("000000000000000c", "000000000000000b", "x", {}),
             sp("000000000000000d", "000000000000000a", "execute_tool u", tool),
             sp("000000000000000d", "000000000000000d", "execute_tool v", tool)]
    request = {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}
    (run,) = load(request, run_unit="agent-span").runs
    assert run.id == "000000000000000a" and [c.name for c in run.invocations[0].actual_calls] == ["u"]
    (run,) = load(request).runs
    assert [c.name for c in run.invocations[0].actual_calls] == ["t", "u", "v"]


def _raw_span(attrs, **fields):
    return {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "name": "invoke_agent booker",
            "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()], **fields}


def test_a_flattened_message_index_in_other_digits_is_not_a_message():
    """``gen_ai.prompt.².content``: "²".isdigit() is True and int("²") raised ValueError, a
    traceback from an untrusted trace; such a key is no message index, the ASCII one is read."""
    sp = _raw_span({"gen_ai.operation.name": "chat", "gen_ai.prompt.0.role": "user",
                    "gen_ai.prompt.0.content": "Book me to Lisbon", "gen_ai.prompt.².content": "not a message",
                    "gen_ai.prompt.１.content": "nor this"})
    (run,) = load({"resourceSpans": [{"scopeSpans": [{"spans": [sp]}]}]}).runs
    assert run.user_input == "Book me to Lisbon"


@pytest.mark.parametrize("nanos", ["１２", "1_000", "²"])
def test_span_times_are_ascii_digits(nanos):
    sp = _raw_span({"gen_ai.operation.name": "invoke_agent"}, startTimeUnixNano=nanos)
    with pytest.raises(LoadError) as info:
        load({"resourceSpans": [{"scopeSpans": [{"spans": [sp]}]}]})
    assert info.value.location == "line 1, span eee19b7ec3c1b174, startTimeUnixNano"
    assert info.value.problem == f'expected nanoseconds (a string of digits), got "{nanos}"'
