"""Counts in words with the right singular or plural (pure, no Panel): ``1 run``, ``2 runs``,
``1 false pass``, ``3 false passes``, for the page and the CLI alike (a trial read ``1 labelled
runs`` and ``run(s)`` as careless).

English plural of the last word: ``-s``, or ``-es`` after s, x, z, ch, sh (``false pass`` ->
``false passes``); give ``plural`` for anything else (``run with a verdict`` -> ``runs with a
verdict``).
"""

from __future__ import annotations

from typing import Sequence

from .visible import visible


def plural_of(noun: str) -> str:
    """``"run"`` -> ``"runs"``, ``"false pass"`` -> ``"false passes"``, ``"box"`` -> ``"boxes"``."""
    return noun + ("es" if noun.endswith(("s", "x", "z", "ch", "sh")) else "s")


def noun(n: int, singular: str, plural: str | None = None) -> str:
    """``singular`` when ``n`` is 1 (or -1), else ``plural`` (default :func:`plural_of`):
    ``noun(1, "run")`` -> ``"run"``, ``noun(0, "run")`` -> ``"runs"``."""
    return singular if abs(n) == 1 else (plural if plural is not None else plural_of(singular))


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """``n`` with thousands separators and the noun agreeing with it: ``counted(1, "run")`` ->
    ``"1 run"``, ``counted(1000, "labelled run")`` -> ``"1,000 labelled runs"``,
    ``counted(2, "run with a verdict", "runs with a verdict")`` -> ``"2 runs with a verdict"``."""
    return f"{n:,} {noun(n, singular, plural)}"


def counted_of(n: int, total: int, singular: str, plural: str | None = None) -> str:
    """``n`` of ``total`` with the noun agreeing with ``total``: ``counted_of(1, 10, "trace")`` ->
    ``"1 of 10 traces"``, ``counted_of(1, 1, "trace")`` -> ``"1 of 1 trace"``. The verb after it
    agrees with ``n``: ``noun(n, "has", "have")`` (``1 of 10 traces has``)."""
    return f"{n:,} of {total:,} {noun(total, singular, plural)}"


LIST_LIMIT = 20
"""Most names a one-line list shows (:func:`listed`)."""


def listed(names: Sequence[str], limit: int = LIST_LIMIT) -> str:
    """Names joined by ``", "``, at most ``limit`` of them: ``["E4", "E9"]`` -> ``"E4, E9"``;
    past the limit the first ``limit`` and how many more, with thousands separators:
    ``"R1, R2, ..., R20 and 9,873 more"`` (a 100k-run file's false passes made one line of
    ~100 kB before); one past the limit is named (``"and 1 more"`` is no shorter). ``""`` for none.
    Each name is :func:`~explorer.core.visible.visible` (ids come from run exports: a newline or
    ESC in one would break or recolour the line)."""
    if len(names) <= limit + 1:  # "and 1 more" is longer than the one name
        return ", ".join(map(visible, names))
    return f"{', '.join(map(visible, names[:limit]))} and {len(names) - limit:,} more"


def half_width_words(half_width: float) -> str:
    """A target half-width in percentage points: ``0.05`` -> ``"±5 points"``, ``0.01`` ->
    ``"±1 point"``, ``0.025`` -> ``"±2.5 points"`` (the value to 4 significant figures)."""
    points = float(f"{100 * half_width:.4g}")
    return f"±{points:g} {noun(points, 'point')}"
