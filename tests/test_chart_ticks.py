"""The axes that count runs tick whole numbers (the trade-off chart, the sweep's colour bar)."""

from __future__ import annotations


def test_run_count_axes_tick_whole_numbers():
    """Found by the newcomer trial: on a set of 1-3 runs the trade-off chart's runs axis and the
    sweep's colour bar ticked 0.5, 1.5, 2.5 (Bokeh's default ticker); counts of runs tick whole
    numbers (BokehJS computes the ticks; ``min_interval`` is what keeps them whole)."""
    from bokeh.models import ColorBar

    from explorer.app.views.chart import ChartView
    from explorer.app.views.sweep import SweepView

    chart = ChartView(3)
    assert chart.figure.yaxis[0].ticker.min_interval == 1 and chart.figure.ygrid[0].ticker is chart.figure.yaxis[0].ticker
    sweep = SweepView(lambda _s: None)
    bars = [r for r in sweep.figure.right if isinstance(r, ColorBar)]
    assert bars and bars[0].ticker.min_interval == 1


def test_run_count_axes_write_thousands_without_exponents():
    """Found serving the 100k-run bench file: the trade-off chart's runs axis read ``1.000e+5``,
    ``8.000e+4`` (Bokeh's default formatter); run counts are written ``100,000``."""
    from bokeh.models import ColorBar, NumeralTickFormatter

    from explorer.app.views.chart import ChartView
    from explorer.app.views.sweep import SweepView

    formatter = ChartView(100_000).figure.yaxis[0].formatter
    assert isinstance(formatter, NumeralTickFormatter) and formatter.format == "0,0"
    bars = [r for r in SweepView(lambda _s: None).figure.right if isinstance(r, ColorBar)]
    assert isinstance(bars[0].formatter, NumeralTickFormatter) and bars[0].formatter.format == "0,0"
