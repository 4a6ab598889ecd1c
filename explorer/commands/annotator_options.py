"""Options and report sections for several annotators (issue 11), shared by ``score`` and ``compare``:
``--annotator NAME | --consensus`` and ``--min-labels K``, the ground truth they choose, and the
inter-annotator section of the report."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np

from ..core.evaluation.annotators import Annotations, GroundTruth, annotations_of, ground_truth, human_ceiling, inter_annotator
from ..core.evaluation.features import Features
from ..core.evaluation.confidence import percent_range, range_text
from ..core.plural import counted, listed
from ..core.io.model import CaseSet
from .common import CliError, name_arg, no_interval, positive_int
from .option_needs import check_needs


def add_annotator_options(p: argparse.ArgumentParser) -> None:
    """``--annotator NAME`` / ``--consensus`` (default) and ``--min-labels K``."""
    g = p.add_argument_group("several annotators (labels CSV with an annotator column, or runs with labels)")
    who = g.add_mutually_exclusive_group()
    who.add_argument("--annotator", metavar="NAME", type=name_arg, help="score against this annotator's verdicts instead of the consensus")
    who.add_argument("--consensus", action="store_true",
                     help="score against the majority verdict of the annotators (the default when runs have several labels)")
    g.add_argument("--min-labels", type=positive_int, default=None, metavar="K",
                   help="a run with fewer than K labels has too few labels: left out of agreement and counted apart (default 1)")


@dataclass(frozen=True)
class Truth:
    """What the evaluator is scored against: ``features`` with ``human`` set to the ground truth,
    and, when runs carry several annotators' labels, the ``annotations`` and ``truth``."""

    features: Features
    annotations: Annotations | None
    truth: GroundTruth | None


def truth_from_args(args: argparse.Namespace | None, case_set: CaseSet, features: Features) -> Truth:
    """The ground truth ``args`` choose. Without annotator labels the person's verdicts as they are
    (``--annotator`` and ``--min-labels`` are then a CliError); with them the consensus (runs nobody
    labelled keep a single ``human_verdict``) or the named annotator's verdicts. CliError for an
    unknown annotator, and for ``--min-labels`` with ``--annotator`` (:mod:`.option_needs`)."""
    annotations = annotations_of(case_set)
    name = getattr(args, "annotator", None)
    min_labels = getattr(args, "min_labels", 1) or 1
    if args is not None:
        check_needs(args, annotated=annotations.has_labels)  # --min-labels without annotators' labels
    if not annotations.has_labels:
        if name is not None:
            raise CliError("--annotator: no run has several annotators' labels (give a labels CSV with an annotator column)")
        return Truth(features, None, None)
    try:
        truth = ground_truth(annotations, annotator=name, min_labels=min_labels, fallback=features.human)
    except ValueError as exc:
        raise CliError(f"--annotator: {exc}") from None
    return Truth(features.with_human(truth.human), annotations, truth)


def annotators_section(t: Truth, passed: np.ndarray) -> dict | None:
    """The report's ``annotators`` section: ground truth and disputed runs, inter-annotator
    agreement, human ceiling; None without annotator labels."""
    if t.annotations is None or t.truth is None:
        return None
    inter = inter_annotator(t.annotations)
    ceiling = human_ceiling(passed, t.annotations, t.truth, inter)
    return {
        "ground_truth": t.truth.to_dict(t.features.run_ids),
        "inter_annotator": inter.to_dict(),
        "human_ceiling": ceiling.to_dict(),
    }


def _fig(d: dict | None) -> str:
    """A kappa or alpha ``{"value", "low", "high", "n"}`` -> ``"0.60 · 95 % CI 0.10–1.00"``;
    ``"1.00 · no interval (<reason>)"`` when its bootstrap has no spread."""
    if d is None or d["value"] is None:
        return "n/a"
    if d["low"] is None:
        return f"{d['value']:.2f} · {no_interval(d)}"
    return f"{d['value']:.2f} · 95 % CI {range_text(d['low'], d['high'])}"


def verdicts_text(gt: dict) -> str:
    """``"9 runs with a verdict"`` of a ``ground_truth`` dict
    (:meth:`~explorer.core.evaluation.annotators.GroundTruth.to_dict`); when some of them are runs
    no annotator labelled, keeping their single ``human_verdict``, it says where each came from:
    ``"9 runs with a verdict: 2 by consensus, 7 by the run's single human_verdict (no annotator
    labels; --min-labels does not apply to them)"``."""
    text = counted(gt["labelled"], "run with a verdict", "runs with a verdict")
    single = gt.get("from_single_verdict", 0)
    if not single:
        return text
    by = "by consensus" if gt["source"] == "consensus" else f"by {gt['source']}"
    return (f"{text}: {gt['from_annotators']:,} {by}, {single:,} by the run's single human_verdict "
            "(no annotator labels; --min-labels does not apply to them)")


def annotators_lines(section: dict) -> list[str]:
    """The table output's lines for an ``annotators`` section."""
    gt = section["ground_truth"]
    ia = section["inter_annotator"]
    d = gt["disputed"]
    names = ia["annotators"]
    source = gt["source"] if gt["source"] != "consensus" else f"consensus of {counted(len(names), 'annotator')} ({', '.join(names)})"
    minimum = f", at least {counted(gt['min_labels'], 'label')} per run" if gt["source"] == "consensus" else ""
    out = [f"ground truth: {source}{minimum}; {verdicts_text(gt)}"]
    if d["n"]:
        out.append(f"disputed (left out of agreement, counted apart): {d['n']:,} (tie: {listed(d['ties'])})")
    else:
        out.append("disputed: none")
    few = gt.get("too_few_labels", {"n": 0})
    if few["n"]:
        out.append(f"too few labels (fewer than {gt['min_labels']}; left out of agreement, counted apart): "
                   f"{few['n']:,} ({listed(few['ids'])})")
    pa = ia["percent_agreement"]
    pa_text = "n/a" if pa is None or pa["value"] is None else (
        f"{100 * pa['value']:.0f} % of {counted(pa['n'], 'run')} · " + (no_interval(pa) if pa["low"] is None else f"95 % CI {percent_range(pa['low'], pa['high'])} %"))
    figs = [f"percent agreement {pa_text}"]
    if ia["cohen_kappa"] is not None:
        figs.append(f"Cohen's kappa {_fig(ia['cohen_kappa'])}")
    if ia["fleiss_kappa"] is not None:
        figs.append(f"Fleiss' kappa {_fig(ia['fleiss_kappa'])} (over {counted(ia['fleiss_kappa']['n'], 'run')} every annotator labelled)")
    if ia["krippendorff_alpha"] is not None:
        figs.append(f"Krippendorff's alpha {_fig(ia['krippendorff_alpha'])}")
    two_plus = counted(ia["runs_with_two_or_more_labels"], "run with 2+ labels", "runs with 2+ labels")
    out.append(f"inter-annotator ({two_plus}): " + "; ".join(figs))
    if ia["pairwise"]:
        out.append("pairwise Cohen's kappa:")
    for p in ia["pairwise"]:
        out.append(f"  {p['a']} × {p['b']}: {p['agree']}/{p['n']} agree, kappa {_fig(p['cohen_kappa'])}")
    out.append(f"human ceiling: {section['human_ceiling']['reading']}")
    return out
