"""The "Response scorer" input (issue 5): which scorer judges the answer text, the rung for exact
and the cascade, the cascade's two bands, and the embedding model that made any cosine shown.

Widgets are bound to :class:`explorer.app.state.Inputs` (``response_scorer``, ``rung``,
``pass_above``, ``fail_below``), so a change goes through the session's one recompute. Moving a
band is numpy work on the case set's cached columns (:mod:`explorer.core.evaluation.response_features`).
"""

from __future__ import annotations

import html

import panel as pn

from ...core.scoring.embedding import EmbedderIdentity
from ..state import Inputs
from .style import WRAP, LiveHTML, inline_label, not_busy, styled, write_through

USES_RUNG = ("exact", "cascade")
RUNG_HELP = (
    "How much both texts are tidied before they are compared (each level adds to the one before): "
    "1 spaces, 2 letter case, 3 punctuation at the ends, 4 dates and numbers written one way."
)
USES_EMBEDDING = ("cosine", "cascade")


def model_html(identity: EmbedderIdentity | None, unavailable: str = "") -> str:
    """One line naming the embedding model, its backend and weights hash (or why there is none)."""
    if unavailable:
        return f'<div class="me-model-missing">Embedding similarity unavailable: {html.escape(unavailable)}</div>'
    if identity is None:
        return '<div class="me-model">Embedding model: loaded on first use</div>'
    return (
        f'<div class="me-model">Embedding model <b>{html.escape(identity.model)}</b> · backend '
        f"{html.escape(identity.backend)} · weights sha256 <code>{html.escape(identity.weights_sha256[:16])}</code></div>"
    )


class ResponseInputs:
    """The card; :meth:`show_model` updates the model line (the session calls it after each
    evaluation, when the embedder may have loaded)."""

    def __init__(self, inputs: Inputs, follow: bool = True) -> None:
        self.inputs = inputs
        p = inputs.param
        self.scorer = pn.widgets.Select.from_param(
            p.response_scorer, label="", css_classes=["me-response-scorer"], sizing_mode="stretch_width", margin=(2, 10, 0, 2),
        )
        self.rung = pn.widgets.IntSlider.from_param(
            p.rung, label="Normalisation level", start=1, end=4, step=1, css_classes=["me-rung"],
            sizing_mode="stretch_width",
        )
        self.rung_help = LiveHTML(f'<div class="me-hint">{html.escape(RUNG_HELP)}</div>', css_classes=["me-rung-help"],
                                      **styled(margin=(0, 10), sizing_mode="stretch_width"))
        self.pass_above = pn.widgets.FloatSlider.from_param(
            p.pass_above, label="Pass above (cosine ≥)", start=0.0, end=1.0, step=0.01, format="0.00",
            css_classes=["me-pass-above"], sizing_mode="stretch_width",
        )
        self.fail_below = pn.widgets.FloatSlider.from_param(
            p.fail_below, label="Fail below (cosine <)", start=0.0, end=1.0, step=0.01, format="0.00",
            css_classes=["me-fail-below"], sizing_mode="stretch_width",
        )
        self.model = LiveHTML("", css_classes=["me-embedding-model"], **styled(margin=(4, 10), sizing_mode="stretch_width"))
        self.hint = LiveHTML("", css_classes=["me-response-hint"], **styled(margin=(0, 10), sizing_mode="stretch_width"))
        inputs.param.watch(self._keep_bands_ordered, ["pass_above", "fail_below"])
        not_busy(self.scorer, self.rung, self.pass_above, self.fail_below)
        if follow:  # else the owner calls :meth:`follow` after each change (one message, see InputsView)
            inputs.param.watch(self._visibility, ["response_scorer"])
        self._visibility()

    def follow(self) -> None:
        """Show the controls of the chosen response scorer (sets only what differs)."""
        self._visibility()

    def _keep_bands_ordered(self, *events) -> None:
        """Moving one band past the other drags the other along (fail-below <= pass-above)."""
        i = self.inputs
        if i.fail_below > i.pass_above:
            if {e.name for e in events} == {"fail_below"}:
                i.pass_above = i.fail_below
            else:
                i.fail_below = i.pass_above

    def _visibility(self, *_events) -> None:
        name = self.inputs.response_scorer
        for widget, visible in ((self.rung, name in USES_RUNG), (self.rung_help, name in USES_RUNG),
                                (self.pass_above, name == "cascade"), (self.fail_below, name == "cascade"),
                                (self.model, name in USES_EMBEDDING)):
            write_through(widget, visible=visible)  # only what differs: this runs on every settings change
        # the default says nothing the threshold's label does not
        self.hint.show(visible=name != "f1", text={
            "f1": "",
            "rouge1": '<div class="me-hint">ROUGE-1 F as ADK\'s response_match_score ≥ the threshold above.</div>',
            "exact": '<div class="me-hint">1 when the answer equals a reference after normalising to the level below, else 0.</div>',
            "cosine": '<div class="me-hint">Embedding cosine ≥ the threshold above.</div>',
            "cascade": '<div class="me-hint">Normalised exact → pass; a field rule fails → fail; cosine ≥ pass-above → pass; '
            "cosine &lt; fail-below → fail; in between → the review queue.</div>",
        }[name])

    def show_model(self, identity: EmbedderIdentity | None, unavailable: str = "") -> None:
        """Show the embedding model line (or the install hint when the extra is missing)."""
        self.model.show(model_html(identity, unavailable), visible=self.inputs.response_scorer in USES_EMBEDDING or bool(unavailable))

    def panel(self) -> pn.Column:
        """The response-scorer group (inside the settings card)."""
        label = LiveHTML('<div class="me-label me-label-inline" title="What scores the answer text against the reference(s)">Response scorer</div>',
                         **inline_label(126, margin=(9, 0, 0, 10)))
        return pn.Column(
            pn.Row(label, self.scorer, sizing_mode="stretch_width", margin=0, styles=WRAP),
            self.hint,
            self.rung,
            self.rung_help,
            self.pass_above,
            self.fail_below,
            self.model,
            css_classes=["me-response-inputs"],
            sizing_mode="stretch_width",
            margin=(6, 0, 0, 0),
        )
