"""A settings change answered without waiting (``serving.send_messages_at_once``,
``style.answer_at_once``): the server's websockets send without Nagle's delay, and the settings
widgets that send one change per click skip Panel's 50 ms debounce while the sliders keep it.

The socket option is read from a real Bokeh server's side of a real websocket (a page driven over
Bokeh's protocol, ``tests/browser/bokeh_protocol.py``). What the two save in time is measured by
``bench/panel_floor.py`` and ``bench/browser_latency.py`` (docs/performance.md), not here."""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path

import panel as pn
from bokeh.application import Application
from bokeh.application.handlers.function import FunctionHandler
from bokeh.models import Div
from bokeh.server.server import Server
from tornado.ioloop import IOLoop

sys.path.insert(0, str(Path(__file__).parent / "browser"))

from bokeh_protocol import BokehPage  # noqa: E402
from served_app import free_port  # noqa: E402

from explorer.app.main import ExplorerSession  # noqa: E402
from explorer.app.serving import send_messages_at_once  # noqa: E402
from explorer.app.shared import load_shared  # noqa: E402

CASES = Path(__file__).resolve().parents[1] / "cases" / "booking_agent.json"


async def _server_side_nodelay() -> list[int]:
    """TCP_NODELAY of the server's end of each websocket, with one page connected to a Bokeh
    server in this process."""
    port = free_port()
    app = Application(FunctionHandler(lambda doc: doc.add_root(Div(text="a page"))))
    server = Server({"/": app}, port=port, address="127.0.0.1", io_loop=IOLoop.current(),
                    allow_websocket_origin=[f"127.0.0.1:{port}"])
    server.start()
    page = BokehPage(f"http://127.0.0.1:{port}/")
    try:
        await page.open(timeout=30)
        connections = list(server._tornado._clients)
        return [c._socket.ws_connection.stream.socket.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) for c in connections]
    finally:
        await page.close()
        server.stop()


def test_the_servers_websockets_send_without_nagles_delay():
    send_messages_at_once()
    send_messages_at_once()  # idempotent: wrapped once
    flags = asyncio.run(_server_side_nodelay())
    assert len(flags) == 1 and flags[0] != 0


def test_one_change_widgets_skip_panels_debounce_and_sliders_keep_it():
    session = ExplorerSession(load_shared(CASES))
    view = session.inputs_view
    at_once = [view.trajectory, view.args, view.single_tool, view.combine, view.deny_check, view.deny_tools,
               view.key_fields, view.day_first, view.f1_input, view.trajectory_threshold_input, session.response_inputs.scorer,
               session.table.table, session.table.page, session.chart.x]
    assert [w._debounce for w in at_once] == [0] * len(at_once)
    sliders = [view.f1, view.trajectory_threshold, session.response_inputs.pass_above, session.response_inputs.fail_below]
    assert [w._debounce for w in sliders] == [50] * len(sliders)  # Panel's own (reactive.Syncable._debounce)
    assert type(view.trajectory)._debounce == 50 == pn.widgets.Select._debounce  # the class keeps Panel's value


def test_the_filters_skip_the_debounce_and_the_search_box_keeps_it():
    from explorer.app.views.filters import FilterBar

    filters = FilterBar(lambda: None)
    assert [w._debounce for w in (filters.outcome, filters.decided, filters.people)] == [0, 0, 0]
    assert filters.search._debounce == 50  # typed into: a burst of value_input changes handled once

