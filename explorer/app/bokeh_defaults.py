"""Bokeh property defaults looked up once per model class, not once per model (issue 9 item 11).

Building a served page makes ~260 Bokeh models, and for each property a model is given or
serialised with, Bokeh computes that property's default again: ``Property.themed_default`` walks
the class's MRO for overridden defaults (``HasProps._overridden_defaults``), copies the default and
validates it (``prepare_value``), and ``PropertyDescriptor.has_unstable_default`` asks again
whether the default is made by a function. That is ~15,000 default look-ups a page, ~20 % of the
server's CPU for a page (``bench/session_profile.py``: 465 -> 375 ms a page on this project's
machine). The answer depends only on the model class and the property, so :func:`install` keeps
it per class:

* ``themed_default(cls, name, None)`` when the default is *stable* (not made by a function, not an
  ``InstanceDefault``, in the property and in the class's overrides) and the value is an immutable
  scalar (``str``, ``int``, ``float``, ``bool``, ``None``): the cached object is what Bokeh would
  compute again. Defaults that are containers (lists, dicts: Bokeh wraps each in a fresh
  ``PropertyValueContainer`` that its model owns) or made by a function are computed each time,
  as before. A theme's value for the property bypasses the cache.
* ``has_unstable_default(obj)`` per (descriptor, class of ``obj``): Bokeh's own answer reads only
  the property and the class's overridden defaults.

Classes get their overridden defaults when they are created (``MetaHasProps``) and never later, so
a cached answer cannot go stale. :func:`install` is idempotent and checks the signatures it wraps;
on a Bokeh whose internals differ it installs nothing and says so (:func:`installed`), and Bokeh
works as shipped. ``tests/test_bokeh_defaults.py`` checks that a whole served page serialises to
the same document with and without it.
"""

from __future__ import annotations

import inspect
from typing import Any

_SCALARS = (str, int, float, bool, type(None))
_STATE: dict[str, Any] = {"installed": False, "why_not": "install() not called"}


def installed() -> tuple[bool, str]:
    """``(True, "")`` once :func:`install` has replaced Bokeh's look-ups, else ``(False, why)``."""
    return bool(_STATE["installed"]), str(_STATE["why_not"]) if not _STATE["installed"] else ""


def install() -> bool:
    """Keep Bokeh's property defaults per model class in this process (see the module docstring).
    Returns whether it is in force; idempotent. Does nothing, and returns False, on a Bokeh whose
    ``Property.themed_default`` / ``PropertyDescriptor.has_unstable_default`` have other
    signatures than Bokeh 3's."""
    if _STATE["installed"]:
        return True
    from bokeh.core.property.bases import Property
    from bokeh.core.property.descriptors import PropertyDescriptor
    from bokeh.core.property.instance import InstanceDefault

    original_default = Property.themed_default
    original_unstable = PropertyDescriptor.has_unstable_default
    expected = (["self", "cls", "name", "theme_overrides", "no_eval"], ["self", "obj"])
    found = (list(inspect.signature(original_default).parameters), list(inspect.signature(original_unstable).parameters))
    if found != expected:
        _STATE["why_not"] = f"Bokeh's signatures differ from Bokeh 3's: {found}"
        return False

    def themed_default(self: Any, cls: type, name: str, theme_overrides: dict[str, Any] | None, *, no_eval: bool = False) -> Any:
        if theme_overrides is not None and name in theme_overrides:
            return original_default(self, cls, name, theme_overrides, no_eval=no_eval)
        cache = self.__dict__.get("_me_themed_defaults")
        if cache is None:
            cache = self.__dict__["_me_themed_defaults"] = {}
        key = (cls, name, no_eval)
        if key in cache:
            return cache[key]
        value = original_default(self, cls, name, theme_overrides, no_eval=no_eval)
        source = cls._overridden_defaults().get(name, self._default)
        stable = not (callable(source) or isinstance(source, InstanceDefault) or self._may_have_unstable_default())
        if stable and type(value) in _SCALARS:
            cache[key] = value
        return value

    def has_unstable_default(self: Any, obj: Any) -> bool:
        cache = self.__dict__.get("_me_unstable_by_class")
        if cache is None:
            cache = self.__dict__["_me_unstable_by_class"] = {}
        cls = type(obj)
        if cls not in cache:
            cache[cls] = original_unstable(self, obj)
        return cache[cls]

    themed_default.__doc__ = original_default.__doc__
    has_unstable_default.__doc__ = original_unstable.__doc__
    Property.themed_default = themed_default  # type: ignore[method-assign]
    PropertyDescriptor.has_unstable_default = has_unstable_default  # type: ignore[method-assign]
    _STATE.update(installed=True, why_not="", originals=(original_default, original_unstable))
    return True


def uninstall() -> None:
    """Put Bokeh's own look-ups back (for tests that compare both)."""
    if not _STATE["installed"]:
        return
    from bokeh.core.property.bases import Property
    from bokeh.core.property.descriptors import PropertyDescriptor

    Property.themed_default, PropertyDescriptor.has_unstable_default = _STATE["originals"]  # type: ignore[method-assign]
    _STATE.update(installed=False, why_not="uninstalled")
    for prop in _all_properties():
        prop.__dict__.pop("_me_themed_defaults", None)
    for desc in _all_descriptors():
        desc.__dict__.pop("_me_unstable_by_class", None)


def _all_descriptors() -> list[Any]:
    from bokeh.core.has_props import HasProps

    seen: dict[int, Any] = {}
    stack = [HasProps]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        for value in vars(cls).values():
            if hasattr(value, "property") and hasattr(value, "has_unstable_default"):
                seen[id(value)] = value
    return list(seen.values())


def _all_properties() -> list[Any]:
    return [d.property for d in _all_descriptors()]
