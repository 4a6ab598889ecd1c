"""Seeded generator of realistic agent runs for the benchmarks (issue 6).

Each run is a travel-agent conversation turn (sometimes two): an expected trajectory of 2-8 calls
drawn from 20 tools with arguments (airports, dates, flight numbers, booking ids, names), the
calls the agent actually made, a reference answer and the agent's answer of 8-60 words, and a
person's verdict. Runs differ from their expectation the ways real runs do:

* trajectory: identical; a harmless extra lookup; two independent calls swapped; a retried call;
  a missing call; an argument changed (a date or id); a denied tool (``delete_booking``) called;
* answer: a copy of the reference; a paraphrase (synonyms, reordering, dropped words); a changed
  date or booking id; a negation ("could not"); a truncated answer.

The verdict follows what a careful person would say (harmless extras, reorders, retries and
paraphrases are acceptable; missing calls, wrong arguments, denied tools, changed facts and
negations are not) with 4% of verdicts flipped (people disagree) and 8% left unlabelled.

Writers: ``metric-explorer/cases@1`` JSON, JSONL (one run per line, flat: see
``docs/formats.md``), and Google ADK ``*.evalset_result.json`` files plus a labels CSV.

Usage: ``python bench/synth.py --n 100000 --out bench/data`` (files are named by N and seed).
The same (n, seed) always gives the same runs.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import sys
from pathlib import Path
from typing import Any, Iterator

GENERATOR_VERSION = 1
"""Bumped when the runs a (n, seed) gives change, so cached files are rebuilt."""

AIRPORTS = ["LHR", "LIS", "CDG", "JFK", "SFO", "MAD", "FRA", "AMS", "DUB", "OPO", "BCN", "FCO", "MUC", "ZRH", "CPH"]
CITIES = {
    "LHR": "London", "LIS": "Lisbon", "CDG": "Paris", "JFK": "New York", "SFO": "San Francisco",
    "MAD": "Madrid", "FRA": "Frankfurt", "AMS": "Amsterdam", "DUB": "Dublin", "OPO": "Porto",
    "BCN": "Barcelona", "FCO": "Rome", "MUC": "Munich", "ZRH": "Zurich", "CPH": "Copenhagen",
}
NAMES = ["Ana Silva", "Ben Okafor", "Chen Wei", "Dara Kelly", "Eva Novak", "Farid Haddad", "Grace Lee", "Hugo Martin"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
HOTELS = ["Hotel Aurora", "Casa Azul", "The Harbour Inn", "Park Suites", "Riverside Lodge"]

TOOLS: dict[str, tuple[str, ...]] = {
    "search_flights": ("origin", "destination", "date"),
    "book_flight": ("flight", "date", "passenger"),
    "confirm_booking": ("booking_id",),
    "cancel_booking": ("booking_id",),
    "delete_booking": ("booking_id",),
    "get_weather": ("city", "date"),
    "get_profile": ("passenger",),
    "update_profile": ("passenger", "field"),
    "search_hotels": ("city", "date", "nights"),
    "book_hotel": ("hotel", "date", "nights"),
    "get_seat_map": ("flight",),
    "select_seat": ("flight", "seat"),
    "add_baggage": ("booking_id", "bags"),
    "get_loyalty_status": ("passenger",),
    "apply_voucher": ("booking_id", "code"),
    "send_email": ("passenger", "subject"),
    "get_itinerary": ("booking_id",),
    "check_visa": ("passenger", "destination"),
    "convert_currency": ("amount", "currency"),
    "refund_payment": ("booking_id", "amount"),
}
"""The 20 tools and their argument names."""

DENIED_TOOL = "delete_booking"
HARMLESS_EXTRAS = ("get_weather", "get_profile", "get_loyalty_status", "get_seat_map", "get_itinerary", "convert_currency")
MAIN_FLOW = ("search_flights", "book_flight", "confirm_booking")
OPTIONAL_STEPS = ("select_seat", "add_baggage", "search_hotels", "book_hotel", "apply_voucher", "send_email", "check_visa", "update_profile")

SYNONYMS = {
    "booked": "reserved", "flight": "plane", "confirmed": "all set", "reference": "code", "your": "the",
    "is": "has been", "on": "for", "departs": "leaves", "arrives": "lands", "hotel": "stay", "nights": "evenings",
    "seat": "place", "added": "included", "bags": "luggage", "sent": "emailed", "details": "information",
}
FILLER = ("please", "note", "that", "we", "have", "also", "kept", "a", "copy", "of", "everything", "for", "you", "today",
          "let", "me", "know", "if", "anything", "else", "is", "needed", "thanks", "again", "safe", "travels")

TRAJECTORY_KINDS = (("same", 0.46), ("extra", 0.12), ("swap", 0.08), ("retry", 0.07), ("missing", 0.09),
                    ("changed_arg", 0.10), ("denied", 0.08))
ANSWER_KINDS = (("copy", 0.30), ("paraphrase", 0.36), ("changed_fact", 0.14), ("negated", 0.10), ("truncated", 0.10))
BAD_TRAJECTORY = {"missing", "changed_arg", "denied"}
BAD_ANSWER = {"changed_fact", "negated", "truncated"}


def _pick(rng: random.Random, table: tuple[tuple[str, float], ...]) -> str:
    x = rng.random()
    for name, p in table:
        x -= p
        if x < 0:
            return name
    return table[-1][0]


class _Trip:
    """The facts one conversation is about (random but consistent across its calls)."""

    def __init__(self, rng: random.Random):
        self.origin, self.destination = rng.sample(AIRPORTS, 2)
        self.month = rng.randint(1, 12)
        self.day = rng.randint(1, 28)
        self.year = 2026
        self.flight = f"{rng.choice(['TP', 'BA', 'AF', 'UA', 'IB', 'LH'])}{rng.randint(100, 9999)}"
        self.booking = f"{rng.choice(['BK', 'RS', 'TRV'])}-{rng.randint(1000, 99999)}"
        self.passenger = rng.choice(NAMES)
        self.hotel = rng.choice(HOTELS)
        self.nights = rng.randint(1, 7)
        self.seat = f"{rng.randint(1, 40)}{rng.choice('ABCDEF')}"
        self.amount = rng.randint(40, 900)

    @property
    def iso(self) -> str:
        return f"{self.year}-{self.month:02d}-{self.day:02d}"

    def spoken_date(self, rng: random.Random) -> str:
        m = MONTHS[self.month - 1]
        return rng.choice([f"{self.day} {m}", f"{m} {self.day}", f"{self.day} {m} {self.year}"])

    def args(self, tool: str, rng: random.Random) -> dict[str, Any]:
        values = {
            "origin": self.origin, "destination": self.destination, "date": self.iso, "flight": self.flight,
            "passenger": self.passenger, "booking_id": self.booking, "city": CITIES[self.destination],
            "field": rng.choice(["email", "phone", "meal"]), "nights": self.nights, "hotel": self.hotel,
            "seat": self.seat, "bags": rng.randint(1, 2), "code": f"SAVE{rng.randint(5, 30)}",
            "subject": "Your trip", "amount": self.amount, "currency": rng.choice(["EUR", "USD", "GBP"]),
        }
        return {name: values[name] for name in TOOLS[tool]}


def _call(tool: str, trip: _Trip, rng: random.Random) -> dict[str, Any]:
    return {"name": tool, "args": trip.args(tool, rng)}


def _expected(trip: _Trip, rng: random.Random) -> list[dict[str, Any]]:
    n = rng.randint(2, 8)
    flow = list(MAIN_FLOW[: min(3, n)])
    extra = rng.sample(OPTIONAL_STEPS, n - len(flow)) if n > len(flow) else []
    # optional steps after booking, before confirmation
    tools = flow[:2] + extra + flow[2:]
    return [_call(t, trip, rng) for t in tools]


def _actual(expected: list[dict[str, Any]], kind: str, trip: _Trip, rng: random.Random) -> list[dict[str, Any]]:
    calls = [dict(c, args=dict(c["args"])) for c in expected]
    if kind == "extra":
        calls.insert(rng.randint(0, len(calls)), _call(rng.choice(HARMLESS_EXTRAS), trip, rng))
    elif kind == "swap" and len(calls) >= 3:
        i = rng.randint(1, len(calls) - 2)
        calls[i], calls[i + 1] = calls[i + 1], calls[i]
    elif kind == "retry":
        i = rng.randrange(len(calls))
        calls.insert(i, dict(calls[i], args=dict(calls[i]["args"])))
    elif kind == "missing":
        del calls[rng.randrange(1, len(calls))]
    elif kind == "changed_arg":
        c = rng.choice(calls)
        key = rng.choice(list(c["args"]))
        v = c["args"][key]
        c["args"][key] = v + 1 if isinstance(v, int) else (f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}" if key == "date" else v + "X")
    elif kind == "denied":
        calls.insert(rng.randint(1, len(calls)), {"name": DENIED_TOOL, "args": {"booking_id": f"BK-{rng.randint(1000, 99999)}"}})
    return calls


def _reference(trip: _Trip, tools: list[str], rng: random.Random) -> str:
    date = trip.spoken_date(rng)
    parts = [f"Your flight {trip.flight} from {CITIES[trip.origin]} to {CITIES[trip.destination]} on {date} is booked"]
    if "confirm_booking" in tools:
        parts.append(f"and confirmed with booking reference {trip.booking}")
    if "book_hotel" in tools:
        parts.append(f"and {trip.hotel} is reserved for {trip.nights} nights")
    if "select_seat" in tools:
        parts.append(f"with seat {trip.seat}")
    if "add_baggage" in tools:
        parts.append("and your bags are added")
    text = " ".join(parts) + "."
    words = text.split()
    target = rng.randint(8, 60)
    if len(words) > target:
        words = words[: max(target, 8)]
    while len(words) < target:
        words.append(rng.choice(FILLER))
    return " ".join(words)


def _answer(reference: str, kind: str, trip: _Trip, rng: random.Random) -> str:
    words = reference.split()
    if kind == "paraphrase":
        words = [SYNONYMS.get(w, w) if rng.random() < 0.5 else w for w in words]
        for _ in range(rng.randint(0, 3)):
            if len(words) > 8:
                del words[rng.randrange(len(words))]
        if len(words) > 10 and rng.random() < 0.5:
            i = rng.randrange(len(words) - 4)
            words[i : i + 4] = words[i : i + 4][::-1]
    elif kind == "changed_fact":
        text = " ".join(words)
        if trip.booking in text and rng.random() < 0.5:
            text = text.replace(trip.booking, f"{trip.booking.split('-')[0]}-{rng.randint(1000, 99999)}")
        else:
            wrong = (trip.day % 28) + 1
            m = MONTHS[trip.month - 1]
            text = text.replace(f"{trip.day} {m}", f"{wrong} {m}").replace(f"{m} {trip.day}", f"{m} {wrong}")
        return text
    elif kind == "negated":
        words = ["Sorry,", "I", "could", "not", "complete", "this:"] + words[:-6] if len(words) > 12 else ["Not"] + words
    elif kind == "truncated":
        words = words[: max(8, len(words) // 3)]
    return " ".join(words)


def make_run(i: int, rng: random.Random) -> dict[str, Any]:
    """Run ``i`` as a ``metric-explorer/cases@1`` run dict (1 invocation, 2 for 10% of runs)."""
    trip = _Trip(rng)
    invocations = []
    bad = False
    kinds = []
    for _ in range(2 if rng.random() < 0.10 else 1):
        expected = _expected(trip, rng)
        tkind = _pick(rng, TRAJECTORY_KINDS)
        akind = _pick(rng, ANSWER_KINDS)
        actual = _actual(expected, tkind, trip, rng)
        reference = _reference(trip, [c["name"] for c in expected], rng)
        answer = _answer(reference, akind, trip, rng)
        references = [reference] if rng.random() < 0.8 else [reference, _answer(reference, "paraphrase", trip, rng)]
        invocations.append({"expected_calls": expected, "actual_calls": actual, "answer": answer, "references": references})
        bad |= tkind in BAD_TRAJECTORY or akind in BAD_ANSWER
        kinds.append(f"{tkind}/{akind}")
    verdict: str | None = "unacceptable" if bad else "acceptable"
    if rng.random() < 0.04:
        verdict = "acceptable" if bad else "unacceptable"
    if rng.random() < 0.08:
        verdict = None
    run: dict[str, Any] = {
        "id": f"R{i:07d}",
        "title": f"{CITIES[trip.origin]} to {CITIES[trip.destination]} ({', '.join(kinds)})",
        "user_input": f"Book {trip.passenger} from {CITIES[trip.origin]} to {CITIES[trip.destination]} on {trip.spoken_date(rng)}.",
        "invocations": invocations,
    }
    if verdict is not None:
        run["human_verdict"] = verdict
    return run


def runs(n: int, seed: int = 0) -> Iterator[dict[str, Any]]:
    """The ``n`` runs of ``seed`` in order (each run seeded by (seed, i), so any prefix is stable)."""
    for i in range(n):
        yield make_run(i, random.Random(seed * 1_000_003 + i))


# --- writers ---------------------------------------------------------------------------------


def flat_record(run: dict[str, Any]) -> dict[str, Any]:
    """A run as one flat JSONL record (see ``docs/formats.md``): single-invocation runs put
    ``expected_calls``, ``actual_calls``, ``answer`` and ``references`` at the top level; runs with
    several invocations keep an ``invocations`` list."""
    rec = {k: v for k, v in run.items() if k != "invocations"}
    invs = run["invocations"]
    if len(invs) == 1:
        rec.update(invs[0])
    else:
        rec["invocations"] = invs
    return rec


def _jsonl_lines(span: tuple[int, int, int]) -> str:
    """The JSONL text of runs ``start .. stop-1`` of ``seed`` (a worker's share)."""
    start, stop, seed = span
    return "".join(
        json.dumps(flat_record(make_run(i, random.Random(seed * 1_000_003 + i))), separators=(",", ":")) + "\n"
        for i in range(start, stop)
    )


def write_jsonl(path: Path, n: int, seed: int = 0, processes: int | None = None, start: int = 0) -> Path:
    """Write ``n`` runs to ``path`` as JSONL, one flat record per line (in parallel for big n;
    each run is seeded by its index, so the file is the same either way). ``start``: the index of
    the first run (runs ``start .. start+n-1``: the ten files of ``bench/scale_out.py`` hold
    disjoint ids, and the file with ``start=0`` is the ``n``-run file of ``ensure``)."""
    step = 20_000
    spans = [(s, min(start + n, s + step), seed) for s in range(start, start + n, step)]
    with open(path, "w", encoding="utf-8") as fh:
        if n < 100_000:
            for span in spans:
                fh.write(_jsonl_lines(span))
        else:
            import multiprocessing

            with multiprocessing.get_context("fork").Pool(processes or os.cpu_count() or 1) as pool:
                for text in pool.imap(_jsonl_lines, spans):
                    fh.write(text)
    return path


def write_cases(path: Path, n: int, seed: int = 0) -> Path:
    """Write ``n`` runs to ``path`` as one ``metric-explorer/cases@1`` JSON file."""
    data = {
        "format": "metric-explorer/cases@1",
        "name": f"Synthetic travel agent, {n} runs (seed {seed})",
        "description": "Generated by bench/synth.py",
        "runs": list(runs(n, seed)),
    }
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, separators=(",", ":"))
    return path


def _adk_content(text: str, role: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"text": text}]}


def adk_case_result(run: dict[str, Any], set_id: str) -> dict[str, Any]:
    """One ADK ``EvalCaseResult`` (google-adk 2.13 schema, snake_case) for ``run``: expected calls
    as ``tool_uses``, actual calls as ``function_call`` events. ADK's own metric scores are left
    out (the generator does not run ADK); status 3 NOT_EVALUATED."""
    per_inv = []
    for k, inv in enumerate(run["invocations"]):
        events = [
            {"author": "travel_agent", "content": {"role": "model", "parts": [{"function_call": {"id": f"c{j}", "name": c["name"], "args": c["args"]}}]}}
            for j, c in enumerate(inv["actual_calls"])
        ]
        per_inv.append(
            {
                "actual_invocation": {
                    "invocation_id": f"{run['id']}-a{k}",
                    "user_content": _adk_content(run["user_input"], "user"),
                    "final_response": _adk_content(inv["answer"], "model"),
                    "intermediate_data": {"invocation_events": events},
                },
                "expected_invocation": {
                    "invocation_id": f"{run['id']}-e{k}",
                    "user_content": _adk_content(run["user_input"], "user"),
                    "final_response": _adk_content(inv["references"][0], "model"),
                    "intermediate_data": {"tool_uses": inv["expected_calls"]},
                },
                "eval_metric_results": [],
            }
        )
    return {
        "eval_set_id": set_id,
        "eval_id": run["id"],
        "final_eval_status": 3,
        "overall_eval_metric_results": [],
        "eval_metric_result_per_invocation": per_inv,
        "session_id": f"sess-{run['id']}",
        "user_id": "user",
    }


def write_adk(folder: Path, n: int, seed: int = 0, per_file: int = 1000) -> list[Path]:
    """Write ``n`` runs as ADK ``*.evalset_result.json`` files of ``per_file`` cases each under
    ``folder``, and ``labels.csv`` (``run_id,human_verdict,note``) beside them."""
    folder.mkdir(parents=True, exist_ok=True)
    paths, batch = [], []
    with open(folder / "labels.csv", "w", newline="", encoding="utf-8") as fh:
        labels = csv.writer(fh)
        labels.writerow(["run_id", "human_verdict", "note"])

        def flush() -> None:
            k = len(paths)
            set_id = f"synthetic_{k:03d}"
            result = {
                "eval_set_result_id": f"travel_agent_{set_id}_1751328000.0",
                "eval_set_result_name": f"travel_agent_{set_id}_1751328000.0",
                "eval_set_id": set_id,
                "creation_timestamp": 1751328000.0,
                "eval_case_results": [adk_case_result(r, set_id) for r in batch],
            }
            path = folder / f"travel_agent_{set_id}.evalset_result.json"
            path.write_text(json.dumps(result, separators=(",", ":")), encoding="utf-8")
            paths.append(path)
            batch.clear()

        for run in runs(n, seed):
            labels.writerow([run["id"], run.get("human_verdict", ""), ""])
            batch.append(run)
            if len(batch) == per_file:
                flush()
        if batch:
            flush()
    return paths


def data_path(out: Path, n: int, seed: int, ext: str) -> Path:
    """``out/synth-v<version>-s<seed>-<n>.<ext>``."""
    return out / f"synth-v{GENERATOR_VERSION}-s{seed}-{n}.{ext}"


def ensure(out: Path, n: int, seed: int = 0, kind: str = "jsonl") -> Path:
    """The cached file (``kind`` jsonl, json or adk folder) for (n, seed), written when missing."""
    out.mkdir(parents=True, exist_ok=True)
    path = data_path(out, n, seed, {"jsonl": "jsonl", "json": "json", "adk": "adk"}[kind])
    if path.exists():
        return path
    tmp = path.with_name(path.name + ".tmp")
    if kind == "jsonl":
        write_jsonl(tmp, n, seed)
    elif kind == "json":
        write_cases(tmp, n, seed)
    else:
        write_adk(tmp, n, seed)
    tmp.rename(path)
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, nargs="+", default=[1000, 10_000, 100_000, 1_000_000])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "data")
    p.add_argument("--kind", choices=("jsonl", "json", "adk"), nargs="+", default=["jsonl"])
    args = p.parse_args(argv)
    for n in args.n:
        for kind in args.kind:
            path = ensure(args.out, n, args.seed, kind)
            print(f"{path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
