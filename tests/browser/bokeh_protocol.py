"""A page of the served app over Bokeh's websocket protocol, without a browser.

Used by ``bench/workshop.py`` (many sessions at once) and by the late-connection test. It does
what BokehJS does for a page: ``GET /`` (the page with the session's token), the websocket
``/ws`` with subprotocols ``["bokeh", token]``, the server's ``ACK``, then ``PULL-DOC-REQ``; the
reply holds the whole document (every model with its attributes). Afterwards it sends what a
person's clicks send (``PATCH-DOC`` with ``ModelChanged`` or a ``button_click`` event; first the
``document_ready`` event BokehJS sends once the page is rendered) and
applies the server's ``PATCH-DOC`` messages to its copy of the models.

A Bokeh message is several websocket frames: a header (``msgid``, ``msgtype``, ``num_buffers``),
metadata, content, then two frames per binary buffer. Protocol: bokeh/protocol/ (Bokeh 3.x);
frame formats checked against what Chromium sends for the same clicks.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

TOKEN = re.compile(r'"token":\s*"([^"]+)"')
"""Where the page's script holds the session token."""


@dataclass
class Message:
    """One Bokeh protocol message: its header, metadata and content (buffers are skipped)."""

    header: dict
    metadata: dict
    content: dict
    received: float = 0.0
    """time.monotonic() when its last frame arrived."""

    @property
    def msgtype(self) -> str:
        return str(self.header.get("msgtype"))


def walk_models(value: Any, out: dict[str, dict]) -> None:
    """Collect every serialised model (``{"type": "object", "name", "id", "attributes"}``) found
    in ``value`` into ``out`` (id -> {"name", "attributes"}); references (``{"id"}``) are skipped."""
    if isinstance(value, dict):
        if value.get("type") == "object" and "id" in value and "name" in value:
            out[value["id"]] = {"name": value["name"], "attributes": value.get("attributes", {})}
        for v in value.values():
            walk_models(v, out)
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, (dict, list)):  # not into a column of numbers
                walk_models(v, out)


def stylesheet_urls(models: dict[str, dict]) -> list[str]:
    """The ``url`` of every ``ImportedStyleSheet`` among ``models`` (sorted, unique)."""
    return sorted({str(m["attributes"].get("url")) for m in models.values()
                   if m["name"] == "ImportedStyleSheet" and m["attributes"].get("url")})


def resource_urls(models: dict[str, dict]) -> list[str]:
    """Every attribute value of ``models`` that looks like a URL or a path to a resource: the
    stylesheets' ``url`` and any string attribute starting with http(s):// or // (an image, a
    script, a font), plus ``url(...)`` references and ``@import`` inside raw CSS strings."""
    found: set[str] = set(stylesheet_urls(models))

    def scan(value: Any) -> None:
        if isinstance(value, str):
            # a whole value that is one URL (no whitespace: a script starting with a // comment is not)
            if re.fullmatch(r"(https?:)?//\S+", value.strip()):
                found.add(value.strip())
            for m in re.finditer(r"""(?:url\(\s*['"]?|@import\s+['"])((?:https?:)?//[^'")\s]+)""", value):
                found.add(m.group(1))
            for m in re.finditer(r"""(?:src|href)=["']((?:https?:)?//[^"']+)""", html.unescape(value)):
                found.add(m.group(1))
        elif isinstance(value, dict):
            for v in value.values():
                scan(v)
        elif isinstance(value, list):
            for v in value:
                scan(v)

    for model in models.values():
        scan(model["attributes"])
    return sorted(found)


@dataclass
class BokehPage:
    """One browser page's session, driven over the protocol. ``url``: the app's page
    (``http://127.0.0.1:<port>/`` with an optional query)."""

    url: str
    token: str = ""
    ws: WebSocketClientConnection | None = None
    models: dict[str, dict] = field(default_factory=dict)
    patches: list[Message] = field(default_factory=list)
    """Every message the server sent after the document (PATCH-DOC, OK, ...), in order."""
    _reader: asyncio.Task | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _replies: dict[str, asyncio.Future] = field(default_factory=dict)

    async def get(self, timeout: float = 600.0) -> None:
        """``GET`` the page and keep its session token."""
        response = await AsyncHTTPClient().fetch(HTTPRequest(self.url, request_timeout=timeout, connect_timeout=timeout))
        page = response.body.decode("utf-8", errors="replace")
        found = TOKEN.search(page)
        if not found:
            raise RuntimeError(f"no session token in the page of {self.url}")
        self.token = found.group(1)

    async def connect(self, timeout: float = 600.0) -> None:
        """Open the websocket with the token, wait for ``ACK`` and pull the document."""
        base = self.url.split("?", 1)[0].rstrip("/")
        origin = base
        request = HTTPRequest(base.replace("http", "ws", 1) + "/ws", headers={"Origin": origin},
                              connect_timeout=timeout, request_timeout=timeout)
        self.ws = await websocket_connect(request, subprotocols=["bokeh", self.token], max_message_size=1 << 30)
        # as a browser does: Chromium sets TCP_NODELAY on its sockets (with Nagle's algorithm on
        # here, each multi-frame message of the page waited for the server's delayed ACK, ~40 ms)
        self.ws.protocol.set_nodelay(True)
        ack = await self._read()
        if ack.msgtype != "ACK":
            raise RuntimeError(f"expected ACK, got {ack.msgtype}")
        msgid = await self._send("PULL-DOC-REQ", {})
        reply = await self._read()
        if reply.msgtype != "PULL-DOC-REPLY" or reply.header.get("reqid") != msgid:
            raise RuntimeError(f"expected PULL-DOC-REPLY, got {reply.msgtype}")
        walk_models(reply.content, self.models)
        self._reader = asyncio.ensure_future(self._read_forever())
        # BokehJS says so once the page is rendered; Panel then counts the page as loaded (and,
        # from then on, sends all changes made under one ``hold`` in one message)
        await self._event("document_ready", {"type": "map"})

    async def open(self, timeout: float = 600.0) -> None:
        """:meth:`get` then :meth:`connect`."""
        await self.get(timeout)
        await self.connect(timeout)

    # --- finding models ------------------------------------------------------------------------
    def find(self, css_class: str, name: str | None = None) -> str:
        """Id of the first model whose ``css_classes`` hold ``css_class`` (and whose type name
        ends with ``name`` when given); KeyError when none."""
        for mid, model in self.models.items():
            if css_class in (model["attributes"].get("css_classes") or []):
                if name is None or model["name"].endswith(name):
                    return mid
        raise KeyError(f"no model with class {css_class!r}")

    def find_text(self, needle: str) -> str:
        """Id of the first model whose ``text`` (HTML-escaped by Panel) contains ``needle``."""
        escaped = html.escape(needle)
        for mid, model in self.models.items():
            text = model["attributes"].get("text")
            if isinstance(text, str) and (escaped in text or needle in text):
                return mid
        raise KeyError(f"no model whose text holds {needle!r}")

    def text(self, model_id: str) -> str:
        """The model's ``text`` with Panel's escaping undone and tags removed, spaces collapsed."""
        raw = html.unescape(str(self.models[model_id]["attributes"].get("text", "")))
        return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", raw)).strip()

    # --- acting --------------------------------------------------------------------------------
    async def change(self, model_id: str, attr: str, new: Any) -> None:
        """What the browser sends when a person changes a widget: ``ModelChanged``."""
        self.models[model_id]["attributes"][attr] = new
        await self._send("PATCH-DOC", {"events": [{"kind": "ModelChanged", "model": {"id": model_id}, "attr": attr, "new": new}]})

    async def click(self, model_id: str) -> None:
        """What the browser sends for a button click (a ``button_click`` event)."""
        await self._event("button_click", {"type": "map", "entries": [["model", {"id": model_id}]]})

    async def _event(self, name: str, values: dict) -> None:
        event = {"type": "event", "name": name, "values": values}
        await self._send("PATCH-DOC", {"events": [{"kind": "MessageSent", "msg_type": "bokeh_event", "msg_data": event}]})

    async def wait_for(self, check: Callable[[], bool], timeout: float = 60.0) -> float:
        """Wait until ``check()`` holds (re-checked after each server message); the
        time.monotonic() of the message that made it hold. TimeoutError after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while not check():
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the server did not send the awaited change")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except asyncio.TimeoutError:
                continue
        return self.patches[-1].received if self.patches else time.monotonic()

    async def close(self) -> None:
        """Close the websocket (the server then destroys the session)."""
        if self.ws is not None:
            self.ws.close()
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):
                pass

    # --- the wire ------------------------------------------------------------------------------
    async def _send(self, msgtype: str, content: dict) -> str:
        assert self.ws is not None
        msgid = uuid.uuid4().hex
        await self.ws.write_message(json.dumps({"msgid": msgid, "msgtype": msgtype}))
        await self.ws.write_message("{}")
        await self.ws.write_message(json.dumps(content))
        return msgid

    async def _frame(self) -> Any:
        assert self.ws is not None
        frame = await self.ws.read_message()
        if frame is None:
            raise ConnectionError("the server closed the websocket")
        return frame

    async def _read(self) -> Message:
        header = json.loads(await self._frame())
        metadata = json.loads(await self._frame())
        content = json.loads(await self._frame())
        for _ in range(int(header.get("num_buffers", 0) or 0)):
            await self._frame()  # buffer header
            await self._frame()  # buffer payload
        return Message(header, metadata, content, time.monotonic())

    def _apply(self, message: Message) -> None:
        if message.msgtype != "PATCH-DOC":
            return
        walk_models(message.content, self.models)  # new models a patch brings
        for event in message.content.get("events", []):
            if event.get("kind") == "ModelChanged":
                mid = event.get("model", {}).get("id")
                if mid in self.models:
                    self.models[mid]["attributes"][event.get("attr")] = event.get("new")

    async def _read_forever(self) -> None:
        try:
            while True:
                message = await self._read()
                self._apply(message)
                self.patches.append(message)
                self._changed.set()
        except (ConnectionError, asyncio.CancelledError):
            return
        except Exception:  # the websocket closed under us
            return
