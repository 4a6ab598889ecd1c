"""The sweep, honestly (issue 11 item 4): every setting's Wilson interval and the reading of the best."""

import json

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from explorer.cli import main
from explorer.commands.common import BUNDLED_CASES
from explorer.core.evaluation.features import build_features
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.sweep import ADK_GRID, sweep
from explorer.core.evaluation.sweep_intervals import sweep_reading, with_intervals
from explorer.core.io.casefile import load_case_set


@pytest.fixture(scope="module")
def table():
    features = build_features(load_case_set(BUNDLED_CASES))
    return sweep(features, Settings(deny_tools=("delete_booking",)), grid=ADK_GRID)  # issue 4's grid: 84 of 6,464 tie


def test_every_row_gets_the_statsmodels_wilson_interval(table):
    out = with_intervals(table)
    low, high = proportion_confint(table["agree"].to_numpy(), table["labelled"].to_numpy(), method="wilson")
    np.testing.assert_allclose(out["agreement_low"], low, atol=1e-12)
    np.testing.assert_allclose(out["agreement_high"], high, atol=1e-12)
    assert list(out.columns[: len(table.columns)]) == list(table.columns)


def test_reading_of_the_bundled_sweep(table):
    r = sweep_reading(table)
    # 10/10: Wilson low = 10 / (10 + 3.841459) = 0.722467
    assert (r.best.count, r.best.n, round(r.best.low, 6), r.best.high) == (10, 10, 0.722467, 1.0)
    assert r.n_tied == 84 and r.n_settings == 6464
    # within the interval: agreement >= 0.7225, i.e. 8, 9 or 10 of 10
    assert r.n_within == int((table["agree"] >= 8).sum())
    assert r.warning.startswith("84 settings reach 10/10 on 10 runs: the runs cannot tell them apart")


def test_reading_works_on_any_grid():
    # a grid with a column the sweep does not have today (issue 12 grows the grid): only agree and
    # labelled are read. 400 runs: best 380 (95 %), Wilson low (hand: centre (380 + 1.920729)/403.841459
    # = 0.945719, half 1.959964·sqrt(380·20/400 + 0.960365)/403.841459 = 0.021683 -> 0.924036)
    t = pd.DataFrame({"family": ["a", "b", "c", "d"], "agree": [380, 372, 360, 380], "labelled": [400] * 4})
    r = sweep_reading(t)
    assert r.best.low == pytest.approx(0.924036, abs=1e-5)
    assert (r.n_tied, r.n_within) == (2, 3)  # 372/400 = 0.93 is inside, 360/400 = 0.90 is not
    assert r.warning == "2 settings reach 380/400 on 400 runs: the runs cannot tell them apart; 1 more falls within the best's 95 % CI 92–97 %"
    single = sweep_reading(t.iloc[[0, 2]])
    assert (single.n_tied, single.n_within, single.warning) == (1, 1, "")


def test_sweep_cli_prints_the_reading(capsys):
    assert main(["sweep", "--deny", "delete_booking", "--top", "2", "--grid", "adk"]) == 0
    out = capsys.readouterr().out
    assert "warning: 84 settings reach 10/10 on 10 runs: the runs cannot tell them apart" in out
    assert "best agreement 10/10 · 95 % CI 72–100 %" in out
    assert main(["sweep", "--deny", "delete_booking", "--top", "1", "--format", "json", "--grid", "adk"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["reading"]["n_tied"] == 84 and data["reading"]["agreement"]["low"] == 0.722467
    assert data["settings"][0]["agreement_low"] == pytest.approx(0.722467, abs=1e-6)


def test_sweep_cli_with_no_labelled_run_says_so_instead_of_listing_every_setting(tmp_path, capsys):
    # found by a newcomer: `sweep --cases <an ADK result, no labels>` printed 1,576 "best" setting
    # groups (0/0 each) and only then "warning: no labelled runs"; a case set with its one run
    # unlabelled gives the same
    data = json.loads(open(BUNDLED_CASES, encoding="utf-8").read())
    data["runs"] = [dict(data["runs"][0], human_verdict=None)]
    path = tmp_path / "unlabelled.json"
    path.write_text(json.dumps(data))
    assert main(["sweep", "--cases", str(path)]) == 0
    out = capsys.readouterr().out
    assert "warning: no labelled runs: the sweep cannot rank the settings" in out
    assert "--labels" in out  # how to give the labels
    assert "best:" not in out and "reached by" not in out
    assert len(out.splitlines()) <= 5
