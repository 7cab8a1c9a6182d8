"""The analysis protocol (DESIGN "Analyses are one protocol"; P1 §V and P2 §6 report sums over a
dump, which is what makes every analysis here a monoid).

An analysis is an immutable value made from its options, which are declared once, as data
(:class:`Option`: name, default, domain, help). The same declaration validates the Python call,
builds the command line's flags and gives the contract tests their bad values. Over a dataset,
an analysis is:

``resolve(block_bytes, n_blocks)``
    the analysis for one block size and dataset length (None for a stream not read yet): options checked against it, codec names resolved (a preset
    not defined there is skipped with a warning). Cheap, and always run where the user sees
    warnings (the Dask client, not a worker).
``prepare(sample, threads)``
    what it needs of the dataset as a whole, from a bounded sample (data-driven codecs fitted on
    at most ``FIT_BYTES``): ``sample`` is ``(blocks, how)``, what ``samples()`` asks for: ``"fit"``
    the bounded fit sample (:func:`memcomp._common.fit_sample`), a number n the first n blocks
    (online training's window), None nothing (then ``sample`` is None). Returns the prepared analysis, which pickles
    (it travels to Dask workers). Most analyses need nothing and return themselves.
``start()``
    the carry the first block starts from: the order-dependent state that runs through the
    blocks (the bus's wire states, a stateful codec's dictionary); None when there is none.
``partial(chunk, carry, first, threads)``
    the partial result of one chunk of ``(n, B)`` blocks, whose first block is block ``first``
    of the dataset, and the carry after it.
``close(carry)``
    what the carry still holds after the last block, as a partial (the bus's return to idle),
    or None.
``merge(a, b)``
    ``a`` (earlier blocks) and ``b`` (later) combined, exactly: integer counts, exact sums, so
    how the blocks were cut into chunks, threads or Dask tasks never moves a digit.
``finish(total, source)``
    the result (a long-form table) from the merged partial; ``source`` is the data's provenance.
``then(total)``
    for a multi-pass analysis, the next pass (an analysis over the same data), else None.
``split(total)`` / ``compact(piece)``
    for a partial that grows with the data (exact 32-bit counts: ``shards`` > 1), its pieces over
    disjoint keys, and a merged piece reduced to what ``finish`` needs: Dask merges each piece on
    its own, so no worker holds the whole.

The only chunk loop is :func:`memcomp.analysis.run.fold`; :func:`memcomp.analysis.run.run` runs an
analysis serially (its C++ kernels on ``threads`` threads), :func:`memcomp.dask.run` on Dask. An
analysis whose carry matters (``carried``) is cut for Dask only where ``splittable`` says a part may
start from a guessed carry; the guess is checked (carries compare with ``==``) and a wrong one
counted again, so the answer is always the serial one.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from .._common import check_bool, check_choice, check_float, check_int

if TYPE_CHECKING:
    import pandas

__all__ = ["Analysis", "Option", "Int", "Float", "Bool", "Choice", "IntList", "Text", "Any_"]


# ------------------------------------------------------------------------------------ domains
class Domain:
    """What values an option takes: ``check`` returns the canonical value or raises TypeError /
    ValueError naming the option; ``parse`` reads the command line's text; ``bad`` lists values
    that must be refused (the contract tests try each)."""

    metavar = "VALUE"

    def check(self, name: str, value: Any) -> Any:
        return value

    def parse(self, text: str) -> Any:
        return text

    def bad(self) -> List[Any]:
        return []

    def describe(self) -> str:
        return ""


def _int_text(text: str) -> int:
    try:
        return int(text.strip(), 0)
    except ValueError:
        raise ValueError(f"expected an integer, got {text!r}") from None


@dataclass(frozen=True)
class Int(Domain):
    lo: Optional[int] = None
    hi: Optional[int] = None
    none: bool = False  # None is a value (e.g. "no limit")
    choices: Tuple[int, ...] = ()  # the only values allowed, if given
    metavar = "N"

    def check(self, name: str, value: Any) -> Any:
        if value is None and self.none:
            return None
        v = check_int(name, value, self.lo, self.hi)
        if self.choices and v not in self.choices:
            raise ValueError(f"{name} must be one of {', '.join(map(str, self.choices))}, got {v}")
        return v

    def parse(self, text: str) -> Any:
        return None if self.none and text.lower() == "none" else _int_text(text)

    def bad(self) -> List[Any]:
        out: List[Any] = [1.5, "8", True]
        if self.lo is not None:
            out.append(self.lo - 1)
        if self.hi is not None:
            out.append(self.hi + 1)
        if self.choices:
            out.append(max(self.choices) + 1)
        return out

    def describe(self) -> str:
        if self.choices:
            return "one of " + ", ".join(map(str, self.choices))
        lo = "" if self.lo is None else str(self.lo)
        hi = "" if self.hi is None else str(self.hi)
        return f"integer in [{lo}, {hi}]" if lo or hi else "integer"


@dataclass(frozen=True)
class Float(Domain):
    lo: Optional[float] = None
    hi: Optional[float] = None
    lo_open: bool = False
    metavar = "X"

    def check(self, name: str, value: Any) -> Any:
        return check_float(name, value, self.lo, self.hi, lo_open=self.lo_open)

    def parse(self, text: str) -> Any:
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"expected a number, got {text!r}") from None

    def bad(self) -> List[Any]:
        out: List[Any] = [math.nan, "1", True]
        if self.lo is not None:
            out.append(self.lo if self.lo_open else self.lo - 1)
        return out


@dataclass(frozen=True)
class Bool(Domain):
    metavar = "BOOL"

    def check(self, name: str, value: Any) -> Any:
        return check_bool(name, value)

    def parse(self, text: str) -> Any:
        t = text.lower()
        if t not in ("true", "false", "1", "0", "yes", "no"):
            raise ValueError(f"not a truth value: {text!r}")
        return t in ("true", "1", "yes")

    def bad(self) -> List[Any]:
        return [1, "yes", None]


@dataclass(frozen=True)
class Choice(Domain):
    choices: Tuple[str, ...] = ()

    @property
    def metavar(self) -> str:  # type: ignore[override]
        return "{" + ",".join(self.choices) + "}"

    def check(self, name: str, value: Any) -> Any:
        return check_choice(name, value, self.choices)

    def bad(self) -> List[Any]:
        return ["no-such-choice", 3]

    def describe(self) -> str:
        return "one of " + ", ".join(self.choices)


@dataclass(frozen=True)
class IntList(Domain):
    """A non-empty sequence of integers, each in ``choices`` (or in [lo, hi])."""

    choices: Tuple[int, ...] = ()
    lo: Optional[int] = None
    hi: Optional[int] = None
    metavar = "N,N,..."

    def check(self, name: str, value: Any) -> Any:
        if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
            value = [value]
        out = []
        for v in value:
            v = check_int(name, v, self.lo, self.hi)
            if self.choices and v not in self.choices:
                raise ValueError(f"{name}: {v} is not one of {', '.join(map(str, self.choices))}")
            out.append(v)
        if not out:
            raise ValueError(f"{name}: give at least one value")
        return tuple(out)

    def parse(self, text: str) -> Any:
        return [_int_text(x) for x in text.split(",") if x.strip()]

    def bad(self) -> List[Any]:
        return [[], [1.5], ["8"]] + ([[max(self.choices) + 1]] if self.choices else [])


@dataclass(frozen=True)
class Text(Domain):
    """Free text, checked by ``fn`` (which raises naming what is wrong)."""

    fn: Optional[Callable[[str], Any]] = None
    none: bool = False
    metavar = "TEXT"

    def check(self, name: str, value: Any) -> Any:
        if value is None and self.none:
            return None
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string, got {value!r} of type {type(value).__name__}")
        if self.fn is not None:
            try:
                self.fn(value)
            except (TypeError, ValueError) as e:
                raise type(e)(f"{name}: {e}") from None
        return value

    def bad(self) -> List[Any]:
        return [3]


@dataclass(frozen=True)
class Any_(Domain):
    """A value checked by ``fn(name, value)`` (codec lists, per-block arrays): the analysis owns
    its check; ``parse`` reads the command line's text."""

    fn: Callable[[str, Any], Any] = lambda name, value: value
    reader: Callable[[str], Any] = str
    bad_values: Tuple[Any, ...] = ()
    label: str = "VALUE"  # the command line's metavar

    @property
    def metavar(self) -> str:  # type: ignore[override]
        return self.label

    def check(self, name: str, value: Any) -> Any:
        return self.fn(name, value)

    def parse(self, text: str) -> Any:
        return self.reader(text)

    def bad(self) -> List[Any]:
        return list(self.bad_values)


#: ``Option.cli_default`` when the command line's default is the Python default.
SAME = object()


@dataclass(frozen=True)
class Option:
    """One option of an analysis, declared once: its name (the Python keyword; the command line's
    flag is ``--name`` with dashes), default, domain and help. ``cli_default`` is the command
    line's default where it differs (e.g. a study of one MAG by default there), ``flag`` the
    flag if not ``--name`` ("" for none: a Python-only option such as a per-block array)."""

    name: str
    default: Any
    domain: Domain = field(default_factory=Domain)
    help: str = ""
    flag: Optional[str] = None
    cli_default: Any = SAME

    @property
    def cli_flag(self) -> str:
        return self.flag if self.flag is not None else "--" + self.name.replace("_", "-")

    @property
    def command_line_default(self) -> Any:
        return self.default if self.cli_default is SAME else self.cli_default


# ----------------------------------------------------------------------------------- analysis
class Analysis:
    """Base of every analysis (see the module's docstring). Subclasses set ``name``, ``summary``
    and ``OPTIONS`` and define ``partial`` and ``finish``; the rest has defaults."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    OPTIONS: ClassVar[Tuple[Option, ...]] = ()
    #: A part of the data that does not start at block 0 must start from a guessed carry (the bus
    #: states), which is checked. An analysis whose carry cannot be guessed (a stateful codec's
    #: dictionary) leaves this False and says so in :meth:`splittable`: its parts are whole datasets.
    carried: ClassVar[bool] = False
    #: datasets each give their own rows (False: all datasets make one result, e.g. one model)
    per_dataset: ClassVar[bool] = True
    #: the analysis works on units of this many bytes (MPC: 32 B sectors): every chunk is cut into
    #: them, and block indices (``first``, ``n_blocks``) count them. None: the dataset's blocks.
    unit_bytes: ClassVar[Optional[int]] = None
    #: the columns a terminal table shows (``name*``: every column starting with name); None: all
    summary_columns: ClassVar[Optional[Tuple[str, ...]]] = None
    #: the names of the tables finish returns after the first, when it returns a tuple of them
    #: (``mag-study``: the sizes on the MAG grid); the command line writes each beside the first
    tables: ClassVar[Tuple[str, ...]] = ()
    #: Blocks a Dask part of a carried analysis replays before its first block to guess its carry.
    warmup_blocks: ClassVar[int] = 1024
    #: > 1: a partial splits into this many pieces over disjoint keys (:meth:`split`), which Dask
    #: merges and compacts each on its own, so no worker holds a total that grows with the data
    #: (exact 32-bit symbol counts). 0: partials merge whole.
    shards: ClassVar[int] = 0
    #: finish makes a table, empty for no data; False: it makes a model, which no data cannot
    #: give (a ValueError saying so)
    tabular: ClassVar[bool] = True

    def __init__(self, **options: Any) -> None:
        known = {o.name: o for o in self.OPTIONS}
        for k in options:
            if k not in known:
                near = difflib.get_close_matches(k, known, 1)
                hint = f"; did you mean {near[0]!r}?" if near else f"; it takes {', '.join(known) or 'no options'}"
                raise TypeError(f"{self.name or type(self).__name__} got an unexpected option {k!r}{hint}")
        self.options: Dict[str, Any] = {
            o.name: o.domain.check(o.name, options[o.name]) if o.name in options else o.default for o in self.OPTIONS
        }
        self.check()

    def check(self) -> None:
        """Checks that span several options (each option's own domain is checked already)."""

    def __getitem__(self, key: str) -> Any:
        return self.options[key]

    def __repr__(self) -> str:
        given = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"{type(self).__name__}({given})"

    # the protocol ---------------------------------------------------------------------------
    def resolve(self, block_bytes: int, n_blocks: Optional[int] = None) -> "Analysis":
        """The analysis for ``n_blocks`` blocks of ``block_bytes`` bytes (see the module's docstring)."""
        return self

    def samples(self) -> Union[None, str, int]:
        """What :meth:`prepare` reads of the dataset (resolved analyses only): None, ``"fit"`` (the
        bounded fit sample) or n (the first n blocks)."""
        return None

    def prepare(self, sample: Optional[tuple], threads: Optional[int] = None) -> "Analysis":
        """The analysis ready for its dataset (see the module's docstring)."""
        return self

    def splittable(self, block_bytes: int) -> bool:
        """Whether a part of the data may start from a guessed carry (False: one part per dataset)."""
        return True

    def start(self) -> Any:
        return None

    def partial(self, chunk: np.ndarray, carry: Any, first: int, threads: Optional[int]) -> Tuple[Any, Any]:
        raise NotImplementedError

    def close(self, carry: Any) -> Any:
        """The partial result of what ``carry`` holds after the dataset's last block, or None."""
        return None

    def merge(self, a: Any, b: Any) -> Any:
        return a + b

    def split(self, total: Any) -> List[Any]:
        """``total`` as ``shards`` partials over disjoint keys, whose merge is ``total``."""
        return [total]

    def compact(self, piece: Any) -> Any:
        """A merged piece of :meth:`split` reduced to what :meth:`finish` needs; compacted pieces
        of different shards still merge."""
        return piece

    def finish(self, total: Any, source: Dict[str, Any]) -> "pandas.DataFrame":
        raise NotImplementedError

    def then(self, total: Any) -> Optional["Analysis"]:
        return None
