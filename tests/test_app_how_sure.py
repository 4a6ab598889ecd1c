"""Issue 11 in the app, without a browser: labels per annotator and the ground truth made of them,
intervals in the summary bar and on the chart, pin A / compare B, the How sure tab, the disputed
filter and marks, annotated labels CSV up and down, labels needed in Calibration.

Expected values are worked out by hand from seed 002's bundled set (tests/test_booking_acceptance.py):
the person labels E1, E2, E3, E7, E8 acceptable and E4, E5, E6, E9, E10 unacceptable; at the opening
settings the evaluator passes E5 only (4/10 agree: E4, E6, E9, E10); under ANY_ORDER it also passes
E2, E3, E6, E8 (6/10). The second annotator "B" of these tests labels E1 acceptable, E2 acceptable,
E4 unacceptable, E5 acceptable: B agrees with the person on E1, E2, E4 and not on E5.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

os.environ.setdefault("BOKEH_RESOURCES", "server")

from explorer.app.lesson import STEPS  # noqa: E402
from explorer.app.labels import CONSENSUS, DEFAULT_ANNOTATOR, SessionLabels  # noqa: E402
from explorer.app.main import HOW_SURE_AT  # noqa: E402
from explorer.app.page import WorkspacePage  # noqa: E402
from explorer.app.shared import load_shared  # noqa: E402
from explorer.app.tradeoff import sweep  # noqa: E402
from explorer.app.views.calibration import labels_needed_html  # noqa: E402
from explorer.app.views.chart import ChartView  # noqa: E402
from explorer.app.views.downloads import session_labels_csv  # noqa: E402
from explorer.app.views.filters import filter_mask  # noqa: E402
from explorer.app.views.labelling import unlabelled_text  # noqa: E402
from explorer.app.views.annotators import PersonMarks, ground_truth_html  # noqa: E402
from explorer.app.views.how_sure import unlabelled_html  # noqa: E402
from explorer.app.views.metrics import summary_html, unlabelled_tip  # noqa: E402
from explorer.app.workspace import ProcessSets, labels_from_upload  # noqa: E402
from explorer.core.evaluation.prevalence import rogan_gladen  # noqa: E402
from explorer.core.evaluation.verdicts import evaluate  # noqa: E402
from explorer.core.io.loaders.labels import label_file_from_text  # noqa: E402
from html_text import shown  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BOOKING = ROOT / "cases" / "booking_agent.json"
IDS = [f"E{i}" for i in range(1, 11)]
B_LABELS = (("E1", "acceptable"), ("E2", "acceptable"), ("E4", "unacceptable"), ("E5", "acceptable"))


@pytest.fixture(scope="module")
def shared():
    return load_shared(BOOKING)


@pytest.fixture
def page(shared):
    return WorkspacePage(ProcessSets(shared, str(BOOKING)))


def label_as_b(labels: SessionLabels) -> None:
    labels.add_annotator("B")
    for rid, verdict in B_LABELS:
        labels.set(IDS.index(rid), verdict)


# --- labels per annotator and the ground truth ---------------------------------------------------

def test_a_set_without_annotators_has_one_whose_labels_are_the_file(shared):
    labels = SessionLabels.from_shared(shared)
    assert labels.annotators == [DEFAULT_ANNOTATOR] and labels.labeller == DEFAULT_ANNOTATOR and not labels.several
    assert np.array_equal(labels.human, shared.features.human) and not labels.disputed.any()
    labels.set(4, "acceptable")  # one annotator: the label is the verdict, as before issue 11
    assert labels.human[4] == 1 and shared.features.human[4] == 0


def test_a_second_annotator_makes_a_consensus_with_a_disputed_tie(shared):
    labels = SessionLabels.from_shared(shared)
    label_as_b(labels)
    assert labels.annotators == ["person", "B"] and labels.labeller == "B" and labels.several
    # E5: person unacceptable, B acceptable -> 1-1 tie -> disputed, no verdict; the rest as the person
    assert [IDS[i] for i in np.flatnonzero(labels.disputed)] == ["E5"]
    assert labels.human[4] == -1 and labels.human[0] == 1 and labels.human[3] == 0
    ev = evaluate(labels.apply_to(shared.features), shared.defaults)
    assert (ev.summary.agree, ev.summary.labelled) == (4, 9)  # E4, E6, E9, E10 of the nine with a verdict
    assert labels.split()[4] and labels.split().sum() == 1


def test_ground_truth_of_one_annotator_and_a_minimum_of_labels(shared):
    labels = SessionLabels.from_shared(shared)
    label_as_b(labels)
    labels.choose_truth("B")
    # B's four labels only: E1 a (fails: false fail), E2 a (fails), E4 u (fails: agree), E5 a (passes: agree)
    ev = evaluate(labels.apply_to(shared.features), shared.defaults)
    assert (ev.summary.agree, ev.summary.labelled, ev.summary.false_fail) == (2, 4, 2)
    assert not labels.disputed.any()
    labels.choose_truth(CONSENSUS, min_labels=2)
    # two labels needed: E1, E2 (both acceptable), E4 (both unacceptable) keep a verdict; E5 ties;
    # the six runs only the person labelled have too few
    assert [IDS[i] for i in np.flatnonzero(labels.human >= 0)] == ["E1", "E2", "E4"]
    # E5 is disputed (a tie); the six with one label are not disputed, they have too few labels
    assert [IDS[i] for i in np.flatnonzero(labels.disputed)] == ["E5"]
    assert [IDS[i] for i in np.flatnonzero(labels.too_few)] == ["E3", "E6", "E7", "E8", "E9", "E10"]
    assert labels.ground.dispute[4] == 1 and labels.ground.dispute[2] == 2
    features = labels.apply_to(shared.features)
    ev = evaluate(features, shared.defaults)
    assert (ev.summary.agree, ev.summary.labelled) == (1, 3)
    text = shown(summary_html(features, ev, labels.disputed, labels.too_few)).replace("( ", "(").replace(" )", ")").replace(" ,", ",")
    assert "All runs: 1/3 agree (1 disputed, 6 with too few labels)" in text
    assert unlabelled_text(labels.human, labels.disputed, labels.too_few) == (
        "Unlabelled: 0 of 10 runs (counted as neither verdict) · 1 disputed · 6 with too few labels · "
        "2 acceptable · 1 unacceptable")
    ground = shown(ground_truth_html(labels, shared.features.run_ids))
    assert "Disputed: 1 (tie: E5)" in ground
    assert "Too few labels: 6 (fewer than 2: E3, E6, E7, E8, E9, E10)" in ground
    marks = PersonMarks(labels)
    assert "too few labels" in marks.cell(IDS.index("E3"), "acceptable") and "disputed" not in marks.cell(IDS.index("E3"), "acceptable")
    assert marks.detail(IDS.index("E3"))[0] == "too few labels" and marks.detail(IDS.index("E5"))[0] == "disputed"
    with pytest.raises(ValueError, match="no annotator named 'C'"):
        labels.choose_truth("C")


def test_clearing_a_label_and_bad_annotator_names(shared):
    labels = SessionLabels.from_shared(shared)
    label_as_b(labels)
    labels.set(4, None)  # B clears E5: the person's unacceptable is the verdict again
    assert labels.human[4] == 0 and not labels.disputed.any()
    for bad, message in (("  ", "Type a name"), ("B", "already an annotator"), ("Consensus", "majority"), ("x" * 41, "at most 40")):
        with pytest.raises(ValueError, match=message):
            labels.add_annotator(bad)
    with pytest.raises(ValueError, match="no annotator named 'Z'"):
        labels.set(0, "acceptable", annotator="Z")


def test_annotators_from_the_file_and_runs_only_the_file_labelled(shared):
    from explorer.core.evaluation.annotators import Annotations

    # alice and bob labelled E1 and E2; the other runs keep the file's single verdict until labelled here
    codes = np.full((10, 2), -1, dtype=np.int8)
    codes[0] = (1, 0)  # E1: a tie
    codes[1] = (1, 1)
    ann = Annotations(shared.features.run_ids, ("alice", "bob"), codes, {("E2", "bob"): "fine"})
    labels = SessionLabels.from_features(shared.features, ann)
    assert labels.annotators == ["alice", "bob"] and labels.labeller == "alice"
    assert labels.human[0] == -1 and labels.disputed[0] and labels.human[1] == 1 and labels.human[3] == 0
    assert labels.annotator_notes == {(1, "bob"): "fine"}
    labels.set(3, None)  # alice clears E4: the file's verdict goes too (a label made here replaces it)
    assert labels.human[3] == -1 and not labels.disputed[3]


# --- the summary bar, the chart, the label counts ------------------------------------------------

def test_summary_shows_the_wilson_interval_and_the_intervals_of_the_stats(shared):
    ev = evaluate(shared.features, shared.defaults)
    text = shown(summary_html(shared.features, ev))
    # Wilson 4/10 at 95 %: [0.168, 0.687] (issue 11's worked value) -> 17-69 %
    assert "All runs: 4/10 agree 95 % CI 17–69 %" in text  # the interval right under the figure
    # precision 0/1: upper z²/(1 + z²) = 3.8415/4.8415 = 0.79; recall 0/5: 3.8415/8.8415 = 0.43
    assert "Precision 0.00 [0.00, 0.79]" in text and "Recall 0.00 [0.00, 0.43]" in text
    assert "Cohen's kappa −0.20 [" in text


def test_summary_counts_disputed_runs_apart_and_says_what_the_unlabelled_mean(shared):
    labels = SessionLabels.from_shared(shared)
    label_as_b(labels)
    labels.set(IDS.index("E9"), None, annotator="person")  # E9 unlabelled now
    features = labels.apply_to(shared.features)
    ev = evaluate(features, shared.defaults)
    markup = summary_html(features, ev, labels.disputed)
    text = shown(markup).replace("( ", "(").replace(" )", ")").replace(" ,", ",")
    assert "All runs: 3/8 agree (1 unlabelled, 1 disputed)" in text
    # the unlabelled run E9 fails at the opening: the evaluator passes 0 of 1; on the labelled runs
    # it passes 0 of 4 acceptable (true-pass rate 0) and fails 3 of 4 unacceptable: 0 + 0.75 - 1 < 0
    assert "passes 0 of the 1 unlabelled run (" in markup and "does no better than chance" in markup
    assert unlabelled_text(labels.human, labels.disputed) == (
        "Unlabelled: 1 of 10 runs (counted as neither verdict) · 1 disputed · 5 acceptable · 3 unacceptable")


def test_the_chart_bands_agreement_with_its_wilson_interval(shared):
    chart = ChartView(shared.features.n)
    chart.show(sweep(shared.features, shared.defaults), 0.8)
    data = chart.source.data
    at = int(np.flatnonzero(np.isclose(data["threshold"], 0.8))[0])
    assert data["agree"][at] == 4
    # 4/10 agree at 0.80: Wilson [0.168, 0.687] of 10 labelled runs -> 1.68 to 6.87 runs
    assert data["agree_low"][at] == pytest.approx(1.6818, abs=1e-3)
    assert data["agree_high"][at] == pytest.approx(6.8733, abs=1e-3)


# --- pin A, change to B ------------------------------------------------------------------------

def test_pin_then_any_order_lists_the_flips_and_mcnemar(page):
    s = page.session
    assert not s.compare.strip.visible
    s.compare.pin_button.clicks += 1  # "Pin as A" at the opening
    assert s.pinned.settings == s.shared.defaults and s.compare.strip.visible
    s.inputs.trajectory = "any_order"
    c_fixed, c_broken = s.compare.fixed.options, s.compare.broken.options
    assert (c_fixed, c_broken) == (["E2", "E3", "E8"], ["E6"])
    text = shown(s.compare.text.object)
    # 4/10 -> 6/10: +20 points; McNemar exact on 3 vs 1: P(X <= 1) + P(X >= 3), X ~ Bin(4, 1/2) = 10/16
    assert "A (pinned) 4/10 (40 %) → B (now) 6/10 (60 %)" in text and "change in agreement +20 points" in text
    assert "with 3 runs flipped one way and 1 the other, p = 0.625: not enough runs to tell" in text
    # the trial: "+20 points (95 % CI −20 to +52)" in bold green; the interval holds 0: neutral
    assert "(95 % CI −20 to +52)" in text and 'class="me-compare-change me-change-unclear"' in s.compare.text.object
    s.compare.unpin_button.clicks += 1
    assert s.pinned.settings is None and not s.compare.strip.visible


def test_a_change_is_better_or_worse_only_when_its_interval_leaves_out_0():
    from explorer.app.intervals import change_tone
    from explorer.core.evaluation.confidence import Interval

    assert change_tone(Interval(0.20, -0.20, 0.52, 10)) == "unclear"  # the trial's +20 (−20 to +52)
    assert change_tone(Interval(0.20, 0.0, 0.52, 10)) == "unclear"  # 0 itself is in it
    assert change_tone(Interval(0.30, 0.05, 0.52, 10)) == "better"
    assert change_tone(Interval(-0.30, -0.52, -0.05, 10)) == "worse"
    assert change_tone(Interval(None, None, None, 0)) == "unclear"
    assert change_tone(Interval(0.1, None, None, 10)) == "unclear"  # no interval: no claim


def test_a_flipped_run_clicked_is_revealed_selected_and_shown(page):
    s = page.session
    s.pin()
    s.inputs.trajectory = "any_order"
    assert s.clock.time == 0.0
    s.compare.fixed.value = ["E3"]  # the button E3 clicked
    assert s.compare.fixed.value == []  # a button again, not a toggle
    # E3 is revealed at 24 s (batches of two at 12 s steps); the table holds E1..E4, E3 selected
    assert s.clock.time == 24.0 and s.selected_id == "E3" and s.table.table.selection == [2]
    assert "Profile read before the search" in shown(s.detail.pane.object) and s.detail.card.visible


def test_a_label_change_while_pinned_re_scores_a_too(page):
    s = page.session
    s.pin()
    s.inputs.trajectory = "any_order"
    s.labels.set(IDS.index("E6"), "acceptable")  # E6: wrong under A (EXACT fails it), right under B
    assert (s.compare.fixed.options, s.compare.broken.options) == (["E2", "E3", "E6", "E8"], [])
    # 4 vs 0: two-sided binomial P(X = 0) + P(X = 4) = 2/16
    assert "p = 0.125" in shown(s.compare.text.object)


# --- the How sure tab ----------------------------------------------------------------------------

def test_how_sure_shows_inter_annotator_figures_computed_only_on_label_change(page):
    s = page.session
    s.tabs.active = HOW_SURE_AT
    view = s.how_sure.annotators
    assert "Only one annotator has labels" in view.figures.object
    view.name.value = "B"
    view.add.clicks += 1
    assert s.labels.labeller == "B" and s.how_sure.annotators.side_picker.select.value == "B"
    for rid, verdict in B_LABELS:
        s.labels.set(IDS.index(rid), verdict)
    figures = shown(view.figures.object)
    # person × B over E1, E2, E4, E5: agree on 3 of 4 (Wilson 3/4: 30-95 %); Cohen's kappa:
    # p_o = 3/4, person 2 acc / 2 unacc, B 3 acc / 1 unacc: p_e = 1/2·3/4 + 1/2·1/4 = 1/2 -> (0.75 - 0.5)/0.5 = 0.50
    assert "Percent agreement 3/4 (75 %, 95 % CI 30–95 %)" in figures
    assert "Cohen's kappa 0.50 · 95 % CI" in figures
    assert "person × B 4 3 3/4" in shown(view.pairwise.object)
    # the evaluator agrees with the consensus on 4 of the 9 runs with a verdict (44 %), people 75 %
    assert "Evaluator vs the ground truth: 4/9 (44 %" in shown(view.ceiling.object)
    # 4/9 against 3/4: Newcombe's interval of the difference, from the Wilson limits (0.189, 0.733)
    # and (0.301, 0.954): -0.306 ∓ (sqrt(0.256² + 0.204²), sqrt(0.289² + 0.449²)) = -0.63 to +0.23,
    # 0 inside: the runs cannot tell (it read "room to improve" from the point values)
    assert ("not enough runs to tell whether the scorer is as good as the people "
            "(difference −31 points, Newcombe 95 % CI −63 to +23)") in shown(view.ceiling.object)  # true minus signs
    assert "room to improve" not in view.ceiling.object
    assert "Disputed: 1 (tie: E5)" in shown(view.ground.object)
    computed = view.inter.computed
    for mode in ("any_order", "in_order", "exact"):
        s.inputs.trajectory = mode  # settings changes: the people's figures are not recomputed
    assert view.inter.computed == computed
    assert "4/9 (44 %" in shown(view.ceiling.object)  # back at EXACT


def test_how_sure_figures_unlabelled_correction_and_labels_needed(page):
    s = page.session
    s.choose_step(next(st for st in STEPS if st.number == 7))  # the lesson's 10/10
    assert s.ev.summary.agree == 10
    s.labels.set(IDS.index("E1"), None)
    s.labels.set(IDS.index("E4"), None)
    s.tabs.active = HOW_SURE_AT
    hs = s.how_sure
    # step 7 passes E1 (acceptable) and fails E4: on the 8 labelled runs true-pass and true-fail
    # rates are 1, so the corrected share is the raw pass rate 1/2; variance 0.25/2 -> ±0.69, clipped
    text = shown(hs.unlabelled.object)
    assert "passes 1 of 2 unlabelled runs" in text and "about 50 % of them are acceptable (95 % CI 0–100 %" in text
    figures = shown(hs.figures.object)
    assert "Agreement 8/8 (100 %) 95 % CI 68–100 % 8 Wilson" in figures  # Wilson 8/8: 8/(8 + z²) = 0.676
    # 8/8 agree: kappa is 1 in every resample, a percentile "interval" of [1, 1] is no interval
    reason = "the evaluator and the person agree on every run, so kappa is 1 in every resample"
    assert "Cohen's kappa 1.00 no interval 8 bootstrap" in figures and f"Cohen's kappa has no interval: {reason}." in figures
    bar = summary_html(s.features, s.ev)
    assert "Cohen's kappa 1.00 (no interval)" in shown(bar) and f'title="No 95 % interval: {reason}."' in bar
    # ±5 points at 100 %: h²n² + 2h²z²n + h²z⁴ - z⁴/4 = 0 -> n = 34.6 -> 35; at 50 %: 381
    assert "Agreement labelled runs 8 35 381 27" in shown(hs.needed.object)


def test_a_rogan_gladen_range_with_no_spread_reads_no_interval_with_why():
    # true-pass 2/2, true-fail 2/2, passes 0 of 3 unlabelled: the delta-method variance is 0, and
    # the page said "0–0 %"
    passed = np.array([True, True, False, False, False, False, False])
    human = np.array([1, 1, 0, 0, -1, -1, -1], dtype=np.int8)
    rate = rogan_gladen(passed, human)
    why = "no interval: too few runs to show a spread"
    assert why in shown(unlabelled_html(rate)) and "0–0 %" not in shown(unlabelled_html(rate))
    assert why in unlabelled_tip(rate) and "0–0 %" not in unlabelled_tip(rate)


def test_calibration_labels_needed_as_the_cli_reads_them():
    # 6 of 12 acceptable pairs in the pass band (rate 0.5: 381 needed), 8 of 8 unacceptable in the
    # fail band (rate 1: 35 needed); the worst case is 381
    bands = SimpleNamespace(counts={"pass": {"acceptable": 6, "unacceptable": 0}, "fail": {"acceptable": 0, "unacceptable": 8}})
    assert shown(labels_needed_html(bands, 12, 8)) == (
        "Labels for ±5 points (95 %): acceptable pairs 12 (381 needed), unacceptable 8 (35 needed) "
        "(at today's band shares; 381 per class in the worst case).")


# --- table marks, filters, labels CSV up and down ------------------------------------------------

def test_disputed_filter_and_person_marks(page):
    s = page.session
    assert not page.attached.filters.people.visible  # one annotator: nothing to filter
    label_as_b(s.labels)
    assert page.attached.filters.people.visible
    ev = s.ev
    keep = filter_mask(ev, people=["disputed"], disputed=s.labels.disputed, split=s.labels.split())
    assert [IDS[i] for i in np.flatnonzero(keep)] == ["E5"]
    s.labels.add_annotator("C")
    s.labels.set(IDS.index("E5"), "acceptable")  # C: E5 now 2 acceptable - 1 unacceptable, a split majority
    assert s.labels.human[4] == 1 and not s.labels.disputed.any()
    cell = s.table.person_cell(4, "acceptable")
    assert "split 2–1" in cell and "person: unacceptable, B: acceptable, C: acceptable" in cell
    s.labels.set(IDS.index("E1"), "unacceptable")  # E1: person a, B a, C u -> split 2–1
    keep = filter_mask(s.ev, people=["split"], disputed=s.labels.disputed, split=s.labels.split())
    assert [IDS[i] for i in np.flatnonzero(keep)] == ["E1", "E5"]
    with pytest.raises(ValueError, match="unknown people filter"):
        filter_mask(ev, people=["nobody"])


def test_too_few_labels_filter_beside_disputed(page):
    # at a minimum of 2 labels the six runs only the person labelled have too few labels; the
    # Disputed filter keeps only the tie (E5) and the six had no filter of their own
    s = page.session
    label_as_b(s.labels)
    s.labels.choose_truth(CONSENSUS, min_labels=2)
    filters = page.attached.filters
    assert filters.people.visible and list(filters.people.options) == ["Disputed", "Too few labels", "People disagree"]
    filters.people.value = ["too_few"]
    keep = page.attached._mask()
    assert [IDS[i] for i in np.flatnonzero(keep)] == ["E3", "E6", "E7", "E8", "E9", "E10"]
    filters.people.value = ["disputed", "too_few"]  # either group
    assert [IDS[i] for i in np.flatnonzero(page.attached._mask())] == ["E3", "E5", "E6", "E7", "E8", "E9", "E10"]
    keep = filter_mask(s.ev, people=["too_few"], too_few=s.labels.too_few)
    assert keep.sum() == 6
    assert not filter_mask(s.ev, people=["too_few"]).any()  # no array given: keeps no run


def test_labels_csv_with_annotators_round_trips(page, shared):
    s = page.session
    label_as_b(s.labels)
    s.labels.set(IDS.index("E2"), "acceptable", note="=1+1 looks fine")
    text = session_labels_csv(s.features, s.labels)
    assert text.splitlines()[0] == "run_id,annotator,human_verdict,note"
    assert "E5,person,unacceptable," in text and "E5,B,acceptable," in text
    assert "E2,B,acceptable,'=1+1 looks fine" in text  # formula-like text neutralised
    read = label_file_from_text(text, "labels.csv")  # what score --labels reads
    assert read.annotators == ("B", "person") and read.labels["E5"].verdict is None  # a tie
    fresh = WorkspacePage(ProcessSets(shared, str(BOOKING)))
    fresh.received("labels.csv", text.encode())
    got = fresh.session.labels
    assert got.annotators == ["person", "B"]
    assert np.array_equal(got.codes, s.labels.codes) and np.array_equal(got.human, s.labels.human)
    assert got.annotator_notes[(1, "B")] == "=1+1 looks fine"


def test_uploaded_annotated_labels_replace_the_listed_runs(page, shared):
    data = b"run_id,annotator,human_verdict,note\nE1,ann1,unacceptable,\nE1,ann2,unacceptable,\nE2,ann1,acceptable,\nX,ann1,acceptable,\n"
    got = labels_from_upload(data, "two.csv", shared.features.run_ids)
    assert got.unknown == 1 and set(got.annotated) == {0, 1} and not got.single
    page.received("two.csv", data)
    labels = page.session.labels
    assert labels.annotators == ["person", "ann1", "ann2"]
    # E1's labels are the file's (the person's acceptable replaced): unacceptable; E3 keeps the person's
    assert labels.human[0] == 0 and list(labels.codes[0]) == [-1, 0, 0] and labels.human[2] == 1
    assert "All runs: 5/10 agree" in shown(page.session.metrics.summary.object)  # E1 fails and is now unacceptable


def test_annotator_names_and_run_text_are_escaped_wherever_they_reach_html(page):
    s = page.session
    evil = "<img src=x onerror=alert(1)>"
    page.received("evil.csv", f"run_id,annotator,human_verdict,note\nE5,{evil},acceptable,<b>x</b>\nE5,ann,unacceptable,\n".encode())
    labels = s.labels
    assert evil in labels.annotators and labels.disputed[4]
    s.tabs.active = HOW_SURE_AT
    s.how_sure.show(s.features, s.ev)
    view = s.how_sure.annotators
    markup = "".join([view.list.object, view.ground.object, view.figures.object, view.pairwise.object, view.ceiling.object,
                      s.table.person_cell(4, "unlabelled"), s.detail.people(4)[1]])
    assert "<img" not in markup and "&lt;img src=x onerror=alert(1)&gt;" in markup
    assert f"Only {evil}" in view.truth.options  # a Select option: Bokeh shows it as text


def test_switching_case_sets_leaves_no_watcher_on_the_kept_labels(page):
    labels = page.session.labels

    def watching() -> dict[str, int]:
        return {name: len(w.get("value", [])) for name, w in labels.param.watchers.items()}

    before = watching()
    assert before["version"] == 2  # the session's and the page's (labels, filters, sweep)
    page._switch("bundled:token_overlap.json")
    assert watching() == {name: 0 for name in before}  # the labels are kept, nobody follows them
    page._switch("served")
    assert page.session.labels is labels and watching() == before


def test_a_flipped_run_of_a_big_set_turns_the_table_to_its_page():
    import json
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    import synth
    from explorer.app.main import ExplorerSession
    from explorer.app.views.table import PAGE_SIZE
    from explorer.app.workspace import shared_from_case_set
    from explorer.core.io.loaders.detect import loads_runs

    lines = [json.dumps(synth.flat_record(r)) for r in synth.runs(2100, seed=1)]
    s = ExplorerSession(shared_from_case_set(loads_runs(("\n".join(lines) + "\n").encode(), "big.jsonl")))
    assert s.table.windowed  # over 2,000 runs: one page of rows at a time
    s.pin()
    s.inputs.trajectory = "any_order"
    run_id = s.compare.fixed.options[-1]
    i = int(np.flatnonzero(s.features.run_ids == run_id)[0])
    s.compare.fixed.value = [run_id]
    # 2,100 runs: batches of ceil(2100 / 30) = 70 at 2 s steps, so run i is revealed at 2·(i // 70 + 1) s
    assert s.clock.time == 2.0 * (i // 70 + 1)
    assert s.table.page.value == i // PAGE_SIZE + 1 and s.selected_id == run_id
    assert s.table.ids[s.table.table.selection[0]] == run_id


def test_three_annotators_give_fleiss_kappa_and_alpha_worked_by_hand(page):
    s = page.session
    s.tabs.active = HOW_SURE_AT
    labels = s.labels
    # B and C label E1, E2, E4, E5; with the person's labels the counts (unacceptable, acceptable)
    # are E1 (0, 3), E2 (1, 2), E4 (3, 0), E5 (2, 1)
    for who, verdicts in (("B", "aaua"), ("C", "auuu")):
        labels.add_annotator(who)
        for rid, v in zip(("E1", "E2", "E4", "E5"), verdicts):
            labels.set(IDS.index(rid), "acceptable" if v == "a" else "unacceptable")
    view = s.how_sure.annotators
    figures = shown(view.figures.object)
    # Fleiss: P_i = (sum n² - 3)/6 = 1, 1/3, 1, 1/3 -> P̄ = 2/3; p_acc = p_unacc = 6/12 -> P̄e = 1/2;
    # kappa = (2/3 - 1/2)/(1/2) = 1/3
    assert "Fleiss' kappa 0.33 · 95 % CI" in figures and "over 4 runs every annotator labelled" in figures
    # alpha (nominal): n = 12 pairable values, sum o_cc = 3 + 1 + 3 + 1 = 8, n_c = 6, 6:
    # 1 - 11·(12 - 8)/(144 - 72) = 1 - 44/72 = 0.39
    assert "Krippendorff's alpha 0.39 · 95 % CI" in figures
    assert "Percent agreement (67 %, 95 % CI" in figures  # mean P_i over the four runs, bootstrap interval
    assert "Cohen's kappa" not in figures  # three annotators: pairwise only
    pairs = shown(view.pairwise.object)
    assert "person × B 4 3 3/4" in pairs and "person × C 4 3 3/4" in pairs and "B × C 4 2 2/4" in pairs


def test_the_human_ceiling_reading_is_coloured_only_when_its_interval_supports_it():
    # "not enough runs to tell" was shown in the accent green, as if it were good news
    from explorer.app.views.annotators import ceiling_html
    from explorer.core.evaluation.annotators import HumanCeiling
    from explorer.core.evaluation.confidence import Interval

    iv = Interval(0.5, 0.2, 0.8, 10, 5)
    unclear = HumanCeiling(iv, iv, {}, "not enough runs to tell", verdict=None)
    worse = HumanCeiling(iv, iv, {}, "the scorer is worse than the people", verdict="worse")
    assert 'class="me-ceiling-reading me-ceiling-unclear"' in ceiling_html(unclear)
    assert 'class="me-ceiling-reading me-ceiling-worse"' in ceiling_html(worse)


def test_the_ground_truth_says_how_many_verdicts_are_the_files_single_verdict(shared):
    from explorer.core.evaluation.annotators import Annotations

    # ana and bo label E1 acceptable and E2 unacceptable, ana alone E3; E4..E10 keep the file's verdict
    codes = np.full((10, 2), -1, dtype=np.int8)
    codes[0], codes[1], codes[2] = (1, 1), (0, 0), (1, -1)
    labels = SessionLabels.from_features(shared.features, Annotations(shared.features.run_ids, ("ana", "bo"), codes, {}))
    labels.choose_truth(CONSENSUS, min_labels=2)
    ground = shown(ground_truth_html(labels, shared.features.run_ids))
    assert ("9 of 10 runs have a verdict. 2 from the annotators' labels, 7 the file's single verdict "
            "(no annotator labelled them; the minimum does not apply).") in ground
    assert "Too few labels: 1 (fewer than 2: E3)" in ground
    # the human ceiling counts E1, E2 only (the opening settings fail both: E1 acceptable, E2 not -> 1/2),
    # not the 7 runs whose verdict no annotator gave
    from explorer.app.views.annotators import ceiling_html
    from explorer.core.evaluation.annotators import human_ceiling, inter_annotator
    from explorer.core.evaluation.settings import Settings

    passed = evaluate(shared.features.with_human(labels.ground.human), Settings()).passed
    ann = labels.labelled_annotations()
    ceiling = shown(ceiling_html(human_ceiling(passed, ann, labels.ground, inter_annotator(ann))))
    assert ("Evaluator vs the ground truth: 1/2 (50 %, 95 % CI 9–91 %) over the runs the annotators' labels decide "
            "(7 runs with only the file's single verdict left out) · annotators vs each other: 2/2") in ceiling
    # with the annotators holding every verdict there is no mix to tell
    labels = SessionLabels.from_shared(shared)
    assert "the file's single verdict" not in shown(ground_truth_html(labels, shared.features.run_ids))
