"""Where the server's CPU goes in one settings change (issue 15, part 3): a cProfile of the server
while one page changes Trajectory match ``--changes`` times, one after another.

The server is ``metric-explorer serve`` run in this process (one process, its Tornado loop on the
main thread); the page is driven over Bokeh's websocket protocol from a second thread
(``tests/browser/bokeh_protocol.py``, as ``bench/workshop.py`` does). Only the server's thread is
profiled, in CPU time (cProfile follows the thread that enabled it; ``time.thread_time``), from after a warm-up (the page opened and
three changes made) until the last change's figure has arrived. Prints the CPU per change and the
top functions by cumulative time; ``--out`` keeps the raw stats (``python -m pstats``).

Usage::

    .venv/bin/python bench/profile_change.py                  # 30 changes, top 40 by cumulative
    .venv/bin/python bench/profile_change.py --sort tottime --top 30 --out /tmp/change.prof
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "browser"))
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO))

from served_app import free_port  # noqa: E402


def drive(url: str, changes: int, expected: dict, result: dict, server_loop: list, args_profile: bool = True) -> None:
    """The page's thread: open, warm up, then ``changes`` changes under the profiler."""
    from bokeh_protocol import BokehPage
    from workshop import Person

    async def go() -> None:
        page = BokehPage(url)
        await page.open()
        person = Person(page, expected)
        for _ in range(3):
            await person.change_trajectory()
        loop = server_loop[0]
        started, stopped = threading.Event(), threading.Event()

        def start() -> None:
            result["thread_cpu0"] = time.thread_time()
            if args_profile:
                result["profile"].enable()
            started.set()

        def stop() -> None:
            if args_profile:
                result["profile"].disable()
            result["thread_cpu_s"] = time.thread_time() - result["thread_cpu0"]
            stopped.set()

        loop.add_callback(start)
        started.wait()
        cpu0, t0 = time.process_time(), time.monotonic()
        person.latencies.clear()
        for _ in range(changes):
            await person.change_trajectory()
        loop.add_callback(stop)
        stopped.wait()
        result["cpu_s"] = time.process_time() - cpu0  # both threads; the page's part is small
        result["wall_s"] = time.monotonic() - t0
        result["latencies"] = list(person.latencies)
        await page.close()

    try:
        asyncio.run(go())
    finally:
        server_loop[0].add_callback(server_loop[0].stop)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=str(REPO / "cases" / "booking_agent.json"))
    parser.add_argument("--changes", type=int, default=30)
    parser.add_argument("--sort", default="cumulative", help="pstats sort key (cumulative, tottime)")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--out", type=Path, help="write the raw profile here")
    parser.add_argument("--no-profile", action="store_true", help="only the server thread's CPU per change (no profiler overhead)")
    args = parser.parse_args(argv)

    from workshop import TRAJECTORY_CYCLE

    from explorer.app.shared import load_shared
    from explorer.cli import build_parser
    from explorer.core.evaluation.verdicts import evaluate

    shared = load_shared(args.cases)
    expected = {v: f"{s.agree}/{s.labelled}" for v, s in
                ((v, evaluate(shared.features, shared.defaults.with_(trajectory=v)).summary) for _, v in TRAJECTORY_CYCLE)}
    port = free_port()
    serve_args = build_parser().parse_args(["serve", "--cases", args.cases, "--port", str(port), "--num-procs", "1"])
    result: dict = {"profile": cProfile.Profile(time.thread_time)}  # the server thread's CPU time
    server_loop: list = []

    def wait_then_drive() -> None:
        import urllib.request

        import panel as pn

        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/liveness", timeout=2):
                    break
            except OSError:
                time.sleep(0.2)
        server_loop.append(next(iter(pn.state._servers.values()))[0].io_loop)
        drive(f"http://127.0.0.1:{port}/", args.changes, expected, result, server_loop, not args.no_profile)

    client = threading.Thread(target=wait_then_drive, daemon=True)
    client.start()
    serve_args.func(serve_args)  # returns when the page's thread stops the loop
    client.join(timeout=30)

    lat = sorted(result["latencies"])
    print(f"{args.changes} changes: server thread CPU {1000 * result['thread_cpu_s'] / args.changes:.1f} ms per change"
          f"{' (profiled)' if not args.no_profile else ''}; process (the page's thread too) {1000 * result['cpu_s'] / args.changes:.1f} ms; "
          f"latency median {1000 * lat[len(lat) // 2]:.0f} ms; load {'/'.join(f'{x:.1f}' for x in os.getloadavg())}")
    if args.no_profile:
        return 0
    stats = pstats.Stats(result["profile"])
    if args.out:
        stats.dump_stats(str(args.out))
    stats.sort_stats(args.sort).print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
