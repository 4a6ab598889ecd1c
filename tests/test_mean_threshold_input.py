"""The mean rule's threshold on the page (``Inputs.mean_threshold``, the ``Mean threshold`` slider,
``mean_threshold`` in the link). The page's inputs had no such value: a settings file or link with
another mean threshold was read back as seed 002's 0.75, and the rule's threshold could not be
moved at all.

Figures by hand on the booking set, EXACT (1 or 0) and unigram F1, under the mean rule: the means
(trajectory + F1) / 2 are E1 0.81, E2 0.43, E3 0.43, E4 0.475, E5 0.93, E6 0.445, E7 0.705, E8 0.42,
E9 0, E10 0.25. At 0.75 E1 and E5 pass: E1 agrees (acceptable), E5 is a false pass, the four other
acceptable runs are false fails and the four other unacceptable runs agree: 5/10 (seed 002). At
0.70 E7 (acceptable, 0.705) passes too: 6/10."""

from __future__ import annotations

import os

os.environ.setdefault("BOKEH_RESOURCES", "server")

from explorer.app.main import ExplorerSession  # noqa: E402
from explorer.app.shared import load_shared  # noqa: E402
from explorer.app.url import page_query, settings_from_query  # noqa: E402
from explorer.commands.common import BUNDLED_CASES  # noqa: E402
from explorer.core.evaluation.settings import Settings  # noqa: E402


def _agree(s) -> tuple[int, int]:
    return s.ev.summary.agree, s.ev.summary.labelled


def test_moving_the_mean_threshold_changes_the_verdicts_by_hand():
    s = ExplorerSession(load_shared(BUNDLED_CASES))
    s.inputs.combine = "mean"
    assert _agree(s) == (5, 10)
    s.inputs.mean_threshold = 0.70
    assert _agree(s) == (6, 10)
    assert s.ev.settings.mean_threshold == 0.70
    assert "E7" not in s.ev.ids_with(s.features, "false fail")


def test_a_settings_mean_threshold_is_kept_by_the_inputs_and_the_link():
    s = ExplorerSession(load_shared(BUNDLED_CASES))
    want = Settings(combine="mean", mean_threshold=0.7)
    s.inputs.apply(want)
    assert s.inputs.settings() == want and _agree(s) == (6, 10)  # read back as 0.75 before
    query = page_query(want)
    assert "mean_threshold=0.7" in query
    from urllib.parse import parse_qs

    got, notices = settings_from_query(parse_qs(query[1:]), Settings(), s.features.tool_names)
    assert got.mean_threshold == 0.7 and notices == []
    # the opening's link stays as it was: no mean_threshold at seed 002's 0.75
    assert "mean_threshold" not in page_query(Settings())


def test_the_slider_shows_only_under_the_mean_rule():
    s = ExplorerSession(load_shared(BUNDLED_CASES))
    s.layout()
    slider = s.inputs_view.mean
    assert not slider.visible
    s.inputs.combine = "mean"
    assert slider.visible and slider.value == 0.75


def test_the_chart_moves_the_mean_threshold_under_the_mean_rule():
    """Under the mean rule the F1 threshold decides nothing (its curves were flat): the chart
    moves the mean threshold. By hand (means in the module's docstring): 7/10 from 0.26 to 0.42
    (E4 E5 E6 false passes), 6/10 at 0.70, 5/10 at 0.75, 4/10 at 0.81 (E1 fails)."""
    import numpy as np

    s = ExplorerSession(load_shared(BUNDLED_CASES))
    s.layout()
    chart = s.chart
    assert chart.figure.xaxis[0].axis_label == "Response F1 threshold" and chart.x.visible
    s.inputs.combine = "mean"
    assert chart.charted == "mean_threshold"
    assert chart.figure.xaxis[0].axis_label.startswith("Mean threshold")
    assert "every mean threshold" in chart.hint.object
    assert not chart.x.visible  # neither the F1 nor the trajectory threshold is read: no choice
    assert chart.marker.location == 0.75
    data = chart.source.data
    at = list(np.round(data["threshold"], 2))

    def point(tau):
        j = at.index(tau)
        return data["agree"][j], data["false_pass"][j], data["false_fail"][j]

    assert point(0.26) == point(0.42) == (7, 3, 0)
    assert point(0.70) == (6, 1, 3) and point(0.75) == (5, 1, 4) and point(0.81) == (4, 1, 5)
    assert point(0.75)[0] == _agree(s)[0]  # the point at the marker is the headline
    s.inputs.mean_threshold = 0.70
    assert chart.marker.location == 0.70 and point(0.70)[0] == _agree(s)[0] == 6
    # back to every scorer must pass: the F1 threshold's chart as before
    s.inputs.combine = "all"
    assert chart.charted == "f1_threshold" and chart.x.visible
    assert chart.figure.xaxis[0].axis_label == "Response F1 threshold" and chart.marker.location == 0.8


def test_the_mean_chart_with_trajectory_not_scored_says_the_mean_is_f1_alone():
    """Not scored: the mean is F1 alone (E1 8/13 = 0.615, E7 16/39 = 0.410 fail at 0.75; E2 E3
    E4 E5 E6 E8 pass; E9 E10 fail): 5/10 with E4 E5 E6 false passes. At 0.86 (E2 = E3 32/37 = 0.865
    and E4 0.95, E6 0.889 still pass; E5 6/7 = 0.857 and E8 16/19 = 0.842 fail) 5/10 too, but
    false passes E4 E6 and false fails E1 E7 E8."""
    import numpy as np

    s = ExplorerSession(load_shared(BUNDLED_CASES))
    s.layout()
    s.inputs.combine = "mean"
    s.inputs.trajectory = "none"
    assert "the mean is the response score alone" in s.chart.hint.object
    data = s.chart.source.data
    j = list(np.round(data["threshold"], 2)).index(0.86)
    assert (data["agree"][j], data["false_pass"][j], data["false_fail"][j]) == (5, 2, 3)
    assert _agree(s) == (5, 10)
