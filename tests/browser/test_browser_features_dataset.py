"""Issue 14: the app served from a features dataset (``metric-explorer featurize`` output), not the
raw file: the runs' texts are read from the dataset when a row is shown.

The bundled booking set (seed 002) featurised, then served with ``--cases booking.features``: the
lesson's E5 ("Wrong date, exact path": answer "Booked BK-8832 to Rome, 21 March." against the
reference "... 12 March.") shows the same detail as from the JSON file, the person's note
included (the note lives only in the stored record), and the opening's agreement is seed 002's
4/10.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from explorer_page import App, expect_e5_detail
from served_app import ServedApp

pytestmark = pytest.mark.browser
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def dataset_app(tmp_path_factory):
    out = tmp_path_factory.mktemp("features") / "booking.features.parquet"
    subprocess.run([sys.executable, "-m", "explorer.cli", "featurize", str(REPO / "cases" / "booking_agent.json"),
                    "--out", str(out), "--workers", "1"], cwd=REPO, check=True, capture_output=True)
    app = ServedApp(out, cwd=REPO)
    app.launch()
    try:
        yield app.wait_ready()
    finally:
        app.stop()


@pytest.fixture
def dataset_page(new_offline_context, dataset_app):
    context, record = new_offline_context()
    app = App(context.new_page(), dataset_app.url)
    app.open()
    yield app
    app.detach()
    assert not record, f"the page tried to reach the network: {record[:5]}"


def test_the_detail_of_a_run_comes_from_the_dataset(dataset_page):
    expect_e5_detail(dataset_page)  # the texts and the person's note come from the stored records


def test_the_opening_agreement_is_seed_002s(dataset_page):
    app = dataset_page
    app.expect_whole("4/10")
