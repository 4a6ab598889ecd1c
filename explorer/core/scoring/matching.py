"""Pairing calls: a maximum one-to-one matching and a longest common subsequence, over any
"these two calls match" relation.

Both work on a compatibility matrix ``compat[i][j]`` (expected call i, actual call j), so the
relation may be anything an argument rule says (equality, a tolerance, key subsets), not only an
equivalence. Neither result depends on the order of the lists beyond what the definition asks
(the matching size is invariant under permuting either list; the LCS length only depends on the
relative order the definition is about).

* :func:`max_matching`: a maximum bipartite matching (Kuhn's augmenting paths; Berge's theorem:
  a matching is maximum iff no augmenting path exists). Each expected call first takes the
  first free compatible actual call (for an equivalence relation such as ADK's ``==`` this is
  already maximum and equals ADK's greedy pairing), and only when none is free does it try to
  re-route earlier pairs. Greedy pairing alone can under-count when the relation is not an
  equivalence: expected ``[book(1,1,1), book(1,1,2)]``, actual ``[book(1,1,2), book(1,5,5)]``
  under a rule that accepts ``c`` within 1 pairs greedily 1 call, optimally 2.
* :func:`lcs_pairs`: a longest common subsequence (classic dynamic programme, O(|E|·|A|));
  :func:`lcs_pairs_displaced` picks, among longest ones, the one that leaves out the calls out of place.

Sizes are small (calls in one invocation), so plain Python lists are used.
"""

from __future__ import annotations

from typing import Sequence

Compat = Sequence[Sequence[bool]]
"""``compat[i][j]``: expected call i and actual call j match (|E| rows of |A| booleans)."""


def max_matching(compat: Compat, n_actual: int) -> list[int | None]:
    """A maximum one-to-one pairing: for each expected call i the actual call index paired with
    it, or None. ``compat`` has one row per expected call, each of length ``n_actual``.

    The number of non-None entries is the maximum matching size, whatever the order of either
    list. Ties between maximum matchings are broken towards earlier actual calls for earlier
    expected calls (deterministic). O(|E|·|E|·|A|) in the worst case.
    """
    owner: list[int | None] = [None] * n_actual  # actual j -> expected i
    pair: list[int | None] = [None] * len(compat)
    need: list[int] = []
    for i, row in enumerate(compat):
        for j in range(n_actual):
            if row[j] and owner[j] is None:
                owner[j] = i
                pair[i] = j
                break
        else:
            if any(row):
                need.append(i)
    for i in need:
        _augment(i, compat, owner, pair, [False] * n_actual, n_actual)
    return pair


def _augment(i: int, compat: Compat, owner: list[int | None], pair: list[int | None], seen: list[bool], n: int) -> bool:
    """Find an augmenting path from expected call i (depth-first); re-pair along it."""
    row = compat[i]
    for j in range(n):
        if row[j] and not seen[j]:
            seen[j] = True
            k = owner[j]
            if k is None or _augment(k, compat, owner, pair, seen, n):
                owner[j] = i
                pair[i] = j
                return True
    return False


def matching_size(compat: Compat, n_actual: int) -> int:
    """Size of a maximum one-to-one matching (see :func:`max_matching`)."""
    return sum(p is not None for p in max_matching(compat, n_actual))


def lcs_pairs(compat: Compat, n_actual: int) -> list[tuple[int, int]]:
    """A longest common subsequence as (expected index, actual index) pairs, both increasing,
    each pair compatible. Its length is the most expected calls that can be found in the actual
    calls in their expected order. Among longest ones, a compatible pair is taken as early as
    possible (deterministic)."""
    n_exp = len(compat)
    if n_exp == 0 or n_actual == 0:
        return []
    # table[i][j]: LCS length of expected[i:] and actual[j:]
    table = [[0] * (n_actual + 1) for _ in range(n_exp + 1)]
    for i in range(n_exp - 1, -1, -1):
        row, below, here = compat[i], table[i + 1], table[i]
        for j in range(n_actual - 1, -1, -1):
            if row[j]:
                here[j] = below[j + 1] + 1
            else:
                a, b = below[j], here[j + 1]
                here[j] = a if a > b else b
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < n_exp and j < n_actual:
        if compat[i][j] and table[i][j] == table[i + 1][j + 1] + 1:
            out.append((i, j))
            i += 1
            j += 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def lcs_length(compat: Compat, n_actual: int) -> int:
    """Length of a longest common subsequence (see :func:`lcs_pairs`)."""
    n_exp = len(compat)
    if n_exp == 0 or n_actual == 0:
        return 0
    prev = [0] * (n_actual + 1)
    for i in range(n_exp):
        row = compat[i]
        cur = [0] * (n_actual + 1)
        for j in range(n_actual):
            if row[j]:
                cur[j + 1] = prev[j] + 1
            else:
                a, b = prev[j + 1], cur[j]
                cur[j + 1] = a if a > b else b
        prev = cur
    return prev[n_actual]


def lcs_pairs_displaced(compat: Compat, n_actual: int) -> list[tuple[int, int]]:
    """A longest common subsequence as (expected index, actual index) pairs, both increasing,
    like :func:`lcs_pairs`, chosen so that the calls it leaves out are the ones a person calls
    out of place: a call made before its turn is left out, and of equal calls in a row the
    first is kept. Expected ``[search, book, confirm]``, actual ``[book, search, confirm]``:
    ``(0, 1), (2, 2)`` (book, made before the search, is left out; :func:`lcs_pairs` gives
    ``(1, 0), (2, 2)``); actual ``[search, search, book, confirm]``: ``(0, 0), (1, 2), (2, 3)``
    (the repeat at index 1 is left out).

    Found in two steps: a longest one keeping the latest actual calls (backtracking from the
    end), then each pair, first to last, moved to the earliest compatible actual call after
    the previous pair (it stays before the next one, so the length is unchanged). Used to mark
    the calls out of order (:func:`explorer.core.scoring.trajectory.align_calls`). O(|E|·|A|)."""
    n_exp = len(compat)
    # table[i][j]: LCS length of expected[:i] and actual[:j]
    table = [[0] * (n_actual + 1) for _ in range(n_exp + 1)]
    for i in range(1, n_exp + 1):
        row, above, here = compat[i - 1], table[i - 1], table[i]
        for j in range(1, n_actual + 1):
            if row[j - 1]:
                here[j] = above[j - 1] + 1
            else:
                a, b = above[j], here[j - 1]
                here[j] = a if a > b else b
    latest: list[tuple[int, int]] = []
    i, j = n_exp, n_actual
    while i > 0 and j > 0:
        if compat[i - 1][j - 1] and table[i][j] == table[i - 1][j - 1] + 1:
            latest.append((i - 1, j - 1))
            i -= 1
            j -= 1
        elif table[i - 1][j] == table[i][j]:
            i -= 1
        else:
            j -= 1
    out: list[tuple[int, int]] = []
    after = -1
    for i, j in reversed(latest):
        j = next(k for k in range(after + 1, j + 1) if compat[i][k])
        out.append((i, j))
        after = j
    return out
