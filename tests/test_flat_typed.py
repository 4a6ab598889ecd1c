"""Issue 14 (faster first load): the typed decode of a flat JSONL line reads it as the old path did.

:func:`explorer.core.io.loaders.flat_typed.typed_run` decodes a line with msgspec straight into the
invocation tuples. The old path, kept as the fallback and the definition here: ``bigload._loads``
(orjson, or the standard library where orjson is not exact or refuses) then
:func:`~explorer.core.io.loaders.flat.well_formed_run`, else ``run_from_record``. The laws, on
generated records written several ways (orjson, ``json.dumps`` with ``\\u`` escapes and spaces,
with duplicate keys) and on hand-written edge lines:

* whenever ``typed_run`` returns a result, the old path accepts the line with the same id,
  verdict code, invocations (every value of the same Python type, dict keys in the same order)
  and title, and its call texts are ``featurestore._calls_json``'s bytes;
* ``bigload.chunk_features`` (which tries ``typed_run`` first) gives the old loop's ids, verdicts,
  invocations, titles, display texts, or its error message, line for line.
"""

from __future__ import annotations

import json

import orjson
import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from explorer.core.evaluation.features import HUMAN_CODES
from explorer.core.io.bigload import _loads, chunk_features
from explorer.core.io.errors import LoadError
from explorer.core.io.featurestore import CallTextArrays, _calls_json, plain_texts
from explorer.core.io.loaders._common import Problem, json_type
from explorer.core.io.loaders.flat import run_from_record, well_formed_run
from explorer.core.io.loaders.flat_typed import typed_run
from explorer.core.io.model import PlainInvocation
from explorer.core.io.reading import orjson_exact
from explorer.core.scoring.fields import DEFAULT_ID_PATTERN


def typed(value):
    """``value`` with the Python type of every part spelled out (dict key order, int vs float vs
    bool, -0.0, tuple vs list), so two values compare equal only if they are the same."""
    if isinstance(value, dict):
        return ("dict", tuple((k, typed(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(typed(v) for v in value))
    return (type(value).__name__, repr(value))


def old_read(line: bytes):
    """The old path of one line: ``(id, code, invocations, title)`` from ``well_formed_run`` (None
    where it declines), or ``"error"`` where the line does not parse."""
    try:
        record = _loads(line, 1, "f.jsonl")
    except LoadError:
        return "error"
    parts = well_formed_run(record)
    return None if parts is None else (*parts, record.get("title") or "")


def check_line(line: bytes) -> bool:
    """The first law on one line (the big loader tries every line; the old path reads those
    orjson_exact refuses with the standard library); True when the typed path took it."""
    got = typed_run(line, with_texts=True)
    if got is None:
        return False
    want = old_read(line)
    assert want not in (None, "error"), line
    assert typed(got[:4]) == typed(want), line
    texts = got[4]
    assert len(texts) == len(got[2])
    for (exp_text, act_text), inv in zip(texts, got[2]):
        for text, calls in ((exp_text, inv.expected), (act_text, inv.actual)):
            if text is not None:
                assert text == _calls_json(calls), line
    assert typed_run(line) == (*got[:4], None)
    return True


# --- generated records --------------------------------------------------------------------

def mostly(valid, other):
    """``valid`` nine times in ten, else ``other`` (a record broken in one place)."""
    return st.integers(0, 9).flatmap(lambda k: other if k == 0 else valid)


TEXT = mostly(st.text(max_size=6), st.sampled_from(["é", "😀", "\u2028", "a\"b\\c", "\x00\x1f\x7f", "\ud800", "x\udfff"]))
SCALAR = mostly(st.none() | st.booleans() | st.integers(-3, 3) | st.integers(-10**18 + 1, 10**18 - 1)
                | st.floats(allow_nan=False, allow_infinity=False) | TEXT,
                st.integers(-2**70, 2**70) | st.sampled_from([2**63 - 1, 2**63, 2**64 - 1, 2**64, -2**63, -2**63 - 1, 0.0, -0.0, 1e20, 1.5e-7])
                | st.floats())
VALUE = st.recursive(SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3), max_leaves=8)
ARGS = st.none() | st.dictionaries(TEXT, VALUE, max_size=3) | st.dictionaries(TEXT, VALUE, max_size=3) | VALUE


CALL = st.fixed_dictionaries({"name": mostly(st.sampled_from(["search", "book", " book ", "é"]), st.sampled_from(["", " ", None, 1]))},
                             optional={"args": ARGS}).flatmap(
    lambda c: mostly(st.just(c), st.just({**c, "extra": 1})))
CALLS = st.lists(CALL, max_size=3)
REFS = mostly(st.sampled_from([{"reference": "ok"}, {"reference": ""}, {"references": ["ok", "done"]}, {"references": ["x"]}]),
              st.sampled_from([{"references": []}, {"references": ["ok", 1]}, {"reference": None}, {"reference": "a", "references": ["b"]},
                               {}, {"references": '["a"]'}]))


@st.composite
def invocation(draw) -> dict:
    inv = {"expected_calls": draw(mostly(CALLS, VALUE)), "answer": draw(mostly(st.sampled_from(["ok", "", "booked"]), VALUE))}
    same = isinstance(inv["expected_calls"], list) and draw(st.booleans())
    inv["actual_calls"] = list(inv["expected_calls"]) if same else draw(mostly(CALLS, VALUE))  # often the same calls
    inv.update(draw(REFS))
    if draw(st.integers(0, 19)) == 0:
        inv.pop(draw(st.sampled_from(["expected_calls", "actual_calls", "answer"])))
    if draw(st.integers(0, 19)) == 0:
        inv["extra"] = 1
    return inv


@st.composite
def records(draw) -> dict:
    rec: dict = {"id": draw(mostly(st.sampled_from(["r1", " r2 ", "\tr3\u3000", 7, -8, 10**18 - 1]),
                                   st.sampled_from([2**64 - 1, 2**64, "", "  ", True, 1.5, None, ["x"]])))}
    if draw(st.integers(0, 3)) == 0:
        rec["invocations"] = draw(mostly(st.lists(invocation(), min_size=1, max_size=3), st.just([]) | VALUE))
        if draw(st.integers(0, 9)) == 0:
            rec["answer"] = "clash"
    else:
        rec.update(draw(invocation()))
    for key in ("title", "user_input", "human_note", "human_verdict", "labels", "adk_score", "unknown"):
        if draw(st.integers(0, 2 if key[0] not in "au" else 12)) == 0:
            valid = {"human_verdict": [None, "", "acceptable", "unacceptable"], "labels": [None]}.get(key, [None, "", "t", "é 😀"])
            rec[key] = draw(mostly(st.sampled_from(valid), VALUE | st.just("Acceptable")))
    if draw(st.integers(0, 9)) == 0:
        rec.pop("id")
    return rec


def writings(rec: dict, dup: tuple[str, object] | None) -> list[bytes]:
    """``rec`` as JSONL lines the ways files are written; ``dup``: a key written once more first."""
    out = []
    try:
        out.append(orjson.dumps(rec))
    except TypeError:  # integers over 64 bits, lone surrogates
        pass
    for kwargs in ({"ensure_ascii": True}, {"ensure_ascii": False, "separators": (", ", ": ")}):
        try:
            out.append(json.dumps(rec, **kwargs).encode("utf-8", "surrogatepass"))
        except (ValueError, TypeError):
            pass
    if dup is not None:
        key, value = dup
        head = b'{' + json.dumps(key).encode() + b":" + json.dumps(value).encode("utf-8", "surrogatepass")
        out += [head + (b"," + line[1:] if line != b"{}" else b"}") for line in out[:1]]
    return out


@hsettings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records(), st.none() | st.tuples(st.sampled_from(["id", "title", "answer", "labels", "invocations", "reference"]), VALUE))
def test_what_the_typed_path_reads_it_reads_as_the_old_path(rec, dup):
    for line in writings(rec, dup):
        check_line(line)


@hsettings(max_examples=300, deadline=None)
@given(st.lists(st.fixed_dictionaries({"name": st.sampled_from(["s", "book"]), "args": st.dictionaries(TEXT, VALUE, max_size=4)}),
                min_size=1, max_size=3))
def test_call_texts_are_the_stores_bytes(calls):
    """Well-formed calls with any args: the typed path takes the line (unless orjson is not
    exact or refuses it), and its texts are ``_calls_json``'s or left to it."""
    rec = {"id": "r", "expected_calls": calls, "actual_calls": calls[:1], "answer": "a", "reference": "a"}
    try:
        line = orjson.dumps(rec)
    except TypeError:
        return
    took = check_line(line)
    try:
        orjson.loads(line)
        parsed = True
    except orjson.JSONDecodeError:
        parsed = False
    if orjson_exact(line) and parsed and not any(name.strip() == "" for name in (c["name"] for c in calls)):
        assert took


# --- hand-written lines -------------------------------------------------------------------

COMMON = b'{"id":"R1","title":"Zurich","user_input":"Book","human_verdict":"acceptable",' \
         b'"expected_calls":[{"name":"search","args":{"to":"FRA","n":2}},{"name":"book","args":{"f":"AF1"}}],' \
         b'"actual_calls":[{"name":"search","args":{"to":"FRA","n":2}}],"answer":"Booked","references":["Booked","Done"]}'


@pytest.mark.parametrize("line, want", [
    (COMMON, ("R1", 1, [([("search", {"to": "FRA", "n": 2}), ("book", {"f": "AF1"})], [("search", {"to": "FRA", "n": 2})],
                         "Booked", ("Booked", "Done"))], "Zurich")),
    # integer id -> its text; null args and absent args -> {}; reference -> one reference; no title -> ""
    (b'{"id":12,"expected_calls":[{"name":"s","args":null}],"actual_calls":[{"name":"s"}],"answer":"","reference":"x"}',
     ("12", -1, [([("s", {})], [("s", {})], "", ("x",))], "")),
    # ids are stripped; null title, verdict, note, labels read as absent
    (b'{"id":" r 2 ","title":null,"human_verdict":null,"human_note":null,"labels":null,"user_input":null,'
     b'"expected_calls":[],"actual_calls":[],"answer":"a","reference":"a"}', ("r 2", -1, [([], [], "a", ("a",))], "")),
    (b'{"id":"u","human_verdict":"unacceptable","expected_calls":[],"actual_calls":[],"answer":"a","reference":"a"}',
     ("u", 0, [([], [], "a", ("a",))], "")),
    (b'{"id":"e","human_verdict":"","expected_calls":[],"actual_calls":[],"answer":"a","reference":"a"}',
     ("e", -1, [([], [], "a", ("a",))], "")),
    # duplicate keys: the last one counts (orjson's reading), at the top and inside args
    (b'{"id":"first","id":"last","expected_calls":[{"name":"s","args":{"k":1,"j":0,"k":2}}],"actual_calls":[],'
     b'"answer":"a","answer":"b","reference":"r"}', ("last", -1, [([("s", {"k": 2, "j": 0})], [], "b", ("r",))], "")),
    # several invocations
    (b'{"id":"m","invocations":[{"expected_calls":[],"actual_calls":[{"name":"t","args":{"x":[1,2.5,true,null]}}],'
     b'"answer":"y","reference":"y"},{"expected_calls":[],"actual_calls":[],"answer":"","references":["z"]}]}',
     ("m", -1, [([], [("t", {"x": [1, 2.5, True, None]})], "y", ("y",)), ([], [], "", ("z",))], "")),
    # escapes: a surrogate pair, \u escapes, non-ASCII; the longest integers tried (18 digits: orjson_exact); floats
    (b'{"id":"\\u00e9","expected_calls":[{"name":"s","args":{"q":"\\ud83d\\ude00 \\"\\n","big":999999999999999999,'
     b'"neg":-999999999999999999,"f":-0.0,"e":1E2,"g":1e-7}}],"actual_calls":[],"answer":"\xc3\xa9","reference":"x"}',
     ("é", -1, [([("s", {"q": "😀 \"\n", "big": 10**18 - 1, "neg": 1 - 10**18, "f": -0.0, "e": 100.0, "g": 1e-7})], [], "é",
                 ("x",))], "")),
])
def test_lines_the_typed_path_takes(line, want):
    got = typed_run(line, with_texts=True)
    rid, code, invs, title = want
    expected = (rid, code, tuple(PlainInvocation(tuple(e), tuple(a), ans, refs) for e, a, ans, refs in invs), title)
    assert typed(got[:4]) == typed(expected)
    assert check_line(line)


def test_integers_past_64_bits_and_long_floats_are_read_as_the_standard_library_reads_them():
    """Lines orjson_exact refuses (19 digits in a row) go the typed way too: integers exact, floats
    as float() rounds them; a call list text with 19 digits in a row is left to _calls_json (it
    hands integers past 64 bits to the standard library's writer)."""
    line = (b'{"id":123456789012345678901,"expected_calls":[{"name":"s","args":{"acct":-1180591620717411303424,'
            b'"f":0.1000000000000000000055511151231257827,"e":12345678901234567890123e-30}}],'
            b'"actual_calls":[{"name":"t","args":{"n":1}}],"answer":"a","reference":"a"}')
    assert not orjson_exact(line)
    got = typed_run(line, with_texts=True)
    assert got is not None
    rid, code, (inv,), title, texts = got
    assert rid == "123456789012345678901" and code == -1 and title == ""
    args = inv.expected[0][1]
    assert type(args["acct"]) is int and args["acct"] == -(2**70)
    assert args["f"] == 0.1 and args["e"] == float("1.2345678901234567890123e-8")
    assert texts == ((None, '[{"name":"t","args":{"n":1}}]'),)
    assert check_line(line)


def test_equal_call_lists_share_one_tuple_and_its_types():
    """As ``well_formed_run``: actual calls equal to the expected ones (1 == 1.0) are the expected
    tuple itself, so their args keep the expected side's int."""
    line = b'{"id":"a","expected_calls":[{"name":"s","args":{"n":1}}],"actual_calls":[{"name":"s","args":{"n":1.0}}],' \
           b'"answer":"a","reference":"a"}'
    inv = typed_run(line)[2][0]
    assert inv.actual is inv.expected and type(inv.actual[0][1]["n"]) is int
    assert check_line(line)


@pytest.mark.parametrize("line", [
    b'{"id":"a","adk_score":0.5,"expected_calls":[],"actual_calls":[],"answer":"a","reference":"a"}',  # adk_*: old path
    b'{"id":"a","unknown":1,"expected_calls":[],"actual_calls":[],"answer":"a","reference":"a"}',
    b'{"id":"a","expected_calls":[{"name":"s","args":{},"extra":1}],"actual_calls":[],"answer":"a","reference":"a"}',
    b'{"id":"a","invocations":[{"expected_calls":[],"actual_calls":[],"answer":"a","reference":"a","x":1}]}',
    b'{"id":"  ","expected_calls":[],"actual_calls":[],"answer":"a","reference":"a"}',  # blank id
    b'{"id":true,"expected_calls":[],"actual_calls":[],"answer":"a","reference":"a"}',
    b'{"id":3.0,"expected_calls":[],"actual_calls":[],"answer":"a","reference":"a"}',
    b'{"id":"a","expected_calls":[{"name":" "}],"actual_calls":[],"answer":"a","reference":"a"}',  # blank tool name
    b'{"id":"a","expected_calls":[],"actual_calls":[{"name":""}],"answer":"a","reference":"a"}',
    b'{"id":"a","expected_calls":"s>b","actual_calls":[],"answer":"a","reference":"a"}',
    b'{"id":"a","expected_calls":[],"actual_calls":[],"answer":"a","reference":"a","references":["a"]}',
    b'{"id":"a","expected_calls":[],"actual_calls":[],"answer":"a","references":[]}',
    b'{"id":"a","expected_calls":[],"actual_calls":[],"answer":"a","references":"[\\"a\\"]"}',
    b'{"id":"a","expected_calls":[],"actual_calls":[],"answer":"a"}',
    b'{"id":"a","expected_calls":[],"actual_calls":[],"reference":"a"}',
    b'{"id":"a","human_verdict":"Acceptable","expected_calls":[],"actual_calls":[],"answer":"a","reference":"a"}',
    b'{"id":"a","labels":[],"expected_calls":[],"actual_calls":[],"answer":"a","reference":"a"}',
    b'{"id":"a","invocations":[],"answer":"a"}',
    b'{"id":"a","invocations":[{"expected_calls":[],"actual_calls":[],"answer":"a","reference":"a"}],"answer":"a"}',
    b'{"id":"a","invocations":null}',
    b'{"id":"a","expected_calls":[],"actual_calls":[],"answer":"a","reference":"a","title":5}',
    b'{"id":"a","expected_calls":[],"actual_calls":[],"answer":NaN,"reference":"a"}',  # NaN: the standard library's
    b'{"id":"a","expected_calls":[],"actual_calls":[],"answer":"a","reference":"\\ud800"}',  # lone surrogate
    b'\xef\xbb\xbf{"id":"a","expected_calls":[],"actual_calls":[],"answer":"a","reference":"a"}',  # BOM (stripped on line 1)
    b'{"id":"a","expected_calls":[],"actual_calls":[],"answer":"\xff","reference":"a"}',  # not UTF-8
    b'{"id":"a","expected_calls":[],"actual_calls":[],"answer":"a\tb","reference":"a"}',  # control character
    b'["id"]',
    b'{"id":"a"} {}',
    b'{"id":"a","expected_calls":[{"name":"s","args":' + b"[" * 990 + b"]" * 990 + b'}],"actual_calls":[],"answer":"a","reference":"a"}',
])
def test_lines_left_to_the_old_path(line):
    assert typed_run(line) is None


# --- the chunk worker, line for line ------------------------------------------------------


def old_chunk(chunk: bytes, first_line: int = 1):
    """The old loop of ``bigload._chunk_features_now`` (before the typed path): per kept line its
    id, verdict code, invocations and title; LoadError for the first bad line."""
    out = []
    for offset, raw in enumerate(chunk.split(b"\n")):
        n = first_line + offset
        line = raw[:-1] if raw.endswith(b"\r") else raw
        if n == 1 and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        if not line or line.isspace():
            continue
        record = _loads(line, n, "f.jsonl")
        parts = well_formed_run(record)
        if parts is None:
            if not isinstance(record, dict):
                raise LoadError("f.jsonl", f"line {n}", f"expected a JSON object (one run per line), got {json_type(record)}")
            try:
                run = run_from_record(record)
            except Problem as p:
                raise LoadError("f.jsonl", f"line {n}, {p.path}" if p.path else f"line {n}", p.message) from None
            out.append((run.id, HUMAN_CODES[run.human_verdict], tuple(inv.plain() for inv in run.invocations), run.title))
        else:
            out.append((*parts, record.get("title") or ""))
    return out


def check_chunk(chunk: bytes) -> None:
    try:
        want = old_chunk(chunk)
    except LoadError as exc:
        with pytest.raises(LoadError) as got_exc:
            chunk_features(chunk, 1, "f.jsonl", False, DEFAULT_ID_PATTERN, keep_texts=True)
        assert str(got_exc.value) == str(exc)
        return
    got = chunk_features(chunk, 1, "f.jsonl", False, DEFAULT_ID_PATTERN, keep_texts=True)
    assert typed(list(zip(got["ids"], got["human"].tolist(), got["invocations"], got["titles"]))) == typed(want)
    # by hand: the lines kept (no CR, no BOM), not blank, and their numbers
    lines = [raw[:-1] if raw.endswith(b"\r") else raw for raw in chunk.split(b"\n")]
    lines[0] = lines[0].removeprefix(b"\xef\xbb\xbf")
    kept = [(n, line) for n, line in enumerate(lines, 1) if line and not line.isspace()]
    assert got["line_nos"].tolist() == [n for n, _ in kept]
    assert list(got["lines"]) == [line for _, line in kept]
    theirs = plain_texts([w[3] for w in want], [w[2] for w in want])  # a lone surrogate is a LoadError above
    mine = plain_texts(got["titles"], got["invocations"], got["call_texts"])
    assert mine.keys() == theirs.keys() and all(mine[k].equals(theirs[k]) for k in mine)


@hsettings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(records(), min_size=1, max_size=4), st.sampled_from([b"\n", b"\r\n"]), st.booleans(), st.booleans())
def test_chunks_read_as_the_old_loop_reads_them(recs, newline, bom, last_newline):
    # without BOM, CR or a last newline (a blank last line) every line may go the typed way at once
    lines = [w[0] for w in (writings(r, None) for r in recs) if w]
    if lines:
        check_chunk((b"\xef\xbb\xbf" if bom else b"") + newline.join(lines) + (newline if last_newline else b""))


@pytest.mark.parametrize("chunk", [
    b"\xef\xbb\xbf" + COMMON + b"\r\n\r\n  \n" + COMMON.replace(b'"R1"', b'"R2"') + b"\r\n",  # BOM, CRLF, blank lines
    COMMON + b'\n{"id":"big","expected_calls":[{"name":"s","args":{"acct":123456789012345678901}}],"actual_calls":[],'
             b'"answer":"a","reference":"a"}',  # past 64 bits: the standard library's exact integer
    COMMON + b'\n{"id":"a","expected_calls":[],"actual_calls":[],"answer":NaN,"reference":"a"}',  # NaN: wrong type, error
    COMMON + b'\n{"id":"a","expected_calls":[],"actual_calls":[],"answer":"\\ud800","reference":"a"}',  # lone surrogate
    COMMON + b'\n{"id":"a","adk_x":{"y":1},"title":"T","expected_calls":[],"actual_calls":[],"answer":"a","reference":"a"}',
    COMMON + b'\n{"id":"  ","expected_calls":[],"actual_calls":[],"answer":"a","reference":"a"}',  # blank id: error
    COMMON + b'\n{"id":"a","expected_calls":[],"actual_calls":[],"answer":"a","references":[]}',  # error
    COMMON + b'\n{"id":"a","expected_calls":[],"actual_calls":[],"answer":"\xff","reference":"a"}',  # not UTF-8
    COMMON + b'\n{"id":"a","labels":[{"annotator":"p","verdict":"acceptable"}],"expected_calls":[],"actual_calls":[],'
             b'"answer":"a","reference":"a"}',
    COMMON + b'\n[1]',
])
def test_hand_written_chunks_read_as_the_old_loop_reads_them(chunk):
    check_chunk(chunk)


def test_a_big_integer_stays_exact():
    chunk = b'{"id":"big","expected_calls":[{"name":"s","args":{"acct":123456789012345678901}}],"actual_calls":[],' \
            b'"answer":"a","reference":"a"}'
    got = chunk_features(chunk, 1, "f.jsonl", False, DEFAULT_ID_PATTERN, keep_texts=True)
    assert got["invocations"][0][0].expected[0][1]["acct"] == 123456789012345678901


def test_call_texts_by_hand():
    """The texts of the common line, written out by hand (compact, keys as given); a float with a
    positive exponent (msgspec: ``1e20``, the store: ``1e+20``) and deep nesting are left to
    ``_calls_json``, and the store's columns still read ``1e+20``."""
    (exp_text, act_text), = typed_run(COMMON, with_texts=True)[4]
    assert exp_text == '[{"name":"search","args":{"to":"FRA","n":2}},{"name":"book","args":{"f":"AF1"}}]'
    assert act_text == '[{"name":"search","args":{"to":"FRA","n":2}}]'
    null_args = b'{"id":"a","expected_calls":[{"name":"s","args":null},{"name":"t"}],"actual_calls":[],"answer":"a","reference":"a"}'
    assert typed_run(null_args, with_texts=True)[4] == (('[{"name":"s","args":{}},{"name":"t","args":{}}]', "[]"),)
    big = b'{"id":"a","expected_calls":[{"name":"s","args":{"x":1e20,"y":1.5e-7}}],"actual_calls":[],"answer":"a","reference":"a"}'
    got = typed_run(big, with_texts=True)
    assert got[4] == ((None, "[]"),)
    texts = plain_texts([got[3]], [got[2]], [got[4]])
    assert texts["expected_calls"].to_pylist() == [['[{"name":"s","args":{"x":1e+20,"y":1.5e-7}}]']]
    deep = b'{"id":"a","expected_calls":[{"name":"s","args":{"x":' + b"[" * 300 + b"]" * 300 + b'}}],"actual_calls":[],' \
           b'"answer":"a","reference":"a"}'
    got = typed_run(deep, with_texts=True)
    assert got[4] == ((None, "[]"),)
    assert plain_texts([got[3]], [got[2]], [got[4]])["expected_calls"].to_pylist() == [
        ['[{"name":"s","args":{"x":' + "[" * 300 + "]" * 300 + "}}]"]]


@pytest.mark.parametrize("value, taken", [
    (b"[1,]", False), (b"01", False), (b"1.", False), (b".5", False), (b"+1", False), (b"1e", False), (b'"\\x"', False),
    (b'"\\u12"', False), (b"True", False), (b"Infinity", False), (b"-Infinity", False), (b"1e400", False), (b'"\xc0\x80"', False),
    (b'"\xf4\x90\x80\x80"', False), (b'"\xed\xbf\xbf"', False), (b'"\\udfff\\ud800"', False), (b"\xc2\xa01", False), (b"0x10", False),
    (b"-0", True), (b"1e-400", True), (b"-1e-400", True), (b"1E+2", True), (b'"\\/"', True), (b'"\\u0000"', True), (b'"\x7f"', True),
    (b'"\xef\xbf\xbf"', True), (b"0.00000000000000001e17", True), (b" [ 1 ,\t2 ]\r", True),
])
def test_json_edge_values_in_args(value, taken):
    """Values in args that JSON readers are known to differ on: msgspec refuses what orjson
    refuses (the old path then reads or rejects it), and what it takes reads as orjson reads it."""
    line = b'{"id":"a","expected_calls":[{"name":"s","args":{"v":' + value + b'}}],"actual_calls":[],"answer":"a","reference":"a"}'
    assert check_line(line) is taken


# --- a chunk's call texts at once (call_text_arrays) ----------------------------------------

FLOAT_LINE = b'{"id":"f","expected_calls":[{"name":"s","args":{"x":1e20}}],"actual_calls":[{"name":"s","args":{"x":1e20}}],' \
             b'"answer":"a","reference":"a"}'  # msgspec writes 1e20, the store 1e+20; actual is the expected tuple
DEEP_LINE = b'{"id":"d","expected_calls":[{"name":"t"}],"actual_calls":[{"name":"s","args":{"x":' + b"[" * 250 + b"]" * 250 + \
            b'}}],"answer":"a","reference":"a"}'  # 252 brackets in the actual text
BIG_LINE = b'{"id":"b","expected_calls":[{"name":"s","args":{"n":98765432109876543210}}],"actual_calls":[],' \
           b'"answer":"a","reference":"a"}'  # 20 digits, past 64 bits
COMMON_TEXTS = ('[{"name":"search","args":{"to":"FRA","n":2}},{"name":"book","args":{"f":"AF1"}}]',
                '[{"name":"search","args":{"to":"FRA","n":2}}]')
SPLICED_TEXTS = {  # written out by hand: the store's texts (orjson's, the standard library's past 64 bits)
    FLOAT_LINE: ('[{"name":"s","args":{"x":1e+20}}]', '[{"name":"s","args":{"x":1e+20}}]'),
    DEEP_LINE: ('[{"name":"t","args":{}}]', '[{"name":"s","args":{"x":' + "[" * 250 + "]" * 250 + '}}]'),
    BIG_LINE: ('[{"name":"s","args":{"n":98765432109876543210}}]', "[]"),
}


def common(k: int) -> bytes:
    return COMMON.replace(b'"R1"', b'"R1-%d"' % k)


@pytest.mark.parametrize("other", [None, b'{"id":"o","adk_x":1,"expected_calls":[],"actual_calls":[],"answer":"a","reference":"a"}'])
def test_texts_left_to_calls_json_are_spliced_into_a_chunk(other):
    """Texts msgspec may write otherwise (a float 1e20, 252 brackets, a 20-digit integer), each
    between common lines: the chunk's texts are the store's, written out by hand, and the old
    loop's. Without ``other`` every line goes the typed way and the texts come at once
    (CallTextArrays); with a line read the old way, per line."""
    lines = [common(0), FLOAT_LINE, common(1), DEEP_LINE, common(2), BIG_LINE, common(3)] + ([other] if other else [])
    chunk = b"\n".join(lines)
    got = chunk_features(chunk, 1, "f.jsonl", False, DEFAULT_ID_PATTERN, keep_texts=True)
    assert isinstance(got["call_texts"], CallTextArrays) is (other is None)
    texts = plain_texts(got["titles"], got["invocations"], got["call_texts"])
    want = [SPLICED_TEXTS.get(line, COMMON_TEXTS) if line is not other else ("[]", "[]") for line in lines]
    assert texts["expected_calls"].to_pylist() == [[e] for e, _ in want]
    assert texts["actual_calls"].to_pylist() == [[a] for _, a in want]
    check_chunk(chunk)


def test_a_chunk_of_many_texts_reads_as_the_old_loop_reads_it():
    """Enough texts to be looked through in several blocks (_suspects), texts to splice in
    among them, and several invocations per line (one with its actual calls the expected ones)."""
    multi = b'{"id":"m","invocations":[{"expected_calls":[{"name":"s","args":{"d":"2026-07-02"}}],' \
            b'"actual_calls":[{"name":"s","args":{"d":"2026-07-02"}}],"answer":"y","reference":"y"},' \
            b'{"expected_calls":[],"actual_calls":[{"name":"t","args":{"x":1e300}}],"answer":"","references":["z"]}]}'
    lines = []
    for k in range(3000):
        line = (FLOAT_LINE, DEEP_LINE, BIG_LINE, multi)[k % 4] if k % 37 == 0 else common(k)
        lines.append(line.replace(b'"id":"', b'"id":"%d-' % k, 1))
    chunk = b"\n".join(lines)
    got = chunk_features(chunk, 1, "f.jsonl", False, DEFAULT_ID_PATTERN, keep_texts=True)
    assert isinstance(got["call_texts"], CallTextArrays)
    assert sum(len(t) for t in got["call_texts"].expected.to_pylist()) > 3 * 64 * 1024
    check_chunk(chunk)
    actual = plain_texts(got["titles"], got["invocations"], got["call_texts"])["actual_calls"].to_pylist()
    assert actual[111] == ['[{"name":"s","args":{"d":"2026-07-02"}}]', '[{"name":"t","args":{"x":1e+300}}]']
