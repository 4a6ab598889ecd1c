"""Fixture files written by the real producers (issue 13), offline, for the loader and CLI tests.

* OpenTelemetry: spans made with ``opentelemetry-sdk``, attribute names from
  ``opentelemetry-semantic-conventions`` (GenAI) and ``openinference-semantic-conventions``,
  encoded by ``opentelemetry-exporter-otlp-proto-common`` (``encode_spans`` -> the
  ``ExportTraceServiceRequest`` protobuf) and printed as JSON by protobuf's ``json_format``. The
  OTLP/JSON rules the Collector's file exporter follows differ from a plain protobuf JSON printer
  in two places, applied here: ids are hex (not base64) and enums are integers.
* Inspect AI: a tiny task run with Inspect's ``mockllm`` model and a tool (each scripted output
  carries its token usage, else mockllm counts tokens with tiktoken, which downloads its table).
* Parquet: written with ``pyarrow`` from the flat records of a case set.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from explorer.core.io.model import CaseSet

T0 = 1_767_225_600_000_000_000  # 2026-01-01T00:00:00Z in ns: fixed span times, so order is by design
MS = 1_000_000


# --- OpenTelemetry ---------------------------------------------------------------------------


def tracer_and_exporter():
    """A fresh TracerProvider with an in-memory exporter (no global state touched)."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("metric-explorer-tests"), exporter


def _hex_ids(value: Any) -> Any:
    """OTLP/JSON: trace and span ids as hex, where protobuf's JSON printer writes base64."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in ("traceId", "spanId", "parentSpanId") and isinstance(v, str):
                out[k] = base64.b64decode(v).hex()
            else:
                out[k] = _hex_ids(v)
        return out
    if isinstance(value, list):
        return [_hex_ids(v) for v in value]
    return value


def otlp_json(spans) -> dict[str, Any]:
    """One ``ExportTraceServiceRequest`` of finished SDK ``spans`` in the OTLP JSON encoding."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    request = encode_spans(spans)
    return _hex_ids(MessageToDict(request, use_integers_for_enums=True))


def genai_messages(role: str, text: str, finish: bool = False) -> str:
    """``gen_ai.input.messages`` / ``gen_ai.output.messages`` JSON of one text message
    (semantic-conventions gen-ai-input-messages.json / gen-ai-output-messages.json)."""
    message: dict[str, Any] = {"role": role, "parts": [{"type": "text", "content": text}]}
    if finish:
        message["finish_reason"] = "stop"
    return json.dumps([message])


def trace_of_run(tracer, run, convention: str, example_key: str | None = None,
                 verdict_attribute: str | None = None, verdict_event: str | None = None, t0: int = T0) -> str:
    """Spans of one single-invocation run, as an agent would emit them; returns the trace id (hex).

    ``convention`` ``"genai"``: an ``invoke_agent`` span (input/output messages) with
    ``execute_tool`` children (``gen_ai.tool.name``, ``gen_ai.tool.call.arguments``);
    ``"openinference"``: an AGENT span (``input.value`` / ``output.value``) with TOOL children
    (``tool.name``, ``tool.parameters``). ``example_key`` puts the run id on the agent span under
    that attribute; ``verdict_attribute`` puts the person's verdict on it; ``verdict_event`` adds
    a span event of that name carrying ``verdict_attribute`` instead.
    """
    from openinference.semconv.trace import OpenInferenceSpanKindValues, SpanAttributes as OI
    from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as GA
    from opentelemetry.trace import set_span_in_context

    inv = run.invocations[0]
    if convention == "genai":
        attrs = {
            GA.GEN_AI_OPERATION_NAME: GA.GenAiOperationNameValues.INVOKE_AGENT.value,
            GA.GEN_AI_AGENT_NAME: "booking_agent",
            GA.GEN_AI_INPUT_MESSAGES: genai_messages("user", run.user_input),
            GA.GEN_AI_OUTPUT_MESSAGES: genai_messages("assistant", inv.answer, finish=True),
        }
        name = "invoke_agent booking_agent"
    else:
        attrs = {
            OI.OPENINFERENCE_SPAN_KIND: OpenInferenceSpanKindValues.AGENT.value,
            OI.INPUT_VALUE: run.user_input,
            OI.OUTPUT_VALUE: inv.answer,
        }
        name = "booking_agent"
    if example_key:
        attrs[example_key] = run.id
    if verdict_attribute and not verdict_event and run.human_verdict:
        attrs[verdict_attribute] = run.human_verdict
    n = len(inv.actual_calls)
    agent = tracer.start_span(name, attributes=attrs, start_time=t0)
    ctx = set_span_in_context(agent)
    # tool spans are started in reverse order but timed in call order: the reader must sort by start time
    for k in reversed(range(n)):
        call = inv.actual_calls[k]
        if convention == "genai":
            tattrs = {
                GA.GEN_AI_OPERATION_NAME: GA.GenAiOperationNameValues.EXECUTE_TOOL.value,
                GA.GEN_AI_TOOL_NAME: call.name,
                GA.GEN_AI_TOOL_CALL_ARGUMENTS: json.dumps(dict(call.args)),
                GA.GEN_AI_TOOL_CALL_ID: f"call_{k}",
            }
            tname = f"execute_tool {call.name}"
        else:
            tattrs = {
                OI.OPENINFERENCE_SPAN_KIND: OpenInferenceSpanKindValues.TOOL.value,
                OI.TOOL_NAME: call.name,
                OI.TOOL_PARAMETERS: json.dumps(dict(call.args)),
                OI.INPUT_VALUE: json.dumps(dict(call.args)),
            }
            tname = call.name
        tool = tracer.start_span(tname, context=ctx, attributes=tattrs, start_time=t0 + (k + 1) * 10 * MS)
        tool.end(end_time=t0 + (k + 1) * 10 * MS + 5 * MS)
    if verdict_event and run.human_verdict:
        agent.add_event(verdict_event, {verdict_attribute: run.human_verdict}, timestamp=t0 + (n + 1) * 10 * MS)
    agent.end(end_time=t0 + (n + 2) * 10 * MS)
    return format(agent.get_span_context().trace_id, "032x")


def booking_as_otlp(case_set: CaseSet, path: Path, example_key: str | None = "eval.example_id",
                    verdict_attribute: str | None = None, verdict_event: str | None = None) -> dict[str, str]:
    """Write every run of ``case_set`` as one trace, one ``ExportTraceServiceRequest`` per line
    (as the Collector's file exporter writes); runs alternate GenAI and OpenInference spans.
    Returns {run id: trace id}."""
    tracer, exporter = tracer_and_exporter()
    trace_ids = {}
    lines = []
    for i, run in enumerate(case_set.runs):
        exporter.clear()
        trace_ids[run.id] = trace_of_run(tracer, run, "genai" if i % 2 == 0 else "openinference", example_key,
                                         verdict_attribute, verdict_event, t0=T0 + i * 1000 * MS)
        lines.append(json.dumps(otlp_json(exporter.get_finished_spans())))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return trace_ids


def expectations_jsonl(case_set: CaseSet) -> str:
    """The expectations of ``case_set``'s runs as JSONL keyed by run id (expected calls, references)."""
    out = []
    for run in case_set.runs:
        inv = run.invocations[0]
        out.append(json.dumps({
            "id": run.id, "title": run.title,
            "expected_calls": [{"name": c.name, "args": dict(c.args)} for c in inv.expected_calls],
            "references": list(inv.references),
        }))
    return "\n".join(out) + "\n"


def labels_csv(rows: dict[str, str | None]) -> str:
    """A labels CSV ``run_id,human_verdict,note`` of ``{run id: verdict}``."""
    return "run_id,human_verdict,note\n" + "".join(f"{rid},{v or ''},\n" for rid, v in rows.items())


# --- Inspect AI ------------------------------------------------------------------------------


def inspect_log_of(case_set: CaseSet, log_dir: Path, epochs: int = 1, human_score: bool = False) -> Path:
    """Run a tiny Inspect task over ``case_set``'s runs with the ``mockllm`` model scripted to make
    each run's actual calls and give its answer; each tool returns a fixed text. The sample id is
    the run id, ``target`` its references. With ``human_score`` a person's ``manual`` score is
    added afterwards with ``edit_score`` (``C`` acceptable / ``I`` unacceptable, author ``ana``)
    and the log written again. Returns the ``.eval`` file."""
    from inspect_ai import Task, eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.log import ProvenanceData, edit_score, write_eval_log
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import ScoreEdit, includes
    from inspect_ai.solver import generate, use_tools
    from inspect_ai.tool import ToolDef, ToolParam, ToolParams

    arg_names: dict[str, set[str]] = {}
    for r in case_set.runs:
        for c in r.invocations[0].actual_calls:
            arg_names.setdefault(c.name, set()).update(c.args)

    def make_tool(tool_name: str):
        async def execute(**kwargs: Any) -> str:
            return f"{tool_name}: ok"
        params = ToolParams(properties={a: ToolParam(type="string", description=a) for a in sorted(arg_names[tool_name])})
        return ToolDef(execute, name=tool_name, description=f"the {tool_name} tool", parameters=params).as_tool()

    outputs = []
    for _ in range(epochs):
        for run in case_set.runs:
            inv = run.invocations[0]
            for call in inv.actual_calls:
                outputs.append(ModelOutput.for_tool_call("mockllm/model", call.name, dict(call.args)))
            outputs.append(ModelOutput.from_content("mockllm/model", inv.answer))
    for o in outputs:  # token usage given: mockllm does not count tokens (tiktoken would download its table)
        o.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    dataset = [Sample(id=r.id, input=r.user_input, target=list(r.invocations[0].references)) for r in case_set.runs]
    task = Task(dataset=dataset, solver=[use_tools(*[make_tool(n) for n in sorted(arg_names)]), generate()], scorer=includes(),
                epochs=epochs)
    model = get_model("mockllm/model", custom_outputs=outputs)
    logs = inspect_eval(task, model=model, log_dir=str(log_dir), display="none", max_samples=1, max_tasks=1)
    log = logs[0]
    assert log.status == "success", log.error
    if human_score:
        for run in case_set.runs:
            if run.human_verdict:
                for epoch in range(1, epochs + 1):
                    edit_score(log, run.id, "manual", ScoreEdit(
                        value="C" if run.human_verdict == "acceptable" else "I", explanation=run.human_note,
                        provenance=ProvenanceData(author="ana", reason="human review")), epoch=epoch)
        write_eval_log(log, log.location)
    return Path(log.location)


# --- Parquet ---------------------------------------------------------------------------------


def flat_records(case_set: CaseSet, nested: bool) -> list[dict[str, Any]]:
    """Flat-schema records of ``case_set`` without verdicts: calls and references as nested
    values (``nested``) or JSON text."""
    out = []
    for run in case_set.runs:
        inv = run.invocations[0]
        exp = [{"name": c.name, "args": dict(c.args)} for c in inv.expected_calls]
        act = [{"name": c.name, "args": dict(c.args)} for c in inv.actual_calls]
        out.append({
            "id": run.id, "title": run.title, "user_input": run.user_input,
            "expected_calls": exp if nested else json.dumps(exp),
            "actual_calls": act if nested else json.dumps(act),
            "answer": inv.answer,
            "references": list(inv.references) if nested else json.dumps(list(inv.references)),
        })
    return out


def write_parquet(records: list[dict[str, Any]], path: Path) -> None:
    """``records`` written by pyarrow (types inferred: nested dicts become structs)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(records), path)
