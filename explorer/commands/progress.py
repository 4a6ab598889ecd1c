"""A progress bar on stderr while a big run file loads (``tqdm``; hidden when stderr is not a
terminal, so logs and pipes stay clean)."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Callable, Iterator

from tqdm import tqdm

from ..core.io.bigload import load_jsonl_features
from ..core.io.model import CaseSet
from ..core.scoring.arg_rules import ArgRules
from ..core.visible import visible
from .terminal import unwrapped


def load_big_jsonl(
    path: str | os.PathLike[str], also: Callable[[int, int], None] | None = None, arg_rules: ArgRules | None = None
) -> CaseSet:
    """:func:`explorer.core.io.bigload.load_jsonl_features` with a bar counting MB read, parsed and
    featurised (trajectory scores under ``arg_rules``); ``also(done, total)`` (bytes), when given,
    is called too (the app's progress bar while ``serve`` loads). Raises LoadError."""
    with byte_bar(f"loading {os.path.basename(str(path))}", also) as progress:
        return load_jsonl_features(path, progress=progress, arg_rules=arg_rules)


@contextmanager
def byte_bar(desc: str, also: Callable[[int, int], None] | None = None) -> Iterator[Callable[[int, int], None]]:
    """A ``progress(done, total)`` callback (bytes) drawing a tqdm bar on stderr (hidden when
    stderr is not a terminal); ``also(done, total)`` is called too when given."""
    # the terminal itself, not the CLI's escaping stream (terminal.visible_output): the bar is
    # drawn with CR and ESC sequences, and the file name in its label is escaped instead
    with tqdm(total=None, unit="B", unit_scale=True, desc=visible(desc), file=unwrapped(sys.stderr), disable=None,
              leave=False) as bar:

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()
            if also is not None:
                also(done, total)

        yield progress
