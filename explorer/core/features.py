"""Per-run features, computed once when a case set loads, as numpy arrays.

Every later settings change is array work over these (see :mod:`explorer.core.evaluation`);
nothing here depends on the settings a person changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from .fields import key_fields_reason_best
from .model import CaseSet, Run
from .overlap import best_f1
from .trajectory import MATCH_MODES, invocation_matches

HUMAN_CODES = {"acceptable": 1, "unacceptable": 0, None: -1}
"""Person's verdict as int8: 1 acceptable, 0 unacceptable, -1 unlabelled."""


@dataclass(frozen=True, eq=False)
class Features:
    """Columns over N runs (index i is ``runs[i]``).

    * ``trajectory``: float64 (3, 2, N): run trajectory score (mean of per-invocation 1/0) for
      mode ``MATCH_MODES[m]`` (exact, in_order, any_order) and ``compare_args`` index a (0 = ignore
      args, 1 = compare args);
    * ``f1``: float64 (N,): mean over invocations of the best unigram F1 over references, in [0, 1];
    * ``tool_names``: the T tool names seen in actual calls, sorted;
    * ``tools_called``: bool (N, T): run i made at least one call to ``tool_names[t]``;
    * ``key_ok``: bool (N,): every invocation's dates and booking ids agree with a reference;
    * ``key_reason``: object (N,): why not, ``""`` when ``key_ok``;
    * ``human``: int8 (N,): 1 acceptable, 0 unacceptable, -1 unlabelled;
    * ``n_invocations``: int32 (N,).
    """

    runs: tuple[Run, ...]
    run_ids: np.ndarray
    trajectory: np.ndarray
    f1: np.ndarray
    tool_names: tuple[str, ...]
    tools_called: np.ndarray
    key_ok: np.ndarray
    key_reason: np.ndarray
    human: np.ndarray
    n_invocations: np.ndarray

    @property
    def n(self) -> int:
        """Number of runs N."""
        return len(self.runs)

    def with_human(self, human: np.ndarray) -> "Features":
        """A copy sharing every array but ``human`` (int8 (N,), values in {-1, 0, 1})."""
        human = np.asarray(human, dtype=np.int8)
        if human.shape != (self.n,):
            raise ValueError(f"human must have shape ({self.n},), got {human.shape}")
        return replace(self, human=human)

    def tool_mask(self, tools: Sequence[str]) -> np.ndarray:
        """bool (N,): run called at least one of ``tools`` (unknown names are ignored)."""
        idx = [self.tool_names.index(t) for t in tools if t in self.tool_names]
        if not idx:
            return np.zeros(self.n, dtype=bool)
        return self.tools_called[:, idx].any(axis=1)


def build_features(case_set: CaseSet) -> Features:
    """Compute every per-run feature of ``case_set`` once (one pass over the runs).

    Cost: O(total calls² per invocation + answer tokens); the only Python loop over runs in the
    product. Key fields use the set's ``day_first`` and ``id_pattern``.
    """
    runs = case_set.runs
    n = len(runs)
    id_rx = re.compile(case_set.id_pattern)
    tool_names = tuple(sorted({c.name for r in runs for inv in r.invocations for c in inv.actual_calls}))
    tool_index = {t: k for k, t in enumerate(tool_names)}
    trajectory = np.zeros((len(MATCH_MODES), 2, n), dtype=np.float64)
    f1 = np.zeros(n, dtype=np.float64)
    tools_called = np.zeros((n, len(tool_names)), dtype=bool)
    key_reason = np.empty(n, dtype=object)
    human = np.empty(n, dtype=np.int8)
    n_inv = np.empty(n, dtype=np.int32)
    for i, run in enumerate(runs):
        invs = run.invocations
        k = len(invs)
        n_inv[i] = k
        for m, mode in enumerate(MATCH_MODES):
            for a in (0, 1):
                trajectory[m, a, i] = sum(invocation_matches(inv, mode, bool(a)) for inv in invs) / k
        f1[i] = sum(best_f1(inv.answer, inv.references) for inv in invs) / k
        for inv in invs:
            for call in inv.actual_calls:
                tools_called[i, tool_index[call.name]] = True
        reason = ""
        for j, inv in enumerate(invs, start=1):
            why = key_fields_reason_best(inv.answer, inv.references, case_set.day_first, id_rx)
            if why:
                reason = f"invocation {j}: {why}" if k > 1 else why
                break
        key_reason[i] = reason
        human[i] = HUMAN_CODES[run.human_verdict]
    return Features(
        runs=runs,
        run_ids=np.array([r.id for r in runs], dtype=object),
        trajectory=trajectory,
        f1=f1,
        tool_names=tool_names,
        tools_called=tools_called,
        key_ok=np.array([r == "" for r in key_reason], dtype=bool),
        key_reason=key_reason,
        human=human,
        n_invocations=n_inv,
    )
