"""Bokeh's property defaults kept per model class (``explorer.app.bokeh_defaults``, issue 9 item
11): what Bokeh builds and sends is the same as without it.

Each test runs the page (or the models) once with Bokeh as shipped and once with the cache, in this
process, and compares. Model ids differ between builds (a process-wide counter), so documents are
compared with every id renamed in order of first appearance."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from bokeh.core.json_encoder import serialize_json
from bokeh.document import Document
from bokeh.models import Div, Plot, Range1d
from bokeh.themes import Theme

from explorer.app import bokeh_defaults


PARAM_NAME = re.compile(r"([A-Za-z]+)[0-9]{5,}")
"""param's default name of an object, ``Row00477``: its class and a process-wide counter."""


@pytest.fixture
def cache_off_after():
    """Each test leaves Bokeh as shipped (other tests in the process expect it)."""
    bokeh_defaults.uninstall()
    yield
    bokeh_defaults.uninstall()


def _renamed(doc_json: Any) -> str:
    """The document JSON with model ids ``p123`` replaced by ``m0, m1, ...`` in order of appearance,
    Python object ids (``id()``, past 2**40) by one word and param's counters by ``#``."""
    names: dict[str, str] = {}

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if key == "id" and isinstance(value, str):
                    value = names.setdefault(value, f"m{len(names)}")
                out[key] = walk(value)
            return out
        if isinstance(node, list):
            return [walk(v) for v in node]
        if isinstance(node, str) and node in names:
            return names[node]
        if isinstance(node, str) and node.startswith("__ref:"):  # Panel's tag naming the root model
            return "__ref:" + names.setdefault(node[6:], f"m{len(names)}")
        if isinstance(node, str) and PARAM_NAME.fullmatch(node):
            return PARAM_NAME.sub(r"\1#", node)  # param's default name: class and a process-wide counter
        if isinstance(node, int) and not isinstance(node, bool) and node > 2**40:
            return "python-id"  # id() of a Python object (Panel's links name their callbacks so)
        return node

    return json.dumps(walk(doc_json), sort_keys=True)


def _page_json() -> str:
    """One served page of the bundled set, built as ``serve`` builds it, as PULL-DOC sends it."""
    import panel as pn
    from panel.io.application import _eval_panel

    from explorer.app.page import create_workspace_app
    from explorer.app.serving import page_builder
    from explorer.app.workspace import ProcessSets, shared_from_case_set
    from explorer.commands.common import BUNDLED_CASES
    from explorer.core.io.casefile import load_case_set

    pn.extension("tabulator", "filedropper", notifications=False)
    process = ProcessSets(shared_from_case_set(load_case_set(str(BUNDLED_CASES))), str(BUNDLED_CASES))
    doc = Document()
    _eval_panel(page_builder(lambda: create_workspace_app(process)), None, "Metric Trade-off Explorer", True, False, doc)
    return _renamed(json.loads(serialize_json(doc.to_json())))


def test_a_served_page_serialises_the_same_with_and_without_the_cache(cache_off_after):
    _page_json()  # first build of the process: imports, Panel's own per-process caches
    shipped = _page_json()
    assert _page_json() == shipped  # the comparison itself is repeatable
    assert bokeh_defaults.install() and bokeh_defaults.installed() == (True, "")
    cached_first, cached_again = _page_json(), _page_json()  # filling the cache, then reading it
    assert cached_first == shipped
    assert cached_again == shipped
    assert '"m200"' in shipped  # the page really has its ~260 models (a renaming that lost them would compare equal)


def test_container_defaults_stay_one_per_model(cache_off_after):
    bokeh_defaults.install()
    a, b = Div(), Div()
    a.css_classes.append("only-a")
    assert b.css_classes == [] and a.css_classes == ["only-a"]
    assert Div().css_classes == []


def test_defaults_made_by_a_function_are_made_for_each_model(cache_off_after):
    bokeh_defaults.install()
    one, two = Plot(x_range=Range1d(), y_range=Range1d()), Plot(x_range=Range1d(), y_range=Range1d())
    assert one.toolbar is not two.toolbar  # Plot.toolbar defaults to InstanceDefault(Toolbar)


def test_scalar_defaults_and_class_overrides_read_as_bokeh_gives_them(cache_off_after):
    shipped = {(type(m).__name__, name): getattr(m, name) for m in (Div(), Plot()) for name in ("text", "width", "height", "visible", "sizing_mode") if hasattr(m, name)}
    bokeh_defaults.install()
    for _ in range(2):  # the first read fills the cache, the second reads it
        cached = {(type(m).__name__, name): getattr(m, name) for m in (Div(), Plot()) for name in ("text", "width", "height", "visible", "sizing_mode") if hasattr(m, name)}
        assert cached == shipped
    assert shipped[("Plot", "width")] == 600 and shipped[("Div", "text")] == ""  # Bokeh 3's documented defaults


def test_a_theme_still_overrides_a_cached_default(cache_off_after):
    bokeh_defaults.install()
    assert Div().width is None  # cached: Div's own default
    doc = Document()
    doc.theme = Theme(json={"attrs": {"Div": {"width": 321}}})
    themed = Div()
    doc.add_root(themed)
    assert themed.width == 321 and Div().width is None


def test_uninstall_puts_bokehs_own_lookups_back(cache_off_after):
    from bokeh.core.property.bases import Property

    shipped = Property.themed_default
    bokeh_defaults.install()
    assert Property.themed_default is not shipped and bokeh_defaults.install()  # idempotent
    bokeh_defaults.uninstall()
    assert Property.themed_default is shipped and bokeh_defaults.installed()[0] is False


def test_a_page_whose_build_raises_shows_one_escaped_line_not_the_traceback(capsys):
    # Panel's own error page put the traceback, unescaped, into the page: the server's paths, and
    # any text of the link the error carried as markup (found with a link's arg_rules nested
    # 2,000 deep, which raised RecursionError while the page was built)
    import panel as pn
    from panel.io.application import _eval_panel

    from explorer.app.serving import page_builder

    def build():
        raise ValueError('<img src=x onerror="alert(1)"> from /srv/secret/path.py')

    pn.extension(notifications=False)
    doc = Document()
    _eval_panel(page_builder(build), None, "Metric Trade-off Explorer", True, False, doc)
    shipped = serialize_json(doc.to_json())
    assert "<img" not in shipped and "/srv/secret/path.py" not in shipped and "Traceback" not in shipped
    assert "This page could not be built (ValueError): the server" in shipped
    err = capsys.readouterr().err
    assert "Traceback" in err and "/srv/secret/path.py" in err  # the details stay in the server's log
