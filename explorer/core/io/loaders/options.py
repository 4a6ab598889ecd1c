"""How a trace or log file becomes runs: the choices the user can make (issue 13).

Only the trace and log formats read these (OTLP traces, Inspect logs); the other formats ignore
them. The CLI sets them with ``--run-unit``, ``--join-key``, ``--verdict-attribute`` and
``--verdict-score``; see ``docs/formats.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

RUN_UNITS = ("trace", "agent-span")
"""What one OTLP run is: a whole trace (default) or each outermost agent span."""


@dataclass(frozen=True)
class ReadOptions:
    """Choices for reading traces and logs.

    * ``run_unit``: ``"trace"`` (default: one trace = one run, id = the trace id) or
      ``"agent-span"`` (one run per agent span with no agent span above it, id = its span id);
    * ``join_key``: a span attribute (e.g. ``dataset.example.id``) whose value names the dataset
      example a run is of; stored as ``Run.extra["example_id"]`` and used to join expectations
      (None: expectations join by run id only);
    * ``verdict_attribute``: a span or span-event attribute holding the person's verdict
      (``acceptable`` / ``unacceptable``, or a boolean), the latest one in the run wins;
    * ``verdict_score``: the Inspect score whose value is the person's verdict (e.g. a manual
      scorer's name): ``C`` / 1 / true acceptable, ``I`` / ``N`` / 0 / false unacceptable.

    Raises ValueError for an unknown ``run_unit``.
    """

    run_unit: str = "trace"
    join_key: str | None = None
    verdict_attribute: str | None = None
    verdict_score: str | None = None

    def __post_init__(self) -> None:
        if self.run_unit not in RUN_UNITS:
            raise ValueError(f"run unit must be one of {', '.join(RUN_UNITS)}, got {self.run_unit!r}")


DEFAULT_OPTIONS = ReadOptions()
