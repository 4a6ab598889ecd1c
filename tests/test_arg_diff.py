"""Differing arguments in words (issue 10 kind 8, issue 9 call cells)."""

from explorer.core.scoring.arg_diff import arg_differences, describe_arg_differences


def test_equal_args_have_no_difference_as_adk_compares_them():
    # ADK == on the args dict: key order free, 1 == 1.0, True == 1
    assert arg_differences({"a": 1, "b": True}, {"b": 1, "a": 1.0}) == []
    assert describe_arg_differences({"a": 1}, {"a": 1}) == ""


def test_string_and_number_read_differently():
    assert describe_arg_differences({"people": "2"}, {"people": 2}) == 'people "2" ≠ 2'


def test_absent_and_extra_keys():
    assert describe_arg_differences({"a": 1}, {"a": 1, "date": "2026-03-12"}) == 'date absent ≠ "2026-03-12"'
    assert describe_arg_differences({"a": 1, "note": None}, {"a": 1}) == "note null ≠ absent"


def test_more_than_two_keys_are_counted():
    assert describe_arg_differences({"a": 1, "b": 2, "c": 3, "d": 4}, {"a": 0, "b": 0, "c": 0, "d": 0}) == (
        "a 1 ≠ 0, b 2 ≠ 0, +2 more keys"
    )


def test_long_values_are_cut_around_the_first_difference():
    base = "Find me the cheapest direct flight from London Heathrow to Rome Fiumicino on "
    text = describe_arg_differences({"q": base + "12 March"}, {"q": base + "21 March"})
    got, want = text[2:].split(" ≠ ")
    assert got.startswith("…") and want.startswith("…")
    assert "12 March" in got and "21 March" in want
    assert len(got) <= 40 and len(want) <= 40
