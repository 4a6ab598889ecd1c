"""Issue 12's short lesson on ``cases/refund_agent.json``: partial credit trades false fails for
false passes. Five steps, each a set of inputs on top of the default settings and a short
explanation, with the agreement expected on that set (``tests/test_refund_lesson.py`` checks each).

Pure data, like :mod:`explorer.app.lesson`; the stepper shows it when the refund set is the active
case set (:mod:`explorer.app.lessons`).
"""

from __future__ import annotations

from .lesson import LessonStep

CASES = "refund_agent.json"
"""The bundled case set the lesson runs on (``cases/``)."""

STEPS: tuple[LessonStep, ...] = (
    LessonStep(
        1, "1. EXACT fails three good runs", {},
        "The procedure is lookup_order, check_policy, issue_refund, send_confirmation. EXACT fails every run "
        "that strays from it: the good runs that skipped a policy check they did not need (R2), looked the "
        "order up twice (R3) or read the policy first (R8) fail with the bad ones. 5 of 8, three false fails.",
        "5/8",
    ),
    LessonStep(
        2, "2. Recall ≥ 1.00: every expected call made", {"trajectory": "recall", "trajectory_threshold": 1.0},
        "Trajectory recall is the share of the expected calls the agent made (Vertex AI trajectory_recall); at "
        "1.00 it is ANY_ORDER. The repeated lookup and the reordered checks now pass: 7 of 8. R2 still fails: "
        "it made 3 of the 4 expected calls (0.75).",
        "7/8",
    ),
    LessonStep(
        3, "3. Recall ≥ 0.75: one false fail traded for two false passes",
        {"trajectory": "recall", "trajectory_threshold": 0.75},
        "Lowering the threshold to 0.75 gives R2 its pass, but R4 (never issued the refund) and R6 (refunded "
        "120 instead of 12.00) also made 3 of 4 expected calls: recall counts calls, not which call was "
        "missed. 6 of 8, two false passes, no false fail.",
        "6/8",
    ),
    LessonStep(
        4, "4. Trajectory F1 ≥ 0.85: the other mistake", {"trajectory": "f1", "trajectory_threshold": 0.85},
        "F1 weighs the calls made against the calls expected. R6's wrong refund is both an unexpected call and "
        "a missing one (F1 0.75) and fails; R2, R3 and R4 score 0.86-0.89 and pass. 7 of 8 as in step 2, but "
        "the one mistake is now a false pass (R4) instead of a false fail (R2): choose by which costs more.",
        "7/8",
    ),
    LessonStep(
        5, "5. Names only: the wrong amount slips through",
        {"trajectory": "f1", "trajectory_threshold": 0.85, "args": "ignore"},
        "With the arguments ignored, R6's issue_refund(amount 120) counts as the expected refund (F1 1.00) and "
        "passes: 6 of 8, two false passes. The arguments carried the difference. (The set ignores the "
        "confirmation's sent_at by an argument rule, which is why R5 passes every step.)",
        "6/8",
    ),
)
