"""The ``codecs`` argument every analysis takes (DESIGN "One place per shared helper"): names,
the groups of :data:`memcomp.codecs.CODEC_GROUPS` and :class:`~memcomp.Codec` objects resolved
into a :class:`CodecList` (:func:`resolve_codecs`), presets a block size does not define left out
with a :class:`SkippedCodecWarning`, and data-driven codecs without a model fitted on the data
(:func:`fit_missing`; P1's offline training).

It sits just above :mod:`memcomp.codecs` and below the analyses that take codecs
(:mod:`memcomp.report`, :mod:`memcomp.toggles`, :mod:`memcomp.mpc`), which import it rather than
each other; :mod:`memcomp.report` keeps these names for backward compatibility.
"""

from __future__ import annotations

import warnings
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from ._common import MemcompWarning, each_on_threads, fit_sample
from .analysis.base import Any_
from .codecs import CODEC_GROUPS, Codec, codec_names, get_codec, split_names

__all__ = [
    "CODECS",
    "CodecList",
    "CodecsArg",
    "SkippedCodecWarning",
    "check_codecs",
    "fit_missing",
    "read_codecs",
    "resolve_codecs",
]

CodecsArg = Union[str, Codec, Iterable[Union[str, Codec]]]


class SkippedCodecWarning(MemcompWarning):
    """A preset left out of an analysis because it is not defined for the block size (e.g.
    ``mpc.cal22_rtl`` at 128 B): the table still has a row for it whose ``note`` says why."""


class CodecList(list):
    """The codecs :func:`resolve_codecs` gives, plus ``skipped``: ``(codec, block_bytes, reason)``
    for every preset it left out because it is not defined for that block size."""

    def __init__(self, codecs: Iterable[Codec] = (), skipped: Iterable[Tuple[Codec, int, str]] = ()):
        super().__init__(codecs)
        self.skipped: List[Tuple[Codec, int, str]] = list(skipped)


def _not_defined(codec: Codec, block_bytes: Optional[int]) -> Optional[str]:
    """Why ``codec`` is not defined for ``block_bytes`` (its own message), None if it is."""
    if block_bytes is None or codec.supports(block_bytes):
        return None
    try:
        codec.check_block_bytes(block_bytes)
    except ValueError as e:
        return str(e)
    return f"{codec.name} is not defined for {block_bytes} B blocks"


def resolve_codecs(codecs: CodecsArg, block_bytes: Optional[int] = None, *, skip_named: bool = False) -> CodecList:
    """Codec objects from names, Codec objects and the groups of
    :data:`memcomp.codecs.CODEC_GROUPS` (``"defaults"``, ``"all"``: lossless presets only;
    ``"lossy"``: SLC's; ``codec_names(group=...)`` lists each). With ``block_bytes``, a group's
    presets that are not defined for that block size (and named ones too with ``skip_named``) are
    left out, each with a :class:`SkippedCodecWarning` naming it and why, and listed in the
    result's ``skipped`` (a :class:`CodecList` given back keeps its ``skipped``, not warned again)."""
    skipped = list(getattr(codecs, "skipped", ()))
    if isinstance(codecs, (str, Codec)):
        codecs = [codecs]
    if isinstance(codecs, Mapping) or not isinstance(codecs, Iterable):
        raise TypeError(
            f"codecs must be a codec name, a Codec, one of the groups {tuple(CODEC_GROUPS)} or a list of them, "
            f"got {type(codecs).__name__}"
        )
    out: List[Codec] = []
    for c in codecs:
        group = c.strip().lower() if isinstance(c, str) and c.strip().lower() in CODEC_GROUPS else None
        for g in [get_codec(n) for n in codec_names(group=group)] if group else [get_codec(c)]:
            why = _not_defined(g, block_bytes) if group or skip_named else None
            if why is None:
                out.append(g)
                continue
            skipped.append((g, block_bytes, why))
            warnings.warn(f"{g.name} skipped at {block_bytes} B blocks: {why}", SkippedCodecWarning, stacklevel=3)
    if not out and not skipped:
        raise ValueError("no codecs given")
    return CodecList(out, skipped)


def fit_missing(
    blocks, codecs: Sequence[Codec], threads: Optional[int] = None, sample: Optional[Tuple[np.ndarray, str]] = None
) -> Tuple[List[Codec], List[str]]:
    """Fits every data-driven codec without a model on ``blocks`` (offline training), on at most
    ``FIT_BYTES`` (64 MiB) of them (:func:`memcomp._common.fit_sample`, or ``sample``: the blocks
    and how they were taken, when the caller drew them). Returns the codecs and, per codec,
    ``"-"`` (no model), ``"given"``, ``"offline"`` (fitted on every block) or ``"sample(64 MiB)"``
    / ``"head(64 MiB)"`` (fitted on part of a larger dump or a stream)."""
    codecs = list(codecs)
    out: List[Codec] = list(codecs)
    how = ["given" if c.model is not None else "-" for c in codecs]
    todo = [i for i, c in enumerate(codecs) if c.requires_fit]
    if todo:
        if sample is None:
            sample = fit_sample(blocks)
        if len(sample[0]):  # an empty dump: nothing to fit on, nothing to measure
            # the fits side by side (each model is the same on any thread count)
            got = each_on_threads(lambda i, inner: codecs[i].fit(sample[0], threads=inner), todo, threads)
            for i, fitted in zip(todo, got):
                out[i], how[i] = fitted, sample[1]
    return out, how


def check_codecs(name: str, value: Any) -> Any:
    """An analysis option's check of a codecs argument: :func:`resolve_codecs` raises TypeError
    or ValueError saying what is wrong; the value is kept as given."""
    resolve_codecs(value)
    return value


def read_codecs(text: str) -> List[str]:
    """The command line's ``--codecs`` text (comma-separated names and groups) as a list."""
    return split_names(text, "--codecs")


#: The domain of every analysis's ``codecs`` option (:class:`memcomp.analysis.base.Option`).
CODECS: Any_ = Any_(fn=check_codecs, reader=read_codecs, bad_values=("no-such-codec", 3, ()), label="CODEC,CODEC,...")
