"""The combine rule's two buttons (``me-combine``, in the scorer settings card) hold their labels.

Found by a newcomer trial: at 1024x768 the selected "Mean of trajectory and F1" label touched or
was clipped by its button's right edge. Each label's text, line by line (a label may wrap to two
lines), must lie inside its button at least 4 px clear of its border, and the button
must not scroll its content sideways, at 1024x768 and 1440x900, before and after choosing the
mean rule (the chosen button is filled)."""

from __future__ import annotations

import pytest

from explorer_page import App, shoot

pytestmark = pytest.mark.browser

FITS = """group => { const CLEAR = 4; return [...group.querySelectorAll('button')].map(b => {
  const cs = getComputedStyle(b);
  const box = b.getBoundingClientRect();
  const left = box.left + parseFloat(cs.borderLeftWidth) + CLEAR;
  const right = box.right - parseFloat(cs.borderRightWidth) - CLEAR;
  const lines = [];
  const walker = document.createTreeWalker(b, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(node);  // the text itself, one rectangle per line it takes
    lines.push(...[...range.getClientRects()].filter(r => r.width > 0));
  }
  return {text: b.textContent.trim(), left, right,
          textLeft: Math.min(...lines.map(r => r.left)), textRight: Math.max(...lines.map(r => r.right)),
          lines: lines.length, scroll: b.scrollWidth, client: b.clientWidth, active: b.classList.contains('bk-active')};
}); }"""
"""Per button of the group: the room for its text (CSS px: inside the border, 4 px clear of it each
side), its text's leftmost and rightmost extent over all its lines (one rectangle per line of each
text node), how many lines, scrollWidth and clientWidth."""


def _check(app: App) -> list[dict]:
    group = app.el("me-combine").locator(".bk-btn-group").first
    buttons = group.evaluate(FITS)
    assert [b["text"] for b in buttons] == ["Every scorer must pass", "Mean of trajectory and F1"]
    for b in buttons:
        assert b["textLeft"] >= b["left"] and b["textRight"] <= b["right"], (
            f"{b['text']!r} spans {b['textLeft']:.1f}-{b['textRight']:.1f}px in a {b['left']:.1f}-{b['right']:.1f}px box")
        assert b["scroll"] <= b["client"], f"{b['text']!r} scrolls: {b['scroll']} > {b['client']}"
    return buttons


@pytest.mark.parametrize("width, height", [(1024, 768), (1440, 900)], ids=["1024x768", "1440x900"])
def test_each_combine_label_fits_inside_its_button(new_offline_context, booking_app, output_path, width, height):
    context, external = new_offline_context({"width": width, "height": height})
    app = App(context.new_page(), booking_app.url).open()
    app.expect_whole("4/10")
    _check(app)
    app.choose("me-combine", "Mean of trajectory and F1")
    app.expect_whole("5/10")  # seed 002: the mean rule agrees on 5 of 10
    buttons = _check(app)
    assert [b["active"] for b in buttons] == [False, True]
    app.el("me-combine").scroll_into_view_if_needed()
    shoot(app, output_path, "combine-mean")
    assert external == []
    context.close()
