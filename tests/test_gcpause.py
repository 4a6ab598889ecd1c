"""collector_paused: the cyclic collector is off inside the block and as it was after it, also
when the block raises; the loaders and build_features leave it on."""

import gc

import pytest

from explorer.core.evaluation.features import build_features
from explorer.core.gcpause import collector_paused
from explorer.core.io.errors import LoadError
from explorer.core.io.loaders import load_runs, loads_runs


@pytest.fixture(autouse=True)
def _collector_on():
    gc.enable()
    yield
    gc.enable()


def test_off_inside_on_after():
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_nested_pause_leaves_it_to_the_outer_block():
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block found it off: it stays off
    assert gc.isenabled()


def test_found_off_stays_off():
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_back_on_after_an_error():
    with pytest.raises(ZeroDivisionError):
        with collector_paused():
            1 / 0
    assert gc.isenabled()


def test_a_failed_load_leaves_the_collector_on():
    with pytest.raises(LoadError):
        loads_runs(b'{"format": "metric-explorer/cases@1", "runs": []}', "c.json")
    assert gc.isenabled()


def test_load_and_features_leave_the_collector_on():
    cs = load_runs("cases/booking_agent.json")
    assert gc.isenabled()
    assert build_features(cs).n == 10
    assert gc.isenabled()
