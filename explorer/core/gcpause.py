"""Pausing Python's cyclic garbage collector while a loader builds many objects that hold no cycles.

CPython runs a collection of the youngest generation every 700 net allocations of container
objects, and of the oldest generation when the objects that survived grew by a quarter; while a
loader builds a few hundred thousand dicts, tuples and dataclasses from a parsed file, each of
those passes walks objects that are all still alive, so the passes cost time for nothing: loading a
50 MB case set (32,000 runs) took 6.9 CPU-s with the collector on and 1.3 with it paused
(``docs/performance.md``; the JSONL chunk worker and partitions pause it too). The objects a
load builds (parsed JSON, schema models, runs) are freed by reference counting when dropped; any
garbage with cycles made meanwhile (a trace's span tree, say) is collected by the first pass
after the block.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the ``with`` block with the cyclic collector disabled, re-enabling it afterwards only
    when it was enabled before: a block nested in another, or started in another thread while one
    runs, found it off and leaves it off; the block that found it on turns it back on (in a server,
    another session's thread runs without collection passes meanwhile, which changes no result).
    Garbage with cycles made inside the block is collected by the first collection after it.
    Never raises on its own."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
