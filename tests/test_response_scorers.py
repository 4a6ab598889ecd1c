"""Response scorers: ROUGE-1 as ADK computes it, exact at a rung, F1; the token-overlap teaching set."""

import pytest
from rouge_score import rouge_scorer

from explorer.core.io.casefile import load_case_set
from explorer.core.scoring.overlap import unigram_f1
from explorer.core.scoring.response_scorers import (
    ExactScorer,
    F1Scorer,
    Rouge1Scorer,
    is_latin_script,
    make_scorer,
    rouge1_adk,
)

PAIRS = [
    ("The cats are running quickly", "the cat runs quick"),
    ("Your flight TP1351 to Lisbon on 12 March is booked.", "Booked: TP1351, Lisbon, March 12."),
    ("", ""),
    ("Ваш рейс подтверждён", "Ваш рейс подтвержден сегодня"),
]


@pytest.mark.parametrize("cand, ref", PAIRS)
def test_rouge1_equals_rouge_score_as_adk_calls_it(cand, ref):
    # ADK final_response_match_v1: RougeScorer(["rouge1"], use_stemmer=latin(cand) and latin(ref)).score(ref, cand)
    stem = is_latin_script(cand) and is_latin_script(ref)
    want = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=stem).score(ref, cand)["rouge1"].fmeasure
    assert abs(rouge1_adk(cand, ref) - want) < 1e-9


def test_rouge1_by_hand_with_porter_stemming():
    # stems: the cat are run quickli | the cat run quick -> 3 shared of 5 and 4: F = 6/9
    assert rouge1_adk("The cats are running quickly", "the cat runs quick") == pytest.approx(6 / 9, abs=1e-9)
    # unigram F1 (no stemming) sees only "the": 2*1/(5+4)
    assert unigram_f1("The cats are running quickly", "the cat runs quick") == pytest.approx(2 / 9)
    assert rouge1_adk("", "") == 0.0


def test_latin_script_rule():
    assert is_latin_script("Café au lait") and is_latin_script("123 !!")
    assert not is_latin_script("Ваш рейс")


def test_best_over_references_and_factory():
    refs = ["nothing alike here", "the cat runs quick"]
    assert Rouge1Scorer().score("The cats are running quickly", refs) == pytest.approx(6 / 9)
    assert F1Scorer().score("a b", []) == 0.0
    ex = make_scorer("exact", rung=4)
    assert ex.score("Order A-1042 ships on 2026-03-12.", ["Order A-1042 ships on 12 March 2026."]) == 1.0
    assert ExactScorer(rung=3).score("Order A-1042 ships on 2026-03-12.", ["Order A-1042 ships on 12 March 2026."]) == 0.0
    with pytest.raises(ValueError, match="unknown response scorer"):
        make_scorer("bleu")


def test_token_overlap_teaching_set_reads_as_the_seed():
    cs = load_case_set("cases/token_overlap.json")
    f1 = {r.id: unigram_f1(r.invocations[0].answer, r.invocations[0].references[0]) for r in cs.runs}
    # reference "TP1351 is booked for 12 March": 6 tokens
    assert f1["swapped-date"] == pytest.approx(5 / 6)  # one token of six differs: 0.833
    assert f1["negation"] == pytest.approx(12 / 13)  # one added word: 6 shared of 7 and 6
    assert f1["paraphrase"] == pytest.approx(8 / 16)  # 4 shared of 10 and 6
    assert min(f1, key=f1.get) == "paraphrase" and max(f1, key=f1.get) == "negation"
    assert [r.human_verdict for r in cs.runs] == ["acceptable", "unacceptable", "unacceptable"]


def test_missing_similarity_extra_gives_an_install_hint_not_a_traceback():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['onnxruntime'] = None\n"  # as if the extra were not installed
        "from explorer.core.scoring.embedding import SimilarityUnavailable, make_embedder\n"
        "try:\n"
        "    make_embedder(shared=False).embed(['x'])\n"
        "except SimilarityUnavailable as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stderr == ""
    assert "pip install 'metric-tradeoff-explorer[similarity]'" in out.stdout
