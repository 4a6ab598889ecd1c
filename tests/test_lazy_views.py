"""Parts of the page built when first needed (issue 9 item 11: a room of 40 opening the link at
once): ``style.Deferred`` (a hidden card's children join the page when it is first shown) and
``style.LazyTab`` (a tab's content built on its first opening), alone and in a session.

What must hold: nothing is built before it is needed, it is built once, and what shows once built
is what an eager build would have shown (the same child objects, with every update made while they
were held aside)."""

from __future__ import annotations

from pathlib import Path

import panel as pn
import pytest

from explorer.app.main import ExplorerSession
from explorer.app.shared import load_shared
from explorer.app.views.style import Deferred, LazyTab

CASES = Path(__file__).resolve().parents[1] / "cases" / "booking_agent.json"


def test_a_hidden_deferred_column_holds_its_children_until_shown():
    text = pn.pane.Markdown("first")
    column = Deferred(text, visible=False)
    assert list(column.objects) == [] and not column.filled
    text.object = "changed while held"  # a view updates its pane while the card is hidden
    column.visible = True
    assert list(column.objects) == [text] and column.filled
    assert column.objects[0].object == "changed while held"
    column.visible = False
    column.visible = True  # shown again: filled once, the same children
    assert list(column.objects) == [text]


def test_a_visible_deferred_column_is_a_plain_column():
    a, b = pn.pane.Markdown("a"), pn.pane.Markdown("b")
    column = Deferred(a, b)
    assert list(column.objects) == [a, b] and column.filled


def test_a_deferred_build_runs_once_when_first_shown():
    calls: list[int] = []

    def build():
        calls.append(1)
        return [pn.pane.Markdown("built")]

    column = Deferred(build=build, visible=False)
    assert calls == [] and list(column.objects) == []
    column.visible = True
    column.visible = False
    column.visible = True
    column.fill()
    assert calls == [1]
    assert [o.object for o in column.objects] == ["built"]


def test_a_lazy_tab_builds_its_content_once_on_fill():
    calls: list[int] = []
    content = pn.pane.Markdown("tab")

    def build():
        calls.append(1)
        return content

    tab = LazyTab(build)
    assert calls == [] and list(tab.objects) == [] and not tab.filled
    tab.fill()
    tab.fill()
    assert calls == [1] and list(tab.objects) == [content] and tab.filled


@pytest.fixture(scope="module")
def shared():
    return load_shared(CASES)


def test_a_session_builds_the_calibration_and_how_sure_tabs_when_opened(shared):
    session = ExplorerSession(shared)
    session.layout()
    tabs = session.tabs
    calibration, how_sure = tabs[1], tabs[2]
    assert isinstance(calibration, LazyTab) and isinstance(how_sure, LazyTab)
    assert not calibration.filled and not how_sure.filled  # the first page has neither
    tabs.active = 2
    assert how_sure.filled and not calibration.filled
    # the opening settings: 4/10 agree (seed 002), the figure the How sure tab reads out
    assert "4/10" in " ".join(str(getattr(o, "object", "")) for o in how_sure.select(pn.pane.HTML))
    tabs.active = 1
    assert calibration.filled
