"""Numbers a person types are read in ASCII (explorer.core.numbers): Python's int() and float()
also took "３" (a full-width digit) as 3, "1_0" as 10 and "nan" as a threshold, so --rows ３ or
--f1-threshold ０.５ ran with a number the help never shows; METRIC_EXPLORER_MAX_BYTES=abc ended
score with a ValueError traceback."""

from __future__ import annotations

import pytest

from explorer.cli import main
from explorer.commands.common import BUNDLED_CASES
from explorer.core.numbers import decimal_number, whole_number


@pytest.mark.parametrize("text, value", [("50", 50), ("-3", -3), ("+7", 7), (" 12 ", 12), ("007", 7)])
def test_whole_numbers_in_ascii_digits(text, value):
    assert whole_number(text) == value


@pytest.mark.parametrize("text", ["３", "1_0", "5.0", "", " ", "²", "٥", "0x10", "1e3", "--1"])
def test_other_whole_number_spellings_are_refused(text):
    with pytest.raises(ValueError):
        whole_number(text)


@pytest.mark.parametrize("text, value", [("0.8", 0.8), (".5", 0.5), ("1.", 1.0), ("1e-3", 0.001), ("-0.25", -0.25),
                                         ("+1E2", 100.0), (" 0.41 ", 0.41), ("1e999", float("inf"))])
def test_decimal_numbers_in_ascii(text, value):
    assert decimal_number(text) == value


@pytest.mark.parametrize("text", ["０.５", "0.8_0", "nan", "inf", "-infinity", "", ".", "e3", "1e", "0,8", "½"])
def test_other_decimal_spellings_are_refused(text):
    with pytest.raises(ValueError):
        decimal_number(text)


@pytest.mark.parametrize("argv, option, text", [
    (["score", "--rows", "３"], "--rows", "expected a whole number or all, got '３'"),
    (["score", "--rows", "1_0"], "--rows", "expected a whole number or all, got '1_0'"),
    (["score", "--f1-threshold", "０.５"], "--f1-threshold", "not a number: '０.５'"),
    (["score", "--trajectory-threshold", "nan"], "--trajectory-threshold", "not a number: 'nan'"),
    (["score", "--half-width", "0.0_5"], "--half-width", "not a number: '0.0_5'"),
    (["score", "--response-scorer", "exact", "--rung", "３"], "--rung", "not an integer: '３'"),
    (["score", "--response-scorer", "cascade", "--pass-above", "inf"], "--pass-above", "not a number: 'inf'"),
    (["sweep", "--top", "２"], "--top", "expected a whole number or all, got '２'"),
    (["calibrate", "--target-precision", "０.９"], "--target-precision", "not a number: '０.９'"),
    (["serve", "--port", "５００６"], "--port", "not an integer: '５００６'"),
    (["serve", "--num-procs", "²"], "--num-procs", "not an integer: '²'"),
])
def test_cli_numbers_in_other_digits_exit_2_naming_the_option(argv, option, text, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}: {text}" in err


@pytest.mark.parametrize("value", ["abc", "２００", "0", "-5", "1_000"])
def test_a_bad_size_limit_in_the_environment_is_an_error_naming_the_variable(value, monkeypatch, capsys):
    monkeypatch.setenv("METRIC_EXPLORER_MAX_BYTES", value)
    code = main(["score", "--cases", str(BUNDLED_CASES)])
    err = capsys.readouterr().err
    assert code != 0
    assert f"METRIC_EXPLORER_MAX_BYTES: expected a whole number of bytes (at least 1), got '{value}'" in err
    assert "Traceback" not in err


def test_a_size_limit_in_ascii_digits_is_read(monkeypatch, capsys):
    monkeypatch.setenv("METRIC_EXPLORER_MAX_BYTES", " 100 ")
    assert main(["score", "--cases", str(BUNDLED_CASES)]) != 0
    assert "kB, over the 100 bytes limit" in capsys.readouterr().err  # the bundled set is a few kB


@pytest.mark.parametrize("n, limit, text", [(1, False, "1 byte"), (530, False, "530 bytes"), (4_273, False, "4.3 kB"),
                                            (250_000_000, False, "250.0 MB"), (200 * 1024 * 1024, True, "210 MB"),
                                            (1_500_000, True, "1.5 MB"), (100, True, "100 bytes"), (2_000, True, "2 kB")])
def test_sizes_in_messages(n, limit, text):
    from explorer.core.io.reading import size_text

    assert size_text(n, limit=limit) == text
