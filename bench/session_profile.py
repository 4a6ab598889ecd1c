"""Where a served session's server CPU goes (issue 9 item 11): build ``--n`` sessions in this
process as ``metric-explorer serve`` does (Panel's ``_eval_panel`` over the function ``pn.serve``
calls, in a Bokeh ``Document``, with Bokeh tuned as ``serve`` tunes it unless ``--as-shipped``),
then serialise each document as Bokeh does for the page's
``PULL-DOC`` (``Document.to_json``), under cProfile.

Usage::

    .venv/bin/python bench/session_profile.py                 # 10 sessions, top 40 by cumulative time
    .venv/bin/python bench/session_profile.py --n 5 --sort tottime --top 60 --out /tmp/session.prof
    .venv/bin/python bench/session_profile.py --no-profile --n 20 --as-shipped   # Bokeh without serve's tuning
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> int:
    """Build and serialise ``--n`` sessions; print the time per session and the profile."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--cases", default=None, help="case file (default: the bundled set)")
    ap.add_argument("--sort", default="cumulative")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--out", default=None, help="write the raw profile here")
    ap.add_argument("--no-profile", action="store_true", help="time only")
    ap.add_argument("--as-shipped", action="store_true", help="Bokeh as shipped: without serve's tuning (the defaults "
                    "cache, error diagnostics off, document validation off; explorer.commands.serve.tune_for_sessions)")
    ap.add_argument("--no-validation", action="store_true", help="Bokeh property validation off (what it costs; serve keeps it on)")
    ap.add_argument("--gc", default="", help="'freeze': gc.freeze() after loading; 'off': no collection while building; "
                    "'threshold=A,B,C': freeze and gc.set_threshold(A, B, C)")
    args = ap.parse_args()

    from bokeh.settings import settings
    settings.resources.set_value("server")
    import panel as pn
    from bokeh.document import Document
    from panel.io.application import _eval_panel

    from explorer.app.page import create_workspace_app
    from explorer.app.serving import page_builder
    from explorer.app.views.style import STYLESHEET
    from explorer.app.workspace import ProcessSets, shared_from_case_set
    from explorer.commands.common import BUNDLED_CASES
    from explorer.core.io.casefile import load_case_set

    path = args.cases or str(BUNDLED_CASES)
    pn.extension("tabulator", "filedropper", notifications=False)
    pn.config.css_files = [*pn.config.css_files, STYLESHEET]
    process = ProcessSets(shared_from_case_set(load_case_set(path)), path)
    make_page = page_builder(lambda: create_workspace_app(process))

    def one() -> int:
        doc = Document()
        _eval_panel(make_page, None, "Metric Trade-off Explorer", True, False, doc)
        return len(str(doc.to_json()))  # what PULL-DOC sends (its size, roughly)

    if not args.as_shipped:
        from explorer.commands.serve import tune_bokeh_for_sessions
        tune_bokeh_for_sessions()
    if args.no_validation:
        from bokeh.core.property.bases import Property
        Property._should_validate = False
    one()  # warm: imports, per-process caches
    import gc
    if args.gc == "freeze":
        gc.collect()
        gc.freeze()
    elif args.gc == "off":
        gc.disable()
    elif args.gc.startswith("threshold="):
        gc.collect()
        gc.freeze()
        gc.set_threshold(*(int(x) for x in args.gc.split("=", 1)[1].split(",")))
    prof = None if args.no_profile else cProfile.Profile()
    t0, c0 = time.perf_counter(), time.process_time()
    if prof:
        prof.enable()
    size = 0
    for _ in range(args.n):
        size = one()
    if prof:
        prof.disable()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"{args.n} sessions: {1000 * cpu / args.n:.0f} ms CPU per session ({1000 * wall / args.n:.0f} ms wall)"
          f"{' under cProfile' if prof else ''}; document JSON ~{size / 1024:.0f} KiB")
    if prof:
        if args.out:
            prof.dump_stats(args.out)
        pstats.Stats(prof).sort_stats(args.sort).print_stats(args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
