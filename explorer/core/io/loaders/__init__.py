"""Run-export loaders: every supported file format read into the same :class:`~explorer.core.io.model.CaseSet`.

Start with :func:`load_runs` (one file, format detected or given) or :func:`load_many`
(several files joined). Formats are documented in ``docs/formats.md``.
"""

from .detect import INPUT_FORMATS, concat_case_sets, detect_format, load_many, load_runs, loads_runs

__all__ = ["INPUT_FORMATS", "concat_case_sets", "detect_format", "load_many", "load_runs", "loads_runs"]
