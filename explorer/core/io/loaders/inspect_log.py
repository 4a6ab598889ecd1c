"""Inspect AI evaluation logs (``.eval`` and ``.json``) -> runs (issue 13; ``docs/formats.md``).

Read with Inspect's own reader, ``inspect_ai.log.read_eval_log`` (the ``inspect`` extra:
``pip install 'metric-tradeoff-explorer[inspect]'``): it knows every log version, the zstd
compression of recent ``.eval`` zips and the attachments samples refer to. Nothing is unpickled:
a log is a zip of JSON files or one JSON file, validated by Inspect's pydantic models. Before
reading, a ``.eval`` zip must hold ``header.json`` or ``_journal/start.json`` and no entry may be
over the file size limit uncompressed (:func:`~explorer.core.io.reading.max_bytes`).

Mapping, one run per sample and epoch (Inspect ``EvalSample``):

* id: the sample id; ``<id>#<epoch>`` when the log holds several epochs of that sample;
* actual calls: the ``tool_calls`` of the sample's assistant messages in order (``function`` and
  ``arguments``); answer: ``output.completion``; user input: the sample's ``input`` (its last
  user message when it is a message list); reference(s): ``target`` (a list gives several);
* expected calls: none (join them from an expectations file by sample id: ``example_id``);
* ``Run.extra``: ``example_id`` (sample id), ``inspect_epoch``, and per score ``S`` of the sample
  ``inspect_S`` (its value, after any human edit; lists and dicts as JSON text), and when a person
  edited it ``inspect_S_edited_by`` (the last edit's author) and, for a scorer's score a person
  changed, ``inspect_S_original`` (the scorer's value);
* person's verdict: the value of the score named ``verdict_score`` (``C`` / ``correct`` / 1 /
  true / ``acceptable`` = acceptable; ``I`` / ``N`` / 0 / false / ``unacceptable`` =
  unacceptable; absent = unlabelled; anything else, e.g. a partial ``P``, is an error), its
  explanation as the note; or a labels CSV keyed by run id.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..casefile import json_path
from ..errors import LoadError, json_spelling
from ..model import EXAMPLE_ID, CaseSet, Invocation, Run, ToolCall
from ..reading import check_size, max_bytes
from ...plural import counted, counted_of, noun
from ._common import check_unique_ids, make_case_set, short_title, show
from .options import DEFAULT_OPTIONS, ReadOptions

INSTALL_HINT = (
    "this is an Inspect AI log; reading it needs Inspect's reader: "
    "pip install 'metric-tradeoff-explorer[inspect]' (or pip install inspect-ai)"
)
ZIP_MAGIC = b"PK\x03\x04"
_ACCEPT = {"c", "correct", "acceptable", "pass", "passed", "yes", "true"}
_REJECT = {"i", "incorrect", "n", "unacceptable", "fail", "failed", "no", "false"}
_EXCLUDED = {"events", "store"}
"""Sample fields the explorer never reads (the full transcript), skipped when reading a ``.eval``."""


def is_zip(data: bytes) -> bool:
    """True when ``data`` starts like a zip archive (an Inspect ``.eval`` log is one)."""
    return data[:4] == ZIP_MAGIC


def is_inspect_json(data: Any) -> bool:
    """True for a parsed JSON ``EvalLog``: an object with ``version`` and an ``eval`` object."""
    return isinstance(data, dict) and "version" in data and isinstance(data.get("eval"), dict)


def _check_zip(data: bytes, name: str) -> None:
    """LoadError unless ``data`` is a zip holding an Inspect log whose entries, each and all
    together, unpack to at most :func:`max_bytes` (read from the archive's directory, nothing
    is unpacked here)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise LoadError(name, "", f"a damaged zip archive, not a readable Inspect log: {exc}") from None
    names = {i.filename for i in infos}
    if "header.json" not in names and "_journal/start.json" not in names:
        raise LoadError(name, "", "a zip archive but not an Inspect log (no header.json or _journal/start.json)")
    limit = max_bytes()
    for info in infos:
        if info.file_size > limit:
            check_size(info.file_size, name, f"entry {show(info.filename)} is")
    # the whole archive once unpacked, too: many entries each under the limit add up (zip bombs)
    check_size(sum(info.file_size for info in infos), name, "contents are")


def _read_log(data: bytes, name: str, fmt: str) -> Any:
    """``read_eval_log`` of ``data`` from a temporary file, in a worker thread: Inspect runs its
    reader on an event loop of its own and would otherwise patch a running one (the app's)."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise LoadError(name, "", INSTALL_HINT) from None
    fd, path = tempfile.mkstemp(suffix="." + fmt, prefix="metric-explorer-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)

        def read() -> Any:
            kwargs = {"exclude_fields": _EXCLUDED} if fmt == "eval" else {}
            return read_eval_log(path, resolve_attachments=True, format=fmt, **kwargs)

        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(read).result()
    except LoadError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure of a third-party reader on untrusted bytes is one LoadError line
        errors = getattr(exc, "errors", None)
        if callable(errors):
            try:
                first = errors()[0]
                where = json_path(tuple(first.get("loc", ())))
                raise LoadError(name, where, f"not a valid Inspect log: {first.get('msg', exc)}") from None
            except (IndexError, TypeError, AttributeError, KeyError):
                pass
        text = " ".join(str(exc).split()) or type(exc).__name__
        raise LoadError(name, "", f"not a readable Inspect log: {show(text, 200)}") from None
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass


def _scalar(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def score_verdict(value: Any) -> str | None:
    """A score value read as a verdict (see module doc); ValueError when it is not one."""
    if isinstance(value, bool):
        return "acceptable" if value else "unacceptable"
    if isinstance(value, (int, float)):
        if value == 1:
            return "acceptable"
        if value == 0:
            return "unacceptable"
        raise ValueError(f"{value!r} is not a verdict")
    if isinstance(value, str):
        low = value.strip().lower()
        if low in _ACCEPT:
            return "acceptable"
        if low in _REJECT:
            return "unacceptable"
    raise ValueError(f'"{show(str(value))}" is not a verdict')


def _text(content: Any) -> str:
    """Text of a chat message's ``content`` (a string or content parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(t for t in (getattr(p, "text", None) for p in content) if isinstance(t, str) and t)
    return ""


def _user_input(sample_input: Any) -> str:
    if isinstance(sample_input, str):
        return sample_input
    users = [m for m in (sample_input or []) if getattr(m, "role", None) == "user"]
    return _text(users[-1].content) if users else ""


def _run(sample: Any, run_id: str, options: ReadOptions, name: str) -> Run:
    place = f"sample {show(str(sample.id))} (epoch {sample.epoch})"
    calls = []
    for m in sample.messages or []:
        if getattr(m, "role", None) == "assistant":
            for tc in getattr(m, "tool_calls", None) or []:
                args = tc.arguments if isinstance(tc.arguments, dict) else {}
                calls.append(ToolCall(str(tc.function), args))
    answer = sample.output.completion if sample.output is not None else ""
    target = sample.target
    references = tuple(str(t) for t in target) if isinstance(target, list) else (str(target or ""),)
    user = _user_input(sample.input)
    extra: dict[str, Any] = {EXAMPLE_ID: str(sample.id), "inspect_epoch": int(sample.epoch)}
    verdict, note = None, ""
    for score_name, score in (sample.scores or {}).items():
        extra[f"inspect_{score_name}"] = _scalar(score.value)
        history = list(score.history or [])
        edits = [h for h in history if getattr(h, "provenance", None) is not None]
        if edits:
            if getattr(history[0], "provenance", None) is None:  # the scorer's own value, before the edits
                extra[f"inspect_{score_name}_original"] = _scalar(history[0].value)
            extra[f"inspect_{score_name}_edited_by"] = edits[-1].provenance.author
        if options.verdict_score and score_name == options.verdict_score:
            try:
                verdict = score_verdict(score.value)
            except ValueError as exc:
                raise LoadError(name, f"{place}, scores.{show(score_name)}.value",
                                f"{exc} (acceptable: C, 1, true; unacceptable: I, N, 0, false)") from None
            note = score.explanation or ""
    return Run(
        id=run_id,
        title=short_title(user),
        user_input=user,
        invocations=(Invocation(expected_calls=(), actual_calls=tuple(calls), answer=answer or "", references=references or ("",)),),
        human_verdict=verdict,  # type: ignore[arg-type]
        human_note=note,
        extra=extra,
    )


def in_dataset_order(log: Any, samples: list[Any]) -> list[Any]:
    """``samples`` in the order of the task's dataset (``log.eval.dataset.sample_ids``, the order
    Inspect read them in), each sample's epochs in turn; samples the header does not list keep
    their place after the others. An ``.eval`` log stores its samples sorted as text (E1, E10,
    E2, ...), which is not the order anyone wrote them in. An id the header lists twice keeps its
    first place; ids the header lists that no sample has are passed over."""
    dataset = getattr(getattr(log, "eval", None), "dataset", None)
    rank: dict[str, int] = {}
    for i in getattr(dataset, "sample_ids", None) or []:
        rank.setdefault(str(i), len(rank))  # the first place of an id listed twice
    order = [(rank[str(s.id)], s.epoch or 0, k) if str(s.id) in rank else (len(rank), 0, k) for k, s in enumerate(samples)]
    return [samples[k] for *_, k in sorted(order)]


def inspect_from_bytes(data: bytes, name: str, fmt: str, options: ReadOptions = DEFAULT_OPTIONS) -> CaseSet:
    """Runs from an Inspect log's bytes; ``fmt`` is ``"eval"`` (zip) or ``"json"``. Raises
    LoadError (Inspect not installed, not a log, a log without samples, a bad verdict score)."""
    if fmt == "eval":
        _check_zip(data, name)
    log = _read_log(data, name, fmt)
    samples = in_dataset_order(log, list(log.samples or []))
    if not samples:
        raise LoadError(name, "samples", f"no samples in the log (status {log.status})")
    epochs: dict[str, int] = {}
    for s in samples:
        epochs[str(s.id)] = epochs.get(str(s.id), 0) + 1
    if options.verdict_score and not any(options.verdict_score in (s.scores or {}) for s in samples):
        seen = sorted({k for s in samples for k in (s.scores or {})})
        raise LoadError(name, "", f'no sample has a score named "{show(options.verdict_score)}" (scores: {", ".join(seen) or "none"})')
    runs = [_run(s, str(s.id) if epochs[str(s.id)] == 1 else f"{s.id}#{s.epoch}", options, name) for s in samples]
    # an int id and a text id that read alike (1 and "1") would be two runs of one id
    stored = {id(s): k for k, s in enumerate(log.samples or [])}
    check_unique_ids(runs, name, (f"samples[{stored[id(s)]}] (id {json_spelling(s.id)}, epoch {s.epoch})" for s in samples))
    notes = []
    no_calls = sum(1 for r in runs if not r.invocations[0].actual_calls)
    no_answer = sum(1 for r in runs if not r.invocations[0].answer.strip())
    if no_calls:
        notes.append(f"{counted_of(no_calls, len(runs), 'sample')} {noun(no_calls, 'has', 'have')} no tool calls: "
                     "read as runs with no calls")
    if no_answer:
        notes.append(f"{counted_of(no_answer, len(runs), 'sample')} {noun(no_answer, 'has', 'have')} no answer: "
                     "read as runs with an empty answer")
    if log.status != "success":
        notes.append(f"the log's status is {log.status}: {counted(len(runs), 'sample')} read")
    task = getattr(log.eval, "task", "") or "Inspect log"
    base = name.replace("\\", "/").rsplit("/", 1)[-1] or name
    cs = make_case_set(runs, name, f"{task} ({base})", f"Inspect AI log {base}: task {task}, model {getattr(log.eval, 'model', '')}")
    return CaseSet(cs.name, cs.description, cs.runs, cs.source, notes=tuple(f"{name}: {n}" for n in notes))
