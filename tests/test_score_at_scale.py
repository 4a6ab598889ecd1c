"""`score` over many runs: the table shows the first runs only (`--rows`), long id lists are cut
with how many more, counts carry thousands separators and a narrow interval gets a decimal.
Found by trying `score` on the 100k-run bench file: 100,000 table lines and one ~100 kB line of
false-pass ids before the figures, `agreement 63284/91983`, `false-pass rate ... 95 % CI 20–20 %`,
75 s (each run's record parsed 3-4 times for its title, reason and extra columns)."""

import dataclasses
import json
import re

import pytest

from explorer.cli import main
from explorer.core.evaluation.confidence import percent_range
from explorer.core.evaluation.features import build_features
from explorer.core.evaluation.settings import Settings
from explorer.core.evaluation.verdicts import evaluate, result_table
from explorer.core.io.loaders import load_runs
from explorer.core.plural import listed

ANSWER = "Your flight TP1351 is booked."


@pytest.fixture(scope="module")
def runs_1200(tmp_path_factory):
    """1,200 runs that every check passes (same calls, answer = reference): R0000-R1099
    acceptable, R1100-R1199 unacceptable, so 1,100 of 1,200 agree and the 100 last are false
    passes."""
    path = tmp_path_factory.mktemp("scale") / "runs.jsonl"
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(1200):
            fh.write(json.dumps({"id": f"R{i:04d}", "title": f"run {i}", "expected_calls": "search_flights>book_flight",
                                 "actual_calls": "search_flights>book_flight", "answer": ANSWER, "reference": ANSWER,
                                 "human_verdict": "acceptable" if i < 1100 else "unacceptable"}) + "\n")
    return path


def test_percent_range_gets_decimals_only_when_narrow():
    assert percent_range(0.1682, 0.6921) == "17–69"  # 52 points wide: whole percents
    assert percent_range(0.19, 0.21) == "19–21"  # 2 points: still whole
    assert percent_range(0.1964, 0.2037) == "19.6–20.4"  # 0.73 points (49,706 runs): "20–20" before
    assert percent_range(0.2000, 0.2015) == "20.00–20.15"  # 0.15 points


def test_listed_cuts_a_long_list_and_says_how_many_more():
    assert listed([]) == "" and listed(["E4", "E9"]) == "E4, E9"
    names = [f"R{i}" for i in range(1020)]
    assert listed(names) == ", ".join(names[:20]) + " and 1,000 more"
    assert listed(names[:21], limit=20) == ", ".join(names[:21])  # one past the limit: named, not "and 1 more"
    assert listed(names[:22], limit=20) == ", ".join(names[:20]) + " and 2 more"
    assert listed(names[:20]) == ", ".join(names[:20])


def test_score_table_shows_the_first_50_runs_and_counts_every_run(runs_1200, capsys):
    assert main(["score", "--cases", str(runs_1200), "--no-cache"]) == 0
    out = capsys.readouterr().out
    table_ids = re.findall(r"^\s*(R\d{4})\s", out, flags=re.M)
    assert table_ids == [f"R{i:04d}" for i in range(50)]
    assert "(50 of 1,200 runs shown, in run order: --rows N or --rows all for more" in out
    assert "agreement 1,100/1,200 · 95 % CI 90–93 %" in out  # Wilson 0.8997-0.9310 (by hand)
    expected_ids = ", ".join(f"R{i:04d}" for i in range(1100, 1120))
    assert f"false passes: {expected_ids} and 80 more\n" in out
    assert "false fails: none\n" in out
    assert "precision 1,100/1,200 · " in out and "false-pass rate 100/100 · " in out


def test_score_rows_option(runs_1200, capsys):
    assert main(["score", "--cases", str(runs_1200), "--no-cache", "--rows", "3"]) == 0
    out = capsys.readouterr().out
    assert re.findall(r"^\s*(R\d{4})\s", out, flags=re.M) == ["R0000", "R0001", "R0002"]
    assert "(3 of 1,200 runs shown" in out and "agreement 1,100/1,200" in out
    assert main(["score", "--cases", str(runs_1200), "--no-cache", "--rows", "all"]) == 0
    out = capsys.readouterr().out
    assert len(re.findall(r"^\s*(R\d{4})\s", out, flags=re.M)) == 1200 and "runs shown" not in out
    # the bundled 10 runs: all shown, no note
    assert main(["score"]) == 0
    out = capsys.readouterr().out
    assert len(re.findall(r"^\s*(E\d+)\s", out, flags=re.M)) == 10 and "runs shown" not in out
    # labels there are, and (in brackets) the number needed: "5 of 35 needed" read oddly with more than enough
    assert "acceptable runs 5 (35 needed), unacceptable 5 (245 needed), all labelled 10 (366 needed)" in out


@pytest.mark.parametrize("argv, message", [
    (["--rows", "3", "--format", "csv"], "--rows needs --format table: --format csv writes every run; --rows chooses the runs the table format shows"),
    (["--rows", "0"], "argument --rows: expected at least 1 row, got 0"),
    (["--rows", "ten"], "argument --rows: expected a whole number or all, got 'ten'"),
])
def test_score_rows_refused(argv, message, capsys):
    try:
        code = main(["score", *argv])
    except SystemExit as exc:  # argparse's own refusal
        code = exc.code
    assert code == 2
    assert message in capsys.readouterr().err


class _CountingRuns:
    """The runs of a case set, counting the reads of one run (as a stored dataset parses one)."""

    def __init__(self, runs):
        self.runs, self.reads = runs, 0

    def __len__(self):
        return len(self.runs)

    def __getitem__(self, i):
        self.reads += 1
        return self.runs[i]

    def __iter__(self):
        return iter(self.runs)


def test_result_table_reads_each_run_once(runs_1200):
    cs = load_runs(str(runs_1200))
    counting = _CountingRuns(cs.runs)
    features = dataclasses.replace(build_features(cs), runs=counting)
    ev = evaluate(features, Settings())
    table = result_table(features, ev, list(range(100)))
    assert counting.reads == 100  # 300 before: title, reason and extra columns each read it
    assert list(table["title"][:2]) == ["run 0", "run 1"]
    assert set(table["reason"]) == {"all checks pass (trajectory 1.00, F1 1.00 >= 0.80)"}


def test_sweep_counts_carry_thousands_separators(runs_1200, capsys):
    """The sweep's best line and tie warning, on the 1,200 runs: a setting that passes every run
    agrees on the 1,100 acceptable ones, and no setting does better (every run is alike)."""
    assert main(["sweep", "--cases", str(runs_1200), "--no-cache", "--grid", "adk"]) == 0
    out = capsys.readouterr().out
    assert "best: agreement 1,100/1,200, 100 false passes, 0 false fails" in out
    assert "settings reach 1,100/1,200 on 1,200 runs: the runs cannot tell them apart" in out
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split()[:2] == ["rank", "settings"])
    assert lines[head].split()[-6:] == ["false_fail", "95", "%", "CI", "low", "high"]  # "95 % CI" as everywhere else
    # every setting passes every run: the first row agrees on 1,100 of 1,200, Wilson 90-93 % (by hand)
    assert lines[head + 1].split()[-8:] == ["1,100", "1,200", "100", "0", "90", "%", "93", "%"]
