"""A set where no run has a verdict says so in words, never as a ``0/0`` figure (this round's
complaint: a 0/0 headline read as the page's answer). The app's summary bar and review queue,
and the text of ``score`` and ``compare``, on runs nobody has labelled yet."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("BOKEH_RESOURCES", "server")

from explorer.app.labels import SessionLabels  # noqa: E402
from explorer.app.shared import load_shared  # noqa: E402
from explorer.app.tradeoff import sweep  # noqa: E402
from explorer.app.views.chart import ChartView  # noqa: E402
from explorer.app.views.metrics import replay_html, summary_html  # noqa: E402
from explorer.app.views.review_queue import ReviewQueueView  # noqa: E402
from explorer.cli import main  # noqa: E402
from explorer.core.evaluation.replay import reveal_times, state_at  # noqa: E402
from explorer.core.evaluation.settings import Settings  # noqa: E402
from explorer.core.evaluation.verdicts import evaluate  # noqa: E402
from explorer.core.io.exports import dumps_settings  # noqa: E402
from html_text import shown  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BOOKING = ROOT / "cases" / "booking_agent.json"


@pytest.fixture(scope="module")
def shared():
    return load_shared(BOOKING)


@pytest.fixture
def unlabelled_runs(tmp_path):
    """Three runs without a verdict: two pass every check at the defaults, one calls the wrong tool."""
    rows = [
        {"id": "r1", "expected_calls": "search>book", "actual_calls": "search>book", "answer": "booked", "references": ["booked"]},
        {"id": "r2", "expected_calls": "search>book", "actual_calls": "search>book", "answer": "booked", "references": ["booked"]},
        {"id": "r3", "expected_calls": "search>book", "actual_calls": "search>cancel", "answer": "booked", "references": ["booked"]},
    ]
    path = tmp_path / "unlabelled.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_the_summary_bar_says_no_labelled_run(shared):
    labels = SessionLabels.from_shared(shared)
    for i in range(shared.features.n):
        labels.set(i, None)
    features = labels.apply_to(shared.features)
    assert (features.human == -1).all()
    text = shown(summary_html(features, evaluate(features, shared.defaults)))
    assert "All runs: no labelled run (10 unlabelled)" in text.replace("( ", "(").replace(" )", ")")
    assert "No run is labelled yet: label runs to measure agreement." in text
    # with nothing labelled there is nothing to be wrong about yet: "none" alone read as "all good"
    assert "False passes: none yet (no labelled run)" in text and "False fails: none yet (no labelled run)" in text
    assert "0/0" not in text


def test_the_chart_says_why_its_lines_lie_at_zero(shared):
    labels = SessionLabels.from_shared(shared)
    for i in range(shared.features.n):
        labels.set(i, None)
    features = labels.apply_to(shared.features)
    chart = ChartView(features.n)
    chart.show(sweep(features, shared.defaults), 0.8)
    assert set(chart.source.data["agree"]) == {0}
    assert shown(chart.hint.object).startswith("No run is labelled yet, so the lines stay at 0")
    chart.show(sweep(shared.features, shared.defaults), 0.8)
    assert shown(chart.hint.object).startswith("agreement (band: 95 % CI) of all runs")


def test_a_labelled_set_keeps_its_figure(shared):
    text = shown(summary_html(shared.features, evaluate(shared.features, shared.defaults)))
    assert "All runs: 4/10 agree" in text and "no labelled run" not in text
    assert "False passes: E5" in text  # seed 002's opening: E5 is the one false pass


def test_the_review_queue_says_no_labelled_run(shared):
    labels = SessionLabels.from_shared(shared)
    for i in range(shared.features.n):
        labels.set(i, None)
    features = labels.apply_to(shared.features)
    view = ReviewQueueView(lambda i, ok: None)
    ev = evaluate(features, shared.defaults)
    view.show(features, ev, np.full(features.n, -1, dtype=np.int8))
    assert shown(view.agreement.object) == "Agreement with the person: no labelled run yet"
    view.show(shared.features, evaluate(shared.features, shared.defaults), np.full(features.n, -1, dtype=np.int8))
    assert shown(view.agreement.object) == "Agreement with the person: 4/10"


def test_score_text_names_what_is_missing(capsys, unlabelled_runs):
    assert main(["score", "--cases", str(unlabelled_runs)]) == 0
    out = capsys.readouterr().out
    assert "agreement: no labelled run (3 unlabelled)" in out
    # no labelled run passed, none is acceptable or unacceptable: each rate has no runs under it
    assert ("95 % intervals: precision n/a (no labelled run passed); recall n/a (no acceptable run); "
            "false-pass rate n/a (no unacceptable run); false-fail rate n/a (no acceptable run); kappa n/a (no labelled run)") in out
    assert "0/0" not in out
    # the evaluator passes r1 and r2 (EXACT match, F1 1.0), fails r3 (wrong tool)
    assert "unlabelled runs: the evaluator passes 2/3" in out


def test_score_text_says_no_false_pass_or_fail_yet(capsys, unlabelled_runs):
    # a newcomer trial: bare "false passes: none" read as "all good" with nothing labelled
    assert main(["score", "--cases", str(unlabelled_runs)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "false passes: none yet (no labelled run)" in lines and "false fails: none yet (no labelled run)" in lines
    assert main(["score", "--trajectory", "any_order", "--deny", "delete_booking", "--key-fields", "--f1-threshold", "0.4"]) == 0
    lines = capsys.readouterr().out.splitlines()  # 10/10 on the bundled set: none at all, said plainly
    assert "false passes: none" in lines and "false fails: none" in lines


def test_the_replay_line_says_none_yet_while_no_revealed_run_is_labelled(shared):
    labels = SessionLabels.from_shared(shared)
    for i in (0, 1):  # E1, E2 unlabelled: the first reveal (at 12 s: reveal_times(10)) has no verdict
        labels.set(i, None)
    features = labels.apply_to(shared.features)
    ev = evaluate(features, shared.defaults)
    times = reveal_times(features.n)

    def line(t):
        return shown(replay_html(state_at(features, ev, times, t), t))

    assert line(0.0).endswith("False passes: none yet · False fails: none yet")  # nothing revealed
    text = line(12.0)  # E1, E2 revealed, neither labelled (each a false fail when labelled)
    assert "Revealed so far: no labelled run · 2 of 10 runs revealed" in text
    assert text.endswith("False passes: none yet (no labelled run revealed) · False fails: none yet (no labelled run revealed)")
    # at 24 s E3 (acceptable, failed on its reordered calls) and E4 (unacceptable, failed): 1/2
    text = line(24.0)
    assert "Revealed so far: 1/2 agree" in text and text.endswith("False passes: none · False fails: E3")


def test_score_text_of_a_labelled_set_keeps_its_counts(capsys):
    assert main(["score"]) == 0
    out = capsys.readouterr().out
    # seed 002 at the opening: 4/10; precision 0/1, recall 0/5, false passes 1 of 5 unacceptable, false fails 5 of 5
    assert "agreement 4/10 · 95 % CI 17–69 %" in out
    assert "precision 0/1 · 95 % CI 0–79 %; recall 0/5 · 95 % CI 0–43 %; false-pass rate 1/5" in out
    assert "false-fail rate 5/5" in out


def test_compare_text_says_no_labelled_run(capsys, tmp_path, unlabelled_runs):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(dumps_settings(Settings()))
    b.write_text(dumps_settings(Settings(trajectory="any_order")))
    assert main(["compare", "--cases", str(unlabelled_runs), "--settings", str(a), "--settings", str(b)]) == 0
    out = capsys.readouterr().out
    assert f"A: {a}  agreement n/a (no labelled run)" in out and f"B: {b}  agreement n/a (no labelled run)" in out
    assert "fixed (wrong under A, right under B): none yet (no labelled run)" in out
    assert "broken (right under A, wrong under B): none yet (no labelled run)" in out
    assert "0/0" not in out
    assert main(["compare", "--settings", str(a), "--settings", str(b)]) == 0  # the bundled set: 4/10 and 6/10
    out = capsys.readouterr().out
    assert f"A: {a}  agreement 4/10 · 40 %" in out and f"B: {b}  agreement 6/10 · 60 %" in out


def test_the_summary_bar_says_why_a_figure_is_n_a(shared):
    # the trial: "Precision n/a" with no reason, where the CLI says "n/a (no labelled run passed)"
    labels = SessionLabels.from_shared(shared)
    labels.set(4, None)  # E5, the opening's only pass (a false pass): no labelled run passes now
    features = labels.apply_to(shared.features)
    text = shown(summary_html(features, evaluate(features, shared.defaults)))
    # TP + FP = 0: precision undefined; recall 0/5 = 0.00; kappa (p_o - p_e)/(1 - p_e) = (4/9 - 4/9)/(5/9) = 0
    assert "Precision n/a (no labelled run passed)" in text and "Recall 0.00" in text and "Cohen's kappa 0.00" in text
    for i in range(shared.features.n):
        labels.set(i, None)
    features = labels.apply_to(shared.features)
    text = shown(summary_html(features, evaluate(features, shared.defaults)))
    assert ("Precision n/a (no labelled run passed) Recall n/a (no acceptable run) "
            "Cohen's kappa n/a (no labelled run)") in text


def test_the_how_sure_table_says_why_a_figure_is_n_a(shared):
    from explorer.app.views.how_sure import figures_html
    from explorer.core.evaluation.confidence import summary_intervals

    labels = SessionLabels.from_shared(shared)
    for i in range(shared.features.n):
        labels.set(i, None)
    features = labels.apply_to(shared.features)
    ev = evaluate(features, shared.defaults)
    text = shown(figures_html(summary_intervals(ev.summary)))
    assert "n/a (no labelled run passed)" in text and "n/a (no unacceptable run)" in text and "n/a (no labelled run)" in text
