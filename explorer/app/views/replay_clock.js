// The replay clock, run in the page (issue 15). explorer/app/views/replay_clock.py explains the
// protocol; the timeline rules mirror explorer/core/evaluation/replay.py (revealed_count,
// next_event_time, play_start_time, advance), which the server uses for the same moves.
//
// Between reveals nothing is sent: the time label, the slider, the "t = ... s" of the replay line
// and the Play/Pause label are updated here without syncing (setv with sync: false). The server
// hears [epoch, time, playing] (the `report` property) when the revealed set changes, when the
// replay pauses, ends or jumps (Next event, Restart, a dragged slider) and when Play is pressed.

const EPS = 1e-6          // replay.TIME_EPS: a reveal at t counts at t + EPS (slider floats)
const TICK_MS = 100       // display refresh while playing
const T_TEXT = /t = -?[0-9.]+ s/g

function esc(s) {         // Panel's HTML panes carry their markup escaped
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
          .replace(/"/g, "&quot;").replace(/'/g, "&#x27;")
}

function unesc(s) {
  return s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"')
          .replace(/&#x27;/g, "'").replace(/&amp;/g, "&")
}

function findModel(model, cls) {
  if (model == null) return null
  if ((model.css_classes || []).includes(cls)) return model
  for (const child of model.children || []) {
    const hit = findModel(child, cls)
    if (hit != null) return hit
  }
  return null
}

export function render({ model, data, el, view }) {
  el.append(model.get_child("strip"))
  const strip = data.strip
  const slider = findModel(strip, "me-time")
  const label = findModel(strip, "me-time-label")
  const line = findModel(strip, "me-replay-state")
  const play = findModel(strip, "me-play")
  const speed = findModel(strip, "me-speed")

  // --- the timeline (replay.py) ------------------------------------------------------------
  const times = () => data.times                  // distinct reveal times, ascending
  const duration = () => data.duration
  const revealed = (t) => times().filter((x) => x <= t + EPS).length
  const nextEvent = (t) => { const later = times().filter((x) => x > t + EPS); return later.length ? later[0] : duration() }
  const playStart = (t) => {
    if (t >= duration() - EPS) t = 0
    return times().length && revealed(t) === 0 ? times()[0] : t
  }
  const rate = () => { const s = data.speeds[speed != null ? speed.active : -1]; return s == null ? 1 : s }

  // --- state: the time at wall time w0 was t0, advancing at `speedNow` while playing -----------
  let epoch = data.epoch
  let playing = data.playing
  let t0 = data.time, w0 = performance.now(), speedNow = rate()
  let timer = null
  let writing = false
  const now = () => {
    if (!playing) return t0
    return Math.min(Math.max(t0 + (performance.now() - w0) / 1000 * speedNow, 0), duration())
  }

  function show(t) {
    const text = (m) => (m == null ? null : esc(unesc(m.text).replace(T_TEXT, `t = ${t.toFixed(1)} s`)))
    writing = true
    try {
      if (slider != null) slider.setv({ value: t }, { sync: false })
      if (label != null) label.setv({ text: text(label) }, { sync: false })
      if (line != null) line.setv({ text: text(line) }, { sync: false })
      if (play != null) play.setv({ label: playing ? "Pause" : "Play" }, { sync: false })
    } finally {
      writing = false
    }
  }

  function report(t) {           // one message to the server
    data.report = [epoch, t, playing]
  }

  function go(t, play_on) {      // set the clock at t, playing or not, and show it
    t0 = Math.min(Math.max(t, 0), duration())
    w0 = performance.now()
    speedNow = rate()
    playing = play_on
    if (playing && timer == null) timer = setInterval(tick, TICK_MS)
    if (!playing && timer != null) { clearInterval(timer); timer = null }
    show(t0)
  }

  function tick() {
    const before = revealed(t0)
    const t = now()
    if (t >= duration() - EPS) {           // the end: paused at the last second
      go(duration(), false)
      report(duration())
      return
    }
    show(t)
    if (revealed(t) !== before) {          // a reveal: the server shows the newly revealed runs
      t0 = t; w0 = performance.now()
      report(t)
    }
  }

  // --- what the person does --------------------------------------------------------------------
  const pressed = (event, cls) => {
    const path = event.composedPath()
    const i = path.findIndex((n) => n.classList != null && n.classList.contains(cls))
    return i > 0 && path.slice(0, i).some((n) => n.tagName === "BUTTON" && !n.disabled)
  }
  // clicks are caught on their way down (capture) and handled here alone: the buttons' own click
  // event would be one more message to the server
  // Play's tooltip is hidden on a click or tap, and again once its delay has passed (as
  // style.hide_tooltip_on_click does for the other buttons, whose click event is not stopped):
  // a tap enters the button and never leaves it, so the tooltip stayed up over the page
  const hideTip = (button) => {
    const tip = button != null ? button.tooltip : null
    if (tip == null) return
    tip.visible = false
    setTimeout(() => { tip.visible = false }, (button.tooltip_delay || 0) + 100)
  }
  el.addEventListener("click", (event) => {
    let t = null
    if (pressed(event, "me-play")) {
      hideTip(play)
      if (playing) { t = now(); go(t, false) }
      else { t = playStart(now()); go(t, true) }
    } else if (pressed(event, "me-next")) {
      t = nextEvent(now()); go(t, false)
    } else if (pressed(event, "me-restart")) {
      t = 0; go(t, false)
    }
    if (t !== null) {
      event.stopPropagation()
      report(t)
    }
  }, true)

  if (speed != null) {
    view.connect(speed.properties.active.change, () => { if (playing) go(now(), true) })
  }
  if (slider != null) {                    // dragged or stepped by the person
    view.connect(slider.properties.value.change, () => {
      if (writing) return
      const t = slider.value
      go(t, playing)
      report(t)
    })
  }
  for (const pane of [label, line]) {      // the server re-sent a text: keep the running time in it
    if (pane != null) view.connect(pane.properties.text.change, () => { if (!writing && playing) show(now()) })
  }

  // --- what the server decides (a settings change rewinds, Reset, ...) ---------------------------
  model.on("epoch", () => {
    epoch = data.epoch
    go(data.time, data.playing)
  })
  model.on("remove", () => { if (timer != null) { clearInterval(timer); timer = null } })

  go(data.time, data.playing)
}
