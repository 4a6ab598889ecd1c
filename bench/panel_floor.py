"""The floor under issue 15's "server CPU per settings change": what the same round trip costs
the server for a Panel page that does almost nothing.

A minimal app is served by Panel in a subprocess (one process, the same Panel, Bokeh and Tornado
as ``metric-explorer serve``): a Select and ``--panes`` HTML panes; a change of the Select
rewrites each pane's text under one ``pn.io.hold()`` (one ``PATCH-DOC`` back, as the explorer sends).
One page is driven over Bokeh's websocket protocol (``tests/browser/bokeh_protocol.py``, as
``bench/workshop.py``'s sequential phase does): ``--changes`` changes one after another, each
waiting for the first pane to show the new value. Server CPU per change = the server process's
user + system time over the changes (``/proc``) / changes. Compare with ``bench/workshop.py``'s
"sequential: server CPU ... per settings change" for the explorer.

Usage::

    .venv/bin/python bench/panel_floor.py                  # 1 pane and 10 panes, 30 changes each
    .venv/bin/python bench/panel_floor.py --panes 1 20 --changes 50
    .venv/bin/python bench/panel_floor.py --tuned      # Bokeh and the collector tuned as serve does
    .venv/bin/python bench/panel_floor.py --panes 1                                 # Panel as shipped, a browser's page
    .venv/bin/python bench/panel_floor.py --panes 1 --server-nodelay               # as the explorer serves now
    .venv/bin/python bench/panel_floor.py --panes 1 --server-nodelay --debounce 0   # and without Panel's debounce

It also shows where a change's *latency* went: Panel's 50 ms debounce before it handles a widget's
change, and Nagle's algorithm holding the second frame of each Bokeh message until the other end's
delayed acknowledgement (~40 ms); a browser sets TCP_NODELAY on its side, and so does the driven
page (``--no-client-nodelay``: not).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "browser"))
sys.path.insert(0, str(REPO / "bench"))

from bokeh_protocol import BokehPage  # noqa: E402
from served_app import free_port  # noqa: E402
from workshop import server_cpu_s  # noqa: E402

APP = """
import sys
import panel as pn
from bokeh.settings import settings
settings.resources.set_value("server")
if sys.argv[3] == "tuned":  # as metric-explorer serve tunes Bokeh and the collector
    import gc
    from explorer.commands.serve import GC_THRESHOLDS, tune_bokeh_for_sessions
    tune_bokeh_for_sessions()
    gc.collect(); gc.freeze(); gc.set_threshold(*GC_THRESHOLDS)
if sys.argv[5] == "nodelay":
    from explorer.app.serving import send_messages_at_once
    send_messages_at_once()
panes = int(sys.argv[1])
def page():
    select = pn.widgets.Select(options=["a", "b", "c"], value="a", css_classes=["floor-select"])
    if sys.argv[4] != "panel":
        select._debounce = int(sys.argv[4])
    html = [pn.pane.HTML(f"value: a {k}", css_classes=[f"floor-pane-{k}"]) for k in range(panes)]
    def changed(event):
        with pn.io.hold():
            for k, pane in enumerate(html):
                pane.object = f"value: {event.new} {k}"
    select.param.watch(changed, ["value"])
    return pn.Column(select, *html)
pn.serve(page, port=int(sys.argv[2]), address="127.0.0.1", show=False, threaded=False, websocket_origin=["127.0.0.1:" + sys.argv[2]])
"""


async def drive(url: str, changes: int, pid: int, client_nodelay: bool) -> tuple[float, float]:
    """(server CPU ms per change, median latency ms) over ``changes`` sequential changes."""
    page = BokehPage(url)
    await page.open()
    # BokehPage sets TCP_NODELAY on its side, as a browser does; --no-client-nodelay turns it off
    page.ws.protocol.set_nodelay(client_nodelay)
    select = page.find("floor-select")
    pane = page.find("floor-pane-0")
    values = ["b", "c", "a"]
    for warm in range(3):
        await page.change(select, "value", values[warm % 3])
        await page.wait_for(lambda v=values[warm % 3]: page.text(pane).startswith(f"value: {v} "))
    cpu0 = server_cpu_s(pid)
    latencies = []
    for i in range(changes):
        value = values[i % 3]
        t0 = time.monotonic()
        await page.change(select, "value", value)
        t1 = await page.wait_for(lambda v=value: page.text(pane).startswith(f"value: {v} "))
        latencies.append(t1 - t0)
    cpu = server_cpu_s(pid) - cpu0
    await page.close()
    latencies.sort()
    return 1000 * cpu / changes, 1000 * latencies[len(latencies) // 2]


def main() -> int:
    """Serve the minimal app for each ``--panes`` and print its server CPU per change."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--panes", type=int, nargs="+", default=[1, 10], help="HTML panes rewritten per change")
    ap.add_argument("--changes", type=int, default=30)
    ap.add_argument("--tuned", action="store_true", help="tune Bokeh and the collector as metric-explorer serve does")
    ap.add_argument("--debounce", type=int, default=None, metavar="MS",
                    help="the Select's debounce (default: Panel's 50 ms, which the explorer keeps)")
    ap.add_argument("--server-nodelay", action="store_true", help="the server's websockets without Nagle's delay "
                    "(explorer.app.serving.send_messages_at_once, as serve does)")
    ap.add_argument("--no-client-nodelay", dest="client_nodelay", action="store_false",
                    help="the page's websocket with Nagle's delay (a browser's has none; BokehPage's neither by default)")
    args = ap.parse_args()
    print(f"bench/panel_floor.py: {os.cpu_count()} CPUs; load {os.getloadavg()[0]:.1f}")
    for panes in args.panes:
        port = free_port()
        proc = subprocess.Popen([sys.executable, "-c", APP, str(panes), str(port), "tuned" if args.tuned else "plain",
                                 "panel" if args.debounce is None else str(args.debounce),
                                 "nodelay" if args.server_nodelay else "nagle"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    cpu, median = asyncio.run(drive(f"http://127.0.0.1:{port}/", args.changes, proc.pid, args.client_nodelay))
                    break
                except (ConnectionError, OSError):
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.3)
            how = [w for w, on in (("tuned as serve", args.tuned), (f"debounce {args.debounce} ms", args.debounce is not None),
                                   ("server nodelay", args.server_nodelay), ("client Nagle", not args.client_nodelay)) if on]
            print(f"{panes:3d} HTML pane(s) rewritten per change ({', '.join(how) or 'Panel as shipped'}): server CPU {cpu:.1f} ms per change; "
                  f"latency median {median:.0f} ms (n={args.changes}); load {os.getloadavg()[0]:.1f}")
        finally:
            proc.terminate()
            proc.wait(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
