"""The replay's clock, run in the page (issue 15): the server sends the reveal times once and hears
from the page only when the revealed runs change or the person moves the clock.

:class:`ReplayClock` wraps the replay card (Play/Pause, Next event, Restart, Speed, the time slider,
``t = 25.0 s`` and the revealed-so-far line) and carries a small script (``replay_clock.js``) that
plays the replay in the browser: between reveals it moves the slider and the time texts itself,
sending nothing. Before, a periodic callback per playing session advanced the time on the server
every 100 ms, and 20 playing replays slowed everyone else's settings changes 3 to 4 times.

Protocol (all on this component's properties):

* server -> page, once: ``times`` (the distinct reveal times, s, from
  ``replay.reveal_times``), ``duration`` and ``speeds`` (the speed of each Speed button, in order);
* server -> page, whenever the server moves the clock (a settings change rewinds and pauses, Reset,
  the Python commands :meth:`ExplorerSession.toggle_play` and friends): ``time``, ``playing`` and
  ``epoch`` one higher; the page takes that state;
* page -> server: ``report = [epoch, time, playing]`` when Play or Pause is pressed, at each reveal
  while playing, at the end (60 s, paused), on Next event and Restart and when the slider is moved.
  A report made before the page saw the server's latest move carries an older ``epoch`` and is
  ignored, so a reveal reported while a settings change is on its way cannot undo its rewind.

The timeline rules are those of :mod:`explorer.core.evaluation.replay` (Play starts at the first
reveal when nothing is revealed yet and again from the start at the end; Next event pauses at the
next reveal time; the replay ends paused at 60 s), written again in the script.
"""

from __future__ import annotations

from pathlib import Path

import param
from panel.custom import Child, JSComponent

from ...core.evaluation.replay import DURATION


class ReplayClock(JSComponent):
    """The replay card with its clock in the page; ``strip`` is the card (it must hold the models
    of classes ``me-play``, ``me-next``, ``me-restart``, ``me-speed``, ``me-time``,
    ``me-time-label`` and ``me-replay-state``)."""

    strip = Child(doc="The replay card.")
    times = param.List(default=[], doc="Distinct reveal times, ascending (s).")
    duration = param.Number(default=DURATION, doc="Length of the replay (s).")
    speeds = param.List(default=[], doc="Replay seconds per wall second of each Speed button, in order.")
    time = param.Number(default=0.0, doc="The clock's time when the server last set or heard it (s).")
    playing = param.Boolean(default=False, doc="Whether the clock runs (as last set or heard).")
    epoch = param.Integer(default=0, doc="How many times the server has moved the clock.")
    report = param.List(default=[], doc="The page's last report: [epoch, time (s), playing].")

    _esm = Path(__file__).with_name("replay_clock.js")
