"""``metric-explorer serve``: serve the explorer web app, offline.

The case set is loaded and its features built once, before serving (and before ``--num-procs``
forks its workers, which share it); every browser session gets its own inputs and replay over that
shared, read-only data. Bokeh and Panel resources come from this server whatever the environment
(Bokeh's ``resources`` setting is set here, and every session, however it was created, points its
stylesheets here: ``explorer.app.serving``), no CDN and no web fonts; our CSS is served from
``static/`` at ``/assets``. ``/liveness`` answers once the server is up (for tests).

Sessions are built when the page's websocket connects, not when the page is requested (Panel's
``reuse_sessions``: the page's HTML comes from one cached session), so a worker process never
builds a session for a page whose websocket lands on the other worker, and a page whose websocket
opens late costs one build, not two (issue 15).
"""

from __future__ import annotations

import argparse
import os

from ..core.io.bigload import looks_like_flat_jsonl
from ..core.plural import counted
from .common import BUNDLED_CASES, CliError, add_date_reading_options, add_run_input_options, base_settings_from_args, load_cases_from_args, name_arg, whole_arg
from .trace_options import warn

HELP = "serve the explorer web app"
MAX_DEFAULT_PROCS = 2
DEFAULT_PROCS = max(1, min(MAX_DEFAULT_PROCS, os.cpu_count() or 1))
"""Worker processes by default: one per core, at most two (bench/workshop.py, docs/performance.md)."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``serve`` and its options."""
    p = sub.add_parser("serve", help=HELP, description=HELP)
    add_run_input_options(p)
    add_date_reading_options(p)
    p.add_argument("--port", type=whole_arg, default=5006, help="port to listen on (default 5006)")
    p.add_argument("--address", type=name_arg, default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--show", action="store_true", help="open a browser tab")
    p.add_argument("--num-procs", type=whole_arg, default=None, metavar="N",  # None: not given (DEFAULT_PROCS)
                   help=f"worker processes sharing the port (default {DEFAULT_PROCS}: one per core, at most "
                        f"{MAX_DEFAULT_PROCS}); a big file loading in the background is served by one")
    p.add_argument("--num-threads", type=whole_arg, default=0, metavar="N",
                   help="threads per process running session callbacks (Panel's thread pool; default 0: none)")
    p.set_defaults(func=run)


def worker_procs(num_procs: int | None, background_path: str | None) -> tuple[int, str | None]:
    """The worker processes ``serve`` runs and the note to print on stderr, if any.

    ``num_procs``: ``--num-procs`` as typed, None when not given (then :data:`DEFAULT_PROCS`);
    ``background_path``: the big JSONL file loading in the background, None when the case set is
    loaded before serving. A background load runs in a thread of this process, so workers forked
    while it runs would never see it: it is served by one process. Returns ``(procs, note)``:
    ``note`` is None unless more than one process was asked for with ``--num-procs`` and the file
    loads in the background, the one case where the value given is not used."""
    procs = DEFAULT_PROCS if num_procs is None else num_procs
    if background_path is None:
        return procs, None
    note = None
    if num_procs is not None and num_procs > 1:
        note = (f"note: --num-procs {num_procs} not used: {background_path!r} loads in the background in "
                "this process, so one process serves it (workers forked now would never see the load)")
    return 1, note


def allowed_origins(address: str, port: int) -> list[str]:
    """Websocket origins the server accepts: the listening host and localhost names on ``port``;
    any origin when listening on every interface (0.0.0.0 / ::)."""
    if address in ("0.0.0.0", "::", ""):
        return ["*"]
    hosts = {address, "localhost", "127.0.0.1"}
    return sorted(f"{h}:{port}" for h in hosts)


PR_SET_PDEATHSIG = 1
"""prctl(2) option: the signal a process gets when its parent ends (Linux)."""


def end_with_parent(parent: int) -> None:
    """Make this worker end (SIGTERM) when its parent process ``parent`` ends, as when the
    server is stopped with ``kill``/``terminate()``: Tornado's parent just exits and its workers
    would live on, orphaned, each holding the data (found in issue 15: tests and benchmarks left
    pairs of ~200 MB workers behind). Linux only (prctl); elsewhere nothing."""
    import ctypes
    import ctypes.util
    import signal

    name = ctypes.util.find_library("c")
    prctl = getattr(ctypes.CDLL(name) if name else None, "prctl", None)
    if prctl is None:
        return
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # the parent ended before the line above
        os.kill(os.getpid(), signal.SIGTERM)


def port_in_use(address: str, port: int) -> str | None:
    """Why ``address:port`` cannot be listened on (the OS's words), or None when it can. Binds and
    closes a socket *without* ``SO_REUSEPORT`` (with ``SO_REUSEADDR``, as Tornado binds: a port
    left in TIME_WAIT counts as free). The workers then bind theirs with ``SO_REUSEPORT``, which
    lets a second server of the same user share the port: without this check a second ``serve``
    on a busy port started anyway and the kernel split the room's pages between two case sets."""
    from tornado import netutil

    try:
        sockets = netutil.bind_sockets(port=port, address=address or None, reuse_port=False)
    except OSError as exc:
        return exc.strerror or str(exc)
    for sock in sockets:
        sock.close()
    return None


def fork_workers_with_own_sockets(procs: int) -> None:
    """Fork ``procs`` worker processes (Tornado's ``fork_processes``: the parent stays behind,
    restarting a worker that dies) and make the Bokeh server each worker starts bind its own
    socket with ``SO_REUSEPORT``, so that the kernel spreads new connections evenly over the
    workers (issue 15).

    With one listening socket shared by the workers (what ``pn.serve(num_procs=N)`` does) the
    worker that wakes first accepts a whole burst of connections: with 40 pages opened at once
    one worker held about 30 sessions and the other 10, and the first worker's queue set everyone's
    latency. Data loaded before this call is shared copy-on-write by the workers."""
    from bokeh.server import server as bokeh_server
    from tornado import netutil
    from tornado.process import fork_processes

    parent = os.getpid()
    fork_processes(procs)  # returns in each worker only
    end_with_parent(parent)

    def bind_own_socket(address: str | None, port: int):
        sockets = netutil.bind_sockets(port=port, address=address, reuse_port=True)
        return sockets, sockets[0].getsockname()[1]

    bokeh_server.bind_sockets = bind_own_socket  # the name Bokeh's Server calls when it starts


GC_THRESHOLDS = (10_000, 20, 20)
"""The collector's thresholds while serving (Python's default: 700, 10, 10). Building a session
allocates ~100,000 objects that live as long as the session; with the default thresholds the young
collections that keep moving them along cost ~15 % of a session's build (bench/session_profile.py)."""


KNOWN_HARMLESS_WARNING = r"reference already known '"
"""Start of the message of the BokehUserWarning that Bokeh's deserializer gives when a browser
event (here a file dropped on the upload zone) carries the full definition of a model the session
already has. Bokeh made it a warning instead of an error because the state is recoverable
(bokeh/bokeh#12915), and Panel silences it where it is known to occur (holoviz/panel#5007); on a
served page it says nothing a person running ``serve`` can act on."""


def quiet_known_bokeh_warnings() -> None:
    """Stop printing Bokeh's :data:`KNOWN_HARMLESS_WARNING` (that one message only: every other
    BokehUserWarning is still shown)."""
    import warnings

    from bokeh.util.warnings import BokehUserWarning

    warnings.filterwarnings("ignore", message=KNOWN_HARMLESS_WARNING, category=BokehUserWarning)


def tune_bokeh_for_sessions() -> None:
    """Bokeh's side of :func:`tune_for_sessions` (also what ``bench/session_profile.py`` measures):

    * Bokeh's check of each new session's whole document off (``perform_document_validation``,
      ``BOKEH_VALIDATE_DOC``): it walks every model for layout warnings a person never sees
      (empty layouts, missing renderers), ~9 % of a session's build in a served worker.
    * Bokeh's "expensive error diagnostics" off (``perform_error_diagnostics``,
      ``BOKEH_PERFORM_ERROR_DIAGNOSTICS``): with them on, every ``on_change`` Panel registers
      (~500 a page) has its callback's signature inspected, ~5 % of a build, to word an error
      for a developer's mistake that the tests would already show.
    * Bokeh's property defaults looked up once per model class (:mod:`explorer.app.bokeh_defaults`):
      ~20 % of a session's build.
    * Bokeh's ``simple_ids`` and ``serialize_include_defaults`` settings, read for every model
      made (its id) and serialised, fixed at the values they have now (the environment's, else
      Bokeh's default): unset, Bokeh looks each up in ``os.environ`` again, ~600 times a page.
    * The server's websockets send without Nagle's delay (:func:`explorer.app.serving.send_messages_at_once`):
      no frame of a message waits for the browser's delayed acknowledgement (in the browser a
      settings change measured the same, 86 ms median: Panel's 50 ms debounce is the longer wait).
    * Bokeh's one known harmless warning not printed (:func:`quiet_known_bokeh_warnings`).
    * Bokeh's *property* validation stays on although it is ~10 % of a build: Bokeh's ``Either``
      properties choose how to read a value by validating it (``is_valid``), and with validation
      off the sweep tab's heatmap never showed (tests/browser/test_browser_exports.py)."""
    from bokeh.settings import settings

    from ..app import bokeh_defaults
    from ..app.serving import send_messages_at_once

    send_messages_at_once()
    quiet_known_bokeh_warnings()
    settings.perform_document_validation.set_value(False)
    settings.perform_error_diagnostics.set_value(False)
    for read_per_model in (settings.simple_ids, settings.serialize_include_defaults):
        read_per_model.set_value(read_per_model())
    if not bokeh_defaults.install():
        print(f"metric-explorer: Bokeh's property defaults are not cached ({bokeh_defaults.installed()[1]}); "
              "pages cost ~20 % more server CPU", flush=True)


def tune_for_sessions() -> None:
    """Make building sessions cheaper in this process (issue 9 item 11: a room of 40 opening the
    link at once). Call once the served data is loaded, before forking the workers.

    * Bokeh tuned as :func:`tune_bokeh_for_sessions` says.
    * The objects alive now (the loaded case set, the imported modules) moved out of the
      collector's reach (``gc.freeze``): full collections no longer walk them, and the workers'
      copies of their pages stay shared; fewer young collections (:data:`GC_THRESHOLDS`)."""
    import gc

    tune_bokeh_for_sessions()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def run(args: argparse.Namespace) -> int:
    """Load the case set (LoadError -> exit 2 with one line), then serve until interrupted."""
    if not 1 <= args.port <= 65535:
        raise CliError(f"--port must be between 1 and 65535, got {args.port}")
    if args.num_procs is not None and args.num_procs < 1:
        raise CliError(f"--num-procs must be at least 1, got {args.num_procs}")
    if args.num_threads < 0:
        raise CliError(f"--num-threads must be 0 or more, got {args.num_threads}")
    busy = port_in_use(args.address, args.port)
    if busy is not None:
        raise CliError(f"cannot listen on {args.address}:{args.port}: {busy} (another server there? choose "
                       "another with --port)")
    if getattr(args, "own_process", False):
        from ..app.serving import use_system_malloc

        use_system_malloc()  # returns only when already done (or not possible): see its docstring
    from bokeh.settings import settings

    # offline: Bokeh/Panel JS and CSS from this server, whatever BOKEH_RESOURCES says (a value set
    # here outranks the environment)
    settings.resources.set_value("server")
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
    from ..app.serving import page_builder, page_request_key
    from ..app.views.style import ASSETS_ROUTE, STATIC_DIR, STYLESHEET

    pn.extension("tabulator", "filedropper", notifications=False)
    pn.config.css_files = [*pn.config.css_files, STYLESHEET]
    pn.config.reuse_sessions = True  # a page request renders from a cached session; sessions build on connection
    pn.config.session_key_func = page_request_key  # one cached session, whatever the URL's query
    pn.config.nthreads = args.num_threads or None
    procs, note = worker_procs(args.num_procs, None if process is not None else str(served_path))
    if note is not None:
        warn(note)
    if process is not None:
        served = process.served
        print(f"metric-explorer: serving {served.case_set.name!r} ({counted(served.features.n, 'run')}) at "
              f"http://{args.address}:{args.port}/" + (f" with {procs} worker processes" if procs > 1 else ""), flush=True)
        make_page = page_builder(lambda: create_workspace_app(process))
    else:
        job = BackgroundLoad(load, str(served_path)).start()
        print(f"metric-explorer: loading {served_path!r} in the background; serving at "
              f"http://{args.address}:{args.port}/ (a progress bar shows until it is loaded)", flush=True)
        make_page = page_builder(lambda: waiting_page(job, create_workspace_app))
    tune_for_sessions()
    if procs > 1:
        fork_workers_with_own_sockets(procs)
    pn.serve(
        make_page,
        num_procs=1,
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

