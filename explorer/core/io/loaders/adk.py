"""Google ADK eval set results (``*.evalset_result.json``) -> runs.

Source of the schema: google-adk ``evaluation/eval_result.py`` (``EvalSetResult``,
``EvalCaseResult``), ``eval_metrics.py`` (``EvalMetricResult``, ``EvalMetricResultPerInvocation``,
``EvalStatus``), ``eval_case.py`` (``Invocation``, ``IntermediateData``, ``InvocationEvents``,
``get_all_tool_calls``) and ``local_eval_set_results_manager.py`` (files under
``.adk/eval_history/``). Every model there uses a camelCase alias generator with
``populate_by_name``, so both ``eval_case_results`` and ``evalCaseResults`` are read.

Mapping, per case (one run) and per invocation (``eval_metric_result_per_invocation[i]``):

* expected calls and reference answer from ``expected_invocation``, actual calls and answer from
  ``actual_invocation``;
* calls: ``intermediate_data.tool_uses`` (older files) or every ``function_call`` part of
  ``intermediate_data.invocation_events[*].content.parts`` (newer files), as ADK's
  ``get_all_tool_calls`` reads them; null args read as ``{}``;
* answer: the text parts of ``final_response`` joined by ``"\\n"``;
* title: the first user message (``user_content``), its first line cut to 60 characters as an
  Inspect sample's (``_common.short_title``), ``""`` when there is none; the ``eval_id`` is the
  run's id (it was the title too, so the table and ``score`` showed it twice);
* ``Run.extra``: ``adk_tool_trajectory_avg_score``, ``adk_response_match_score`` (the case's
  ``overall_eval_metric_results`` scores, None when absent), ``adk_final_eval_status``
  (``PASSED``/``FAILED``/``NOT_EVALUATED``/``INFORMATIONAL``), ``adk_expected_invocations``,
  ``adk_actual_invocations`` and ``adk_invocation_count_mismatch`` (True when an invocation has
  no expected or no actual side; such runs are kept, the missing side read as no calls and an
  empty answer). A case with no invocations at all (ADK's failed inference) is kept as one empty
  invocation with both counts 0.

Each such assumption (a missing side, no invocations, a run id made up for an empty or repeated
``eval_id``) is one ``CaseSet.notes`` line naming the file and the JSON path (the CLI prints them
on stderr, the page in its load report).

Files written by ADK up to 1.21 are a JSON *string* holding the JSON; that is unwrapped. An ADK
eval set (``*.evalset.json``, or the older list form ``*.test.json``) holds expected runs only and
raises one LoadError saying so.
"""

from __future__ import annotations

from typing import Any

from ..errors import LoadError, json_spelling
from ..model import CaseSet, Invocation, Run, ToolCall
from ..reading import loads_json, nested_too_deeply, parse_json, read_bytes, text_of
from ._common import (
    Problem, expect_list, expect_object, fast_call, join_path, json_type, make_case_set, parse_call_object, parse_calls,
    short_title, show,
)

EVAL_STATUS_NAMES = {1: "PASSED", 2: "FAILED", 3: "NOT_EVALUATED", 4: "INFORMATIONAL"}
"""ADK ``EvalStatus`` values as written on disk (``model_dump_json`` writes the int)."""

ADK_RESULTS_HINT = (
    "load the eval set results that `adk eval` and the ADK web UI write under "
    "<agent>/.adk/eval_history/ (*.evalset_result.json)"
)
EVALSET_MESSAGE = "this is an ADK eval set: it holds expected runs only, no agent answers; " + ADK_RESULTS_HINT
TEST_CONFIG_MESSAGE = ("this is an ADK test config: it holds eval criteria (\"criteria\"), no runs; "
                       + ADK_RESULTS_HINT)


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(p.title() for p in rest)


def get(obj: dict[str, Any], key: str, default: Any = None) -> Any:
    """``obj[key]`` under its snake_case or camelCase name (ADK writes both), else ``default``."""
    if key in obj:
        return obj[key]
    return obj.get(_camel(key), default)


def has(obj: dict[str, Any], key: str) -> bool:
    """True when ``obj`` holds ``key`` in snake_case or camelCase."""
    return key in obj or _camel(key) in obj


RESULT_ID_KEYS = ("eval_set_result_id", "eval_set_result_name")
"""Keys only an ADK EvalSetResult holds besides its list ``eval_case_results`` (google-adk
``eval_result.py``): a file with one of them is an eval set result even when the list is
missing, and the reader then names the missing list."""

EVAL_SET_ID_KEY = "eval_set_id"
"""The key an ADK EvalSet holds besides its list ``eval_cases`` (``eval_set.py``); an
EvalSetResult holds it too, next to :data:`RESULT_ID_KEYS`."""


def _has_result_id(data: dict[str, Any]) -> bool:
    return any(has(data, key) for key in RESULT_ID_KEYS)


def is_eval_set(data: Any) -> bool:
    """True for an ADK EvalSet (object with ``eval_cases``, or with ``eval_set_id`` and none of
    the result keys: an eval set missing its list is still one) or the older list form of
    ``*.test.json`` (a list of objects with ``query`` / ``expected_tool_use``)."""
    if isinstance(data, dict):
        if has(data, "eval_case_results") or _has_result_id(data):
            return False
        return has(data, "eval_cases") or has(data, EVAL_SET_ID_KEY)
    if isinstance(data, list) and data and isinstance(data[0], dict):
        return "query" in data[0] or "expected_tool_use" in data[0]
    return False


def is_eval_results(data: Any) -> bool:
    """True for an ADK EvalSetResult object: it has ``eval_case_results``, or one of
    :data:`RESULT_ID_KEYS` (the list missing; the reader then says so)."""
    return isinstance(data, dict) and (has(data, "eval_case_results") or (_has_result_id(data) and not has(data, "eval_cases")))


TEST_CONFIG_KEYS = frozenset({"criteria", "user_simulator_config", "userSimulatorConfig"})
"""The keys of ADK's ``EvalConfig`` (``eval_config.py``), what a ``test_config.json`` holds."""


def is_test_config(data: Any) -> bool:
    """True for an ADK ``test_config.json``: an object whose ``criteria`` is an object and whose
    keys are all :data:`TEST_CONFIG_KEYS` (eval criteria, no runs)."""
    return isinstance(data, dict) and isinstance(data.get("criteria"), dict) and set(data) <= TEST_CONFIG_KEYS


def unwrap(data: Any, name: str) -> Any:
    """A file that is a JSON string holding the JSON (ADK <= 1.21) -> the inner value."""
    if isinstance(data, str):
        try:
            return loads_json(data)
        except ValueError as exc:
            line, col = getattr(exc, "lineno", "?"), getattr(exc, "colno", "?")
            raise LoadError(
                name, f"(JSON string) line {line}, column {col}",
                f"the file is a JSON string but its text is not JSON: {getattr(exc, 'msg', exc)}",
            ) from None
        except RecursionError:  # nested past 1,000 levels inside the string
            deep = nested_too_deeply(name, data)
            raise LoadError(name, f"(JSON string) {deep.location}",
                            f"the file is a JSON string but its text is not JSON: {deep.problem.removeprefix('invalid JSON: ')}") from None
    return data


def _null_as_empty(value: Any) -> Any:
    """``[]`` for a JSON null (ADK writes null for an empty list), else ``value`` as it is, for
    ``expect_list`` to check. Before, ``value or []`` also turned ``""``, ``0``, ``false`` and
    ``{}`` into an empty list without a word (a newcomer's trial)."""
    return [] if value is None else value


def _text_of(content: Any, path: str) -> str:
    """Text parts of a genai ``Content`` joined by newline ("" for null)."""
    if content is None:
        return ""
    obj = expect_object(content, path)
    parts = _null_as_empty(get(obj, "parts"))
    parts = expect_list(parts, join_path(path, "parts"))
    texts = []
    for k, part in enumerate(parts):
        part = expect_object(part, join_path(join_path(path, "parts"), k))
        text = part.get("text")
        if text is None:
            continue
        if not isinstance(text, str):
            raise Problem(join_path(join_path(join_path(path, "parts"), k), "text"), f"expected a string, got {json_type(text)}")
        if text:  # ADK: "\n".join(part.text for part in parts if part.text)
            texts.append(text)
    return "\n".join(texts)


def _calls_of(intermediate: Any, path: str) -> tuple[ToolCall, ...]:
    """Calls of ``intermediate_data``: ``tool_uses`` or ``function_call`` parts of
    ``invocation_events`` (ADK ``get_all_tool_calls``)."""
    if intermediate is None:
        return ()
    obj = expect_object(intermediate, path)
    calls: list[ToolCall] = []
    if has(obj, "invocation_events"):
        key = "invocation_events" if "invocation_events" in obj else "invocationEvents"
        events = expect_list(_null_as_empty(obj[key]), join_path(path, key))
        for e, event in enumerate(events):
            epath = join_path(join_path(path, key), e)
            event = expect_object(event, epath)
            content = event.get("content")
            if content is None:
                continue
            content = expect_object(content, join_path(epath, "content"))
            parts = expect_list(_null_as_empty(content.get("parts")), join_path(join_path(epath, "content"), "parts"))
            for k, part in enumerate(parts):
                ppath = join_path(join_path(join_path(epath, "content"), "parts"), k)
                part = expect_object(part, ppath)
                fc_key = "function_call" if "function_call" in part else "functionCall"
                if part.get(fc_key) is not None:
                    calls.append(fast_call(part[fc_key]) or parse_call_object(part[fc_key], join_path(ppath, fc_key)))
        return tuple(calls)
    key = "tool_uses" if "tool_uses" in obj else "toolUses"
    uses = expect_list(_null_as_empty(obj.get(key)), join_path(path, key))
    return parse_calls(uses, join_path(path, key))


def _side(inv: Any, path: str) -> tuple[str, tuple[ToolCall, ...], str] | None:
    """(user text, calls, answer) of one ADK ``Invocation``; None when it is null/absent."""
    if inv is None:
        return None
    obj = expect_object(inv, path)
    user = _text_of(get(obj, "user_content"), join_path(path, "user_content"))
    answer = _text_of(get(obj, "final_response"), join_path(path, "final_response"))
    calls = _calls_of(get(obj, "intermediate_data"), join_path(path, "intermediate_data"))
    return user, calls, answer


def _status_name(value: Any, path: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value in EVAL_STATUS_NAMES:
        return EVAL_STATUS_NAMES[value]
    if isinstance(value, str) and value.strip().upper() in EVAL_STATUS_NAMES.values():
        return value.strip().upper()
    raise Problem(path, f"expected an ADK eval status (1 PASSED, 2 FAILED, 3 NOT_EVALUATED, 4 INFORMATIONAL), got {json_spelling(value)}")


def _metric_scores(case: dict[str, Any], path: str) -> dict[str, float | None]:
    """``{metric_name: score}`` from ``overall_eval_metric_results`` (or the deprecated
    ``eval_metric_results`` list of ``[metric, result]`` pairs)."""
    scores: dict[str, float | None] = {}
    if has(case, "overall_eval_metric_results"):
        key = "overall_eval_metric_results" if "overall_eval_metric_results" in case else "overallEvalMetricResults"
        items = expect_list(_null_as_empty(case[key]), join_path(path, key))
        pairs = [(join_path(join_path(path, key), i), item) for i, item in enumerate(items)]
    else:
        key = "eval_metric_results" if "eval_metric_results" in case else "evalMetricResults"
        items = expect_list(_null_as_empty(case.get(key)), join_path(path, key))
        pairs = []
        for i, item in enumerate(items):
            ipath = join_path(join_path(path, key), i)
            if isinstance(item, list) and len(item) == 2:
                pairs.append((join_path(ipath, 1), item[1]))
            else:
                pairs.append((ipath, item))
    for ipath, item in pairs:
        item = expect_object(item, ipath)
        metric = get(item, "metric_name")
        if not isinstance(metric, str):
            raise Problem(join_path(ipath, "metric_name"), f"expected a string, got {json_type(metric)}")
        score = item.get("score")
        if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
            raise Problem(join_path(ipath, "score"), f"expected a number or null, got {json_type(score)}")
        try:
            scores[metric] = None if score is None else float(score)
        except OverflowError:  # an integer of hundreds of digits
            raise Problem(join_path(ipath, "score"), f"number too large: {show(str(score), 20)}") from None
    return scores


NOTES_PER_KIND = 5
"""Notes listed one by one per kind of assumption (a missing side, no invocations, an id made up);
the rest of a kind are counted in one line, so a big file cannot flood stderr or the load report."""


def _case_to_run(case: Any, path: str, run_id: str, notes: list[tuple[str, str]] | None = None) -> Run:
    """One case -> a Run; ``notes`` gains ``(kind, "<JSON path>: <what was assumed>")`` for each
    invocation with no actual or no expected side and for a case with no invocations."""
    notes = [] if notes is None else notes
    case = expect_object(case, path)
    if not has(case, "eval_metric_result_per_invocation"):
        raise Problem(path, 'missing "eval_metric_result_per_invocation"')
    key = "eval_metric_result_per_invocation" if "eval_metric_result_per_invocation" in case else "evalMetricResultPerInvocation"
    per_inv = expect_list(_null_as_empty(case[key]), join_path(path, key))
    status = _status_name(get(case, "final_eval_status"), join_path(path, "final_eval_status"))
    scores = _metric_scores(case, path)
    invocations: list[Invocation] = []
    users: list[str] = []
    n_expected = n_actual = 0
    for i, entry in enumerate(per_inv):
        ipath = join_path(join_path(path, key), i)
        entry = expect_object(entry, ipath)
        actual = _side(get(entry, "actual_invocation"), join_path(ipath, "actual_invocation"))
        expected = _side(get(entry, "expected_invocation"), join_path(ipath, "expected_invocation"))
        if actual is None and expected is None:
            raise Problem(ipath, 'missing "actual_invocation" and "expected_invocation"')
        n_actual += actual is not None
        n_expected += expected is not None
        if actual is None:
            notes.append(("actual", f"{ipath}: no actual_invocation; scored as a missing turn (the run fails)"))
        if expected is None:
            notes.append(("expected", f"{ipath}: no expected_invocation; read as a turn expecting no calls, "
                                      "with an empty reference"))
        a_user, a_calls, a_answer = actual or ("", (), "")
        e_user, e_calls, e_answer = expected or ("", (), "")
        users.append(a_user or e_user)
        invocations.append(Invocation(expected_calls=e_calls, actual_calls=a_calls, answer=a_answer, references=(e_answer,)))
    if not invocations:
        notes.append(("empty", f"{join_path(path, key)}: no invocations (ADK's failed inference); read as one empty turn"))
        invocations.append(Invocation(expected_calls=(), actual_calls=(), answer="", references=("",)))
    return Run(
        id=run_id,
        # the first user message, shortened (as an Inspect sample's): the eval id is the run's id
        # already, and as its title too the table and score showed it twice
        title=short_title(next((u for u in users if u.strip()), "")),
        user_input="\n".join(u for u in users if u),
        invocations=tuple(invocations),
        extra={
            "adk_tool_trajectory_avg_score": scores.get("tool_trajectory_avg_score"),
            "adk_response_match_score": scores.get("response_match_score"),
            "adk_final_eval_status": status,
            "adk_expected_invocations": n_expected,
            "adk_actual_invocations": n_actual,
            "adk_invocation_count_mismatch": n_expected != n_actual,
        },
    )


def adk_results_from_data(data: Any, name: str) -> CaseSet:
    """Build a CaseSet from parsed ADK EvalSetResult JSON ``data`` (already unwrapped or a JSON
    string holding it). Run ids are the cases' ``eval_id`` (``case-<k>`` when empty; a repeated id
    gets ``#2``, ``#3``). Raises LoadError ``"<name>: <JSON path>: <problem>"``.

    ``CaseSet.notes``: one line ``"<name>: <JSON path>: <what was assumed>"`` per case whose id was
    made up (no ``eval_id``, or a repeated one), per invocation with no ``actual_invocation``
    (scored as a missing turn) or no ``expected_invocation``, and per case with no invocations;
    after :data:`NOTES_PER_KIND` of a kind, one line counting the rest (the CLI prints them on
    stderr, the page in its load report)."""
    data = unwrap(data, name)
    if is_eval_set(data):
        raise LoadError(name, "", EVALSET_MESSAGE)
    if is_test_config(data):
        raise LoadError(name, "(top level)", TEST_CONFIG_MESSAGE)
    if not isinstance(data, dict):
        raise LoadError(name, "(top level)", f'expected an ADK eval set result object with "eval_case_results", got {json_type(data)}')
    if not has(data, "eval_case_results") and _has_result_id(data):
        raise LoadError(name, "(top level)", 'missing "eval_case_results" (the list of eval case results; '
                        f'the file has {", ".join(k for k in RESULT_ID_KEYS if has(data, k))} but no cases)')
    if not has(data, "eval_case_results"):
        raise LoadError(name, "(top level)", f'missing "eval_case_results" (not an ADK eval set result; {ADK_RESULTS_HINT})')
    key = "eval_case_results" if "eval_case_results" in data else "evalCaseResults"
    cases = data[key]
    if not isinstance(cases, list):
        raise LoadError(name, key, f"expected a list, got {json_type(cases)}")
    if not cases:
        raise LoadError(name, key, "no eval case results (0 runs)")
    runs: list[Run] = []
    seen: dict[str, int] = {}
    first: dict[str, str] = {}
    notes: list[tuple[str, str]] = []
    # ids the file gives: a made-up id (a repeat's "#2", "case-3" for a missing one) skips them, so
    # it never becomes a run's own id ("x", "x", "x#2" made two runs "x#2", one label counting twice)
    taken = {i for i in (get(c, "eval_id", "") if isinstance(c, dict) else "" for c in cases) if isinstance(i, str) and i}
    used: set[str] = set()
    for k, case in enumerate(cases):
        path = f"{key}[{k}]"
        try:
            raw_id = get(case, "eval_id", "") if isinstance(case, dict) else ""
            if not isinstance(raw_id, str):
                raise Problem(join_path(path, "eval_id"), f"expected a string, got {json_type(raw_id)}")
            base = raw_id or f"case-{k + 1}"
            run_id = base
            if base in used or (not raw_id and base in taken):  # a repeat, or a made-up id the file gives
                n = seen.get(base, 1) + 1
                while f"{base}#{n}" in taken or f"{base}#{n}" in used:
                    n += 1
                seen[base] = n
                run_id = f"{base}#{n}"
            used.add(run_id)
            first.setdefault(base, path)
            if isinstance(case, dict) and not raw_id:
                notes.append(("id", f"{path}: {'empty' if has(case, 'eval_id') else 'no'} eval_id; run id {run_id}"))
            elif run_id != base:
                notes.append(("id", f"{join_path(path, 'eval_id')}: {json_spelling(base)} repeats {first[base]}'s; run id {run_id}"))
            runs.append(_case_to_run(case, path, run_id, notes))
        except Problem as p:
            raise LoadError(name, p.path, p.message) from None
    title = get(data, "eval_set_result_name") or get(data, "eval_set_id") or "ADK eval results"
    cs = make_case_set(runs, name, str(title), f"ADK eval set results of eval set {get(data, 'eval_set_id', '')!s}")
    if not notes:
        return cs
    return CaseSet(cs.name, cs.description, cs.runs, cs.source, notes=tuple(f"{name}: {n}" for n in _capped(notes)))


MORE = {"actual": "invocations with no actual_invocation (scored as missing turns)",
        "expected": "invocations with no expected_invocation (read as expecting no calls)",
        "empty": "cases with no invocations (read as one empty turn)",
        "id": "cases whose run id was made up (no eval_id, or a repeated one)"}


def _capped(notes: list[tuple[str, str]]) -> list[str]:
    """The first :data:`NOTES_PER_KIND` notes of each kind in file order, then per kind
    ``"... and N more <kind>"``."""
    out: list[str] = []
    shown: dict[str, int] = {}
    for kind, text in notes:
        shown[kind] = shown.get(kind, 0) + 1
        if shown[kind] <= NOTES_PER_KIND:
            out.append(text)
    out += [f"and {n - NOTES_PER_KIND:,} more {MORE[kind]}" for kind, n in shown.items() if n > NOTES_PER_KIND]
    return out


def loads_adk_results(data: bytes | str, name: str) -> CaseSet:
    """Parse ADK EvalSetResult JSON given as bytes or text; ``name`` labels errors."""
    text = text_of(data, name)
    return adk_results_from_data(parse_json(text, name), name)


def load_adk_results(path: str) -> CaseSet:
    """Load an ``*.evalset_result.json`` file. Raises LoadError (file, JSON path, problem)."""
    return loads_adk_results(read_bytes(path), str(path))
