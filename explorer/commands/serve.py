"""``metric-explorer serve``: serve the explorer web app, offline.

The case set is loaded and its features built once per server process, before serving; every
browser session gets its own inputs and replay over that shared, read-only data. Bokeh and Panel
resources come from this server (``BOKEH_RESOURCES=server``), no CDN and no web fonts; our CSS is
served from ``static/`` at ``/assets``. ``/liveness`` answers once the server is up (for tests).
"""

from __future__ import annotations

import argparse
import os

from ..core.io.bigload import looks_like_flat_jsonl
from .common import BUNDLED_CASES, CliError, add_date_reading_options, add_run_input_options, base_settings_from_args, load_cases_from_args

HELP = "serve the explorer web app"


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``serve`` and its options."""
    p = sub.add_parser("serve", help=HELP, description=HELP)
    add_run_input_options(p)
    add_date_reading_options(p)
    p.add_argument("--port", type=int, default=5006, help="port to listen on (default 5006)")
    p.add_argument("--address", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--show", action="store_true", help="open a browser tab")
    p.set_defaults(func=run)


def allowed_origins(address: str, port: int) -> list[str]:
    """Websocket origins the server accepts: the listening host and localhost names on ``port``;
    any origin when listening on every interface (0.0.0.0 / ::)."""
    if address in ("0.0.0.0", "::", ""):
        return ["*"]
    hosts = {address, "localhost", "127.0.0.1"}
    return sorted(f"{h}:{port}" for h in hosts)


def run(args: argparse.Namespace) -> int:
    """Load the case set (LoadError -> exit 2 with one line), then serve until interrupted."""
    if not 1 <= args.port <= 65535:
        raise CliError(f"--port must be between 1 and 65535, got {args.port}")
    os.environ["BOKEH_RESOURCES"] = "server"  # offline: Bokeh/Panel JS and CSS from this server
    from ..app.workspace import ProcessSets, shared_from_case_set

    # the same run inputs as ``score``: repeatable --cases, --input-format, --labels, --settings
    defaults = base_settings_from_args(args) if getattr(args, "settings", None) else None
    served_path = (args.cases[0] if len(args.cases) == 1 else None) if args.cases else str(BUNDLED_CASES)

    def load(progress=None) -> ProcessSets:
        return ProcessSets(shared_from_case_set(load_cases_from_args(args, progress), defaults, args.day_first), served_path)

    # a big JSONL file loads in the background while the page shows a progress bar (issue 6)
    big = served_path is not None and looks_like_flat_jsonl(served_path, getattr(args, "input_format", "auto"))
    process = None if big else load()

    import panel as pn

    from ..app.loading import BackgroundLoad, waiting_page
    from ..app.page import create_workspace_app
    from ..app.views.style import ASSETS_ROUTE, STATIC_DIR, STYLESHEET

    pn.extension("tabulator", "filedropper", notifications=False)
    pn.config.css_files = [*pn.config.css_files, STYLESHEET]
    if process is not None:
        served = process.served
        print(f"metric-explorer: serving {served.case_set.name!r} ({served.features.n} runs) at "
              f"http://{args.address}:{args.port}/", flush=True)
        make_page = lambda: create_workspace_app(process)  # noqa: E731
    else:
        job = BackgroundLoad(load, str(served_path)).start()
        print(f"metric-explorer: loading {served_path!r} in the background; serving at "
              f"http://{args.address}:{args.port}/ (a progress bar shows until it is loaded)", flush=True)
        make_page = lambda: waiting_page(job, create_workspace_app)  # noqa: E731
    pn.serve(
        make_page,
        port=args.port,
        address=args.address,
        websocket_origin=allowed_origins(args.address, args.port),
        static_dirs={ASSETS_ROUTE: str(STATIC_DIR)},
        show=args.show,
        title="Metric Trade-off Explorer",
        liveness=True,
        threaded=False,
    )
    return 0

