"""The run model every loader returns and every scorer reads.

A *case set* holds *runs*; a run holds one or more *invocations* (one user turn each); an
invocation holds the *expected* tool-call trajectory, the *actual* calls the agent made, the
agent's final *answer* and one or more acceptable *references*. A person's *verdict* on the run
is ``"acceptable"``, ``"unacceptable"`` or ``None`` (unlabelled).

Vocabulary follows Google ADK's eval schema (``Invocation``, ``intermediate_data.tool_uses``,
``final_response``) and the usual evaluation words (reference, candidate, verdict).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Mapping, NamedTuple, Sequence

if TYPE_CHECKING:
    from ..scoring.arg_rules import ArgRules

Verdict = Literal["acceptable", "unacceptable"]
EXAMPLE_ID = "example_id"
"""``Run.extra`` key naming the dataset example a run is of (an Inspect sample id, or the value of
the OTLP ``--join-key`` attribute); expectations join on it as well as on the run id."""
VERDICTS: tuple[str, str] = ("acceptable", "unacceptable")


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call: a tool ``name`` and its ``args`` dict (JSON values).

    Two calls match when ``name`` and ``args`` are equal under Python ``==`` (ADK
    trajectory_evaluator): key order is free, ``1 == 1.0``, ``1 != "1"``.
    """

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def label(self) -> str:
        """Short human label, e.g. ``search_flights(destination='LIS', date='2026-03-12')``."""
        inner = ", ".join(f"{k}={v!r}" for k, v in self.args.items())
        return f"{self.name}({inner})"


@dataclass(frozen=True, slots=True)
class Invocation:
    """One user turn: expected and actual calls, the agent's answer, acceptable references.

    ``references`` holds one or more acceptable answers; scorers take the best match over them.
    """

    expected_calls: tuple[ToolCall, ...]
    actual_calls: tuple[ToolCall, ...]
    answer: str
    references: tuple[str, ...]

    @property
    def no_output(self) -> bool:
        """True when the agent produced nothing in this turn: no actual call and an answer that
        is empty or only whitespace. Loaders give a turn the agent never ran (an expected ADK
        invocation without an actual one) exactly this shape; every scorer treats it as a turn
        that scores 0 (issue 10, kind 1)."""
        return not self.actual_calls and not self.answer.strip()

    def plain(self) -> "PlainInvocation":
        """This invocation as a :class:`PlainInvocation` (calls as ``(name, args)`` pairs; equal
        call lists stay one tuple)."""
        expected = tuple([(c.name, c.args) for c in self.expected_calls])
        actual = expected if self.actual_calls is self.expected_calls else tuple([(c.name, c.args) for c in self.actual_calls])
        return PlainInvocation(expected, actual, self.answer, self.references)


CallPair = tuple[str, Mapping[str, Any]]
"""A tool call as plain data: ``(name, args)``."""


class PlainInvocation(NamedTuple):
    """An :class:`Invocation`'s content as plain tuples, for the hot path of feature computation
    (no object per call): ``expected`` and ``actual`` calls as :data:`CallPair` tuples, the
    ``answer`` and the ``references``. :meth:`Invocation.plain` makes one; the big loader reads
    one straight from a record (:func:`explorer.core.io.loaders.flat.well_formed_run`)."""

    expected: tuple[CallPair, ...]
    actual: tuple[CallPair, ...]
    answer: str
    references: tuple[str, ...]

    @property
    def no_output(self) -> bool:
        """As :attr:`Invocation.no_output`: no actual call and a blank answer."""
        return not self.actual and not self.answer.strip()


@dataclass(frozen=True, slots=True)
class ExpectedField:
    """One expected field of a run's answer (seed 000, "score fields, not strings").

    ``name``: key in a JSON answer (dotted path for nesting) or a label for a text answer;
    ``value``: the expected JSON value; ``strategy``: ``exact@1``..``exact@4``, ``date``,
    ``amount``, ``id``, ``f1`` or ``semantic``; ``hard``: must pass (else contributes
    ``weight`` to a soft score); ``threshold``: pass mark for ``f1``/``semantic`` (None =
    default). Scored by :func:`explorer.core.scoring.field_rules.score_fields`.
    """

    name: str
    value: Any
    strategy: str
    hard: bool = True
    weight: float = 1.0
    threshold: float | None = None


@dataclass(frozen=True, slots=True)
class AnnotatorLabel:
    """One annotator's verdict on a run (issue 11, several annotators): ``annotator`` a non-empty
    name, ``verdict`` ``"acceptable"`` or ``"unacceptable"``, ``note`` free text."""

    annotator: str
    verdict: Verdict
    note: str = ""


def majority_verdict(labels: "tuple[AnnotatorLabel, ...] | list[AnnotatorLabel]") -> Verdict | None:
    """The verdict most of ``labels`` give; None on a tie or with no labels. The per-run form of
    :func:`explorer.core.evaluation.annotators.ground_truth`'s consensus with a minimum of one
    label (what loaders store as ``Run.human_verdict`` for a run with several labels)."""
    acc = sum(1 for lab in labels if lab.verdict == "acceptable")
    unacc = len(labels) - acc
    if acc == unacc:
        return None
    return "acceptable" if acc > unacc else "unacceptable"


@dataclass(frozen=True, slots=True)
class Run:
    """One judged (or not yet judged) agent run.

    ``invocations`` has length >= 1. ``human_verdict`` is ``"acceptable"``, ``"unacceptable"``
    or ``None`` (unlabelled). ``expected_fields`` (optional, may be empty) lists per-field
    expectations of the answer. ``extra`` holds loader-specific columns (e.g. ADK's own scores as
    ``adk_tool_trajectory_avg_score``) shown beside ours but never used for scoring.
    ``labels`` (optional) holds several annotators' verdicts; a run that has them carries their
    majority as ``human_verdict`` (None on a tie), see
    :func:`majority_verdict`.
    """

    id: str
    title: str
    user_input: str
    invocations: tuple[Invocation, ...]
    human_verdict: Verdict | None = None
    human_note: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)
    expected_fields: tuple[ExpectedField, ...] = ()
    labels: tuple[AnnotatorLabel, ...] = ()


@dataclass(frozen=True, slots=True)
class CaseSet:
    """A named collection of runs, with the file it came from (``source``, may be empty).

    ``day_first`` and ``id_pattern`` configure the key-field check for this set: how numeric
    dates such as ``03/04/2026`` read, and the regex that finds booking ids. ``notes`` are lines
    the loader reports about the load (e.g. ``"2 of 10 traces have no tool spans: read as runs
    with no calls"``); the CLI prints them on stderr. ``arg_rules``: the set's per-tool and per-key
    argument rules (:class:`~explorer.core.scoring.arg_rules.ArgRules`, None = none), applied when
    its features are built. ``places``: each run's place in ``source`` (``line 7``, ``row 3``,
    ``runs[2]``), one per run, when the loader knows them (empty otherwise): an error about a run
    found after loading (the same id in two files) names it.
    """

    name: str
    description: str
    runs: tuple[Run, ...]
    source: str = ""
    day_first: bool = True
    id_pattern: str = r"\b[A-Z]{2,3}-\d{3,6}\b"
    notes: tuple[str, ...] = ()
    arg_rules: "ArgRules | None" = None
    places: Sequence[str] = ()

    def tool_names(self) -> list[str]:
        """Every tool name seen in expected or actual calls, sorted."""
        names: set[str] = set()
        for run in self.runs:
            for inv in run.invocations:
                names.update(c.name for c in inv.expected_calls)
                names.update(c.name for c in inv.actual_calls)
        return sorted(names)
