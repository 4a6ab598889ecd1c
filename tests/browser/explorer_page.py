"""The explorer page as the browser tests drive it: widgets by their contract class, texts read.

Classes and texts are those of docs/ui-contract.md. Every action goes through the widgets a person
uses (buttons clicked, boxes ticked, a number typed, a slider moved by keyboard or pointer), and
every check waits with Playwright's ``expect`` (Panel updates arrive over a websocket, a few
hundred ms later). Panel renders inside open shadow roots: CSS locators pierce them, but
``inner_text()`` of a host element is ``''``, so texts are read with :data:`DEEP_TEXT`.
"""

from __future__ import annotations

import re
import time

from playwright.sync_api import Locator, Page, expect

READY_TIMEOUT_MS = 30_000
"""How long a page may take to render the app (measured ~2.7 s on 2 cores)."""

DEEP_TEXT = """e => {
  const walk = n => {
    let s = '';
    if (n.shadowRoot) s += walk(n.shadowRoot);
    for (const c of n.childNodes) {
      if (c.nodeType === 3) s += c.textContent;
      else if (c.nodeType === 1 && c.tagName !== 'STYLE' && c.tagName !== 'SCRIPT') s += walk(c);
    }
    return s;
  };
  return walk(e).replace(/\\s+/g, ' ').trim();
}"""
"""JS: an element's visible-ish text including its (nested) shadow roots, whitespace collapsed."""


def ids_text(ids: list[str] | tuple[str, ...]) -> str:
    """``["E1", "E7"]`` -> ``"E1, E7"``; ``[]`` -> ``"none"`` (the contract's wording)."""
    return ", ".join(ids) if ids else "none"


def phrase(text: str) -> re.Pattern[str]:
    """A pattern for ``text`` as a whole phrase: ``False fails: E1, E7`` must not match
    ``False fails: E1, E7, E8`` and ``Agreement 4/10`` must not match ``Agreement 4/100``.
    Only a digit, or a comma starting a further id (``, E8``), may not follow: the texts of
    neighbouring elements join without a space (``2 runs wait for review`` + ``Cosine ...``), so
    a following letter or ``, reached by ...`` is allowed."""
    return re.compile(re.escape(text) + r"(?!\d|,\s*[A-Za-z_]*\d)")


def _number(text: str) -> float:
    """``"0.80"`` -> 0.8; NaN for text that is not a number."""
    try:
        return float(text.strip().replace("\u2212", "-"))
    except ValueError:
        return float("nan")


def _close(a: float, b: float) -> bool:
    return abs(a - b) < 1e-6


def _wait_until(check, what: str, timeout_s: float = 15.0) -> None:
    """Poll ``check()`` every 50 ms until true; AssertionError naming ``what`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")
        time.sleep(0.05)


def shoot(app: "App", output_path: str, name: str) -> None:
    """Save the viewport as ``<test output folder>/<name>-<w>x<h>.png``."""
    from pathlib import Path

    view = app.page.viewport_size
    path = Path(output_path) / f"{name}-{view['width']}x{view['height']}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    app.page.screenshot(path=str(path))
    assert path.stat().st_size > 20_000, f"{path} looks empty"


WIDEST = """() => {
  const w = document.documentElement.clientWidth;
  let worst = null, right = w;
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > right + 0.5) { right = r.right; worst = el; }
  }
  const name = worst ? (worst.tagName.toLowerCase() + (worst.className && typeof worst.className === 'string'
      ? '.' + worst.className.trim().split(/\\s+/).join('.') : '')) : 'nothing';
  return [document.documentElement.scrollWidth, w, name, Math.round(right),
          worst ? (worst.innerText || '').slice(0, 80) : ''];
}"""


def expect_no_sideways_scroll(app: "App", timeout_ms: float = 10_000) -> None:
    """The page is no wider than the window: nothing scrolls sideways. Bokeh lays the page out
    again on a resize observer after ``set_viewport_size``, later under load, so this waits up to
    ``timeout_ms`` for the width to settle (an immediate check failed on CI's two busy cores
    while the layout was still the wider one); on failure it names the element reaching furthest
    right and its text."""
    try:
        app.page.wait_for_function("() => document.documentElement.scrollWidth <= document.documentElement.clientWidth",
                                   timeout=timeout_ms)
    except Exception:  # noqa: BLE001 - the assertion below says how wide it stayed and why
        pass
    width, window, widest, right, text = app.page.evaluate(WIDEST)
    assert width <= window, (f"the page is {width}px wide in a {window}px window: {widest} reaches "
                             f"{right}px ({text!r})")


def settled_boxes(*locators: Locator, timeout_s: float = 10.0) -> list[dict]:
    """The bounding boxes of ``locators`` (first match each), all measured in one pass: a pane
    that re-renders its HTML (the replay's time label on every tick) has no box for a moment, and
    ``bounding_box()`` is then None, so this measures again until every one has a box; fails
    naming the ones still missing after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = [loc.first.bounding_box() for loc in locators]
        if all(box is not None for box in got):
            return got  # type: ignore[return-value]
        if time.monotonic() > deadline:
            missing = [str(loc) for loc, box in zip(locators, got) if box is None]
            raise AssertionError(f"no bounding box after {timeout_s:.0f} s for {missing}")
        time.sleep(0.05)


IDLE = "() => window.Bokeh && Bokeh.documents.length > 0 && Bokeh.documents[0].is_idle"
"""JS: the page's Bokeh document has finished its first render (layout changes sent before that
can be lost by the client), so uploads wait for it."""


class App:
    """One page on a served explorer app (``url``), with the helpers the tests use."""

    def __init__(self, page: Page, url: str) -> None:
        self.page = page
        self.url = url
        self.dialogs: list[str] = []
        self._on_dialog = self._record_dialog
        page.on("dialog", self._on_dialog)

    def _record_dialog(self, dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def detach(self) -> None:
        """Stop recording dialogs (the page is shared between tests)."""
        self.page.remove_listener("dialog", self._on_dialog)

    # -- locating and reading ------------------------------------------------------------------
    def el(self, name: str) -> Locator:
        """The element with contract class ``name`` (e.g. ``"me-agreement"``)."""
        return self.page.locator(f".{name}").first

    def text(self, name: str) -> str:
        """The text of contract element ``name``, shadow roots included, whitespace collapsed."""
        return self.el(name).evaluate(DEEP_TEXT)

    def expect_text(self, name: str, text: str | re.Pattern[str], timeout: float | None = None) -> None:
        """Wait until element ``name`` contains ``text`` (a whole phrase when a plain string);
        ``timeout`` in ms, default the session's ``expect`` timeout."""
        pattern = phrase(text) if isinstance(text, str) else text
        expect(self.el(name)).to_contain_text(pattern, timeout=timeout)

    def open(self, query: str = "") -> "App":
        """Navigate to the app (``query`` like ``"?trajectory=bogus"``) and wait until it renders."""
        self.page.goto(self.url + query, wait_until="domcontentloaded")
        expect(self.el("me-whole-agreement")).to_contain_text("All runs", timeout=READY_TIMEOUT_MS)
        expect(self.el("me-time-label")).to_contain_text("t =", timeout=READY_TIMEOUT_MS)
        return self

    def upload(self, *files: tuple[str, bytes, str]) -> None:
        """Open "Your data" and give ``files`` ((name, bytes, mime type), several at once as a
        drop of several files) to the drop zone's file input, once the page is idle."""
        self.page.wait_for_function(IDLE)
        self.open_tab("Your data")
        self.page.wait_for_function(IDLE)
        self.page.locator(".me-upload input[type=file]").first.set_input_files(
            files=[{"name": n, "mimeType": m, "buffer": d} for n, d, m in files])

    # -- outcome checks --------------------------------------------------------------------------
    def expect_outcome(self, agree: str, false_pass: list[str], false_fail: list[str]) -> None:
        """The replay's figures at the current time: ``Revealed so far: <agree> agree`` and the
        false-pass / false-fail id lists of the revealed runs."""
        self.expect_text("me-agreement", f"Revealed so far: {agree} agree")
        self.expect_text("me-false-pass", f"False passes: {ids_text(false_pass)}")
        self.expect_text("me-false-fail", f"False fails: {ids_text(false_fail)}")

    def expect_whole(self, agree: str) -> None:
        """``All runs: <agree> agree`` (the summary bar: the whole set for the current inputs)."""
        self.expect_text("me-whole-agreement", f"All runs: {agree} agree")

    def expect_whole_lists(self, false_pass: list[str], false_fail: list[str]) -> None:
        """The summary bar's false passes and false fails of the whole set."""
        self.expect_text("me-whole-false-pass", f"False passes: {ids_text(false_pass)}")
        self.expect_text("me-whole-false-fail", f"False fails: {ids_text(false_fail)}")

    def open_tab(self, name: str) -> None:
        """Open the page's tab ``name`` (``Explorer``, ``Calibration``, ``Settings sweep``, ``Your
        data``); only the open tab's content is in the page."""
        tab = self.page.locator(".me-tabs .bk-tab", has_text=re.compile(rf"^\s*{re.escape(name)}\s*$")).first
        tab.click()
        expect(tab).to_have_class(re.compile(r"\bbk-active\b"))

    def expect_time(self, seconds: float, timeout: float | None = None) -> None:
        """The time label reads ``t = <seconds> s`` with one decimal."""
        self.expect_text("me-time-label", f"t = {seconds:.1f} s", timeout=timeout)

    def expect_revealed(self, n: int, total: int, timeout: float | None = None) -> None:
        """``<n> of <total> runs revealed`` (the replay line); ``timeout`` in ms."""
        self.expect_text("me-revealed", f"{n:,} of {total:,} runs revealed", timeout=timeout)

    # -- inputs ------------------------------------------------------------------------------------
    def _is_select(self, name: str) -> bool:
        """``name`` is a Select (a button group otherwise); waits until it is in the page (a tab
        opened again builds its parts anew)."""
        expect(self.el(name)).to_be_visible()
        return self.el(name).locator("select").count() > 0

    def choose(self, name: str, label: str) -> None:
        """Choose ``label`` in ``name``: click that button of a button group and wait until it is
        active, or pick that option of a Select (the trajectory family, the date reading)."""
        if self._is_select(name):
            self.pick(name, label)
            return
        button = self.el(name).get_by_role("button", name=label, exact=True)
        button.click()
        expect(button).to_have_class(re.compile(r"\bbk-active\b"))

    def expect_chosen(self, name: str, label: str) -> None:
        """``label`` is the chosen button of group ``name`` (or the chosen option of a Select)."""
        if self._is_select(name):
            expect(self.el(name).locator("select option:checked")).to_have_text(label)
            return
        button = self.el(name).get_by_role("button", name=label, exact=True)
        expect(button).to_have_class(re.compile(r"\bbk-active\b"))

    def pick(self, name: str, label: str) -> None:
        """Choose option ``label`` of the Select with contract class ``name``."""
        select = self.el(name).locator("select")
        select.select_option(label=label)
        expect(select.locator("option:checked")).to_have_text(label)

    def tick(self, name: str, on: bool = True) -> None:
        """Set the checkbox ``name`` to ``on`` by clicking it (no click when already so)."""
        box = self.el(name).locator("input[type=checkbox]")
        if box.is_checked() != on:
            box.click()
        expect(box).to_be_checked(checked=on)

    def expect_ticked(self, name: str, on: bool = True) -> None:
        expect(self.el(name).locator("input[type=checkbox]")).to_be_checked(checked=on)

    def type_f1(self, value: str) -> None:
        """Type ``value`` into the F1 threshold input (``me-f1-input``) and press Enter."""
        box = self.el("me-f1-input").locator("input").first
        box.fill(value)
        box.press("Enter")
        self.expect_f1(float(value))

    def expect_f1(self, value: float) -> None:
        """The F1 slider shows ``value`` and the typed-threshold box holds it too."""
        self.wait_for_value("me-f1", value)
        box = self.el("me-f1-input").locator("input").first
        _wait_until(lambda: _close(_number(box.input_value()), value), f"me-f1-input to hold {value}")

    def slider_value(self, name: str) -> float:
        """The value slider ``name`` shows in its title (``Response F1 threshold: 0.80`` -> 0.8).
        (``aria-valuenow`` is rounded to one decimal by Bokeh, so it is not used.)"""
        return _number(self.el(name).locator(".bk-slider-value").text_content() or "")

    def wait_for_value(self, name: str, value: float) -> None:
        """Wait until slider ``name`` shows ``value``."""
        _wait_until(lambda: _close(self.slider_value(name), value), f"{name} to show {value}")

    def f1_keys_to(self, target: float) -> None:
        """Move the F1 slider to ``target`` by keyboard (ArrowLeft/ArrowRight, one step 0.01),
        pressing until it shows ``target`` and stays there (server echoes can lag)."""
        self._keys_to("me-f1", target)
        self.expect_f1(target)

    def _keys_to(self, name: str, target: float) -> None:
        handle = self.el(name).get_by_role("slider")
        handle.focus()
        for _attempt in range(3):
            for _ in range(300):
                now = self.slider_value(name)
                if _close(now, target):
                    break
                handle.press("ArrowRight" if now < target else "ArrowLeft")
            self.page.wait_for_timeout(500)
            if _close(self.slider_value(name), target):
                return
        raise AssertionError(f"could not bring {name} to {target} by keyboard (shows {self.slider_value(name)})")

    def mean_threshold_keys_to(self, target: float) -> None:
        """Move the mean rule's ``Mean threshold`` slider to ``target`` by keyboard (one step 0.01)."""
        self._keys_to("me-mean-threshold", target)

    def trajectory_threshold_keys_to(self, target: float) -> None:
        """Move the trajectory threshold slider to ``target`` by keyboard (one step 0.01), and
        check the typed box follows."""
        self._keys_to("me-trajectory-threshold", target)
        box = self.el("me-trajectory-threshold-input").locator("input").first
        _wait_until(lambda: _close(_number(box.input_value()), target), f"me-trajectory-threshold-input to hold {target}")

    def deny_tools(self) -> list[str]:
        """The tools currently chosen in the deny-list MultiChoice."""
        items = self.el("me-deny-tools").locator(".choices__list--multiple .choices__item")
        return [item.get_attribute("data-value") or "" for item in items.all()]

    def choose_deny_tools(self, wanted: list[str]) -> None:
        """Make the deny-list MultiChoice hold exactly ``wanted`` (remove others, pick missing)."""
        widget = self.el("me-deny-tools")
        for tool in self.deny_tools():
            if tool not in wanted:
                widget.get_by_role("button", name=f"Remove item: '{tool}'").click()
        for tool in wanted:
            if tool not in self.deny_tools():
                widget.locator("input[type=search]").click()
                widget.get_by_role("option", name=tool, exact=True).click()
                self.page.keyboard.press("Escape")
        expect(widget.locator(".choices__list--multiple .choices__item")).to_have_count(len(wanted))
        assert sorted(self.deny_tools()) == sorted(wanted)

    # -- replay ----------------------------------------------------------------------------------
    def press(self, name: str, times: int = 1) -> None:
        """Click the button of contract element ``name`` (e.g. ``me-next``) ``times`` times."""
        for _ in range(times):
            self.el(name).get_by_role("button").first.click()

    def next_events(self, times: int, then_time: float | None = None) -> None:
        """Press Next event ``times`` times, waiting after each until the time label moved on."""
        for _ in range(times):
            before = self.text("me-time-label")
            self.press("me-next")
            expect(self.el("me-time-label")).not_to_have_text(before)
        if then_time is not None:
            self.expect_time(then_time)

    def play_label(self) -> Locator:
        return self.el("me-play").get_by_role("button").first

    def time_handle(self) -> Locator:
        return self.el("me-time").get_by_role("slider")

    def row_of(self, run_id: str) -> Locator:
        """Run ``run_id``'s table row. The table scrolls inside its card and Tabulator keeps only
        the rows near its view in the page (in no fixed order), so its body is scrolled down until
        the row is there."""
        row = self.el("me-table").locator(".tabulator-row", has=self.page.locator(
            ".tabulator-cell", has_text=re.compile(rf"^\s*{re.escape(run_id)}\s*$")
        )).first
        holder = self.el("me-table").locator(".tabulator-tableholder").first
        for _ in range(80):
            if row.count():
                break
            holder.evaluate("h => { h.scrollTop = h.scrollTop + Math.max(40, h.clientHeight * 0.7); }")
            self.page.wait_for_timeout(80)
        return row

    def select_run(self, run_id: str) -> None:
        """Click run ``run_id``'s row in the table until the detail shows that run. A click that
        lands while Tabulator redraws its rows (after a reveal) selects nothing, so retry; a row
        already selected is not clicked again (that would unselect it)."""
        row = self.row_of(run_id)
        head = self.el("me-detail").locator(".me-detail-head", has_text=run_id)
        for _attempt in range(5):
            if "tabulator-selected" not in (row.get_attribute("class") or ""):
                row.click()
            try:
                expect(head).to_have_count(1, timeout=4_000)
                return
            except AssertionError:
                continue
        expect(head).to_have_count(1)

    def scrub_to(self, seconds: float) -> None:
        """Move the replay time slider to ``seconds`` as a person would: click the track at
        that fraction of 60 s, then nudge with the arrow keys until the handle reads ``seconds``."""
        track = self.el("me-time").locator(".noUi-base")
        track.scroll_into_view_if_needed()
        box = track.bounding_box()
        assert box is not None, "the replay time slider is not visible"
        x = box["x"] + min(max(box["width"] * seconds / 60.0, 1.0), box["width"] - 1.0)
        self.page.mouse.click(x, box["y"] + box["height"] / 2)
        self._keys_to("me-time", seconds)
        self.expect_time(seconds)


def shown_at(css_class: str) -> str:
    """JS for ``page.wait_for_function(js, arg=text, polling="raf")``: the page's time
    (``performance.now()``, ms) once the first element with ``css_class`` (searched through shadow
    roots) holds ``text`` in its text (its own shadow root's included); false before. Timing in the
    page measures what a person sees, without Playwright's own steps."""
    return """text => {
  const find = root => {
    const hit = root.querySelector('.%s');
    if (hit) return hit;
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) { const h = find(el.shadowRoot); if (h) return h; }
    }
    return null;
  };
  const deep = n => {
    let s = n.shadowRoot ? deep(n.shadowRoot) : '';
    for (const c of n.childNodes) s += c.nodeType === 3 ? c.textContent : (c.nodeType === 1 ? deep(c) : '');
    return s;
  };
  const el = find(document);
  return el !== null && deep(el).includes(text) ? performance.now() : false;
}""" % css_class


def first_event_at(kind: str) -> str:
    """JS that records, as ``window.__meEventAt``, the page's time of the next ``kind`` event
    (``click``, ``keydown``) anywhere in the page (events inside shadow roots reach the document)."""
    return """() => {
  window.__meEventAt = null;
  document.addEventListener('%s', () => { if (window.__meEventAt === null) window.__meEventAt = performance.now(); },
                            {capture: true, once: true});
}""" % kind


def expect_e5_detail(app: "App") -> None:
    """Reveal the first six runs, select E5 (wrong date, exact path) and check its detail panel:
    the answer and reference (Rome), the person's note, and the differing day (21) marked. Used for
    the case-set file and for a features dataset, whose texts are read from the stored records."""
    app.next_events(3, then_time=36.0)
    app.expect_revealed(6, 10)
    app.select_run("E5")
    detail = app.el("me-detail")
    expect(detail).to_contain_text("Rome")
    expect(detail).to_contain_text("they would miss the flight")  # the person's note
    expect(detail.locator("mark", has_text="21").first).to_be_visible()
