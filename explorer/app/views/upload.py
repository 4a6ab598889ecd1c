"""Upload a run file (drag and drop) and the load-error line.

A file whose header is a labels CSV (``run_id,human_verdict,...``) applies labels to the active
case set; any other file is read as runs (format detected). The page decides what to do with it;
this view only hands over ``(name, bytes)`` once per uploaded file and shows errors.
"""

from __future__ import annotations

import html
from typing import Callable

import panel as pn

from .style import styled


class UploadView:
    """A ``FileDropper`` (``me-upload``) and the error pane (``me-load-error``). ``received(name,
    data)`` is called once for each file as it finishes uploading."""

    def __init__(self, received: Callable[[str, bytes], None]) -> None:
        self._received = received
        self._seen: dict[str, int] = {}
        self.dropper = pn.widgets.FileDropper(
            multiple=True, css_classes=["me-upload"], layout="compact", width=330, height=80,
        )
        self.dropper.param.watch(self._on_value, ["value"])
        self.error = pn.pane.HTML("", css_classes=["me-load-error"], visible=False, **styled(sizing_mode="stretch_width", min_width=700))
        self.status = pn.pane.HTML("", css_classes=["me-load-status"], **styled(margin=(2, 10)))

    def _on_value(self, _event: object) -> None:
        for name, content in list(self.dropper.value.items()):
            if self._seen.get(name) == id(content):
                continue
            self._seen[name] = id(content)
            data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
            self._received(name, data)

    def show_error(self, message: str | None) -> None:
        """Show ``message`` (escaped; one line naming file, location and field), or hide the pane."""
        if message:
            self.error.object = (
                f'<div class="me-load-error-box"><b>Could not load</b> {html.escape(message)}'
                "<div class=\"me-hint\">Nothing changed: the case set, labels and settings are as they were.</div></div>"
            )
        self.error.visible = bool(message)

    def show_status(self, text: str) -> None:
        """A short line after a successful load (escaped)."""
        self.status.object = f'<div class="me-sub">{html.escape(text)}</div>' if text else ""
