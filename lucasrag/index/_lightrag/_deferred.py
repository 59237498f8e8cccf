"""Modules LightRAG imports at load but uses only later, loaded on first use instead.

``lightrag.utils`` imports ``pypinyin`` (0.3–0.9 s on this machine, a third of LightRAG's
import) for one sort key of Chinese entity names, reached only by attribute
(``pypinyin.lazy_pinyin``, ``pypinyin.Style``). A fresh ``lucasrag ingest`` after a one-note
edit pays LightRAG's import inside the 5-second budget, so the name is bound to a
placeholder module that imports the real one on its first attribute read.

Why not ``importlib.util.LazyLoader``: on Python 3.11 the ``import`` statement itself reads
the module's ``__spec__`` (to wait for a module still initialising), and a lazy module loads
on any attribute read. The placeholder keeps the real spec in its own ``__dict__``, where
that read finds it; ``__getattr__`` runs only for names the placeholder does not hold.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types

from lucasrag.index._lightrag._contract import DEFERRED_IMPORTS

_lock = threading.Lock()


class _LoadedOnFirstUse(types.ModuleType):
    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__") and name != "__path__":
            # Probes such as ``__file__`` or ``__wrapped__`` need not load the module.
            raise AttributeError(name)
        return getattr(_load(self), name)


def _load(placeholder: _LoadedOnFirstUse) -> types.ModuleType:
    with _lock:
        name = placeholder.__name__
        if sys.modules.get(name) is placeholder:
            del sys.modules[name]
        real = importlib.import_module(name)
        # Later reads through LightRAG's binding find the real attributes directly.
        placeholder.__dict__.update(real.__dict__)
        return real


def defer_eager_imports() -> None:
    """Bind each of ``DEFERRED_IMPORTS`` that is installed and not yet imported to a placeholder."""
    for name in DEFERRED_IMPORTS:
        if name in sys.modules:
            continue
        spec = importlib.util.find_spec(name)
        if spec is None:
            continue  # not installed: LightRAG's own ``except ImportError`` branch decides
        placeholder = _LoadedOnFirstUse(name)
        placeholder.__spec__ = spec
        sys.modules[name] = placeholder


def is_loaded(name: str) -> bool:
    """Whether the real module ``name`` is in memory (not only its placeholder)."""
    module = sys.modules.get(name)
    return module is not None and not isinstance(module, _LoadedOnFirstUse)
