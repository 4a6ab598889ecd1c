"""Issue 3: the app is served offline: every resource the page loads comes from the app's own
server, none from a CDN or a font service. Issue 15: also when the server was started without
``BOKEH_RESOURCES`` in its environment (``serve`` chooses local resources itself), for the page
whose session was built for its request and for pages whose session is built when their websocket
connects (every page after the first: sessions are built on connection)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from explorer_page import App
from served_app import ServedApp

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
BOOKING_CASES = REPO / "cases" / "booking_agent.json"


def _check_page_is_local(context, external: list, url: str) -> None:
    page = context.new_page()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    App(page, url).open()
    assert external == [], f"requests to other hosts (aborted): {external}"
    port = urlsplit(url).port
    http = [u for u in requested if u.startswith("http")]
    assert any(u.endswith(".js") or ".js?" in u for u in http), "no JavaScript was loaded at all?"
    assert any(".css" in u for u in http), "no stylesheet was loaded at all?"
    assert all(urlsplit(u).port == port for u in http), [u for u in http if urlsplit(u).port != port]
    page.close()


def test_page_loads_everything_from_the_local_server(new_offline_context, booking_app):
    context, external = new_offline_context()
    _check_page_is_local(context, external, booking_app.url)


@pytest.fixture(scope="module")
def app_started_without_bokeh_resources():
    """``metric-explorer serve`` whose environment has no ``BOKEH_RESOURCES``."""
    with ServedApp(BOOKING_CASES, cwd=REPO, bokeh_resources=False) as app:
        yield app


def test_pages_load_everything_locally_without_bokeh_resources_in_the_environment(
        new_offline_context, app_started_without_bokeh_resources):
    context, external = new_offline_context()
    for _ in range(3):  # the first page (session built for its request), then pages built on connection
        _check_page_is_local(context, external, app_started_without_bokeh_resources.url)
