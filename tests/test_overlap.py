"""Unigram F1 on lowercase alphanumeric tokens with multiset counts, checked by hand."""

import pytest

from explorer.core.scoring.overlap import best_f1, tokens, unigram_f1


def test_tokens_lowercase_alphanumeric():
    assert tokens("Booked BK-4821, 12 March!") == ["booked", "bk", "4821", "12", "march"]


def test_multiset_counts():
    # candidate 4 tokens, reference 2, overlap min(3,1)+min(1,1) = 2 -> 2*2/(4+2)
    assert unigram_f1("the the the cat", "the cat") == pytest.approx(0.6667, abs=1e-4)


def test_identical_and_disjoint():
    assert unigram_f1("Booked for 12 March", "booked FOR 12 march.") == 1.0
    assert unigram_f1("yes", "no") == 0.0


def test_empty_vs_empty_is_zero_as_adk():
    assert unigram_f1("", "") == 0.0
    assert unigram_f1("...", "hello") == 0.0


def test_negated_sentence_scores_high():
    # 4 shared tokens; candidate 5 tokens, reference 4 -> 8/9: overlap cannot see "not"
    assert unigram_f1("The flight is not booked", "The flight is booked") == pytest.approx(8 / 9)


def test_best_over_references():
    assert best_f1("yes", ["no", "yes"]) == 1.0
    assert best_f1("yes", []) == 0.0
