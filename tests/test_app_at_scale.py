"""The app's paths for big sets (issue 6): the counting trade-off sweep, the windowed table, the
capped id lists and the background load behind the serve progress page."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from explorer.app.loading import BackgroundLoad
from explorer.app.shared import load_shared
from explorer.app.tradeoff import THRESHOLDS, sweep
from explorer.app.views.metrics import MAX_IDS, _ids
from explorer.app.views.table import PAGE_SIZE, TableView
from explorer.core.io.errors import LoadError
from explorer.core.evaluation.verdicts import evaluate
from explorer.core.evaluation.features import features_from_rows
from explorer.core.evaluation.settings import Settings
from explorer.core.scoring.trajectory_metrics import N_SCORES
from explorer.commands.common import BUNDLED_CASES


def random_features(seed: int, n: int):
    """Random feature columns over ``n`` runs; F1 values often exactly on a threshold."""
    rng = np.random.default_rng(seed)
    traj = rng.integers(0, 2, size=(n, N_SCORES)).astype(np.float64)
    f1 = np.where(rng.random(n) < 0.5, np.round(rng.random(n), 2), rng.random(n))
    tools = rng.random((n, 3)) < 0.3
    key_reason = np.array(["" if ok else "date differs" for ok in rng.random(n) < 0.7], dtype=object)
    human = rng.integers(-1, 2, size=n).astype(np.int8)
    return features_from_rows([None] * n, [f"r{i}" for i in range(n)], traj, f1, (("a", "b", "delete_booking"), tools),
                              key_reason, human, np.ones(n, dtype=np.int32))


@hsettings(max_examples=25, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10_000), n=st.integers(1, 60),
    trajectory=st.sampled_from(["exact", "in_order", "any_order", "none"]), compare_args=st.booleans(),
    combine=st.sampled_from(["all", "mean"]), deny=st.booleans(), key=st.booleans(),
)
def test_trade_off_counts_equal_an_evaluation_at_every_threshold(seed, n, trajectory, compare_args, combine, deny, key):
    features = random_features(seed, n)
    s = Settings(trajectory=trajectory, compare_args=compare_args, combine=combine, deny_check=deny,
                 deny_tools=("delete_booking",), key_fields=key)
    got = sweep(features, s)
    acceptable, unacceptable = features.human == 1, features.human == 0
    for j, tau in enumerate(THRESHOLDS):
        passed = evaluate(features, s.with_(f1_threshold=float(tau))).passed
        assert got.false_pass[j] == np.count_nonzero(passed & unacceptable)
        assert got.false_fail[j] == np.count_nonzero(~passed & acceptable)
        assert got.agree[j] == got.labelled - got.false_pass[j] - got.false_fail[j]
    assert got.labelled == np.count_nonzero(features.human >= 0)


@pytest.fixture(scope="module")
def bundled():
    return load_shared(BUNDLED_CASES)


def test_windowed_table_builds_the_chosen_page_only(bundled):
    features = bundled.features
    ev = evaluate(features, bundled.defaults)
    view = TableView(n_runs=100_000)  # a big set: own page buttons, one page of rows
    assert view.windowed
    view.show(features, ev, 10)
    assert view.ids == [f"E{i}" for i in range(1, 11)]
    assert len(view.table.value) == 10 <= PAGE_SIZE
    assert "Runs 1-10 of 10 revealed, page 1 of 1" in view.page_info.object
    view.show(features, ev, 0)
    assert view.ids == [] and len(view.table.value) == 0
    assert "No runs revealed yet" in view.page_info.object


def test_small_sets_keep_the_whole_table(bundled):
    features = bundled.features
    view = TableView(n_runs=features.n)
    assert not view.windowed
    view.show(features, evaluate(features, bundled.defaults), 4)
    assert view.ids == ["E1", "E2", "E3", "E4"]


def test_id_lists_are_capped_with_a_count():
    ids = [f"r{i}" for i in range(MAX_IDS + 12)]
    text = _ids(ids)
    assert text.startswith("r0, r1, ") and text.endswith(f"r{MAX_IDS - 1} (+12 more)")
    assert _ids(["E1", "E2"]) == "E1, E2" and _ids([]) == "none"
    assert _ids(["<b>"]) == "&lt;b&gt;"


def test_an_id_list_one_past_its_cap_names_the_last_id():
    """"(+1 more)" is no shorter than the id it hides (the CLI names it: plural.listed); a trial
    saw "... r19 (+1 more)" in the headline."""
    ids = [f"r{i}" for i in range(MAX_IDS + 1)]
    assert _ids(ids) == ", ".join(ids)
    assert _ids(ids + ["r99"]) == ", ".join(ids[:MAX_IDS]) + " (+2 more)"
    assert _ids(ids, total=MAX_IDS + 5) == ", ".join(ids[:MAX_IDS]) + " (+5 more)"  # ids: the first ones only


def test_background_load_reports_progress_and_its_result():
    gate = threading.Event()

    def load(progress):
        progress(50, 200)
        gate.wait(5)
        progress(200, 200)
        return "loaded"

    job = BackgroundLoad(load, "big.jsonl", on_error=pytest.fail).start()
    for _ in range(100):
        if job.total:
            break
        threading.Event().wait(0.01)
    assert job.percent() == 25 and job.status() == "Loading big.jsonl: 0 of 0 MB (25%)"
    gate.set()
    job.join(5)
    assert job.result == "loaded" and job.percent() == 100


def test_background_load_error_is_one_line():
    errors = []

    def load(progress):
        raise LoadError("big.jsonl", "line 7, answer", "expected a string, got a number")

    job = BackgroundLoad(load, "big.jsonl", on_error=errors.append).start()
    job.join(5)
    assert errors == ["big.jsonl: line 7, answer: expected a string, got a number"]
    assert job.result is None and job.status().startswith("Loading failed: big.jsonl: line 7")


def test_load_error_survives_pickling():
    import pickle

    err = pickle.loads(pickle.dumps(LoadError("big.jsonl", "line 3, answer", "expected a string, got a number")))
    assert isinstance(err, LoadError) and (err.file, err.location, err.problem) == ("big.jsonl", "line 3, answer", "expected a string, got a number")
    assert str(err) == "big.jsonl: line 3, answer: expected a string, got a number"


def test_a_bad_line_read_by_a_worker_process_is_named(tmp_path, monkeypatch):
    """The parallel loader's workers raise LoadError in another process; it reaches the caller
    (it used to arrive as BrokenProcessPool, so ``serve`` could not name the line)."""
    from explorer.core.io import bigload

    good = '{"id": "r%d", "expected_calls": [], "actual_calls": [], "answer": "ok", "reference": "ok"}\n'
    path = tmp_path / "big.jsonl"
    path.write_text("".join(good % i for i in range(1, 40)) + '{"id": "r40", "answer": 5}\n' + good % 41)
    monkeypatch.setattr(bigload, "PARALLEL_MIN_BYTES", 0)  # a small file through the worker processes
    monkeypatch.setattr(bigload, "CHUNK_BYTES", 512)
    with pytest.raises(LoadError) as info:
        bigload.load_jsonl_features(path, workers=2)
    assert str(info.value) == f'{path}: line 40: missing "expected_calls"'


def test_the_load_report_names_one_id_past_its_three():
    from explorer.app.views.upload import _some

    assert _some(["a", "b", "c", "d"]) == "a, b, c, d"
    assert _some(["a", "b", "c", "d", "e"]) == "a, b, c (+2 more)"
