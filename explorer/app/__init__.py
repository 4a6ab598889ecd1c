"""The Panel web app of the explorer: one session's layout (:func:`explorer.app.main.create_app`)
over case data loaded once per server process (:mod:`explorer.app.shared`)."""
