"""Shared pytest set-up: Playwright drives Debian's Chromium, never a downloaded browser.

``playwright install`` cannot download browsers on these machines, so pytest-playwright's
``browser_type_launch_args`` is overridden here (a ``-p`` plugin would lose to pytest-playwright)
to launch the system Chromium: ``$CHROMIUM`` or ``/usr/bin/chromium``. Tests marked
``browser`` are skipped with a clear message when that file is missing and we are not root;
as root (CI, where ``make test`` installs Chromium first) a missing Chromium fails them instead.
See /work/shared/notes/panel-browser-testing.md for the measurements behind these flags.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests explore new random examples on a developer's machine; in CI (CI=true) they run a
# fixed, derandomized set. Neither has a per-example deadline (speed is measured in bench/, not in
# tests): on a loaded 2-core machine an example of test_annotators took 256 ms against Hypothesis'
# default 200 ms and failed a correct run. A failure found locally becomes a regression test with that input.
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# Issue 14: the automatic feature cache writes to a folder of this test session (never the user's
# cache folder); subprocesses (serve) inherit it. Tests that check the cache pass their own folder.
if "METRIC_EXPLORER_CACHE_DIR" not in os.environ:
    import atexit
    import shutil
    import tempfile

    os.environ["METRIC_EXPLORER_CACHE_DIR"] = tempfile.mkdtemp(prefix="metric-explorer-test-cache-")
    atexit.register(shutil.rmtree, os.environ["METRIC_EXPLORER_CACHE_DIR"], True)

CHROMIUM = Path(os.environ.get("CHROMIUM") or "/usr/bin/chromium")
"""The Chromium binary the browser tests launch (env ``CHROMIUM``, default Debian's)."""

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""Flags for a quiet, offline, headless Chromium (no sandbox: CI runs as root in a container)."""

MISSING_CHROMIUM = (
    f"browser tests need Chromium at {CHROMIUM}: run 'sudo apt-get install chromium' "
    "(or set CHROMIUM=/path/to/chromium); 'make test' installs it when run as root"
)


def chromium_available() -> bool:
    """True when the Chromium binary exists and is executable."""
    return CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run ``browser`` tests after every other test; skip them without Chromium, but only when
    not root (root gets a failure).

    Order matters: pytest-playwright's session-scoped sync API keeps an asyncio loop running on
    the main thread from the first browser test to the end of the session, and the producers of
    Inspect logs and ADK traces (``asyncio.run``, ``anyio.run``) refuse to start inside it. CI
    failed on exactly that (tests/browser/ sorts before tests/test_*.py), and again when a new
    file in tests/browser/ had no ``pytestmark = pytest.mark.browser``: every test in that folder
    is a browser test, marked or not."""
    browser_dir = Path(__file__).resolve().parent / "browser"
    for item in items:
        if browser_dir in Path(str(item.path)).resolve().parents and item.get_closest_marker("browser") is None:
            item.add_marker(pytest.mark.browser)
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)  # stable: keeps each group's order
    if chromium_available() or os.geteuid() == 0:
        return
    skip = pytest.mark.skip(reason=MISSING_CHROMIUM)
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def browser_type_launch_args() -> dict:
    """pytest-playwright's launch options: Debian's Chromium with :data:`CHROMIUM_ARGS`."""
    if not chromium_available():
        pytest.fail(MISSING_CHROMIUM, pytrace=False)
    return {"executable_path": str(CHROMIUM), "headless": True, "args": list(CHROMIUM_ARGS)}
