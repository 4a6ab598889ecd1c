"""argparse types of the options that take text: a path or a name, never empty.

An empty value was taken as given: ``--out ''`` as no ``--out`` (the bytes went to stdout),
``--cases ''`` as the current folder (".: is a folder"), ``--locale ''`` as no locale. (Numbers
have their own types in :mod:`.common`.) A module of its own: :mod:`.trace_options` needs them and
:mod:`.common` imports it.
"""

from __future__ import annotations

import argparse


def _empty(text: str) -> str:
    return "an empty string" if not text else repr(text)


def path_arg(text: str) -> str:
    """argparse type of every PATH option and argument: the text as given, unless it is empty or
    blank (``--out ''`` wrote to stdout, ``--cases ''`` read the current folder, ``featurize --out
    ''`` would have replaced it) or holds a NUL character (no file name can)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a path, got {_empty(text)}")
    if "\0" in text:
        raise argparse.ArgumentTypeError(f"a path cannot hold a NUL character: {text!r}")
    return text


def name_arg(text: str) -> str:
    """argparse type of options naming something (``--locale``, ``--single-tool``, ``--join-key``,
    ``--annotator``, ``--address`` ...): the text as given, unless empty or blank (``--locale ''``
    was taken as no locale, ``--single-tool ''`` as a tool with no name)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a name, got {_empty(text)}")
    return text
