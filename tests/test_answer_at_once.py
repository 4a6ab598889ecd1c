"""A settings change answered without waiting (``serving.send_messages_at_once``): the server's
websockets send without Nagle's delay.

The socket option is read from a real Bokeh server's side of a real websocket (a page driven over
Bokeh's protocol, ``tests/browser/bokeh_protocol.py``). What it saves in time is measured by
``bench/panel_floor.py`` and ``bench/browser_latency.py`` (docs/performance.md), not here."""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path

from bokeh.application import Application
from bokeh.application.handlers.function import FunctionHandler
from bokeh.models import Div
from bokeh.server.server import Server
from tornado.ioloop import IOLoop

sys.path.insert(0, str(Path(__file__).parent / "browser"))

from bokeh_protocol import BokehPage  # noqa: E402
from served_app import free_port  # noqa: E402

from explorer.app.serving import send_messages_at_once  # noqa: E402

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
