"""A workshop room on one server: N people open the link at once, change settings together, and
some of them play the replay while others change settings (issues 9 item 11 and 15).

No browser: each person is a page driven over Bokeh's websocket protocol
(``tests/browser/bokeh_protocol.py``: ``GET /``, the websocket with the page's token, the pulled
document, then the messages a click sends). The server is a real ``metric-explorer serve``
subprocess (``tests/browser/served_app.py``) started *without* ``BOKEH_RESOURCES`` in its
environment; ``--serve-args`` passes options to it (e.g. ``--num-procs 1``).

Phases, on one server, for each N (default 10, 20, 40):

* **open**: N pages opened at once. Page ready = ``GET /`` sent -> the whole document received
  (median, p95, slowest); server CPU seconds per session (user + system of every server process,
  /proc, over the phase, divided by N).
* **change**: ``--rounds`` rounds in which all N pages change Trajectory match at the same moment
  (a ``ModelChanged`` of the ``me-trajectory`` Select's value, as Chromium sends it), each waiting for the
  summary bar's ``All runs: n/N agree`` to read the figure ``explorer.core`` computes for that
  setting. Change latency = message sent -> the patch with that figure received (median, p95); the
  first round (each page's first change) is also given alone. Server CPU per change = the server's
  CPU over the rounds / (N × rounds).
* **close**: the N pages close their websockets; the server reaps the sessions (Bokeh discards a
  session 15 s after its last connection closed, checking every 17 s), then RSS is read again.

**churn** (``--churn 200``): sessions opened, changed once and closed in batches of 10; the
server's memory every 50 sessions and once they are reaped (issue 15's figure).

Then, once: **sequential** CPU per settings change (one page, ``--sequential`` changes one after
another: server CPU / changes; issue 15 asks for the per-change CPU halved, which the N phase's
figure measures with a room changing together) and **replay**: 10 pages change
settings (``--rounds`` rounds each) with no replay playing ("idle"), then again while 20 other
pages play the replay at 1x; their change p95 against the idle p95, and the server's CPU per wall
second while the 20 replays play alone. A replay is played as a page does it: with a page clock
(the served page has a ``me-replay-clock``), the page sends the time only when a reveal is due,
as the page's script would; with the older server-side clock, Play is clicked and the server ticks.

RSS is the sum over the server's processes (``VmRSS``): at start (after one warm-up page was
opened, changed, closed and reaped), with the N pages open, and after they were closed and
reaped. The machine's load average is printed with each phase: this is a shared 2-core machine.

Usage::

    .venv/bin/python bench/workshop.py                       # N = 10, 20, 40
    .venv/bin/python bench/workshop.py --n 40 --rounds 5 --serve-args="--num-procs 1"
    .venv/bin/python bench/workshop.py --json bench/workshop.json   # the figures as JSON too
    .venv/bin/python bench/workshop.py --n --replays 0 --churn 200 --churn-wait 20   # memory: 200 sessions in batches of 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shlex
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "browser"))
sys.path.insert(0, str(REPO))

from bokeh_protocol import BokehPage  # noqa: E402
from served_app import ServedApp  # noqa: E402

from explorer.app.shared import load_shared  # noqa: E402
from explorer.core.evaluation.replay import DURATION, reveal_times  # noqa: E402
from explorer.core.evaluation.verdicts import evaluate  # noqa: E402

WHOLE = re.compile(r"All runs:\s*(\d+)\s*/\s*(\d+)\s*agree")
TRAJECTORY_CYCLE = (("IN_ORDER", "in_order"), ("ANY_ORDER", "any_order"), ("EXACT", "exact"))
"""(label, settings value): each differs from the one before on the bundled set. The page's Select sends
the value (Panel's grouped options are ``(str(value), label)`` pairs)."""
REAP_WAIT_S = 40.0
"""After the pages close: Bokeh discards a session 15 s after its last connection, checking every 17 s."""
CLK_TCK = os.sysconf("SC_CLK_TCK")


# --- the server's processes ------------------------------------------------------------------------
def _descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (``serve --num-procs`` forks workers)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def server_cpu_s(pid: int) -> float:
    """User + system CPU seconds of the server's processes so far."""
    total = 0
    for p in _descendants(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15 of stat)
        except OSError:
            continue
    return total / CLK_TCK


def server_rss_mb(pid: int) -> float:
    """Resident memory of the server's processes, MB (sum of ``VmRSS``)."""
    total_kb = 0
    for p in _descendants(pid):
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total_kb += int(line.split()[1])
        except OSError:
            continue
    return total_kb / 1024


def server_pss_mb(pid: int) -> dict[int, float]:
    """Proportional set size of each of the server's processes, MB (``Pss`` of
    ``/proc/<pid>/smaps_rollup``: a page shared by k processes counts 1/k in each, so the sum is
    what the server costs the machine; ``VmRSS`` counts the pages the forked workers share with
    the parent once per process)."""
    out = {}
    for p in _descendants(pid):
        try:
            with open(f"/proc/{p}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        out[p] = int(line.split()[1]) / 1024
        except OSError:
            continue
    return out


def memory(pid: int) -> str:
    """``RSS 680 MB (3 processes: 230/225/225), PSS 420 MB``."""
    rss = {}
    for p in _descendants(pid):
        try:
            with open(f"/proc/{p}/status") as f:
                rss[p] = next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmRSS:"))
        except (OSError, StopIteration):
            continue
    pss = server_pss_mb(pid)
    return (f"RSS {sum(rss.values()):.0f} MB ({len(rss)} processes: {'/'.join(f'{v:.0f}' for v in rss.values())}), "
            f"PSS {sum(pss.values()):.0f} MB")


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


def stats_ms(values_s: list[float]) -> dict:
    return {"median_ms": 1000 * statistics.median(values_s), "p95_ms": 1000 * pct(values_s, 0.95),
            "max_ms": 1000 * max(values_s), "n": len(values_s)}


def show(name: str, values_s: list[float]) -> str:
    s = stats_ms(values_s)
    return f"{name}: median {s['median_ms']:.0f} ms, p95 {s['p95_ms']:.0f} ms, max {s['max_ms']:.0f} ms (n={s['n']})"


# --- one person ------------------------------------------------------------------------------------
@dataclass
class Person:
    """A page and what it knows about the app's widgets."""

    page: BokehPage
    expected: dict[str, str]
    step: int = 0
    latencies: list[float] = field(default_factory=list)
    _whole: str | None = None

    def whole(self) -> str:
        if self._whole is None:  # the summary's model stays; a scan of every model per message would load the client
            self._whole = self.page.find_text("me-whole-agreement")
        found = WHOLE.search(self.page.text(self._whole))
        return f"{found[1]}/{found[2]}" if found else ""

    async def change_trajectory(self) -> float:
        """Choose the next Trajectory match whose figure differs; seconds until the summary
        shows the figure of that setting."""
        try:
            widget, attr = self.page.find("me-trajectory", "Select"), "value"
        except KeyError:  # the code before issue 12: a button group EXACT / IN_ORDER / ANY_ORDER / Not scored
            widget, attr = self.page.find("me-trajectory", "RadioButtonGroup"), "active"
        for _ in range(len(TRAJECTORY_CYCLE)):
            label, value = TRAJECTORY_CYCLE[self.step % len(TRAJECTORY_CYCLE)]
            self.step += 1
            if self.expected[value] != self.whole():
                break
        want = self.expected[value]
        start = time.monotonic()
        if attr == "value":
            await self.page.change(widget, "value", value)  # a grouped Select's option is (value, label)
        else:
            await self.page.change(widget, "active", self.page.models[widget]["attributes"]["labels"].index(label))
        done = await self.page.wait_for(lambda: self.whole() == want)
        self.latencies.append(done - start)
        return done - start


async def open_pages(url: str, n: int) -> tuple[list[BokehPage], list[float]]:
    """N pages opened at once; their ready times (GET sent -> document received), seconds."""
    pages = [BokehPage(url) for _ in range(n)]

    async def one(page: BokehPage) -> float:
        start = time.monotonic()
        await page.open()
        return time.monotonic() - start

    ready = await asyncio.gather(*(one(p) for p in pages))
    return pages, list(ready)


async def close_pages(pages: list[BokehPage]) -> None:
    await asyncio.gather(*(p.close() for p in pages))


async def change_rounds(people: list[Person], rounds: int) -> list[list[float]]:
    """``rounds`` rounds of every person changing at the same moment; latencies per round."""
    out = []
    for _ in range(rounds):
        out.append(list(await asyncio.gather(*(p.change_trajectory() for p in people))))
    return out


async def keep_changing(people: list[Person], rounds: int) -> list[float]:
    """Each person changes ``rounds`` times, one after another, all people at once."""
    async def one(p: Person) -> list[float]:
        return [await p.change_trajectory() for _ in range(rounds)]

    return [x for xs in await asyncio.gather(*(one(p) for p in people)) for x in xs]


# --- the replay as a page plays it -----------------------------------------------------------------
async def play_replay(page: BokehPage, times: list[float], speed: float, stop: asyncio.Event) -> int:
    """Play the replay from the start as the page does; returns how many messages it sent.

    With a page clock (a ``me-replay-clock`` model): the page's reports ``[epoch, time, playing]``,
    as its script sends them: the first reveal time, playing, at once; each next reveal time when it
    is due at ``speed``; the end (60 s) paused. Without one (the older server-side clock): click
    Play; the server ticks."""
    try:
        clock = page.find("me-replay-clock")
    except KeyError:
        await page.click(page.find("me-play", "Button"))
        return 1
    data = page.models[clock]["attributes"]["data"]["id"]  # the component's properties live here
    stops = sorted(set(times))
    sent = 0
    start_wall, start_t = time.monotonic(), stops[0]

    async def report(t: float, playing: bool) -> None:
        # the epoch is left out of the pulled document while it has its default (0)
        await page.change(data, "report", [page.models[data]["attributes"].get("epoch", 0), t, playing])

    await report(start_t, True)
    sent += 1
    for t in stops[1:]:
        wait = (t - start_t) / speed - (time.monotonic() - start_wall)
        try:
            await asyncio.wait_for(stop.wait(), max(0.0, wait))
            return sent
        except asyncio.TimeoutError:
            pass
        await report(t, t < DURATION - 1e-9)
        sent += 1
    return sent


# --- the run ---------------------------------------------------------------------------------------
async def run(args: argparse.Namespace) -> dict:
    shared = load_shared(args.cases)
    expected = {v: f"{s.agree}/{s.labelled}" for v, s in
                ((v, evaluate(shared.features, shared.defaults.with_(trajectory=v)).summary) for _, v in TRAJECTORY_CYCLE)}
    times = list(reveal_times(shared.features.n))
    out: dict = {"cases": str(args.cases), "serve_args": args.serve_args, "cpus": os.cpu_count(), "phases": []}
    served = ServedApp(Path(args.cases), cwd=REPO, extra_args=shlex.split(args.serve_args), bokeh_resources=False)
    served.start()
    pid = served.pid
    try:
        # warm-up: one page opened, changed, closed and reaped (imports and caches of the first session)
        pages, _ = await open_pages(served.url, 1)
        await change_rounds([Person(pages[0], expected)], 3)
        await close_pages(pages)
        await asyncio.sleep(REAP_WAIT_S)
        rss_start = server_rss_mb(pid)
        out["rss_start_mb"] = rss_start
        out["memory_start"] = memory(pid)
        print(f"server ready; after one warm-up session {memory(pid)}; load {load()}", flush=True)

        # sequential CPU per settings change: one page, one change after another
        pages, _ = await open_pages(served.url, 1)
        person = Person(pages[0], expected)
        await person.change_trajectory()
        cpu0 = server_cpu_s(pid)
        lat = [await person.change_trajectory() for _ in range(args.sequential)]
        cpu_change = (server_cpu_s(pid) - cpu0) / args.sequential
        await close_pages(pages)
        out["sequential"] = {"cpu_ms_per_change": 1000 * cpu_change, **stats_ms(lat), "load": load()}
        print(f"sequential: server CPU {1000 * cpu_change:.1f} ms per settings change; "
              f"{show('latency', lat)}; load {load()}", flush=True)

        for n in args.n:
            cpu0 = server_cpu_s(pid)
            t0 = time.monotonic()
            pages, ready = await open_pages(served.url, n)
            open_wall = time.monotonic() - t0
            cpu_open = server_cpu_s(pid) - cpu0
            rss_open = server_rss_mb(pid)
            mem_open = memory(pid)
            people = [Person(p, expected) for p in pages]
            cpu1 = server_cpu_s(pid)
            rounds = await change_rounds(people, args.rounds)
            cpu_changes = server_cpu_s(pid) - cpu1
            all_changes = [x for r in rounds for x in r]
            await close_pages(pages)
            await asyncio.sleep(REAP_WAIT_S)
            rss_closed = server_rss_mb(pid)
            mem_closed = memory(pid)
            phase = {
                "n": n, "ready": stats_ms(ready), "all_ready_s": max(ready), "open_wall_s": open_wall,
                "cpu_s_per_session": cpu_open / n, "first_change": stats_ms(rounds[0]),
                "change": stats_ms(all_changes), "cpu_ms_per_change": 1000 * cpu_changes / len(all_changes),
                "rss_open_mb": rss_open, "rss_closed_mb": rss_closed, "memory_open": mem_open, "memory_closed": mem_closed,
                "load": load(),
            }
            out["phases"].append(phase)
            print(f"N={n}: all ready in {max(ready):.2f} s; {show('page ready', ready)}; server CPU "
                  f"{cpu_open / n:.3f} s per session", flush=True)
            print(f"N={n}: {show('first change', rounds[0])}; {show('every change', all_changes)}; server CPU "
                  f"{phase['cpu_ms_per_change']:.1f} ms per change", flush=True)
            print(f"N={n}: RSS {rss_start:.0f} MB at start, {rss_open:.0f} MB open, {rss_closed:.0f} MB closed and reaped "
                  f"({100 * (rss_closed - rss_start) / rss_start:+.1f} %); load {load()}", flush=True)
            print(f"N={n}: open: {mem_open}; closed and reaped: {mem_closed}", flush=True)

        if args.churn:
            # issue 15's memory figure: sessions opened and closed in batches of 10, then reaped
            levels = []
            for done in range(0, args.churn, 10):
                pages, _ = await open_pages(served.url, min(10, args.churn - done))
                await change_rounds([Person(p, expected) for p in pages], 1)
                await close_pages(pages)
                await asyncio.sleep(args.churn_wait)
                if (done + 10) % 50 == 0:
                    levels.append((done + 10, memory(pid)))
                    print(f"churn: {done + 10} sessions opened and closed: {levels[-1][1]}; load {load()}", flush=True)
            await asyncio.sleep(REAP_WAIT_S)
            out["churn"] = {"sessions": args.churn, "wait_s": args.churn_wait, "levels": levels, "reaped": memory(pid), "load": load()}
            print(f"churn: {args.churn} sessions, reaped: {out['churn']['reaped']}; load {load()}", flush=True)

        if args.replays:
            changers, _ = await open_pages(served.url, 10)
            people = [Person(p, expected) for p in changers]
            await change_rounds(people, 1)  # first changes out of the way
            idle = await keep_changing(people, args.rounds)
            players, _ = await open_pages(served.url, args.replays)
            stop = asyncio.Event()
            cpu0, t0 = server_cpu_s(pid), time.monotonic()
            playing = [asyncio.ensure_future(play_replay(p, times, 1.0, stop)) for p in players]
            await asyncio.sleep(3.0)
            cpu_alone = (server_cpu_s(pid) - cpu0) / (time.monotonic() - t0)
            busy = await keep_changing(people, args.rounds)
            stop.set()
            await asyncio.gather(*playing)
            await close_pages(changers + players)
            ratio = pct(busy, 0.95) / pct(idle, 0.95)
            out["replay"] = {"replays": args.replays, "idle": stats_ms(idle), "during": stats_ms(busy), "p95_ratio": ratio,
                             "cpu_per_wall_s_playing": cpu_alone, "load": load()}
            print(f"replay: 10 changing, {show('idle', idle)}; with {args.replays} replays playing, {show('during', busy)}; "
                  f"p95 ratio {ratio:.2f}; server CPU while the replays play alone {cpu_alone:.2f} s per s; load {load()}",
                  flush=True)
    finally:
        served.stop()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=str(REPO / "cases" / "booking_agent.json"))
    parser.add_argument("--n", type=int, nargs="*", default=[10, 20, 40], help="pages opened at once (default 10 20 40; "
                        "none: skip those phases)")
    parser.add_argument("--churn", type=int, default=0, metavar="N",
                        help="also open and close N sessions in batches of 10 (each changes once) and report memory (issue 15: 200)")
    parser.add_argument("--churn-wait", type=float, default=0.0, metavar="S",
                        help="seconds to wait after each batch is closed (20: most closed sessions are reaped before the next "
                             "batch; 0: up to ~80 closed sessions wait for Bokeh's reaper at once)")
    parser.add_argument("--rounds", type=int, default=5, help="change rounds per phase (default 5)")
    parser.add_argument("--sequential", type=int, default=30, help="one page's changes for the CPU per change (default 30)")
    parser.add_argument("--replays", type=int, default=20, help="replays playing in the replay phase (0: skip it)")
    parser.add_argument("--serve-args", default="", help="extra options for metric-explorer serve, e.g. '--num-procs 1'")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    print(f"bench/workshop.py: {args.cases}; serve {args.serve_args or '(defaults)'}; {os.cpu_count()} CPUs; load {load()}",
          flush=True)
    out = asyncio.run(run(args))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
