"""The trade-off chart really draws: its plot frame has a size (a Bokeh figure nested the wrong way
inside Panel flex layouts renders a canvas with a 0x0 frame, axes squashed into a corner); under
the mean rule it moves the mean threshold."""

from __future__ import annotations

import re

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


CHART_STATE = """() => {
  const doc = Bokeh.documents[0];
  const marker = doc.get_model_by_name('me-chart-marker');
  const fig = doc.get_model_by_name('me-chart-figure');
  return marker && fig ? [marker.location, fig.below[0].axis_label] : null;
}"""
"""JS: the trade-off chart's marker location and x-axis title, from the page's Bokeh models."""


def chart_state(app) -> tuple[float, str]:
    """``(marker location, x-axis title)`` of the trade-off chart as the page holds them."""
    state = app.page.evaluate(CHART_STATE)
    assert state, "no me-chart-marker / me-chart-figure model in the page"
    return float(state[0]), str(state[1])


def wait_for_chart(app, location: float, title_start: str) -> None:
    """Wait until the chart's marker is at ``location`` and its x-axis title starts ``title_start``."""
    state = None
    for _ in range(100):
        state = chart_state(app)
        if abs(state[0] - location) < 1e-9 and state[1].startswith(title_start):
            return
        app.page.wait_for_timeout(100)
    raise AssertionError(f"chart shows {state}, wanted the marker at {location} and a title starting {title_start!r}")


@pytest.mark.parametrize("width, height", [(1440, 900), (1024, 768)], ids=["1440x900", "1024x768"])
def test_under_the_mean_rule_the_chart_moves_the_mean_threshold(new_offline_context, booking_app, output_path, width,
                                                                 height):
    """Under *Mean of trajectory and F1* the F1 threshold decides nothing (the chart's lines were
    flat over it): the chart's x-axis is the mean threshold, its marker at the ``Mean threshold``
    slider's value and following it (0.75 -> 0.70: 5/10 -> 6/10, E7's mean 0.705 passes); the
    F1 / trajectory choice is hidden; back under *Every scorer must pass* it is the F1 chart
    again. Saved as ``mean-threshold-chart-<w>x<h>.png``; the page does not scroll sideways."""
    from explorer_page import App, expect_no_sideways_scroll, shoot
    from playwright.sync_api import expect
    from story import MEAN

    context, external = new_offline_context({"width": width, "height": height})
    app = App(context.new_page(), booking_app.url).open()
    app.expect_whole("4/10")
    wait_for_chart(app, 0.8, "Response F1 threshold")
    app.choose("me-combine", MEAN)
    app.expect_whole("5/10")
    app.wait_for_value("me-mean-threshold", 0.75)
    wait_for_chart(app, app.slider_value("me-mean-threshold"), "Mean threshold")
    app.expect_text("me-chart-card", re.compile("at every mean threshold"))
    expect(app.el("me-chart-x")).to_be_hidden()
    app.mean_threshold_keys_to(0.70)
    app.expect_whole("6/10")
    wait_for_chart(app, 0.70, "Mean threshold")
    size = app.el("me-chart").evaluate(FRAME_SIZE)
    assert size and size[0] > 100 and size[1] > 100, f"plot frame is {size}"
    # the card centred: its title and caption clear of the summary bar that stays at the top
    app.page.locator(".me-chart-card").first.evaluate("e => e.scrollIntoView({block: 'center'})")
    expect_no_sideways_scroll(app)
    shoot(app, output_path, "mean-threshold-chart")
    app.choose("me-combine", "Every scorer must pass")
    app.expect_whole("4/10")
    wait_for_chart(app, 0.8, "Response F1 threshold")
    expect(app.el("me-chart-x")).to_be_visible()
    assert external == []
    context.close()
