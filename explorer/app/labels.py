"""A session's own human labels: the person's verdicts as changed in this browser session.

The features are shared read-only by every session; labels made in the app (labelling in the
table, decisions in the cascade's review queue) live here, per session, and are applied with
:meth:`explorer.core.evaluation.features.Features.with_human` (a copy of one int8 array, never of the table).
A failed file load never touches this object, so labels made in the app are not lost.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import param

from ..core.evaluation.features import HUMAN_CODES, Features

Label = Literal["acceptable", "unacceptable"] | None


class SessionLabels(param.Parameterized):
    """The person's verdict per run for one session.

    ``human``: int8 (N,), 1 acceptable, 0 unacceptable, -1 unlabelled (starts as the file's
    labels); ``notes``: run id -> note typed in this session; ``version`` increases on every change
    so views can ``param.depends`` on it.
    """

    human = param.Array(default=np.zeros(0, dtype=np.int8), doc="int8 (N,) verdict codes")
    notes = param.Dict(default={}, doc="run id -> note made in this session")
    version = param.Integer(default=0, doc="bumped on every change")

    @classmethod
    def from_features(cls, features: Features) -> "SessionLabels":
        """Start from the labels in the loaded file."""
        return cls(human=features.human.copy())

    def set(self, index: int, verdict: Label, note: str | None = None) -> None:
        """Label run ``index`` (0-based) ``acceptable`` / ``unacceptable``, or clear it with None.
        Raises IndexError for a run out of range and ValueError for another verdict."""
        if verdict not in HUMAN_CODES:
            raise ValueError(f"verdict must be 'acceptable', 'unacceptable' or None, got {verdict!r}")
        if not 0 <= index < self.human.size:
            raise IndexError(f"run index {index} out of range 0..{self.human.size - 1}")
        human = self.human.copy()  # a new array, so watchers of ``human`` fire too
        human[index] = HUMAN_CODES[verdict]
        if note is not None:
            self.notes = {**self.notes, str(index): note}
        self.human = human
        self.version += 1

    def apply_to(self, features: Features) -> Features:
        """``features`` with this session's labels (shares every other array)."""
        return features.with_human(self.human)

    def counts(self) -> dict[str, int]:
        """``{"acceptable": a, "unacceptable": u, "unlabelled": n}``."""
        return {
            "acceptable": int(np.count_nonzero(self.human == 1)),
            "unacceptable": int(np.count_nonzero(self.human == 0)),
            "unlabelled": int(np.count_nonzero(self.human < 0)),
        }
