"""The booking-agent lesson: the metric trade-off story as seven steps, each a set of inputs and a
short explanation.

Choosing a step applies its settings (on top of the opening settings, so a step gives its figure
whether it is followed in order or alone; the page lists every setting a step sets); the inputs
stay free to change afterwards. Expected agreement per step is issue 2's acceptance table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.evaluation.settings import Settings


@dataclass(frozen=True)
class LessonStep:
    """One numbered step: ``title`` (``"1. The opening run: strict and still wrong"``), the
    ``changes`` applied to the opening settings, the ``explanation`` (plain text) and the
    agreement ``expected`` on the bundled set (``"4/10"``)."""

    number: int
    title: str
    changes: dict[str, Any] = field(default_factory=dict)
    explanation: str = ""
    expected: str = ""

    def settings(self, opening: Settings) -> Settings:
        """The step's settings: ``opening`` with ``changes`` applied."""
        return opening.with_(**self.changes)


_ANY_DENY = {"trajectory": "any_order", "deny_check": True, "deny_tools": ("delete_booking",)}

STEPS: tuple[LessonStep, ...] = (
    LessonStep(
        1, "1. The opening run: strict and still wrong", {},
        "Strict settings, and the evaluator agrees with the person on only 4 of 10 runs. Five good runs fail (a "
        "reworded answer, an extra weather lookup, a profile read first, a paraphrase, a retried search), and E5 "
        "passes although it gives the wrong date: one changed word barely moves F1 (0.86).",
        "4/10",
    ),
    LessonStep(
        2, "2. Loosen to IN_ORDER", {"trajectory": "in_order"},
        "IN_ORDER lets other calls sit between the expected ones: the weather lookup (E2) and the retried search "
        "(E8) now pass, 5 of 10. But E6, which deleted an old booking between the expected calls, passes too.",
        "5/10",
    ),
    LessonStep(
        3, "3. ANY_ORDER accepts the reordered profile read", {"trajectory": "any_order"},
        "ANY_ORDER only asks that each expected call happens somewhere, so E3's profile read first passes: 6 of 10. "
        "E5 and E6 still pass: a trajectory cannot see a wrong date or a harmful extra call.",
        "6/10",
    ),
    LessonStep(
        4, "4. Not scored: F1 alone", {"trajectory": "none"},
        "With the trajectory not scored, only the answer's overlap decides. E4 booked without confirming but reads "
        "well (F1 0.95), so it passes: 5 of 10 with three false passes. The trajectory was catching something real.",
        "5/10",
    ),
    LessonStep(
        5, "5. Deny-list catches E6", {**_ANY_DENY},
        "Back to ANY_ORDER, with the deny-list on delete_booking: a run that calls a forbidden tool fails whatever "
        "else it did. E6 fails now, 7 of 10, and E5 is the only false pass left.",
        "7/10",
    ),
    LessonStep(
        6, "6. Key fields catch E5's date", {**_ANY_DENY, "key_fields": True},
        "The exact check on dates and booking ids compares the facts that must not change: E5 says 21 March where "
        "the reference says 12 March, so it fails. 8 of 10, no bad run passes; the reworded (E1) and paraphrased "
        "(E7) answers still fail on F1.",
        "8/10",
    ),
    LessonStep(
        7, "7. All ten agree", {**_ANY_DENY, "key_fields": True, "f1_threshold": 0.4},
        "With the facts checked exactly, a lenient threshold is safe: at F1 ≥ 0.40 the reworded and paraphrased "
        "answers pass and all 10 runs agree. Ten runs cannot calibrate a real threshold: check yours on your own runs.",
        "10/10",
    ),
)
"""The seven steps of the lesson, in order."""
