"""``metric-explorer serve``: bad input exits 2 with one line; a served app answers /liveness,
serves our stylesheet and references no other host (offline)."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from explorer.cli import main
from explorer.commands.serve import allowed_origins

ROOT = Path(__file__).resolve().parents[1]


def test_origins_are_the_local_names_on_the_port():
    assert allowed_origins("127.0.0.1", 5077) == ["127.0.0.1:5077", "localhost:5077"]
    assert allowed_origins("192.168.1.5", 80) == ["127.0.0.1:80", "192.168.1.5:80", "localhost:80"]
    assert allowed_origins("0.0.0.0", 5006) == ["*"]


def test_missing_case_file_exits_2_with_one_line(tmp_path, capsys):
    missing = tmp_path / "nope.json"
    assert main(["serve", "--cases", str(missing), "--port", "5999"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert str(missing) in err and "cannot read" in err


def test_bad_case_file_names_the_json_path(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "metric-explorer/cases@1", "name": "x", "description": "", "runs": []}')
    assert main(["serve", "--cases", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(bad) in err


def test_port_out_of_range_exits_2(capsys):
    assert main(["serve", "--port", "70000"]) == 2
    assert "--port must be between 1 and 65535" in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, str, str]:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read().decode("utf-8", "replace")


@pytest.fixture(scope="module")
def served():
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "explorer.cli", "serve", "--port", str(port)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"serve exited early: {proc.stderr.read().decode(errors='replace')}")
        try:
            if _get(base + "/liveness")[0] == 200:
                break
        except OSError:
            time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail("serve did not answer /liveness within 60 s")
    yield base
    proc.terminate()
    proc.wait(timeout=10)


def test_liveness_and_stylesheet(served):
    status, _, body = _get(served + "/liveness")
    assert status == 200 and "true" in body
    status, ctype, css = _get(served + "/assets/explorer.css")
    assert status == 200 and ctype.startswith("text/css") and ".me-card" in css
    assert "@import" not in css and "url(http" not in css  # no web fonts or remote images


def test_page_loads_nothing_from_other_hosts(served):
    status, _, page = _get(served + "/")
    assert status == 200
    assert "/assets/explorer.css" in page
    refs = re.findall(r'(?:src|href)="([^"]*)"', page)
    assert refs and all(not re.match(r"^(https?:)?//", ref) for ref in refs), refs


def _second_serve(port: int, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "explorer.cli", "serve", "--port", str(port), *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("procs", ["2", "1"])
def test_a_second_serve_on_a_busy_port_exits_2_with_one_line(served, procs):
    """Found by a newcomer trial: with the default two workers (each binding with SO_REUSEPORT) a
    second ``serve`` on the first one's port started and shared it, the kernel sending some
    pages to each case set; with ``--num-procs 1`` it printed "serving" and then a traceback."""
    port = int(served.rsplit(":", 1)[1])
    second = _second_serve(port, "--num-procs", procs)
    assert second.returncode == 2
    err = second.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"cannot listen on 127.0.0.1:{port}" in err and "--port" in err
    assert "serving" not in second.stdout
    assert _get(served + "/liveness")[0] == 200  # the first server still answers, alone


def test_a_port_held_by_another_program_exits_2():
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        second = _second_serve(held.getsockname()[1])
    assert second.returncode == 2 and "cannot listen on 127.0.0.1:" in second.stderr


def test_ctrl_c_stops_serve_without_a_traceback():
    """Found by a newcomer trial: Ctrl-C (SIGINT to the terminal's process group, as the README
    says to stop ``make run``) printed a traceback from the parent's wait for its two workers
    (``tornado.process.fork_processes``). Now one line, status 130, and no worker left behind."""
    import os
    import signal

    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "explorer.cli", "serve", "--port", str(port), "--num-procs", "2"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if _get(f"http://127.0.0.1:{port}/liveness")[0] == 200:
                break
        except OSError:
            time.sleep(0.2)
    else:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("serve did not answer /liveness within 60 s")
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal sends to the whole group on Ctrl-C
    try:
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert proc.returncode == 130
    assert "metric-explorer: stopped" in err
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the workers end with their parent: the port is free again
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) != 0:
                break
        time.sleep(0.2)
    else:
        pytest.fail("a worker still listens after Ctrl-C")


def test_only_bokehs_known_harmless_warning_is_quieted():
    """After ``quiet_known_bokeh_warnings`` Bokeh's "reference already known" warning (what a
    file dropped on the page made Bokeh print, bokeh/bokeh#12915) is not shown; any other
    BokehUserWarning still is."""
    import warnings

    from bokeh.util.warnings import BokehUserWarning

    from explorer.commands.serve import quiet_known_bokeh_warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        quiet_known_bokeh_warnings()
        warnings.warn("reference already known 'p1344'", BokehUserWarning)
        warnings.warn("ColumnDataSource's columns must be of the same length", BokehUserWarning)
    assert [str(w.message) for w in seen] == ["ColumnDataSource's columns must be of the same length"]
