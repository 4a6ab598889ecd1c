"""From runs to verdicts: settings, per-run features, vectorised evaluation, agreement metrics, the sweep, calibration, the replay timeline."""
