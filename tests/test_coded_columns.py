"""Issue 14: the compact columns hold exactly the values they replace.

``CodedScores`` keeps a float64 array as codes into its distinct values (by bit pattern), so
decoding gives the same bits; ``TextColumn`` keeps texts as one Arrow array and reads as the object
array it replaces. Evaluating and sweeping over features whose trajectory scores are coded gives
exactly what the float64 layout gives (law: same verdict for every run, every setting, at
thresholds on both sides of every score)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from explorer.core.evaluation.coded import CodedScores
from explorer.core.evaluation.features import build_features
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.sweep import ADK_GRID, sweep
from explorer.core.evaluation.textcolumn import TextColumn
from explorer.core.evaluation.verdicts import evaluate
from explorer.core.io.loaders.flat import load_jsonl
from explorer.core.scoring.arg_match import ARG_MODES
from explorer.core.scoring.passmark import quantise
from explorer.core.scoring.trajectory_metrics import SCORE_ROWS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import synth  # noqa: E402

fractions = st.integers(0, 12).flatmap(lambda d: st.integers(0, max(d, 1)).map(lambda k: k / max(d, 1)))


@given(st.lists(fractions, min_size=1, max_size=60), st.sampled_from([0.0, -0.0, float("nan"), 1.0]))
def test_coding_gives_back_the_same_bits(values, extra):
    arr = np.array(values + [extra], dtype=np.float64)
    coded = CodedScores.from_array(arr.reshape(1, 1, -1))
    assert isinstance(coded, CodedScores) and coded.codes.dtype == np.uint8
    assert np.array_equal(np.asarray(coded).view(np.uint64), arr.reshape(1, 1, -1).view(np.uint64))
    assert np.array_equal(coded[0, 0].view(np.uint64), arr.view(np.uint64))


def test_many_distinct_values_take_wider_codes_or_stay_float():
    rng = np.random.default_rng(0)
    wide = rng.random(1000)
    coded = CodedScores.from_array(wide.reshape(1, 1, -1))
    assert coded.codes.dtype == np.uint16 and np.array_equal(np.asarray(coded).reshape(-1), wide)
    too_many = rng.random(70_000)
    assert isinstance(CodedScores.from_array(too_many), np.ndarray)


def test_joining_parts_keeps_every_value():
    a = CodedScores.from_array(np.array([[[0.5, 0.25, 1.0]]]))
    b = CodedScores.from_array(np.array([[[1 / 3, 0.5]]]))
    joined = CodedScores.concat([a, b])
    assert np.array_equal(np.asarray(joined), np.array([[[0.5, 0.25, 1.0, 1 / 3, 0.5]]]))


@given(st.lists(fractions, min_size=1, max_size=40), fractions)
def test_reaches_is_the_passmark_comparison(values, threshold):
    arr = np.array(values, dtype=np.float64).reshape(1, 1, -1)
    coded = CodedScores.from_array(arr)
    t = quantise(threshold)
    assert np.array_equal(coded.reaches((0, 0), t), quantise(arr[0, 0]) >= t)


@given(st.lists(st.one_of(fractions, st.sampled_from([float("nan"), -0.0])), min_size=1, max_size=40), fractions,
       st.integers(1, 7))
def test_reaches_with_nan_and_negative_zero_and_any_chunk(values, threshold, chunk):
    """The codes follow the values' bit patterns, so a NaN sorts above 1.0 and -0.0 above NaN:
    the passing codes are then not one run (``lookup_bool`` looks them up one by one), and a
    chunk that does not divide the row ends part-way (``gather``)."""
    import explorer.core.evaluation.coded as coded_module

    arr = np.array(values, dtype=np.float64).reshape(1, 1, -1)
    t = quantise(threshold)
    with np.errstate(invalid="ignore"):
        want = quantise(arr[0, 0]) >= t  # NaN never passes; -0.0 passes a threshold of 0
    old = coded_module.GATHER_CHUNK
    coded_module.GATHER_CHUNK = chunk
    try:
        coded = CodedScores.from_array(arr)
        assert np.array_equal(coded.reaches((0, 0), t), want)
        assert np.array_equal(coded.row(0, 0).view(np.uint64), arr[0, 0].view(np.uint64))
    finally:
        coded_module.GATHER_CHUNK = old


@pytest.mark.parametrize("table, codes, want", [
    ([False, False, True, True], [0, 1, 2, 3, 3, 0], [False, False, True, True, True, False]),  # a top run: codes >= 2
    ([True, True, False, False], [0, 1, 2, 3], [True, True, False, False]),  # a bottom run: codes <= 1
    ([False, True, True, False], [0, 1, 2, 3], [False, True, True, False]),  # a middle run: two comparisons
    ([True, False, True, False], [0, 1, 2, 3, 2], [True, False, True, False, True]),  # not one run: looked up
    ([False, False], [0, 1, 1], [False, False, False]),
    ([True, True], [1, 0], [True, True]),
])
def test_lookup_bool_is_the_table_lookup(table, codes, want):
    from explorer.core.evaluation.coded import lookup_bool

    got = lookup_bool(np.array(table), np.array(codes, dtype=np.uint8))
    assert got.dtype == bool and got.tolist() == want


@given(st.lists(fractions, min_size=1, max_size=40), st.lists(fractions, min_size=1, max_size=8, unique=True))
def test_reach_is_the_search_over_quantised_scores(values, thresholds):
    """``reach`` (searched once per distinct value, issue 14's sweep) counts, for every run, the
    thresholds its quantised score reaches, as ``np.searchsorted(..., side="right")`` on the
    decoded row does."""
    arr = np.array(values, dtype=np.float64).reshape(1, 1, -1)
    coded = CodedScores.from_array(arr)
    t = np.array(sorted(quantise(np.array(thresholds))), dtype=np.float64)
    want = np.array([sum(1 for x in t if x <= v) for v in quantise(arr[0, 0])])  # counted one by one
    assert np.array_equal(coded.reach((0, 0), t), want)


def test_text_column_reads_as_the_object_array():
    texts = ["R1", "", "Zürich", "R4"]
    col = TextColumn.from_strings(texts)
    ref = np.array(texts, dtype=object)
    assert col[2] == "Zürich" and col[-1] == "R4" and isinstance(col[0], str)
    assert list(col[1:3]) == list(ref[1:3]) and list(col[np.array([3, 0])]) == ["R4", "R1"]
    assert list(col[np.array([True, False, True, False])]) == ["R1", "Zürich"]
    assert list(col) == texts and list(np.asarray(col)) == texts
    with pytest.raises(IndexError):
        col[4]


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """The features of 300 synthetic runs with float64 trajectory scores, and the same coded."""
    path = synth.write_jsonl(tmp_path_factory.mktemp("coded") / "runs.jsonl", 300, seed=11)
    plain = build_features(load_jsonl(str(path)))
    assert isinstance(plain.trajectory, np.ndarray)
    coded = replace(plain, trajectory=CodedScores.from_array(plain.trajectory))
    assert isinstance(coded.trajectory, CodedScores)
    return plain, coded


def test_every_family_mode_and_threshold_gives_the_same_verdicts(both):
    plain, coded = both
    for family in SCORE_ROWS:
        for args in ARG_MODES:
            scores = plain.trajectory_scores(family, args)
            # thresholds at every distinct score and just either side of it
            for t in sorted({0.0, 1.0, *np.unique(quantise(scores)).tolist()}):
                for threshold in (t, min(1.0, t + 1e-9), max(0.0, t - 1e-9)):
                    s = Settings(trajectory=family, args=args, trajectory_threshold=threshold, f1_threshold=0.5)
                    a, b = evaluate(plain, s), evaluate(coded, s)
                    assert np.array_equal(a.passed, b.passed) and np.array_equal(a.decided_by, b.decided_by), (family, args, threshold)
                    assert np.array_equal(a.trajectory_score.view(np.uint64), b.trajectory_score.view(np.uint64))


@hsettings(max_examples=30, deadline=None)
@given(st.sampled_from(["all", "mean"]), st.booleans(), st.booleans(), st.sampled_from([0.0, 0.3, 0.5, 0.8, 1.0]))
def test_combine_deny_and_key_fields_give_the_same_verdicts(both, combine, deny, key, f1):
    plain, coded = both
    s = Settings(trajectory="recall", trajectory_threshold=0.6, combine=combine, deny_check=deny,
                 deny_tools=("delete_booking",), key_fields=key, f1_threshold=f1)
    assert np.array_equal(evaluate(plain, s).outcome, evaluate(coded, s).outcome)


def test_the_sweep_is_the_same(both):
    plain, coded = both
    base = Settings(deny_tools=("delete_booking",))
    assert sweep(plain, base).equals(sweep(coded, base))
    assert sweep(plain, base, grid=ADK_GRID).equals(sweep(coded, base, grid=ADK_GRID))


def test_checks_that_are_off_take_no_memory_per_run():
    """A NaN column (no trajectory: NaN scores; combine "all": no mean) is a stride-0 view, not N
    copies (80 MB a column at 10M runs); the pass for everyone is one read-only array shared by
    evaluations (it enters ``&``, which is slow over a stride-0 operand). Both read as the full
    column: the booking set's ten runs, by hand."""
    from explorer.commands.common import BUNDLED_CASES
    from explorer.core.io.casefile import load_case_set

    features = build_features(load_case_set(BUNDLED_CASES))
    ev = evaluate(features, Settings(trajectory="none", combine="all"))
    for column in (ev.trajectory_score, ev.mean_score):
        assert column.shape == (10,) and column.strides == (0,)
        assert not column.flags.writeable
    again = evaluate(features, Settings(trajectory="none", combine="all", f1_threshold=0.5))
    assert again.trajectory_pass is ev.trajectory_pass and not ev.trajectory_pass.flags.writeable
    assert np.isnan(ev.trajectory_score).all() and np.isnan(ev.mean_score).all()
    assert ev.trajectory_pass.tolist() == [True] * 10
    # indexing and arithmetic read them as full columns
    assert np.isnan(ev.mean_score[[0, 9]]).all() and int(ev.trajectory_pass.sum()) == 10


def test_a_copy_of_the_scores_is_the_row_and_its_own(both):
    """``trajectory_scores_copy`` (what the sweep adds F1 to in place) has the bits of
    ``trajectory_scores`` for every family and argument mode, coded or not, and writing to it
    leaves the stored scores as they were."""
    for features in both:
        for family in ("exact", "in_order", "any_order", "precision", "single_tool_use"):
            for args in ARG_MODES:
                tool = "get_weather" if family == "single_tool_use" else ""
                row = features.trajectory_scores(family, args, tool)
                copy = features.trajectory_scores_copy(family, args, tool)
                assert copy.tobytes() == np.asarray(row, dtype=np.float64).tobytes() and copy.flags.writeable
                copy += 1.0
                assert features.trajectory_scores(family, args, tool).tobytes() == np.asarray(row, dtype=np.float64).tobytes()


@pytest.mark.parametrize("block_runs", [1, 7, 64])
def test_the_sweep_counted_a_block_of_runs_at_a_time_is_the_same(both, block_runs):
    # the full grid, plain and coded scores, counted in blocks smaller than the case set (and of
    # sizes that leave a short last block): the same table as one block of every run
    plain, coded = both
    assert plain.n > 64 and plain.n % 7 and plain.n % 64
    base = Settings(deny_tools=("delete_booking",))
    whole = sweep(plain, base, block_runs=plain.n)
    assert sweep(plain, base, block_runs=block_runs).equals(whole)
    assert sweep(coded, base, block_runs=block_runs).equals(whole)
    with_tool = base.with_(single_tool="search_flights")  # single tool use: a plain (N,) row in either
    assert sweep(coded, with_tool, block_runs=block_runs).equals(sweep(plain, with_tool, block_runs=plain.n))


def test_the_sweep_refuses_a_block_of_no_runs(both):
    with pytest.raises(ValueError, match="block_runs"):
        sweep(both[0], block_runs=0)


# --- score columns made when read (columns_on_read) ------------------------------------------------

from explorer.core.evaluation.columns_on_read import mean_check, mean_on_read, trajectory_on_read  # noqa: E402
from explorer.core.scoring.passmark import reaches  # noqa: E402


def test_scores_made_for_some_runs_are_the_whole_column_s(both):
    plain, coded = both
    rng = np.random.default_rng(3)
    picks = [5, np.int64(17), rng.integers(0, plain.n, 40), rng.random(plain.n) < 0.3, slice(10, 90, 7)]
    for features in (plain, coded):
        for family in ("exact", "recall", "lcs"):
            for args in ("exact", "ignore"):
                stored = plain.trajectory_scores(family, args)
                traj = trajectory_on_read(features, family, args)
                mean = mean_on_read(trajectory_on_read(features, family, args), plain.f1)
                whole_mean = (stored + plain.f1) / 2.0
                for index in picks:
                    assert np.array_equal(np.asarray(traj.at(index)).view(np.uint64), np.asarray(stored[index]).view(np.uint64))
                    assert np.array_equal(np.asarray(mean.at(index)).view(np.uint64), np.asarray(whole_mean[index]).view(np.uint64))
                assert isinstance(traj.at(5), float)  # one run: a number, as indexing the column gives
                assert np.array_equal(traj.whole().view(np.uint64), stored.view(np.uint64))
                assert np.array_equal(mean.whole().view(np.uint64), whole_mean.view(np.uint64))
                assert np.array_equal(mean.at(slice(0, 50)), whole_mean[:50])  # from the kept column now


@pytest.mark.parametrize("block_runs", [1, 7, 1 << 16])
def test_the_mean_check_a_block_at_a_time_is_passmark_s(both, block_runs):
    plain, coded = both
    for features in (plain, coded):
        traj = trajectory_on_read(features, "recall", "exact")
        whole = (plain.trajectory_scores("recall", "exact") + plain.f1) / 2.0
        for t in sorted({0.0, 0.5, 1.0, *np.unique(quantise(whole)).tolist()[::5]}):
            check = mean_check(traj, plain.f1, t)
            blocks = np.concatenate([check(lo, min(plain.n, lo + block_runs)) for lo in range(0, plain.n, block_runs)])
            assert np.array_equal(blocks, reaches(whole, t)), (t, block_runs)


def test_an_evaluation_s_scores_read_per_run_or_whole_agree(both):
    plain, coded = both
    for combine in ("all", "mean"):
        s = Settings(trajectory="recall", trajectory_threshold=0.6, combine=combine, f1_threshold=0.5)
        a, b = evaluate(plain, s), evaluate(coded, s)
        assert np.array_equal(a.passed, b.passed)
        for ev in (a, b):
            assert np.array_equal(ev.trajectory_score_at(np.arange(plain.n)), a.trajectory_score)
            assert np.array_equal(ev.mean_score_at(np.arange(plain.n)), a.mean_score, equal_nan=True)
        assert np.isnan(a.mean_score).all() == (combine == "all")
        # the passes (made when read under the mean rule): the definitions, per run or whole
        want_traj = quantise(plain.trajectory_scores("recall", "exact")) >= 0.6
        want_f1 = (quantise(plain.f1) >= 0.5) & ~plain.empty_answer
        for ev in (evaluate(plain, s), evaluate(coded, s)):  # fresh: nothing read yet
            some = np.array([3, 0, plain.n - 1, 3])
            assert np.array_equal(ev.trajectory_pass_at(some), want_traj[some])
            assert np.array_equal(ev.f1_pass_at(some), want_f1[some])
            assert bool(ev.trajectory_pass_at(7)) == want_traj[7] and bool(ev.f1_pass_at(7)) == want_f1[7]
            assert np.array_equal(ev.trajectory_pass, want_traj) and np.array_equal(ev.f1_pass, want_f1)


def test_the_sweep_counted_by_two_threads_is_the_same(both, monkeypatch):
    # rows counted side by side (what a case set of a million runs or more gets), in blocks of 7
    import explorer.core.evaluation.sweep as sweep_module

    plain, coded = both
    base = Settings(deny_tools=("delete_booking",))
    one_thread = sweep(coded, base, block_runs=7)
    monkeypatch.setattr(sweep_module, "THREADS_FROM_RUNS", 0)
    monkeypatch.setattr(sweep_module.os, "cpu_count", lambda: 2)
    assert sweep(coded, base, block_runs=7).equals(one_thread)
    assert sweep(plain, base, grid=ADK_GRID, block_runs=7).equals(sweep(plain, base, grid=ADK_GRID))
