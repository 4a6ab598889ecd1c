"""The trade-off chart really draws: its plot frame has a size (a Bokeh figure nested the wrong way
inside Panel flex layouts renders a canvas with a 0x0 frame, axes squashed into a corner)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

FRAME_SIZE = """host => {
  const find = n => {
    for (const el of n.children) {
      if (el.classList && el.classList.contains('bk-CartesianFrame')) return el;
      const inner = (el.shadowRoot && find(el.shadowRoot)) || find(el);
      if (inner) return inner;
    }
    return null;
  };
  const frame = find(host.shadowRoot || host);
  if (!frame) return null;
  const r = frame.getBoundingClientRect();
  return [r.width, r.height];
}"""


def test_trade_off_plot_frame_has_a_size(app_page):
    chart = app_page.el("me-chart")
    chart.scroll_into_view_if_needed()
    size = None
    for _ in range(50):  # Bokeh lays out after the first paint
        size = chart.evaluate(FRAME_SIZE)
        if size and size[0] > 100 and size[1] > 100:
            break
        app_page.page.wait_for_timeout(100)
    assert size and size[0] > 100 and size[1] > 100, f"plot frame is {size}"
