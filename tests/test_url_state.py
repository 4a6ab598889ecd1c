"""URL query <-> settings (explorer.app.url): names and values of docs/ui-contract.md, bad values
ignored with a notice naming them."""

from __future__ import annotations

import pytest

from explorer.app.url import format_threshold, query_from_settings, settings_from_query
from explorer.core.evaluation.settings import Settings

TOOLS = ("book_flight", "confirm_booking", "delete_booking", "get_weather", "search_flights")
OPENING = Settings(deny_tools=("delete_booking",))


def test_contract_example_opens_on_step_seven():
    query = {
        "trajectory": "any_order", "compare_args": "true", "f1_threshold": "0.4", "combine": "all",
        "deny_check": "true", "deny_tools": "delete_booking", "key_fields": "true",
    }
    settings, notices = settings_from_query(query, OPENING, TOOLS)
    assert notices == []
    assert settings == Settings(
        trajectory="any_order", compare_args=True, f1_threshold=0.4, combine="all",
        deny_check=True, deny_tools=("delete_booking",), key_fields=True,
    )


def test_tornado_request_arguments_are_lists_of_bytes():
    settings, notices = settings_from_query({"trajectory": [b"exact", b"in_order"], "compare_args": [b"false"]}, OPENING, TOOLS)
    assert notices == []
    assert settings.trajectory == "in_order"  # the last value wins
    assert settings.compare_args is False


def test_missing_names_keep_the_opening_settings():
    settings, notices = settings_from_query({"combine": "mean"}, OPENING, TOOLS)
    assert notices == []
    assert settings == OPENING.with_(combine="mean")


def test_values_are_case_insensitive_where_they_are_words():
    settings, _ = settings_from_query({"trajectory": "ANY_ORDER", "key_fields": "Yes", "deny_check": "1"}, OPENING, TOOLS)
    assert (settings.trajectory, settings.key_fields, settings.deny_check) == ("any_order", True, True)


@pytest.mark.parametrize(
    "name, value, words",
    [
        ("trajectory", "sideways", "trajectory=sideways"),
        ("f1_threshold", "1.5", "f1_threshold=1.5"),
        ("f1_threshold", "-0.1", "f1_threshold=-0.1"),
        ("f1_threshold", "abc", "f1_threshold=abc"),
        ("f1_threshold", "nan", "f1_threshold=nan"),
        ("f1_threshold", "inf", "f1_threshold=inf"),
        ("f1_threshold", "０.５", "f1_threshold=０.５"),  # float() read full-width digits as 0.5
        ("trajectory_threshold", "0.5_0", "trajectory_threshold=0.5_0"),  # and "_" between digits
        ("pass_above", "٠.٩", "pass_above=٠.٩"),
        ("combine", "median", "combine=median"),
        ("key_fields", "maybe", "key_fields=maybe"),
    ],
)
def test_a_bad_value_is_ignored_and_named(name, value, words):
    # a good value beside the bad one still applies
    good_name, good_value = ("combine", "mean") if name == "trajectory" else ("trajectory", "in_order")
    settings, notices = settings_from_query({name: value, good_name: good_value}, OPENING, TOOLS)
    assert len(notices) == 1
    assert words in notices[0] and notices[0].startswith("Ignored ")
    assert getattr(settings, name) == getattr(OPENING, name)
    assert getattr(settings, good_name) == good_value


def test_unknown_tools_are_dropped_and_named():
    settings, notices = settings_from_query({"deny_tools": "delete_booking,rm_rf", "deny_check": "true"}, OPENING, TOOLS)
    assert settings.deny_tools == ("delete_booking",)
    assert settings.deny_check is True
    assert len(notices) == 1 and "rm_rf" in notices[0]


def test_empty_deny_tools_means_none_chosen():
    settings, notices = settings_from_query({"deny_tools": ""}, OPENING, TOOLS)
    assert notices == [] and settings.deny_tools == ()


def test_unknown_name_is_named():
    settings, notices = settings_from_query({"colour": "blue"}, OPENING, TOOLS)
    assert settings == OPENING
    assert notices == ["Ignored colour from the link: not a setting this app knows."]


def test_long_values_are_shortened_in_the_notice():
    _, notices = settings_from_query({"combine": "x" * 100}, OPENING, TOOLS)
    assert "x" * 39 + "…" in notices[0] and "x" * 41 not in notices[0]


def test_query_of_the_opening_settings():
    assert query_from_settings(OPENING) == {
        "trajectory": "exact", "compare_args": "true", "f1_threshold": "0.8", "combine": "all",
        "deny_check": "false", "deny_tools": "delete_booking", "key_fields": "false",
    }


def test_thresholds_are_written_short():
    assert format_threshold(0.41000000000000003) == "0.41"
    assert format_threshold(0.4) == "0.4"
    assert format_threshold(1.0) == "1"
    assert format_threshold(0.0) == "0"
    assert format_threshold(0.755) == "0.755"


@pytest.mark.parametrize(
    "settings",
    [
        OPENING,
        Settings(trajectory="none", compare_args=False, f1_threshold=0.41, combine="mean"),
        Settings(trajectory="in_order", deny_check=True, deny_tools=("delete_booking", "get_weather"), key_fields=True),
        Settings(deny_tools=()),
    ],
)
def test_written_query_reads_back_to_the_same_settings(settings):
    back, notices = settings_from_query(query_from_settings(settings), Settings(), TOOLS)
    assert notices == [] and back == settings


def test_response_scorer_in_the_link():
    query = {"response_scorer": "cascade", "rung": "4", "pass_above": "0.9", "fail_below": "0.7"}
    settings, notices = settings_from_query(query, OPENING, TOOLS)
    assert notices == []
    assert (settings.response_scorer, settings.rung, settings.pass_above, settings.fail_below) == ("cascade", 4, 0.9, 0.7)
    assert query_from_settings(settings) == {**query_from_settings(OPENING), **query}


def test_bad_response_values_are_ignored_with_notices():
    query = {"response_scorer": "bleu", "rung": "5", "pass_above": "0.5", "fail_below": "0.8"}
    settings, notices = settings_from_query(query, OPENING, TOOLS)
    assert (settings.response_scorer, settings.rung, settings.pass_above, settings.fail_below) == ("f1", 3, 0.85, 0.6)
    assert notices[0].startswith("Ignored response_scorer=bleu from the link: expected one of f1, rouge1")
    assert notices[1] == "Ignored rung=5 from the link: expected 1, 2, 3 or 4."
    assert notices[2].startswith("Ignored pass_above=0.5, fail_below=0.8 from the link: fail_below (0.8) must not exceed")
