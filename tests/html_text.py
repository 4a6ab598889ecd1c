"""What a person reads in an HTML pane: the markup's text with tags dropped, entities decoded and
white space collapsed (for unit tests of views without a browser)."""

import html
import re


def shown(markup: str) -> str:
    """``'<b>All runs:</b> <span>4/10</span> agree'`` -> ``'All runs: 4/10 agree'``."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split()).replace(" :", ":")
