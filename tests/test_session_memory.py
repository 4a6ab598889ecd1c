"""Issue 9 item 11: a workshop's closed sessions give their memory back.

* A session closed and discarded by Bokeh leaves none of its objects behind: sessions built by a
  server in this process, the way ``serve`` builds them (``page_builder`` over the workspace page,
  Panel's ``reuse_sessions``), driven over Bokeh's websocket protocol, closed, then discarded as
  Bokeh's periodic clean-up does; every ExplorerSession and WorkspacePage they made is collected.
* ``serve`` runs under glibc's malloc (``PYTHONMALLOC=malloc``): with Python's own allocator a
  worker kept ~5 MB per session it had held at once although every object was freed (its 1 MiB
  arenas stay while any object in them lives; ``explorer/app/serving.py``).
"""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import time
import urllib.request
import weakref
from pathlib import Path

import pytest

os.environ.setdefault("BOKEH_RESOURCES", "server")

sys.path.insert(0, str(Path(__file__).parent / "browser"))

from bokeh_protocol import BokehPage  # noqa: E402
from served_app import free_port  # noqa: E402

from explorer.app.main import ExplorerSession  # noqa: E402
from explorer.app.page import WorkspacePage, create_workspace_app  # noqa: E402
from explorer.app.serving import page_builder  # noqa: E402
from explorer.app.workspace import ProcessSets, shared_from_case_set  # noqa: E402
from explorer.core.io.casefile import load_case_set  # noqa: E402
from proc_info import children  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = ROOT / "cases" / "booking_agent.json"


def _live(kind: type) -> list:
    gc.collect()
    return [o for o in gc.get_objects() if type(o) is kind]


def test_closed_sessions_are_collected():
    import panel as pn

    pn.extension("tabulator", "filedropper", notifications=False)
    process = ProcessSets(shared_from_case_set(load_case_set(BUNDLED)), str(BUNDLED))
    port = free_port()
    reuse = pn.config.reuse_sessions
    pn.config.reuse_sessions = True  # as serve: the page request renders from a cached session

    async def go() -> tuple[int, list[weakref.ref], int]:  # sessions made, weakrefs to them, pages kept
        server = pn.serve(page_builder(lambda: create_workspace_app(process)), port=port, address="127.0.0.1",
                          websocket_origin=[f"127.0.0.1:{port}"], show=False, start=False, threaded=False)
        server.start()
        url = f"http://127.0.0.1:{port}/"
        try:
            async def cycle(n: int) -> list[BokehPage]:
                pages = [BokehPage(url) for _ in range(n)]
                await asyncio.gather(*(p.open(timeout=120) for p in pages))
                # one settings change each (ANY_ORDER: 6/10 agree on the bundled set, seed 002's table)
                for p in pages:
                    whole = p.find_text("me-whole-agreement")
                    await p.change(p.find("me-trajectory", "Select"), "value", "any_order")
                    await p.wait_for(lambda p=p, w=whole: "All runs: 6/10 agree" in p.text(w), timeout=60)
                return pages

            async def close_and_reap(pages: list[BokehPage]) -> None:
                await asyncio.gather(*(p.close() for p in pages))
                for _ in range(100):  # the server sees the websockets close
                    if all(s.connection_count == 0 for c in server._tornado._applications.values() for s in c.sessions):
                        break
                    await asyncio.sleep(0.05)
                for context in server._tornado._applications.values():
                    await context._cleanup_sessions(0)  # what Bokeh runs every 17 s, with no linger

            await close_and_reap(await cycle(1))  # the first session: Panel caches one for page requests
            before = {id(o) for o in _live(ExplorerSession)}
            pages_before = [weakref.ref(o) for o in _live(WorkspacePage)]
            pages = await cycle(3)
            made = [o for o in _live(ExplorerSession) if id(o) not in before]
            refs = [weakref.ref(o) for o in made]
            pages_made = len(made)
            del made
            await close_and_reap(pages)
            del pages
            gc.collect()
            kept = {id(r()) for r in pages_before if r() is not None}
            return pages_made, refs, len([o for o in _live(WorkspacePage) if id(o) not in kept])
        finally:
            server.stop()

    try:
        made, refs, workspace_pages = asyncio.run(go())
    finally:
        pn.config.reuse_sessions = reuse
    assert made == 3
    assert [r() for r in refs] == [None, None, None]
    assert workspace_pages == 0  # and none of their WorkspacePages



def _environ(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/environ", "rb") as f:
        items = [i.decode(errors="replace").split("=", 1) for i in f.read().split(b"\0") if b"=" in i]
    return dict(items)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim, /proc")
def test_serve_and_its_workers_run_under_system_malloc():
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONMALLOC", "MALLOC_ARENA_MAX")}
    proc = subprocess.Popen([sys.executable, "-m", "explorer.cli", "serve", "--port", str(port), "--num-procs", "2"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/liveness", timeout=5) as r:
                    if r.status == 200 and len(children(proc.pid)) == 2:
                        break
            except OSError:
                pass
            time.sleep(0.2)
        workers = children(proc.pid)
        assert len(workers) == 2, workers
        for pid in [proc.pid, *workers]:
            env_of = _environ(pid)
            assert env_of.get("PYTHONMALLOC") == "malloc", pid
            assert env_of.get("MALLOC_ARENA_MAX") == "2", pid
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
@pytest.mark.parametrize("given, expected", [(None, "malloc"), ("pymalloc", "pymalloc")])
def test_use_system_malloc_starts_again_unless_an_allocator_is_chosen(given, expected):
    code = ("import os; print('start', os.getpid(), os.environ.get('PYTHONMALLOC'), flush=True); "
            "from explorer.app.serving import use_system_malloc; use_system_malloc(); print('serving')")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONMALLOC", "MALLOC_ARENA_MAX")}
    if given:
        env["PYTHONMALLOC"] = given
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    lines = out.stdout.split("\n")
    starts = [line.split() for line in lines if line.startswith("start")]
    if given is None:  # started twice, in the same process: first without, then with PYTHONMALLOC=malloc
        assert [s[2] for s in starts] == ["None", "malloc"], out.stdout
        assert starts[0][1] == starts[1][1]
    else:
        assert [s[2] for s in starts] == [expected], out.stdout
    assert lines.count("serving") == 1, out.stdout


@pytest.mark.parametrize("key_func, cached", [(None, 4), ("serve's", 1)], ids=["panel-default", "serve"])
def test_page_requests_with_any_query_share_one_cached_session(key_func, cached):
    """Panel keeps each session it caches for page requests until the server stops, keyed by the
    path and the ``theme`` argument; ``serve`` keys by the path alone, so URLs with made-up
    ``?theme=`` values (four requests, three themes) do not keep a session each."""
    import panel as pn
    from panel.io.state import state
    from tornado.httpclient import AsyncHTTPClient

    from explorer.app.serving import page_request_key

    pn.extension("tabulator", "filedropper", notifications=False)
    process = ProcessSets(shared_from_case_set(load_case_set(BUNDLED)), str(BUNDLED))
    port = free_port()
    saved = pn.config.reuse_sessions, pn.config.session_key_func
    pn.config.reuse_sessions = True
    pn.config.session_key_func = page_request_key if key_func else None

    async def go() -> int:
        server = pn.serve(page_builder(lambda: create_workspace_app(process)), port=port, address="127.0.0.1",
                          websocket_origin=[f"127.0.0.1:{port}"], show=False, start=False, threaded=False)
        server.start()
        try:
            client = AsyncHTTPClient()
            for query in ("", "?theme=a", "?theme=b", "?theme=c&trajectory=any_order"):
                response = await client.fetch(f"http://127.0.0.1:{port}/{query}", request_timeout=120)
                assert response.code == 200
            return len(state._sessions)
        finally:
            server.stop()

    state._sessions.clear()
    state._session_key_funcs.clear()
    try:
        assert asyncio.run(go()) == cached
    finally:
        pn.config.reuse_sessions, pn.config.session_key_func = saved
        state._sessions.clear()
        state._session_key_funcs.clear()
