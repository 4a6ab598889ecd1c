"""Fixtures for the browser tests: served apps, one shared offline browser context, a page.

* ``booking_app`` / ``xss_app``: session-scoped ``metric-explorer serve`` subprocesses (see
  :mod:`served_app`) on the bundled booking set and on the XSS fixture set, launched side by side.
* ``new_offline_context()``: a browser context (1280×720, or the ``viewport`` and
  ``device_scale_factor`` given) whose every request not to 127.0.0.1/localhost is aborted and
  recorded in the list returned with it.
* ``app_page``: the session's shared page, freshly navigated for each test (a reload gives a new
  Panel session, so no state leaks between tests); the test fails at teardown when any external
  request was attempted while it ran (the offline check).
* ``xss_page``: like ``app_page``, on the XSS fixture app.
"""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

sys.path.insert(0, str(Path(__file__).parent))

from served_app import ServedApp  # noqa: E402
from explorer_page import App  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
BOOKING_CASES = REPO / "cases" / "booking_agent.json"
XSS_CASES = REPO / "tests" / "fixtures" / "xss_cases.json"
VIEWPORT = {"width": 1280, "height": 720}
"""The projector size issue 3 names."""
GLANCE = {"width": 1440, "height": 900}
"""The laptop screen issue 9's one-screen layout is measured on."""

EXPECT_TIMEOUT_MS = 15_000
"""Default wait of every ``expect``: updates take ~0.1 s, but CI machines can be very loaded."""
expect.set_options(timeout=EXPECT_TIMEOUT_MS)

LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}


def _is_local(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about"):
        return True
    return parts.hostname in LOCAL_HOSTS


@pytest.fixture(scope="session")
def _servers():
    """Both servers, launched side by side on first use and stopped at the end of the session."""
    apps = {"booking": ServedApp(BOOKING_CASES, cwd=REPO), "xss": ServedApp(XSS_CASES, cwd=REPO)}
    for app in apps.values():
        app.launch()
    yield apps
    for app in apps.values():
        app.stop()


def _ready(app: ServedApp) -> ServedApp:
    try:
        return app.wait_ready()
    except RuntimeError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def booking_app(_servers):
    """``metric-explorer serve --cases cases/booking_agent.json`` on a free port, ready."""
    return _ready(_servers["booking"])


@pytest.fixture(scope="session")
def xss_app(_servers):
    """``metric-explorer serve --cases tests/fixtures/xss_cases.json`` on a free port, ready."""
    return _ready(_servers["xss"])


class _ExternalRequests(list):
    """URLs of aborted non-local requests, in order."""


def _route_offline(context, record: list) -> None:
    def handle(route):
        url = route.request.url
        if _is_local(url):
            route.continue_()
        else:
            record.append(url)
            route.abort()

    context.route("**/*", handle)


@pytest.fixture(scope="session")
def new_offline_context(browser):
    """Factory: a new browser context (default 1280×720) routed offline; returns (context,
    external list). ``make(viewport=..., device_scale_factor=..., permissions=[...])``."""
    made = []

    def make(viewport: dict | None = None, **options):
        context = browser.new_context(viewport=viewport or VIEWPORT, **options)
        record = _ExternalRequests()
        _route_offline(context, record)
        made.append(context)
        return context, record

    yield make
    for context in made:
        context.close()


@pytest.fixture(scope="session")
def _shared(new_offline_context):
    context, record = new_offline_context()
    page = context.new_page()
    return page, record


def _opened_app(page, record: list, url: str):
    """Open ``url`` on ``page`` and yield its :class:`explorer_page.App`; afterwards stop recording
    dialogs and fail the test when a request to a non-local host was attempted during it."""
    seen_before = len(record)
    app = App(page, url)
    app.open()
    yield app
    app.detach()
    external = record[seen_before:]
    if external:
        pytest.fail(f"the page tried to reach the network (offline check): {external[:5]}", pytrace=False)


@pytest.fixture
def app_page(_shared, booking_app):
    """The shared page opened on the booking app's start URL; yields a :class:`explorer_page.App`.

    Dialogs (alert/confirm) are recorded in ``App.dialogs`` and dismissed. Fails the test when
    a request to a non-local host was attempted during it.
    """
    page, record = _shared
    yield from _opened_app(page, record, booking_app.url)


@pytest.fixture
def xss_page(_shared, xss_app):
    """A page (in the shared offline context) on the XSS fixture app; yields a :class:`explorer_page.App`."""
    shared_page, record = _shared
    page = shared_page.context.new_page()
    yield from _opened_app(page, record, xss_app.url)
    page.close()


@pytest.fixture(scope="session")
def _glance(new_offline_context):
    context, record = new_offline_context(GLANCE, permissions=["clipboard-read", "clipboard-write"])
    return context.new_page(), record


@pytest.fixture
def glance_page(_glance, booking_app):
    """Like ``app_page`` at 1440×900 (its own context, clipboard allowed): issue 9's one screen."""
    page, record = _glance
    yield from _opened_app(page, record, booking_app.url)
