"""Which calls a longest common subsequence leaves out (matching.lcs_pairs_displaced), by hand."""

from explorer.core.scoring.matching import lcs_length, lcs_pairs_displaced


def _compat(expected: str, actual: str) -> list[list[bool]]:
    """One letter per call; two calls match when their letters are equal."""
    return [[a == e for a in actual] for e in expected]


def test_a_call_made_before_its_turn_is_left_out():
    # expected s b c, actual b s c: b came before the search, so s and c keep their place
    assert lcs_pairs_displaced(_compat("sbc", "bsc"), 3) == [(0, 1), (2, 2)]
    # expected s p b c, actual p s b c (the bundled E3): p is left out
    assert lcs_pairs_displaced(_compat("spbc", "psbc"), 4) == [(0, 1), (2, 2), (3, 3)]


def test_of_equal_calls_in_a_row_the_first_is_kept():
    # expected s b c, actual s s b c (E8, a retried search): the repeat at index 1 is left out
    assert lcs_pairs_displaced(_compat("sbc", "ssbc"), 4) == [(0, 0), (1, 2), (2, 3)]


def test_the_pairs_are_a_longest_common_subsequence():
    for expected, actual in (("abcab", "bacba"), ("aab", "aba"), ("", "ab"), ("ab", ""), ("abc", "cba")):
        pairs = lcs_pairs_displaced(_compat(expected, actual), len(actual))
        assert len(pairs) == lcs_length(_compat(expected, actual), len(actual))
        assert all(expected[i] == actual[j] for i, j in pairs)
        assert [i for i, _ in pairs] == sorted({i for i, _ in pairs}) and [j for _, j in pairs] == sorted({j for _, j in pairs})
