"""``threshold_ranges`` (core sweep): the best rows of a sweep grouped by setting, with their F1
thresholds written as ranges of consecutive 0.01 steps. The expected texts are written out by hand
from the rows given."""

import pandas as pd
import pytest

from explorer.core.evaluation.features import build_features
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.sweep import ADK_GRID, best, sweep, threshold_ranges
from explorer.core.io.casefile import load_case_set

from pathlib import Path

CASES = Path(__file__).resolve().parents[1] / "cases" / "booking_agent.json"
KEYS = dict(trajectory="any_order", compare_args=True, combine="all", deny_check=True, key_fields=True)


def rows(thresholds, **over):
    return [{**KEYS, **over, "f1_threshold": t} for t in thresholds]


def test_consecutive_steps_join_and_gaps_split():
    table = pd.DataFrame(rows([0.0, 0.01, 0.02, 0.05, 0.07, 0.08]))
    (group,) = threshold_ranges(table)
    assert group == {**KEYS, "f1_thresholds": "0.00-0.02, 0.05, 0.07-0.08"}


def test_groups_keep_the_order_they_first_appear_in():
    table = pd.DataFrame(rows([0.4], compare_args=False) + rows([0.3, 0.31]) + rows([0.41], compare_args=False))
    groups = threshold_ranges(table)
    assert [g["compare_args"] for g in groups] == [False, True]
    assert [g["f1_thresholds"] for g in groups] == ["0.40-0.41", "0.30-0.31"]


def test_float_noise_in_thresholds_is_one_step():
    # 0.41000000000000003 (a slider float) is step 41, next to 0.42
    (group,) = threshold_ranges(pd.DataFrame(rows([0.41000000000000003, 0.42])))
    assert group["f1_thresholds"] == "0.41-0.42"


def test_groups_by_the_setting_columns_the_table_has():
    # a table with fewer setting columns (issue 4's, or a test's) groups by those it has
    groups = threshold_ranges(pd.DataFrame([{"trajectory": "exact", "f1_threshold": 0.5},
                                            {"trajectory": "exact", "f1_threshold": 0.51}]))
    assert groups == [{"trajectory": "exact", "f1_thresholds": "0.50-0.51"}]


def test_missing_threshold_column_raises():
    with pytest.raises(KeyError):
        threshold_ranges(pd.DataFrame([{"trajectory": "exact", "combine": "all"}]))


def test_bundled_set_best_is_any_order_deny_key_up_to_0_41():
    # seed 002's last step (ANY_ORDER, deny-list, key fields, F1 0.4) reaches 10/10; by hand: E7's F1 is
    # 0.41 (the lowest good answer), so every threshold 0.00..0.41 passes it and 0.42 fails it
    features = build_features(load_case_set(CASES))
    groups = threshold_ranges(best(sweep(features, Settings(deny_tools=("delete_booking",)), grid=ADK_GRID)))
    shared = [{k: g[k] for k in (*KEYS, "f1_thresholds")} for g in groups]
    assert {**KEYS, "f1_thresholds": "0.00-0.41"} in shared
