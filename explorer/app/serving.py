"""What every served page gets whatever request built its session (issue 15): resources from this
server, and memory handed back when sessions end.

**Local resources.** Bokeh builds a session when the page is requested (``GET /``) and the page
then opens its websocket. Panel's page handler points the session's stylesheets at this server
(``static/extensions/panel/...``) *after* the page's models are built, by rewriting their
``cdn.holoviz.org`` URLs, and it records the local address in the document's template variables,
which Panel reads when it builds a model later. A session built from the websocket alone never
passes through that handler, and its stylesheets stayed on the CDN: when the page's websocket opens
after Bokeh discarded its unused session (15 s, a room of 40 opening the link together), on the
other worker of ``serve --num-procs 2``, and for every page when sessions are built on connection
(:func:`page_builder`'s callers serve with Panel's ``reuse_sessions``). :func:`use_local_resources`
sets the document's address *before* the app builds its models, so every model gets local URLs
from the start, whichever way its session came to be. The page's own request data (its URL query)
comes from the session token, which carries the request's arguments, so it holds for those
sessions too.

**Memory.** A closed session's objects are cyclic garbage (Panel and Bokeh objects refer to each
other), collected only by a full collection, which a mostly idle server may not run for a long time;
and freed memory stays in the C heap. :func:`reclaim_memory` runs a full collection and returns the
heap's free pages to the system (glibc ``malloc_trim``), once, shortly after sessions end.

**The allocator.** A closed session leaves no objects behind (its ExplorerSession, document and
views are collected: ``tests/test_session_memory.py``), yet with Python's own small-object
allocator (pymalloc) a worker kept about 5 MB per session it had held at once: pymalloc returns a
1 MiB arena to the system only when every object in it is freed, and the small objects that
outlive the sessions (~1,200 blocks, 0.13 MB, by tracemalloc: Bokeh's and Panel's caches, dicts that
grew, the server's own connection state) are spread over the arenas the sessions filled. In-process, 20 sessions opened, changed
and reaped: the same 98 MB of Python objects before and after, but pymalloc's arenas went from 96
to 195 (RSS +97 MB). :func:`use_system_malloc` makes ``serve`` run under glibc's malloc instead
(``PYTHONMALLOC=malloc``), whose free pages ``malloc_trim`` gives back wherever they are in the
heap: RSS +39 MB for the same 20 sessions.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import html
import os
import sys
import traceback
from typing import Callable

import panel as pn
from panel.io.resources import LOCAL_DIST

RECLAIM_DELAY_MS = 2000
"""Wait after a session ends before collecting (sessions closed together are reclaimed once)."""


def local_dist_url(rel_path: str | None) -> str:
    """Where Panel's own files are on this server, as Panel's page handler writes it:
    ``static/extensions/panel/``, below ``rel_path`` when the app is served under a prefix."""
    return f"{rel_path}/{LOCAL_DIST}" if rel_path else LOCAL_DIST


def use_local_resources(doc=None) -> None:
    """Make the models of ``doc`` (default: the session being built) point at this server's
    resources, as the page handler would; call before the app builds its layout. Nothing outside
    a server session."""
    doc = doc if doc is not None else pn.state.curdoc
    if doc is None or doc.session_context is None:
        return
    doc.template_variables["dist_url"] = local_dist_url(pn.state.rel_path)


SYSTEM_MALLOC_ENV = {"PYTHONMALLOC": "malloc", "MALLOC_ARENA_MAX": "2"}
"""The environment :func:`use_system_malloc` runs ``serve`` under: Python's objects from glibc's
malloc, in at most two malloc arenas (threads would each get one otherwise)."""


def use_system_malloc() -> None:
    """Run this command again, from the start, with :data:`SYSTEM_MALLOC_ENV` in its environment
    (``os.execv``: the same process id, arguments and standard streams), unless ``PYTHONMALLOC`` is
    already set (then the allocator it names is used: ``PYTHONMALLOC=pymalloc`` keeps Python's own)
    or this is not Linux with glibc. Python chooses its allocator when it starts, hence the new
    start. Call it from the command line's own process only, before loading anything."""
    if "PYTHONMALLOC" in os.environ or not sys.platform.startswith("linux"):
        return
    if ctypes.util.find_library("c") is None or not hasattr(sys, "orig_argv"):
        return
    os.environ.update(SYSTEM_MALLOC_ENV)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])
    except OSError:  # pragma: no cover - keep serving under pymalloc
        for name in SYSTEM_MALLOC_ENV:
            os.environ.pop(name, None)


_trim: Callable[[int], int] | None = None
_pending = False


def _malloc_trim() -> None:
    global _trim
    if _trim is None:
        name = ctypes.util.find_library("c")
        libc = ctypes.CDLL(name) if name else None
        _trim = getattr(libc, "malloc_trim", None) or (lambda _pad: 0)
    _trim(0)


def reclaim_memory() -> None:
    """A full garbage collection, then the C heap's free pages back to the system (glibc only;
    elsewhere the collection alone)."""
    global _pending
    _pending = False
    gc.collect()
    _malloc_trim()


def _schedule_reclaim(_context) -> None:
    """On a session's end: one :func:`reclaim_memory` a moment later on the server's loop, for
    however many sessions end meanwhile."""
    global _pending
    if _pending:
        return
    from tornado.ioloop import IOLoop

    _pending = True
    IOLoop.current().call_later(RECLAIM_DELAY_MS / 1000, reclaim_memory)


def send_messages_at_once() -> None:
    """Every websocket this process's Bokeh server opens sends without Nagle's delay
    (``TCP_NODELAY``, Tornado's ``WebSocketHandler.set_nodelay(True)``), as Tornado's documentation
    advises for small messages. Bokeh sends each message as several websocket frames (header,
    metadata, content, buffers); with Nagle's algorithm on, the second small frame waits for the
    browser's acknowledgement of the first, which the browser delays (~40 ms on Linux): every
    settings change's answer could reach the page ~40 ms late (``bench/panel_floor.py``). Neither
    Bokeh nor Panel sets it.
    Idempotent; wraps ``bokeh.server.views.ws.WSHandler.open``, the method Tornado calls once the
    websocket is established."""
    from bokeh.server.views.ws import WSHandler

    if getattr(WSHandler.open, "_me_nodelay", False):
        return
    opened = WSHandler.open

    def open_without_delay(self, *args, **kwargs):
        self.set_nodelay(True)
        return opened(self, *args, **kwargs)

    open_without_delay._me_nodelay = True  # type: ignore[attr-defined]
    open_without_delay.__doc__ = opened.__doc__
    WSHandler.open = open_without_delay  # type: ignore[method-assign]


def page_request_key(request) -> str:
    """Which cached session renders a page request under Panel's ``reuse_sessions``: one per path.
    Panel's own key adds the request's ``theme`` argument, and keeps every session it caches for
    the server's lifetime, so each new ``?theme=...`` in a URL kept one more session (~5 MB) for
    good; this app has no themes."""
    return request.path


def page_builder(build: Callable[[], pn.viewable.Viewable]) -> Callable[[], pn.viewable.Viewable]:
    """The function ``pn.serve`` calls per session: local resources first, then ``build()``; the
    session's end schedules :func:`reclaim_memory`."""

    def session_page() -> pn.viewable.Viewable:
        use_local_resources()
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            pn.state.on_session_destroyed(_schedule_reclaim)
        try:
            return build()
        except Exception as exc:  # noqa: BLE001 - any fault: the details go to the server's log only
            traceback.print_exc()
            return failed_page(exc)

    return session_page


def failed_page(exc: BaseException) -> pn.viewable.Viewable:
    """What a page shows when building it raised ``exc``: one plain line naming the error's type
    (``me-page-error``). Panel's own page showed the whole traceback, unescaped, to whoever opened
    the link: the server's paths, and any text of the link the error carried as markup (a link's
    arg_rules nested 2,000 deep raised RecursionError there). The traceback goes to stderr."""
    return pn.pane.HTML(
        f'<div class="me-input-error me-page-error" role="alert">This page could not be built '
        f"({html.escape(type(exc).__name__)}): the server’s log has the details. The link without its query "
        "(after ?) opens the page with its usual settings.</div>",
        sizing_mode="stretch_width",
    )
