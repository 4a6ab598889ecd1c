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
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
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


def page_builder(build: Callable[[], pn.viewable.Viewable]) -> Callable[[], pn.viewable.Viewable]:
    """The function ``pn.serve`` calls per session: local resources first, then ``build()``; the
    session's end schedules :func:`reclaim_memory`."""

    def session_page() -> pn.viewable.Viewable:
        use_local_resources()
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            pn.state.on_session_destroyed(_schedule_reclaim)
        return build()

    return session_page
