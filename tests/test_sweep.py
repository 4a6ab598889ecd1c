"""Settings sweep: the grid, its order and ties, equality with `evaluate`, the bundled set's 10/10,
and `metric-explorer sweep`. Issue 4's grid is `ADK_GRID` (6,464 settings); issue 12's
`FULL_GRID` adds every trajectory family, argument mode and trajectory threshold (159,176)."""

import json
import random

import numpy as np
import pytest

from explorer.cli import main
from explorer.commands.common import load_cases
from explorer.core.evaluation.verdicts import evaluate
from explorer.core.evaluation.features import build_features
from explorer.core.io.model import CaseSet, Invocation, Run, ToolCall
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.sweep import (
    ADK_GRID, FULL_GRID, SETTING_COLUMNS, THRESHOLDS, TRAJECTORY_THRESHOLDS, SweepGrid, best, n_settings, row_settings,
    sweep, sweep_plain,
)

DENY = Settings(deny_tools=("delete_booking",))


@pytest.fixture(scope="module")
def bundled():
    return build_features(load_cases(None))


def _key(table):
    return table.sort_values(list(SETTING_COLUMNS)).reset_index(drop=True)


def test_grid_is_complete(bundled):
    table = sweep(bundled, DENY, grid=ADK_GRID)
    assert len(table) == 4 * 2 * 2 * 2 * 2 * 101 == 6464 == n_settings(grid=ADK_GRID)
    assert not table.duplicated(list(SETTING_COLUMNS)).any()
    assert THRESHOLDS[0] == 0.0 and THRESHOLDS[41] == 0.41 and THRESHOLDS[-1] == 1.0 and len(THRESHOLDS) == 101
    assert (table["labelled"] == 10).all()
    assert (table["agree"] + table["false_pass"] + table["false_fail"] == 10).all()


def test_bundled_finds_ten_of_ten(bundled):
    # Seed 002: ANY_ORDER + deny-list (delete_booking) + key fields fail every bad run (E4 misses
    # confirm_booking, E5 wrong date, E6 denied tool, E9/E10 missing calls); the good runs then
    # pass iff the threshold is <= the lowest good F1, E7's heavy paraphrase 16/39 = 0.4103, so
    # thresholds 0.00..0.41. IN_ORDER fails E3 (reordered profile read), EXACT more, none passes E4,
    # and compare-args changes nothing here.
    table = sweep(bundled, DENY, grid=ADK_GRID)
    top = best(table)
    assert (top[["agree", "false_pass", "false_fail"]].to_numpy() == [10, 0, 0]).all()
    got = {(r.trajectory, r.compare_args, r.combine, r.deny_check, r.key_fields, r.f1_threshold) for r in top.itertuples()}
    want = {("any_order", a, "all", True, True, k / 100) for a in (False, True) for k in range(42)}
    assert got == want
    assert table.iloc[len(top)]["agree"] < 10


def test_bundled_rows_from_the_seed(bundled):
    for grid in (ADK_GRID, FULL_GRID):
        table = sweep(bundled, DENY, grid=grid).set_index(list(SETTING_COLUMNS)).sort_index()
        # the opening run: 4/10, false pass E5, five false fails
        row = table.loc[("exact", "exact", "all", False, False, 1.0, 0.8)]
        assert (row["agree"], row["false_pass"], row["false_fail"]) == (4, 1, 5)
        # ANY_ORDER + deny + key fields at 0.8: 8/10, E1 and E7 fail on F1
        row = table.loc[("any_order", "exact", "all", True, True, 1.0, 0.8)]
        assert (row["agree"], row["false_pass"], row["false_fail"]) == (8, 0, 2)
        # mean >= 0.75 ignores the F1 threshold: 5/10 at every threshold with EXACT
        rows = table.xs(("exact", "exact", "mean", False, False, 1.0), level=[0, 1, 2, 3, 4, 5])
        assert len(rows) == 101 and (rows["agree"] == 5).all()


def test_order_and_ties(bundled):
    table = sweep(bundled, DENY, grid=ADK_GRID)
    key = list(zip(-table["agree"], table["false_pass"], table["false_fail"]))
    assert key == sorted(key)
    # rank: 1 + number of rows strictly better; equal keys share a rank
    for i in (0, 83, 84, 500, 3000, 6463):
        better = sum(k < key[i] for k in key)
        assert table.iloc[i]["rank"] == better + 1
    # within a tie, grid order: any_order args off before args on, thresholds ascending
    top = best(table)
    assert list(top["compare_args"][:42]) == [False] * 42 and list(top["f1_threshold"][:42]) == [k / 100 for k in range(42)]


def test_equals_evaluate_for_every_setting_bundled(bundled):
    assert _key(sweep(bundled, DENY, grid=ADK_GRID)).drop(columns="rank").equals(_key(sweep_plain(bundled, DENY, grid=ADK_GRID)))


def _random_case_set(seed: int, n: int) -> CaseSet:
    rng = random.Random(seed)
    tools = ["a", "b", "c", "d"]

    def calls():
        return tuple(ToolCall(rng.choice(tools), {"x": rng.randint(0, 1)}) for _ in range(rng.randint(0, 3)))

    words = "one two three four five six".split()
    runs = []
    for i in range(n):
        invs = tuple(
            Invocation(calls(), calls(), " ".join(rng.choices(words, k=rng.randint(0, 6))), (" ".join(rng.choices(words, k=rng.randint(1, 6))),))
            for _ in range(rng.randint(1, 3))
        )
        runs.append(Run(f"r{i}", "", "", invs, rng.choice(["acceptable", "unacceptable", None])))
    return CaseSet("random", "", tuple(runs))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_equals_evaluate_for_every_setting_random(seed):
    features = build_features(_random_case_set(seed, 60))
    base = Settings(deny_tools=("b",), mean_threshold=0.5)
    assert _key(sweep(features, base, grid=ADK_GRID)).drop(columns="rank").equals(
        _key(sweep_plain(features, base, grid=ADK_GRID)))


def test_every_class_of_run_counts_in_its_gates():
    """The sweep counts each run once per (family, args) row in one of five classes (deny-list
    passed/failed x key fields passed/failed, or never counted) and sums classes per gate (issue
    14). A set with runs of every class - a denied tool called, a changed booking id in the answer
    (key fields fail), both, neither, a turn never run, unlabelled runs - must give what
    ``evaluate`` gives for every setting of a grid with a partial-score family (trajectory
    thresholds) and a match family, under both argument modes."""
    rng = random.Random(11)
    runs = []
    for i in range(80):
        calls = tuple(ToolCall(rng.choice(["search", "book", "delete_booking"]), {"x": rng.randint(0, 1)})
                      for _ in range(rng.randint(0, 3)))
        expected = tuple(ToolCall(rng.choice(["search", "book"]), {"x": rng.randint(0, 1)}) for _ in range(rng.randint(1, 3)))
        reference = "Booked AB-1234 for you"
        answer = rng.choice(["Booked AB-1234 for you", "Booked AB-9999 for you", "booked for you", ""])
        if rng.random() < 0.1:
            calls, answer = (), ""  # a turn the agent never ran
        runs.append(Run(f"r{i}", "", "", (Invocation(expected, calls, answer, (reference,)),),
                        rng.choice(["acceptable", "unacceptable", "acceptable", None])))
    features = build_features(CaseSet("classes", "", tuple(runs)))
    assert not features.key_ok.all() and features.tool_mask(["delete_booking"]).any() and not features.has_output.all()
    base = Settings(deny_tools=("delete_booking",), mean_threshold=0.6)
    grid = SweepGrid(families=("recall", "in_order", "none"), arg_modes=("exact", "ignore"), arg_free_modes=("exact",),
                     trajectory_thresholds=(0.0, 0.25, 0.5, 0.75, 1.0))
    assert _key(sweep(features, base, grid=grid)).drop(columns="rank").equals(_key(sweep_plain(features, base, grid=grid)))


def test_row_settings_reproduce_the_row(bundled):
    table = sweep(bundled, DENY)
    for i in (0, 100, 4000, 50_000, 120_000, len(table) - 1):
        row = table.iloc[i]
        s = row_settings(row, DENY)
        assert evaluate(bundled, s).summary.agree == row["agree"]


def test_unlabelled_runs_are_left_out():
    features = build_features(_random_case_set(7, 40))
    human = np.full(features.n, -1, dtype=np.int8)
    human[:3] = [1, 0, 1]
    table = sweep(features.with_human(human), grid=ADK_GRID)
    assert (table["labelled"] == 3).all()


def test_bad_thresholds(bundled):
    with pytest.raises(ValueError):
        sweep(bundled, thresholds=[0.5, 0.4])
    with pytest.raises(ValueError):
        sweep(bundled, thresholds=[])


def test_cli_json_lists_every_setting_best_first(capsys):
    assert main(["sweep", "--deny", "delete_booking", "--format", "json", "--grid", "adk"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_settings"] == 6464 and len(out["settings"]) == 6464
    assert out["best"] == {"agree": 10, "false_pass": 0, "false_fail": 0, "n_settings": 84}
    first = out["settings"][0]
    assert set(first) >= {"trajectory", "compare_args", "combine", "deny_check", "key_fields", "f1_threshold",
                          "agree", "false_pass", "false_fail", "rank"}
    agrees = [s["agree"] for s in out["settings"]]
    assert agrees == sorted(agrees, reverse=True)


def test_cli_table_names_the_best_settings(capsys):
    assert main(["sweep", "--deny", "delete_booking", "--top", "3", "--grid", "adk"]) == 0
    out = capsys.readouterr().out
    assert "best: agreement 10/10, 0 false passes, 0 false fails, reached by 84 settings" in out
    assert "trajectory any_order, combine all, deny-list on, key fields on, F1 threshold 0.00-0.41" in out


def _best_lines(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("best: agreement"))
    end = next(i for i, line in enumerate(lines) if line.startswith("best agreement"))
    return lines[start + 1:end]


def test_cli_top_caps_the_lines_of_settings_tied_with_the_best(tmp_path, capsys):
    # a trial: two runs every setting but the strictest gets right printed ~790 lines under "best:",
    # with --top 2 as without it
    rows = [{"id": "a", "expected_calls": [{"name": "x", "args": {}}], "actual_calls": [{"name": "x", "args": {}}],
             "answer": "hi", "reference": "hi", "human_verdict": "acceptable"},
            {"id": "b", "expected_calls": [{"name": "x", "args": {}}], "actual_calls": [],
             "answer": "no", "reference": "hi", "human_verdict": "unacceptable"}]
    path = tmp_path / "two.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["sweep", "--cases", str(path), "--top", "all"]) == 0
    every = _best_lines(capsys.readouterr().out)
    assert len(every) > 50 and all(line.startswith("  trajectory ") for line in every)
    assert main(["sweep", "--cases", str(path), "--top", "2"]) == 0
    assert _best_lines(capsys.readouterr().out) == every[:2] + [
        f"  and {len(every) - 2:,} more lines of tied settings (--top all lists them; --format csv lists every setting)"]
    assert main(["sweep", "--cases", str(path)]) == 0  # without --top: 50 lines
    assert _best_lines(capsys.readouterr().out) == every[:50] + [
        f"  and {len(every) - 50:,} more lines of tied settings (--top all lists them; --format csv lists every setting)"]


def test_cli_without_deny_lists_no_deny_list_on_setting(capsys):
    # a newcomer trial: `sweep --grid adk` without --deny listed every setting twice, deny-list on
    # and off, though with no tool denied the deny-list passes every run
    assert main(["sweep", "--format", "json", "--grid", "adk"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_settings"] == 4 * 2 * 2 * 1 * 2 * 101 == 3232  # modes x args x combine x deny off x key x F1
    assert {s["deny_check"] for s in out["settings"]} == {False} and out["deny_checks"] == [False]
    # E6 calls delete_booking and is unacceptable: unless denied, the best passes it (9/10), as
    # 84 settings (the 168 of the deny-list-on listing, halved)
    assert out["best"] == {"agree": 9, "false_pass": 1, "false_fail": 0, "n_settings": 84}
    assert main(["sweep", "--grid", "adk", "--top", "1"]) == 0
    text = capsys.readouterr().out
    assert "3,232 settings scored; deny-list off only (no tool to deny: give --deny TOOL to sweep the deny-list on as well)" in text
    assert "deny-list on," not in text  # no best group with the deny-list on


def test_cli_with_only_a_tool_no_run_calls_sweeps_the_deny_list_off_only(capsys):
    # --deny delete_bookin (misspelt): no run calls it, so the deny-list passes every run and each
    # "on" setting repeated its "off" one, as with no --deny; the page cannot choose such a tool
    assert main(["sweep", "--format", "json", "--grid", "adk", "--deny", "delete_bookin"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_settings"] == 3232 and out["deny_checks"] == [False] and out["deny_tools"] == ["delete_bookin"]
    assert main(["sweep", "--grid", "adk", "--top", "1", "--deny", "delete_bookin"]) == 0
    assert ("3,232 settings scored; deny-list off only (no run calls delete_bookin: give --deny a tool the runs call "
            "to sweep the deny-list on as well)") in capsys.readouterr().out


def test_cli_csv_top(capsys):
    assert main(["sweep", "--format", "csv", "--top", "5"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 6 and lines[0].startswith("rank,trajectory")


def test_cli_bad_file_exits_2(tmp_path, capsys):
    bad = tmp_path / "cases.json"
    bad.write_text("{not json")
    assert main(["sweep", "--cases", str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "line 1" in err


def test_heatmap_frame(bundled):
    from explorer.core.evaluation.sweep import heatmap_frame

    grid = heatmap_frame(sweep(bundled, DENY, grid=ADK_GRID), combine="all", deny_check=True, key_fields=True)
    assert grid.shape == (8, 101)  # 4 modes x 2 args, 101 thresholds
    assert list(grid.index.get_level_values("trajectory")[::2]) == ["exact", "in_order", "any_order", "none"]
    # any_order reaches 10/10 up to E7's F1 0.41; at 0.42 E7 fails (9/10)
    # (rows: trajectory, args, trajectory threshold)
    assert grid.loc[("any_order", "exact", 1.0), 0.41] == 10 and grid.loc[("any_order", "exact", 1.0), 0.42] == 9


def test_sweep_scores_f1_whatever_response_scorer_the_base_names(bundled):
    base = DENY.with_(response_scorer="exact")
    table = sweep(bundled, base)
    assert best(table)["agree"].iloc[0] == 10
    row = table.iloc[0]
    assert row_settings(row, base).response_scorer == "f1"
    assert evaluate(bundled, row_settings(row, base)).summary.agree == row["agree"]


def test_counts_of_settings_are_written_with_thousands_separators(capsys):
    # the trial's finding: "47985 of 159176 settings" beside "1,848" and "46,137" in the same output
    import re

    from explorer.cli import main

    assert main(["sweep", "--deny", "delete_booking"]) == 0
    out = capsys.readouterr().out
    assert "reached by 1,848 settings:" in out  # the full grid's ties at 10/10 (README)
    assert re.search(r"; [\d,]+ of 159,176 settings have an agreement within that interval", out)
    assert not re.search(r"(?<![\d.,])\d{4,}", out.split("\n\n")[0])  # the header: no count of 1,000 or more unseparated


def test_sweep_of_deny_list_off_alone_is_the_full_sweep_without_its_on_rows(bundled):
    from explorer.core.evaluation.sweep import n_settings

    both = sweep(bundled, grid=ADK_GRID)
    off = sweep(bundled, grid=ADK_GRID, deny_checks=(False,))
    assert len(off) == n_settings(grid=ADK_GRID, deny_checks=(False,)) == 6464 // 2
    cols = list(SETTING_COLUMNS) + ["agree", "false_pass", "false_fail"]
    key = lambda t: sorted(map(tuple, t[cols].astype(str).values.tolist()))
    assert key(off) == key(both[~both["deny_check"]])
    # ranks are positions in the shorter list: the best 84 tie at 1, the next group starts at 85
    assert (off["rank"] == 1).sum() == 84 and off["rank"][off["rank"] > 1].min() == 85


# --- the table output: one row per distinct result -------------------------------------------


def _tie_table():
    """A hand-made sweep table, best first: 3 settings at 9/10 (two F1 runs of one setting and
    another setting), then 1 at 8/10 with a false pass, then 2 at 8/10 with a false fail."""
    rows = [
        (1, "any_order", "ignore", 0.00, 9, 1, 0), (1, "any_order", "ignore", 0.01, 9, 1, 0), (1, "any_order", "exact", 0.00, 9, 1, 0),
        (4, "exact", "ignore", 0.50, 8, 1, 1),
        (5, "exact", "exact", 0.10, 8, 0, 2), (5, "exact", "exact", 0.30, 8, 0, 2),
    ]
    import pandas as pd

    return pd.DataFrame([{"rank": r, "trajectory": t, "args": a, "combine": "all", "deny_check": False, "key_fields": True,
                          "trajectory_threshold": 1.0, "f1_threshold": f1, "agree": ag, "labelled": 10, "false_pass": fp,
                          "false_fail": ff} for r, t, a, f1, ag, fp, ff in rows])


def test_distinct_results_make_one_row_per_tie_with_its_count_and_first_setting():
    from explorer.core.evaluation.sweep import distinct_results

    out = distinct_results(_tie_table())
    assert out[["rank", "settings", "trajectory", "args", "f1_thresholds", "groups", "agree", "false_pass", "false_fail"]].values.tolist() == [
        [1, 3, "any_order", "ignore", "0.00-0.01", 2, 9, 1, 0],
        [4, 1, "exact", "ignore", "0.50", 1, 8, 1, 1],
        [5, 2, "exact", "exact", "0.10, 0.30", 1, 8, 0, 2],
    ]
    assert distinct_results(_tie_table(), 2)["rank"].tolist() == [1, 4]


def test_sweep_table_on_adks_grid_lists_distinct_results_not_one_tie(capsys):
    # the bundled runs without --deny: 84 of ADK's grid reach 9/10 with 1 false pass (README); the
    # table listed 20 of those 84, identical but for the F1 threshold
    from explorer.cli import main

    assert main(["sweep", "--grid", "adk"]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split()[:2] == ["rank", "settings"])
    assert lines[head - 2].startswith("20 of 21 distinct results, best first; a row is one result (agreement, false passes, false fails)")
    rows = [line.split() for line in lines[head + 1:]]
    assert len(rows) == 20
    assert rows[0][:2] == ["1", "84"] and rows[0][8:14] == ["0.00-0.41", "+1", "9", "10", "1", "0"]
    results = [tuple(r[10:14]) for r in rows]
    assert len(set(results)) == 20  # each row a different (agree, labelled, false_pass, false_fail)
    ranks, counts = [int(r[0].replace(",", "")) for r in rows], [int(r[1].replace(",", "")) for r in rows]  # "1,317": thousands separated
    assert all(b - a == n for a, b, n in zip(ranks, ranks[1:], counts))  # a rank is the place of its tie's first setting


@pytest.mark.parametrize("top", ["all", "ALL"])
def test_sweep_top_all_lists_every_distinct_result(top, capsys):
    # 21 distinct results on ADK's grid over the bundled runs (the test above shows 20 of them);
    # --top all was refused as "not an integer" while score --rows all was taken
    assert main(["sweep", "--grid", "adk", "--top", top]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split()[:2] == ["rank", "settings"])
    assert lines[head - 2].startswith("21 of 21 distinct results, best first")
    assert len(lines[head + 1:]) == 21


def test_sweep_csv_top_all_is_every_setting_and_top_n_the_first_n(capsys):
    assert main(["sweep", "--grid", "adk", "--format", "csv"]) == 0
    every = capsys.readouterr().out.splitlines()
    assert main(["sweep", "--grid", "adk", "--format", "csv", "--top", "all"]) == 0
    assert capsys.readouterr().out.splitlines() == every
    assert main(["sweep", "--grid", "adk", "--format", "csv", "--top", "5"]) == 0
    assert capsys.readouterr().out.splitlines() == every[:6]  # the header and the 5 best settings
    with pytest.raises(SystemExit):
        main(["sweep", "--top", "0"])
    assert "argument --top: expected at least 1 result, got 0" in capsys.readouterr().err
