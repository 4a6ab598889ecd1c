"""Input change -> updated whole-set agreement in the browser: median latency over 10 changes.

Issue 3's quality bar: "Input change -> updated metrics in the browser in under 300 ms on the
bundled set". This script serves the app as a user would (``metric-explorer serve`` subprocess,
``BOKEH_RESOURCES=server``), opens it in Debian's headless Chromium (same flags as the browser
tests), then clicks Trajectory match buttons in a cycle (ANY_ORDER, EXACT, IN_ORDER, ...). Each
change is timed in the page itself: from the click event (capture listener on ``document``) to
the DOM mutation that makes ``me-whole-agreement`` read the expected ``All runs: n/N agree``
(the figure computed by ``explorer.core`` for that setting). It prints every change, then the
median, min and max in ms, plus the median seen from Python (click call to text seen, which adds
Playwright's round trips).

Usage::

    .venv/bin/python bench/browser_latency.py [--cases PATH] [--changes 10]

Needs Chromium at $CHROMIUM or /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "browser"))


def _browser_test_settings():
    """tests/conftest.py, loaded by path: the browser tests' Chromium and launch flags."""
    spec = importlib.util.spec_from_file_location("_tests_conftest", REPO / "tests" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CHROMIUM, module.CHROMIUM_ARGS


CHROMIUM, CHROMIUM_ARGS = _browser_test_settings()

from explorer_page import App  # noqa: E402
from served_app import ServedApp  # noqa: E402

from explorer.core.casefile import load_case_set  # noqa: E402
from explorer.core.evaluation import evaluate  # noqa: E402
from explorer.core.features import build_features  # noqa: E402
from explorer.core.settings import Settings  # noqa: E402

CYCLE = (("ANY_ORDER", "any_order"), ("EXACT", "exact"), ("IN_ORDER", "in_order"))
"""(button label, settings value): consecutive entries give different agreements on the bundled set."""

INSTRUMENT = """() => {
  const deepFind = (root, sel) => {
    const hit = root.querySelector(sel);
    if (hit) return hit;
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) { const h = deepFind(el.shadowRoot, sel); if (h) return h; }
    }
    return null;
  };
  const deepText = n => {
    let s = '';
    if (n.shadowRoot) s += deepText(n.shadowRoot);
    for (const c of n.childNodes) {
      if (c.nodeType === 3) s += c.textContent;
      else if (c.nodeType === 1 && c.tagName !== 'STYLE') s += deepText(c);
    }
    return s;
  };
  const host = deepFind(document, '.me-whole-agreement');
  const probe = {t0: null, t1: null, want: null, host};
  window.__meLatency = probe;
  document.addEventListener('click', () => { if (probe.want !== null && probe.t0 === null) probe.t0 = performance.now(); }, true);
  const seen = () => {
    if (probe.want !== null && probe.t1 === null && deepText(host).replace(/\\s+/g, ' ').includes(probe.want)) probe.t1 = performance.now();
  };
  const obs = new MutationObserver(seen);
  obs.observe(host, {subtree: true, childList: true, characterData: true, attributes: true});
  if (host.shadowRoot) obs.observe(host.shadowRoot, {subtree: true, childList: true, characterData: true, attributes: true});
  return host !== null;
}"""


def expected_texts(cases: Path) -> dict[str, str]:
    """``{trajectory value: "All runs: n/N agree"}`` under the opening settings otherwise."""
    features = build_features(load_case_set(cases))
    out = {}
    for _, value in CYCLE:
        s = evaluate(features, Settings(trajectory=value)).summary
        out[value] = f"All runs: {s.agree}/{s.labelled} agree"
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=REPO / "cases" / "booking_agent.json")
    parser.add_argument("--changes", type=int, default=10)
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    want = expected_texts(args.cases)
    in_page_ms: list[float] = []
    python_ms: list[float] = []
    with ServedApp(args.cases, cwd=REPO) as served, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        t_open = time.perf_counter()
        app = App(page, served.url).open()
        print(f"cases: {args.cases}  page ready in {1000 * (time.perf_counter() - t_open):.0f} ms")
        if not page.evaluate(INSTRUMENT):
            raise SystemExit("no .me-whole-agreement element found")
        current = app.text("me-whole-agreement")
        i = 0
        while len(in_page_ms) < args.changes:
            label, value = CYCLE[i % len(CYCLE)]
            i += 1
            target = want[value]
            if target in current:
                print(f"  skip {label}: agreement text would not change ({target})")
                if i > 3 * args.changes:
                    raise SystemExit("no input change alters the whole agreement on this set")
                continue
            page.evaluate("t => { const p = window.__meLatency; p.t0 = null; p.t1 = null; p.want = t; }", target)
            start = time.perf_counter()
            app.el("me-trajectory").get_by_role("button", name=label, exact=True).click()
            page.wait_for_function("() => window.__meLatency.t1 !== null", timeout=10_000)
            python_ms.append(1000 * (time.perf_counter() - start))
            t0, t1 = page.evaluate("() => [window.__meLatency.t0, window.__meLatency.t1]")
            in_page_ms.append(t1 - t0)
            current = target
            print(f"  {label:<9} -> {target:<24} {t1 - t0:7.1f} ms in page, {python_ms[-1]:7.1f} ms from Python")
        browser.close()
    print(
        f"input change -> whole agreement updated, {len(in_page_ms)} changes: "
        f"median {statistics.median(in_page_ms):.1f} ms (min {min(in_page_ms):.1f}, max {max(in_page_ms):.1f}) in page; "
        f"median {statistics.median(python_ms):.1f} ms seen from Python"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
