"""Which lesson the stepper shows: each bundled lesson runs on one bundled case set (pure data).

* the booking-agent lesson (:mod:`explorer.app.lesson`, seed 002's seven steps) on
  ``cases/booking_agent.json``;
* the refund-agent lesson (:mod:`explorer.app.lesson_partial_credit`, issue 12's five steps on
  partial credit) on ``cases/refund_agent.json``.

A case set is matched by the name of the file it came from (``CaseSet.source``), so the lesson
follows the set when it is served, picked or uploaded under that name; other sets have no lesson
and the page shows no stepper.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from . import lesson, lesson_partial_credit
from .lesson import LessonStep


@dataclass(frozen=True)
class Lesson:
    """A lesson: ``name`` (shown at the stepper's left), the case-set file it runs on (``cases``,
    a file name) and its ``steps`` (numbered 1..n, each with the agreement it gives on that set)."""

    name: str
    cases: str
    steps: tuple[LessonStep, ...]


BOOKING = Lesson("The booking-agent lesson", "booking_agent.json", lesson.STEPS)
REFUND = Lesson("The refund-agent lesson", lesson_partial_credit.CASES, lesson_partial_credit.STEPS)
LESSONS: tuple[Lesson, ...] = (BOOKING, REFUND)
"""Every bundled lesson."""


def lesson_for(source: str) -> Lesson | None:
    """The lesson of the case set read from ``source`` (a path or file name), or None."""
    name = PurePath(source.replace("\\", "/")).name if source else ""
    return next((x for x in LESSONS if x.cases == name), None)
