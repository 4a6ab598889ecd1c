"""What /proc says about the server processes the tests start (Linux)."""

from __future__ import annotations

import os


def children(pid: int) -> list[int]:
    """Process ids whose parent is ``pid``, from ``/proc/<id>/stat`` (processes that end while
    being read are left out)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except OSError:
                continue
    return out
