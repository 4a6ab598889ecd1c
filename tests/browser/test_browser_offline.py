"""Issue 3: the app is served offline: every resource the page loads comes from the app's own
server (BOKEH_RESOURCES=server), none from a CDN or a font service."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from explorer_page import App

pytestmark = pytest.mark.browser


def test_page_loads_everything_from_the_local_server(new_offline_context, booking_app):
    context, external = new_offline_context()
    page = context.new_page()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    App(page, booking_app.url).open()
    assert external == [], f"requests to other hosts (aborted): {external}"
    port = urlsplit(booking_app.url).port
    http = [u for u in requested if u.startswith("http")]
    assert any(u.endswith(".js") or ".js?" in u for u in http), "no JavaScript was loaded at all?"
    assert all(urlsplit(u).port == port for u in http), [u for u in http if urlsplit(u).port != port]
    page.close()
