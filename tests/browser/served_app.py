"""Start ``metric-explorer serve`` as a user would, in a real subprocess, and stop it again.

Used by the browser tests' fixtures and by ``bench/browser_latency.py``. The server gets
``BOKEH_RESOURCES=server`` (Bokeh/Panel JS and CSS from the local server, no CDN), a free port on
127.0.0.1, and its stderr goes to a temporary file that is shown when it fails to become ready.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Sequence

READY_TIMEOUT_S = 60.0
"""How long the server may take to answer ``GET /`` with 200 (cold start measured at ~2 s)."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve_command(cases: Path, port: int, extra_args: Sequence[str] = ()) -> list[str]:
    """The command line: the ``metric-explorer`` console script next to ``sys.executable``
    (the venv's), else ``python -m explorer.cli``; ``extra_args`` go after the usual options."""
    script = Path(sys.executable).with_name("metric-explorer")
    head = [str(script)] if script.is_file() else [sys.executable, "-m", "explorer.cli"]
    return [*head, "serve", "--cases", str(cases), "--port", str(port), "--address", "127.0.0.1", *extra_args]


class ServedApp:
    """A running ``metric-explorer serve`` on ``url`` (``http://127.0.0.1:<port>/``).

    Use as a context manager, or call :meth:`start` and :meth:`stop`. :meth:`start` raises
    RuntimeError with the server's stderr when it exits early or is not ready within
    ``READY_TIMEOUT_S`` seconds.
    """

    def __init__(self, cases: Path, cwd: Path | None = None, extra_args: Sequence[str] = (),
                 bokeh_resources: bool = True) -> None:
        self.cases = Path(cases)
        self.cwd = cwd
        self.extra_args = tuple(extra_args)
        self.bokeh_resources = bokeh_resources
        """False: the server starts without ``BOKEH_RESOURCES`` in its environment (``serve``
        must choose local resources itself, issue 15)."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self._proc: subprocess.Popen | None = None
        self._stderr_dir = tempfile.mkdtemp(prefix="metric-explorer-serve-")
        self._stderr_path = Path(self._stderr_dir) / "stderr.txt"

    def stderr(self) -> str:
        """What the server wrote to stderr so far (its log)."""
        try:
            return self._stderr_path.read_text(errors="replace")
        except OSError:
            return ""

    def start(self) -> "ServedApp":
        """Start the subprocess and wait until ``GET /`` answers 200."""
        return self.launch().wait_ready()

    def launch(self) -> "ServedApp":
        """Start the subprocess without waiting (several servers can start side by side)."""
        env = {**os.environ, "BOKEH_RESOURCES": "server", "PYTHONUNBUFFERED": "1"}
        if not self.bokeh_resources:
            env.pop("BOKEH_RESOURCES")
        with open(self._stderr_path, "wb") as err:
            self._proc = subprocess.Popen(
                serve_command(self.cases, self.port, self.extra_args),
                cwd=self.cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        return self

    def wait_ready(self) -> "ServedApp":
        """Wait until ``GET /`` answers 200; RuntimeError with the server's stderr otherwise."""
        assert self._proc is not None, "launch() first"
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(
                    f"metric-explorer serve exited with status {self._proc.returncode} before it was ready:\n"
                    + self.stderr()
                )
            if self._answers():
                return self
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"metric-explorer serve not ready on {self.url} after {READY_TIMEOUT_S:.0f} s:\n" + self.stderr())

    def _answers(self) -> bool:
        try:
            with urllib.request.urlopen(self.url, timeout=5) as response:
                return response.status == 200
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            return False

    @property
    def pid(self) -> int | None:
        """The server process's id (None before :meth:`launch`)."""
        return self._proc.pid if self._proc is not None else None

    def stop(self) -> None:
        """Terminate the server (kill after 10 s) and remove the stderr log."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout=10)
        shutil.rmtree(self._stderr_dir, ignore_errors=True)

    def __enter__(self) -> "ServedApp":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
