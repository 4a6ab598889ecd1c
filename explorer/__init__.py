"""Metric Trade-off Explorer: see how often an automated agent scorer agrees with a person.

The scoring core lives in :mod:`explorer.core` and never imports Panel; the web app lives in
:mod:`explorer.app`; the command line in :mod:`explorer.cli`.
"""

__version__ = "0.1.0"
