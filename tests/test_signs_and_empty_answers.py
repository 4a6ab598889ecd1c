"""Issue 10, kinds 4 and 5: the minus sign is kept; answers that normalise to nothing never pass.

Kind 4, by hand: "-5" is minus five and "5" is five, so they are different at every rung and the
amount rule reads -5 against 5. "Balance: −50 EUR" (U+2212) reads -50. A sign glued to a currency
sign is the number's: "−€50", "-€50", "€-50" and "-50 EUR" are all -50. A hyphen after a letter or
digit is not a sign: "A-1042" is an id, "10-20" a range, "555-1234" a phone number.

Kind 5, by hand: "?" and "!" both leave nothing after rung 3, so neither is an answer: the run
``punct_only`` fails the response check with every scorer, decided by ``empty answer``.
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import given, settings, strategies as st

from explorer.cli import main
from explorer.core.evaluation.features import build_features, load_warnings
from explorer.core.evaluation.response_features import ResponseFeatures
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.verdicts import evaluate, result_table
from explorer.core.io.loaders import loads_runs
from explorer.core.scoring.cascade import cascade_verdict
from explorer.core.scoring.field_rules import amount_rule, extract_amounts
from explorer.core.scoring.normalise import exact_at, is_empty_answer, normalise, number_spans
from explorer.core.scoring.response_scorers import F1Scorer, make_scorer

SIGN_BARE = '{"id":"sign_bare","expected_calls":"","actual_calls":"","answer":"-5","reference":"5","human_verdict":"unacceptable"}\n'
PUNCT_ONLY = '{"id":"punct_only","expected_calls":"","actual_calls":"","answer":"?","reference":"!"}\n'
NEEDS_MODEL = pytest.mark.skipif(
    not __import__("explorer.core.scoring.embedding", fromlist=["x"]).similarity_available(), reason="needs the similarity extra"
)

# --- kind 4 -----------------------------------------------------------------------------------


@pytest.mark.parametrize("rung", [1, 2, 3, 4])
def test_minus_five_is_not_five(rung):
    assert normalise("-5", rung) == "-5"
    assert not exact_at("-5", "5", rung)


def test_the_unicode_minus_reads_as_minus_on_rung_4():
    assert normalise("−5", 4) == "-5" and exact_at("−5", "-5", 4) and not exact_at("−5", "5", 4)


@pytest.mark.parametrize("text", ["Balance: −50 EUR", "−€50", "-€50", "€-50", "-50 EUR", "(−50)"])
def test_signed_amounts(text):
    assert extract_amounts(text) == [Decimal(-50)]
    assert normalise(text, 4) in ("balance: -50 eur", "€-50", "-50 eur", "-50")


def test_amount_rule_reads_the_sign():
    res = amount_rule("Balance: −50 EUR", "Balance: 50 EUR")
    assert (res.passed, res.reason) == (False, "amount -50 differs from 50")
    assert amount_rule("Refund −€50", "Refund €-50").passed


@pytest.mark.parametrize("text, values", [("A-1042", [1042]), ("10-20", [10, 20]), ("555-1234", [555, 1234]), ("pages 3 - 5", [3, 5])])
def test_a_hyphen_after_a_word_or_digit_is_not_a_sign(text, values):
    assert [v for _, _, v in number_spans(text)] == [Decimal(v) for v in values]


def test_cascade_fails_sign_bare_at_the_amount_rule():
    verdict = cascade_verdict("-5", ["5"], F1Scorer())
    assert (verdict.passed, verdict.stage, verdict.reason) == (False, "field:amount", "amount -5 differs from 5")


@NEEDS_MODEL
def test_cli_cascade_and_exact_fail_sign_bare(tmp_path, capsys):
    path = tmp_path / "sign.jsonl"
    path.write_text(SIGN_BARE)
    for argv, decided in ((["--response-scorer", "cascade"], "field:amount"), (["--response-scorer", "exact", "--rung", "4"], "exact")):
        assert main(["score", "--cases", str(path), "--trajectory", "none", "--format", "json", *argv]) == 0
        run = json.loads(capsys.readouterr().out)["runs"][0]
        assert (run["verdict"], run["outcome"], run["decided_by"]) == ("fail", "agree", decided)


TEXT = st.text(alphabet=st.sampled_from(list("-−€$ .,:()?!aZ0157/")), max_size=14)


@settings(deadline=None)  # the first rung-4 call loads the locale's CLDR data
@given(TEXT, st.sampled_from([1, 2, 3, 4]))
def test_normalising_twice_changes_nothing(text, rung):
    once = normalise(text, rung)
    assert normalise(once, rung) == once


# --- kind 5 -----------------------------------------------------------------------------------


@pytest.mark.parametrize("text, empty", [("?", True), ("!", True), ("", True), ("  ... ", True), ("«»", True), ("-", True),
                                         ("€", False), ("-5", False), ("ok", False), ("予", False)])
def test_empty_answer_rule(text, empty):
    assert is_empty_answer(text) is empty


@pytest.mark.parametrize("rung", [1, 2, 3, 4])
def test_question_mark_never_equals_exclamation_mark(rung):
    assert not exact_at("?", "!", rung) and not exact_at("?", "?", rung)


@pytest.mark.parametrize("name", ["f1", "rouge1", "exact"])
def test_every_plain_scorer_scores_an_empty_answer_0(name):
    assert make_scorer(name).score("?", ["!"]) == 0.0 and make_scorer(name).score("", [""]) == 0.0


def test_punct_only_fails_every_plain_scorer_even_at_threshold_0():
    cs = loads_runs(PUNCT_ONLY, "p.jsonl")
    f = build_features(cs)
    rf = ResponseFeatures(cs)
    for scorer in ("f1", "rouge1", "exact"):
        for rung in (1, 3, 4):
            ev = evaluate(f, Settings(trajectory="none", response_scorer=scorer, rung=rung, f1_threshold=0.0), rf)
            table = result_table(f, ev)
            assert not ev.passed[0]
            assert (table["decided_by"][0], table["reason"][0]) == ("empty answer", "empty answer")


@NEEDS_MODEL
def test_punct_only_fails_cosine_and_the_cascade(tmp_path, capsys):
    path = tmp_path / "p.jsonl"
    path.write_text(PUNCT_ONLY)
    for argv in (["--response-scorer", "exact", "--rung", "3"], ["--response-scorer", "cascade"],
                 ["--response-scorer", "cosine", "--f1-threshold", "0"]):
        assert main(["score", "--cases", str(path), "--format", "json", *argv]) == 0
        run = json.loads(capsys.readouterr().out)["runs"][0]
        assert (run["verdict"], run["decided_by"], run["reason"], run["response_score"] or 0.0) == ("fail", "empty answer", "empty answer", 0.0)
    verdict = cascade_verdict("?", ["!"], F1Scorer())
    assert (verdict.passed, verdict.stage) == (False, "empty answer")


def test_an_exact_field_never_matches_nothing():
    from explorer.core.io.model import ExpectedField
    from explorer.core.scoring.field_rules import score_fields

    got = score_fields("!", [ExpectedField("mark", "?", "exact@3")])
    assert (got.passed, got.first_failure.reason) == (False, "mark: expected value is empty after normalisation")
    assert not score_fields("?", [ExpectedField("mark", "ok", "exact@1")]).passed


def test_empty_reference_is_a_load_warning(tmp_path, capsys):
    cs = loads_runs('{"id":"e","expected_calls":"","actual_calls":"","answer":"hi","reference":" . "}\n', "e.jsonl")
    assert load_warnings(build_features(cs)) == [
        "1 run has an empty reference (nothing left after normalisation; no answer can match it): e"
    ]
    path = tmp_path / "e.jsonl"
    path.write_text('{"id":"e","expected_calls":"","actual_calls":"","answer":"hi","reference":""}\n')
    assert main(["score", "--cases", str(path)]) == 0
    assert "warning: " in capsys.readouterr().err
