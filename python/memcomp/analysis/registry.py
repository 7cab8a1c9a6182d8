"""The registry of analyses (c-blosc2's ``register_builtin_codecs``: one explicit list, no
self-registering imports). A name is the analysis's command-line subcommand too."""

from __future__ import annotations

import difflib
from typing import Dict, List, Type

from .base import Analysis

__all__ = ["get", "names", "register"]

_REGISTRY: Dict[str, Type[Analysis]] = {}


def _builtin() -> List[Type[Analysis]]:
    # imported on first use: the analyses import this package's base and runner
    from .._mpc_train import TrainMPC
    from ..entropy import EntropyTable
    from ..report import Breakdown, Compare, MagStudy
    from ..slc import Sweep
    from ..toggles import Toggles
    from .zero_runs import ZeroRuns

    return [Compare, EntropyTable, Toggles, TrainMPC, Sweep, MagStudy, Breakdown, ZeroRuns]


def register(cls: Type[Analysis]) -> Type[Analysis]:
    """Adds an analysis class to the registry (usable as a class decorator); its ``name`` must be
    new. Every registered analysis runs serially, on Dask and from the command line."""
    if not (isinstance(cls, type) and issubclass(cls, Analysis)) or not cls.name:
        raise TypeError(f"register takes an Analysis subclass with a name, got {cls!r}")
    _load()
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"an analysis named {cls.name!r} is registered already")
    _REGISTRY[cls.name] = cls
    return cls


def _load() -> None:
    if not _REGISTRY:
        for cls in _builtin():
            _REGISTRY[cls.name] = cls


def names() -> List[str]:
    """The registered analyses' names, in registration order."""
    _load()
    return list(_REGISTRY)


def get(name: str) -> Type[Analysis]:
    """The analysis class registered as ``name``."""
    _load()
    if not isinstance(name, str):
        raise TypeError(f"an analysis name is a string, got {type(name).__name__}")
    if name not in _REGISTRY:
        near = difflib.get_close_matches(name, _REGISTRY, 1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise ValueError(f"no analysis named {name!r}{hint}; registered: {', '.join(_REGISTRY)}")
    return _REGISTRY[name]
