"""``serve --num-procs``: a big JSONL file loading in the background is served by one process (the
load runs in a thread of the serving process; workers forked while it runs would never see it).
It did so silently when ``--num-procs N`` (N > 1) was typed; :func:`worker_procs` now gives a note
for that case. ``--num-procs`` defaults to None so a typed value, even the default's, counts."""

from __future__ import annotations

import pytest

from explorer.cli import build_parser, main
from explorer.commands.serve import DEFAULT_PROCS, worker_procs

NOTE_4 = ("note: --num-procs 4 not used: 'big.jsonl' loads in the background in this process, so one "
          "process serves it (workers forked now would never see the load)")


def test_explicit_num_procs_with_a_background_load_gets_the_note():
    assert worker_procs(4, "big.jsonl") == (1, NOTE_4)
    assert worker_procs(2, "big.jsonl") == (1, NOTE_4.replace("--num-procs 4", "--num-procs 2"))


@pytest.mark.parametrize("num_procs", [None, 1])
def test_no_note_when_the_value_is_not_overridden(num_procs):
    # not given (the default is not the user's choice), or one process asked for: served by one, no note
    assert worker_procs(num_procs, "big.jsonl") == (1, None)


def test_a_set_loaded_before_serving_uses_the_value_given_or_the_default():
    assert worker_procs(None, None) == (DEFAULT_PROCS, None)
    assert DEFAULT_PROCS in (1, 2)  # one per core, at most two
    assert worker_procs(3, None) == (3, None)
    assert worker_procs(1, None) == (1, None)


def test_num_procs_defaults_to_none_and_a_typed_default_counts():
    parser = build_parser()
    assert parser.parse_args(["serve"]).num_procs is None
    assert parser.parse_args(["serve", "--num-procs", str(DEFAULT_PROCS)]).num_procs == DEFAULT_PROCS


def test_num_procs_below_one_is_still_an_error(capsys):
    assert main(["serve", "--num-procs", "0", "--port", "5998"]) == 2
    assert capsys.readouterr().err == "metric-explorer: error: --num-procs must be at least 1, got 0\n"
