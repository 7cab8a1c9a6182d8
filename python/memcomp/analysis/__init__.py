"""Every analysis as one protocol (:mod:`memcomp.analysis.base`), one runner
(:mod:`memcomp.analysis.run`; :func:`memcomp.dask.run` on a cluster) and one registry
(:mod:`memcomp.analysis.registry`), from which the command line's subcommands are made too.

>>> import memcomp.analysis as ma
>>> ma.names()  # doctest: +SKIP
['compare', 'entropy', 'zero-runs', ...]
>>> ma.run(ma.get("compare")(codecs=["bdi", "fpc"], mag=32), blocks)  # doctest: +SKIP
"""

from .base import Analysis, Option
from .registry import get, names, register
from .run import fold, run, run_each

__all__ = ["Analysis", "Option", "fold", "get", "names", "register", "run", "run_each"]
