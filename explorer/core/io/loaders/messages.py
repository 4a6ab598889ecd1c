"""OpenAI-style message trajectories, as LangChain agentevals compares them -> runs.

A run is one record with the agent's trajectory ``outputs`` and the expected
``reference_outputs``, each a list of chat messages (or an object ``{"messages": [...]}``, as
agentevals also accepts). Messages are OpenAI chat dicts: ``{"role": "user" | "assistant" |
"tool" | "system", "content": str | [{"type": "text", "text": str}, ...], "tool_calls": [...]}``
where an assistant tool call is ``{"id", "type": "function", "function": {"name", "arguments"}}``
with ``arguments`` a JSON *string* (an object is accepted too; LangChain's ``{"name", "args"}``
form also reads). Record fields::

    {"id": "r1", "title": "...", "outputs": [...], "reference_outputs": [...],
     "human_verdict": "acceptable", "human_note": "..."}

``inputs`` and ``metadata`` are ignored, ``adk_*`` kept as extra columns, anything else is an
error. The file is JSONL (one record a line), a JSON list of records, or ``{"runs": [...]}``.

Mapping (one invocation per run, as agentevals matches whole trajectories): actual calls = every
assistant tool call of ``outputs`` in order, expected calls = those of ``reference_outputs``;
answer = text of the last assistant message of ``outputs`` with text, reference = the same in
``reference_outputs``; ``user_input`` = the first user message of ``outputs`` (or of the
reference) unless the record gives ``user_input``.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import LoadError
from ..model import CaseSet, Invocation, Run, ToolCall
from ..reading import json_lines, json_message, loads_json, parse_json, read_bytes, text_of
from ._common import (
    Problem, check_unique_ids, expect_list, expect_object, expect_str, join_path, json_type,
    make_case_set, parse_verdict, show,
)

KNOWN_FIELDS = ("id", "title", "user_input", "outputs", "reference_outputs", "human_verdict", "human_note", "inputs", "metadata")


def _messages(value: Any, path: str) -> list[Any]:
    if isinstance(value, dict):
        if "messages" not in value:
            raise Problem(path, 'missing "messages"')
        return expect_list(value["messages"], join_path(path, "messages"))
    return expect_list(value, path)


def _content_text(content: Any, path: str) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = expect_list(content, path)
    texts = []
    for k, part in enumerate(parts):
        if isinstance(part, str):
            texts.append(part)
            continue
        part = expect_object(part, join_path(path, k))
        if part.get("type", "text") == "text" and part.get("text") is not None:
            texts.append(expect_str(part["text"], join_path(join_path(path, k), "text")))
    return "\n".join(t for t in texts if t)


def _tool_call(value: Any, path: str) -> ToolCall:
    obj = expect_object(value, path)
    if "function" in obj:
        fn = expect_object(obj["function"], join_path(path, "function"))
        fpath = join_path(path, "function")
        if "name" not in fn:
            raise Problem(fpath, 'missing "name"')
        name = expect_str(fn["name"], join_path(fpath, "name"))
        args: Any = fn.get("arguments")
        apath = join_path(fpath, "arguments")
    else:
        if "name" not in obj:
            raise Problem(path, 'missing "function" (or "name")')
        name = expect_str(obj["name"], join_path(path, "name"))
        args = obj.get("args", obj.get("arguments"))
        apath = join_path(path, "args" if "args" in obj else "arguments")
    if not name.strip():
        raise Problem(join_path(path, "name"), "empty tool name")
    if isinstance(args, str):
        if not args.strip():
            args = {}
        else:
            try:
                args = loads_json(args)
            except json.JSONDecodeError as exc:
                raise Problem(apath, f"arguments are not a JSON string: {json_message(exc)} (character {exc.pos + 1})") from None
            except RecursionError:
                raise Problem(apath, "arguments are not a JSON string: nested too deeply") from None
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise Problem(apath, f"expected a JSON object of arguments, got {json_type(args)}")
    return ToolCall(name, args)


def read_trajectory(value: Any, path: str) -> tuple[tuple[ToolCall, ...], str, str]:
    """(assistant tool calls in order, last assistant text, first user text) of a message list."""
    messages = _messages(value, path)
    calls: list[ToolCall] = []
    answer = ""
    user = ""
    base = join_path(path, "messages") if isinstance(value, dict) else path
    for i, msg in enumerate(messages):
        mpath = join_path(base, i)
        msg = expect_object(msg, mpath)
        if "role" not in msg:
            raise Problem(mpath, 'missing "role"')
        role = expect_str(msg["role"], join_path(mpath, "role"))
        text = _content_text(msg.get("content"), join_path(mpath, "content"))
        if role in ("user", "human") and not user:
            user = text
        if role in ("assistant", "ai"):
            tool_calls = msg.get("tool_calls") or []
            tool_calls = expect_list(tool_calls, join_path(mpath, "tool_calls"))
            calls.extend(_tool_call(tc, join_path(join_path(mpath, "tool_calls"), k)) for k, tc in enumerate(tool_calls))
            if text.strip():
                answer = text
    return tuple(calls), answer, user


def run_from_messages_record(obj: Any) -> Run:
    """A Run from one messages record; raises Problem with the field path."""
    obj = expect_object(obj, "")
    unknown = [k for k in obj if k not in KNOWN_FIELDS and not k.startswith("adk_")]
    if unknown:
        raise Problem(show(unknown[0]), f'unknown field "{show(unknown[0])}" (known: {", ".join(KNOWN_FIELDS)}, adk_*)')
    for key in ("id", "outputs", "reference_outputs"):
        if key not in obj:
            raise Problem("", f'missing "{key}"')
    run_id = obj["id"]
    if isinstance(run_id, int) and not isinstance(run_id, bool):
        run_id = str(run_id)
    run_id = expect_str(run_id, "id").strip()
    if not run_id:
        raise Problem("id", "empty run id")
    actual, answer, user = read_trajectory(obj["outputs"], "outputs")
    expected, reference, ref_user = read_trajectory(obj["reference_outputs"], "reference_outputs")
    user_input = obj.get("user_input")
    user_input = user or ref_user if user_input is None else expect_str(user_input, "user_input")
    title = obj.get("title")
    note = obj.get("human_note")
    return Run(
        id=run_id,
        title="" if title is None else expect_str(title, "title"),
        user_input=user_input,
        invocations=(Invocation(expected_calls=expected, actual_calls=actual, answer=answer, references=(reference,)),),
        human_verdict=parse_verdict(obj.get("human_verdict"), "human_verdict"),  # type: ignore[arg-type]
        human_note="" if note is None else expect_str(note, "human_note"),
        extra={k: v for k, v in obj.items() if k.startswith("adk_")},
    )


def _title(name: str) -> str:
    return name.replace("\\", "/").rsplit("/", 1)[-1] or name


def messages_from_text(text: str, name: str) -> CaseSet:
    """Runs from messages JSON (a list of records or ``{"runs": [...]}``) or JSONL text.
    Raises LoadError naming the file, ``line N`` or ``[i]`` / ``runs[i]`` and the field."""
    stripped = text.lstrip()
    try:
        data: Any = loads_json(text)
        whole_json = True
    except (json.JSONDecodeError, RecursionError):
        whole_json = False
        if not stripped.startswith("{"):
            parse_json(text, name)  # raises the JSON error with its line and column
    if whole_json:
        return messages_from_data(data, name)
    return _runs_of(json_lines(text, name), name)


def messages_from_data(data: Any, name: str) -> CaseSet:
    """Runs from one parsed JSON document: a list of records, ``{"runs": [...]}`` or one record."""
    if isinstance(data, dict) and "runs" in data:
        items = data["runs"]
        if not isinstance(items, list):
            raise LoadError(name, "runs", f"expected a list, got {json_type(items)}")
        return _runs_of([(f"runs[{i}]", r) for i, r in enumerate(items)], name)
    if isinstance(data, list):
        return _runs_of([(f"[{i}]", r) for i, r in enumerate(data)], name)
    if isinstance(data, dict):
        return _runs_of([("line 1", data)], name)
    raise LoadError(name, "(top level)", f"expected a list of runs, got {json_type(data)}")


def _runs_of(records: list[tuple[str, Any]], name: str) -> CaseSet:
    runs: list[Run] = []
    places: list[str] = []
    for place, record in records:
        try:
            runs.append(run_from_messages_record(record))
        except Problem as p:
            if place.startswith("line"):
                where = f"{place}, {p.path}" if p.path else place
            else:
                where = place + ("." + p.path if p.path and not p.path.startswith("[") else p.path)
            raise LoadError(name, where, p.message) from None
        places.append(place)
    check_unique_ids(runs, name, places)
    return make_case_set(runs, name, _title(name), f"message trajectories from {_title(name)}", places)


def loads_messages(data: bytes | str, name: str) -> CaseSet:
    """Runs from messages bytes or text; ``name`` labels errors."""
    text = text_of(data, name)
    return messages_from_text(text, name)


def load_messages(path: str) -> CaseSet:
    """Load a messages file (JSON or JSONL). Raises LoadError."""
    return loads_messages(read_bytes(path), str(path))
