"""Block codecs: the registry, codec objects and their results.

Every codec follows one contract (DESIGN.md "Contracts"): ``measure`` returns per-block sizes in
bits without building a stream, ``encode`` builds the real bitstream, ``decode`` turns it back into
the exact blocks, and ``measure(x).size_bits == encode(x).bit_lengths`` bit for bit. Presets
(``bdi.gem5``, ``fpc.cmu``...) reproduce the conventions of public implementations (SPEC 1.x);
accounting-only presets have ``exact == False`` and only measure.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import functools
import hashlib
import json
import os
import re
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core
from ._common import (
    check_bool,
    check_int,
    check_path,
    check_threads,
    chunks,
    has_buffer,
    in_memory,
    parse_json,
    read_npz,
    refuse_masked,
)
from .blocks import byte_view
from .models import Model, training_provenance

if TYPE_CHECKING:
    import pandas

    from .metrics import SizeStats

CorruptStreamError = _core.CorruptStreamError

_ENCODED_FORMAT = "memcomp.encoded/1"
# Encoded.to_bytes: magic, version, flags, bytes per bit length, bytes per tag, block_bytes,
# n_blocks, data bytes, config bytes, entry-state bytes (little-endian).
_BYTES_MAGIC = b"MCEN"
_BYTES_VERSION = 1
_BYTES_HEADER = struct.Struct("<4sBBBBIQQII")
_HAS_CONFIG, _HAS_STATE, _HAS_OFFSETS = 1, 2, 4


def list_codecs() -> "pandas.DataFrame":
    """Every codec family and preset: name, family, default, exact, policy, description, options."""
    import pandas as pd

    rows = [
        {
            "name": p["name"],
            "family": p["family"],
            "default": p["is_default"],
            "exact": p["exact"],
            "policy": p["policy"],
            "description": p["description"],
            "options": dict(p["options"]),
        }
        for p in _core.list_presets()
    ]
    return pd.DataFrame(rows, columns=["name", "family", "default", "exact", "policy", "description", "options"])


def codec_options(name: Union[str, "Codec"]) -> "pandas.DataFrame":
    """Every option of a codec, one row each, from its codec's option table (the same table that
    parses and checks them): ``option``, ``kind`` (bool, int, float, choice, string), ``values``
    (``[lo, hi]``, the values an int or a choice takes; free text ``-``), ``default`` (the family's),
    ``value`` (this preset's or codec's; a fitted model shows as ``fitted``) and ``help``.
    ``name`` is anything :func:`get_codec` takes: ``codec_options("bdi.gem5")``."""
    import pandas as pd

    codec = get_codec(name)
    rows = []
    for key, d in sorted(_core.option_space(codec.preset).items()):
        value = codec.options[key]
        if d["kind"] == "string" and key == "model":
            value = "fitted" if value else "-"
        rows.append(
            {
                "option": key,
                "kind": d["kind"],
                "values": _domain_text(d),
                "default": d["default"],
                "value": value,
                "help": d["help"],
            }
        )
    return pd.DataFrame(rows, columns=["option", "kind", "values", "default", "value", "help"])


def _domain_text(d: Mapping[str, Any]) -> str:
    """The values of an option domain as one short string: ``[0, 16]``, ``1, 2, 4, 8``, ``sign, zero``."""
    if "values" in d:
        return ", ".join(str(v) for v in d["values"])
    if d["kind"] in ("int", "float"):
        return f"[{d['lo']}, {d['hi']}]"
    if d["kind"] == "choice":
        return ", ".join(d["choices"])
    return "True, False" if d["kind"] == "bool" else "-"


#: The named groups of presets that ``compare(codecs=...)`` and ``--codecs`` take, with what each
#: holds; :func:`codec_names` lists a group's members. Lossy presets (SLC, P4) buy their size with
#: error, so a lossless comparison never holds them unless asked for by name or by ``"lossy"``.
CODEC_GROUPS: Dict[str, str] = {
    "defaults": "the default preset of each lossless codec family",
    "all": "every lossless preset, decodable and accounting-only",
    "lossy": "every lossy preset (SLC); never part of 'defaults' or 'all'",
}


def codec_names(defaults_only: bool = False, *, group: Optional[str] = None) -> list:
    """Names of presets, in registry order: every preset, lossy ones included (no argument), or
    the members of one of :data:`CODEC_GROUPS` (``group="defaults"``, ``"all"``, ``"lossy"``).
    ``defaults_only=True`` is the ``"defaults"`` group."""
    if group is None:
        if not check_bool("defaults_only", defaults_only):
            return [p["name"] for p in _core.list_presets()]
        group = "defaults"
    elif defaults_only:
        raise TypeError("codec_names: give group= or defaults_only=True, not both")
    if not isinstance(group, str) or group not in CODEC_GROUPS:
        raise ValueError(f"group must be one of {tuple(CODEC_GROUPS)}, got {group!r}")
    out = []
    for p in _core.list_presets():
        lossy = _core.make_codec(p["name"], {}).lossy
        if (group == "lossy") == lossy and (group != "defaults" or p["is_default"]):
            out.append(p["name"])
    return out


def get_codec(name: Union[str, "Codec"], **options: Any) -> "Codec":
    """Builds a codec from a family name (its default preset) or a preset name, e.g.
    ``get_codec("bdi")``, ``get_codec("bdi.gem5")``, ``get_codec("fpc", endian="big")``, or from
    a name as result tables print it: ``get_codec("fpc.paper(endian=big)")``,
    ``get_codec("bestof(e2mc.paper,bdi.paper)")`` (a best-of codec of those members).

    Data-driven codecs take ``model=`` (a :class:`Model`, its dict or JSON text); hybrids take
    ``members=[...]`` (names or Codec objects, fitted ones included)."""
    if isinstance(name, Codec):
        if options:
            raise TypeError("options cannot be given together with a Codec object")
        return name
    if not isinstance(name, str):
        raise TypeError(f"codec name must be a str, got {type(name).__name__}")
    preset, named = _parse_name(name)
    preset = _known_name(preset)
    twice = sorted(set(named) & set(options))
    if twice:
        raise ValueError(f"codec name {name!r}: option {twice[0]!r} given twice, in the name and as a keyword")
    options = {**named, **options}
    # The core checks every value against its codec's option table; one it cannot hold at all
    # (a list, None) is refused here, by the kind that table gives.
    odd = {k: v for k, v in options.items() if k not in ("model", "members") and not isinstance(v, _SCALARS)}
    if odd:
        check_option_types(preset, odd, {k: d["kind"] for k, d in _core.option_space(preset).items()})
    core_options = {k: _core_option(k, v) for k, v in options.items()}
    try:
        core = _core.make_codec(preset, core_options)
    except ValueError as e:
        text = str(e)
        if "model" in options and text.startswith(("json:", "huffman table:")):
            raise ValueError(f"{preset}: model: {text}") from None
        raise
    codec = Codec(core)
    given = options.get("model")
    if codec._model is not None and isinstance(given, Model) and given.provenance is not None:
        codec._model = codec._model.with_provenance(given.provenance)  # how the model was made, kept
    return codec


@functools.lru_cache(maxsize=1)
def _spellings() -> Dict[str, str]:
    """Every family and preset name by its lower-case spelling."""
    names = [n for p in _core.list_presets() for n in (p["family"], p["name"])]
    return {n.lower(): n for n in names}


def _known_name(name: str) -> str:
    """A family or preset name as the registry spells it, matched case-insensitively (``BDI``,
    ``Fpc.GEM5``); ValueError with the closest names for an unknown one."""
    spellings = _spellings()
    key = name.strip().lower()
    if key in spellings:
        return spellings[key]
    close = difflib.get_close_matches(key, list(spellings), n=1, cutoff=0.6)
    known = ", ".join(p["name"] for p in _core.list_presets())
    hint = f"did you mean {spellings[close[0]]}?" if close else f"known codecs and presets: {known}"
    raise ValueError(f"unknown codec {name!r}; {hint}")


_KIND_TYPES: Dict[str, Tuple[Any, str]] = {
    "int": ((int, np.integer), "an integer"),
    "float": ((int, float, np.integer, np.floating), "a number"),
    "bool": ((bool, np.bool_), "True or False"),
    "choice": (str, "a str"),
    "string": (str, "a str"),
}


#: The option values the core takes (bool, int, float, str; NumPy scalars of the first three).
_SCALARS = (bool, int, float, str, np.bool_, np.integer, np.floating)


def check_option_types(owner: str, options: Mapping[str, Any], kinds: Mapping[str, str]) -> None:
    """TypeError naming the option for a value of the wrong type (ints for int options, NumPy
    integers included; no bool where a number goes); the values themselves are the core's to check."""
    for key, value in options.items():
        if key in ("model", "members") or key not in kinds:
            continue
        types, what = _KIND_TYPES[kinds[key]]
        if not isinstance(value, types) or (kinds[key] != "bool" and isinstance(value, (bool, np.bool_))):
            raise TypeError(f"{owner}: option {key!r} must be {what}, got {value!r} of type {type(value).__name__}")


_NAME = re.compile(r"\s*([A-Za-z0-9_.]+)\s*\((.*)\)\s*", re.S)


def split_names(text: str, what: Optional[str] = None) -> List[str]:
    """``text`` split at the commas outside parentheses: ``"bdi,fpc.paper(endian=big,x=1)"`` gives
    ``["bdi", "fpc.paper(endian=big,x=1)"]``; ValueError for unbalanced parentheses and, if ``what``
    names the list, for an empty name between commas (``"bdi,,fpc"``)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            raise ValueError(f"unbalanced ')' in {text!r}")
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise ValueError(f"unbalanced '(' in {text!r}")
    parts.append(text[start:])
    if what is not None and len(parts) > 1 and not all(p.strip() for p in parts):
        raise ValueError(f"{what}: an empty name between commas in {text!r}")
    return [p.strip() for p in parts if p.strip()]


def _parse_name(name: str) -> tuple:
    """(preset or family, options) of a name as tables print it, ``preset(key=value,...)``; a
    best-of codec lists its members first: ``bestof(e2mc.paper,bdi.paper,selector=tag)``."""
    if "(" not in name and ")" not in name:
        return name, {}
    m = _NAME.fullmatch(name)
    if not m:
        raise ValueError(f"malformed codec name {name!r}: write preset or preset(key=value,...)")
    base, inner = _known_name(m.group(1)), m.group(2)
    space = _core.option_space(base)
    options: Dict[str, Any] = {}
    members = []
    for item in split_names(inner, f"codec name {name!r}"):
        key, eq, value = item.partition("=")
        if not eq or "(" in key:
            members.append(item)
            continue
        key, value = key.strip(), value.strip()
        if key == "members":  # members=a,b as well as a,b
            members.append(value)
            continue
        if key == "model":
            raise ValueError(
                f"codec name {name!r}: a fitted model cannot be given by name; pass model= "
                "(e.g. get_codec(name, model=memcomp.Model.load(path)))"
            )
        if key not in space:
            raise ValueError(f"codec name {name!r}: {base} has no option {key!r}; options: {', '.join(sorted(space))}")
        if key in options:
            raise ValueError(f"codec name {name!r}: option {key!r} given twice")
        options[key] = _option_value(name, key, value, space[key]["kind"])
    if members:
        if "members" not in space:
            raise ValueError(f"codec name {name!r}: {', '.join(members)} are not key=value options")
        options["members"] = members
    return base, options


def _option_value(name: str, key: str, text: str, kind: str) -> Any:
    """An option value written in a codec name, read as the option's kind."""
    try:
        if kind == "int":
            return int(text)
        if kind == "float":
            return float(text)
        if kind == "bool":
            return {"true": True, "false": False, "1": True, "0": False}[text.lower()]
    except (ValueError, KeyError):
        raise ValueError(f"codec name {name!r}: option {key!r} takes {_KIND_TYPES[kind][1]}, got {text!r}") from None
    return text


def _core_option(key: str, value: Any) -> Any:
    """Python option values in the core's terms: models and member lists become JSON text."""
    if key == "model" and value is not None:
        return (value if isinstance(value, Model) else Model(value)).to_json()
    if key == "members" and isinstance(value, str) and not value.startswith("["):
        value = split_names(value, "members")
    if key == "members" and isinstance(value, (list, tuple)):
        members = []
        for m in value:
            c = get_codec(m) if isinstance(m, str) else Codec.from_config(m) if isinstance(m, Mapping) else m
            if not isinstance(c, Codec):
                raise TypeError(f"members are codec names or Codec objects, got {type(m).__name__}")
            cfg = {k: v for k, v in c.get_config().items() if k != "id" and v is not None}
            members.append(cfg)
        return json.dumps(members, separators=(",", ":"))
    if key == "model" and value is None:
        return ""
    return value


def _member_names(members: Any) -> List[str]:
    """Display names of a hybrid's members (fitted models do not change a name)."""
    if isinstance(members, str):
        members = json.loads(members) if members.startswith("[") else split_names(members)
    return [get_codec(m).name if isinstance(m, str) else Codec.from_config(m).name for m in members]


@contextlib.contextmanager
def named_errors(codecs: Sequence["Codec"]):
    """A core ValueError naming the preset of one of ``codecs`` that has a name of its own (its
    own options or members: ``bestof(e2mc.paper,bdi.paper)``) says that name instead."""
    try:
        yield
    except ValueError as e:
        for c in codecs:
            name = c.name
            if name != c.preset and c.preset in str(e):
                raise type(e)(str(e).replace(c.preset, name)) from None
        raise


def _block_array(blocks: Any) -> np.ndarray:
    """``blocks`` if it is an ndarray (the core checks dtype, shape and layout), else TypeError."""
    if not isinstance(blocks, np.ndarray):
        raise TypeError(
            f"blocks must be an (n, B) uint8 NumPy array, got {type(blocks).__name__}; "
            "use memcomp.as_blocks(array, block_bytes)"
        )
    refuse_masked(blocks)
    return blocks


def _memory_bytes() -> int:
    """Physical memory of this machine (bytes); a very large number where it cannot be read."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 62


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


class Codec:
    """An immutable block codec. Build one with :func:`get_codec` or :meth:`from_config`."""

    def __init__(self, core: "_core.Codec"):
        self._c = core
        self._own: Optional[_core.Session] = None  # the stream resume=True continues (a stateful codec's)
        self._options = dict(core.options())
        text = self._options.get("model")
        self._model = Model(text) if text else None
        if "model" in self._options:
            self._options["model"] = self._model.data if self._model else None
        if isinstance(self._options.get("members"), str) and self._options["members"].startswith("["):
            self._options["members"] = json.loads(self._options["members"])
        base = dict(_core.make_codec(core.preset, {}).options())
        self._model_is_preset = bool(text) and text == base.get("model")
        self._replaces_preset_model = bool(text) and bool(base.get("model")) and not self._model_is_preset
        self._overrides = {
            k: v
            for k, v in self._options.items()
            if k != "model"
            and (_member_names(v) != _member_names(base[k]) if k == "members" else _core_option(k, v) != base.get(k))
        }

    # --- identity --------------------------------------------------------------------------
    @property
    def codec_id(self) -> str:
        """Family id, e.g. ``"bdi"``."""
        return self._c.family

    @property
    def preset(self) -> str:
        """The preset this codec was built from, e.g. ``"bdi.gem5"``."""
        return self._c.preset

    @property
    def name(self) -> str:
        """The preset name, plus any options that differ from it: ``bdi.paper(endian=big)``."""
        items = sorted(self._overrides.items()) + ([("model", "fitted")] if self._replaces_preset_model else [])
        if "members" in self._overrides:  # a best-of codec of its own members: bestof(e2mc.paper,bdi.paper)
            parts = _member_names(self._overrides["members"]) + [f"{k}={v}" for k, v in items if k != "members"]
            return f"{self.codec_id}({','.join(parts)})"
        if not items:
            return self.preset
        extra = ",".join(f"{k}={v}" for k, v in items)
        return f"{self.preset}({extra})"

    @property
    def exact(self) -> bool:
        """True for a decodable lossless format; False for accounting-only presets."""
        return self._c.exact

    @property
    def policy(self) -> str:
        """The preset's default report policy (metrics layer), e.g. ``"cap+bytes"``."""
        return self._c.policy

    @property
    def options(self) -> Dict[str, Any]:
        return dict(self._options)

    @property
    def lossy(self) -> bool:
        """True if decode returns an approximation of the blocks marked approximable (SLC)."""
        return self._c.lossy

    @property
    def stateful(self) -> bool:
        """True if blocks are not independent (the codec carries state across a batch)."""
        return self._c.stateful

    def session(self) -> "Session":
        """A fresh stream of batches through this codec, owned by the caller: pass it as
        ``session=`` to :meth:`measure`, :meth:`encode` or :func:`memcomp.toggles.energy_control`,
        and each batch continues where the session's last one left a stateful codec's state.
        The codec itself never changes, so threads can share it, each with a session of its own."""
        return Session(self)

    def _stream(self, session: Optional["Session"], resume: Any) -> Optional["_core.Session"]:
        """The core session a batch runs on: the given one, else for a stateful codec its own
        stream (``resume=True`` continues it, else it starts again); None for a stateless one."""
        resume = check_bool("resume", resume)
        if session is not None:
            if not isinstance(session, Session):
                raise TypeError(f"session must be a Session (codec.session()), got {type(session).__name__}")
            if resume:
                raise ValueError("pass session or resume=True, not both: a session already continues its stream")
            if session.codec is not self:  # stateless codecs too: a session belongs to its codec
                raise ValueError(
                    f"this session was made for another codec ({session.codec.name}): a session runs batches of "
                    "the codec object that made it, never another's"
                )
            return session._s
        if not self._c.stateful:
            return None
        if not resume or self._own is None:
            self._own = _core.Session(self._c)
        return self._own

    @property
    def requires_fit(self) -> bool:
        """True for a data-driven codec that has no model yet (see :meth:`fit`)."""
        return self._c.needs_model and not self._c.has_model

    @property
    def model(self) -> Optional[Model]:
        """The fitted model of a data-driven codec (None for an unfitted or model-free one)."""
        return self._model

    def fit(self, blocks, threads: Optional[int] = None) -> "Codec":
        """A copy of this codec with a model fitted on ``blocks`` (an ``(n, B)`` uint8 array or a
        Dump). The model is never charged to blocks (SPEC 0.7); it records how it was made
        (``codec.model.provenance``: memcomp version, the codec's options, the data's source and
        byte range, the SHA-256 of the bytes fitted on and their block count)."""
        if not self._c.needs_model:
            raise ValueError(f"{self.name} is not data-driven: it has no model to fit")
        source = blocks
        threads = check_threads(threads)
        if self.codec_id == "mpc" and not isinstance(blocks, np.ndarray) and hasattr(blocks, "chunks"):
            from . import _mpc_train  # MPC's training streams a Dump (two passes) in bounded memory

            if blocks.n_blocks == 0:
                raise ValueError(
                    f"cannot fit {self.name} on 0 blocks: give it sample blocks of the data it will compress"
                )
            cfg = self.get_config()
            cfg["model"] = _mpc_train.train(blocks, threads=threads).data
            return Codec.from_config(cfg)
        streamed = not isinstance(blocks, np.ndarray) and hasattr(blocks, "chunks")
        plan = self._c.count_plan
        if streamed and plan is not None:
            fitted, sha, nbytes, n = self._fit_from_counts(blocks, plan, threads)
        else:
            if hasattr(blocks, "blocks") and not isinstance(blocks, np.ndarray):
                blocks = in_memory(blocks)  # a Dump's blocks read from its file, never from its map
            blocks = _block_array(blocks)
            if blocks.ndim == 2 and blocks.shape[0] == 0:
                raise ValueError(
                    f"cannot fit {self.name} on 0 blocks: give it sample blocks of the data it will compress"
                )
            if self.codec_id == "mpc":  # MPC's training (P3 §3), orchestrated in Python below this module
                from . import _mpc_train

                cfg = self.get_config()
                cfg["model"] = _mpc_train.train(blocks, threads=threads).data
                return Codec.from_config(cfg)
            with self._named_errors():
                fitted = Codec(self._c.fitted(blocks, threads))
            sha = hashlib.sha256(np.ascontiguousarray(blocks).data)
            nbytes, n = int(blocks.nbytes), int(blocks.shape[0])
        if fitted._model is not None:
            options = {k: v for k, v in self._options.items() if k != "model"}
            fitted._model = fitted._model.with_provenance(
                training_provenance(
                    "memcomp.Codec.fit",
                    {"preset": self.preset, **options},
                    [source],
                    sha256=sha.hexdigest(),
                    nbytes=nbytes,
                    blocks=n,
                )
            )
        return fitted

    def _fit_from_counts(
        self, dump: Any, plan: Mapping[str, Any], threads: Optional[int]
    ) -> Tuple["Codec", Any, int, int]:
        """fit() over a Dump or stream a chunk at a time, in bounded memory: the symbol counts the
        core's ``count_plan`` names (dense histograms added up; 32-bit exact counts, spilled to
        disk past a bound, and their ``top`` most frequent values). The model equals fit() over the
        whole array. Returns the fitted codec, the SHA-256 of the bytes, their size and their
        block count."""
        from ._counts import SparseCounts

        sl, per_position, endian, k = plan["symbol_bits"], plan["per_position"], plan["endian"], plan["top"]
        sha, nbytes, n = hashlib.sha256(), 0, 0
        dense: Optional[np.ndarray] = None
        sparse = SparseCounts()
        with self._named_errors():
            for chunk in chunks(dump, 1 << 16):
                self._c.check_block_bytes(int(chunk.shape[1]))
                sha.update(chunk.data)
                nbytes, n = nbytes + int(chunk.nbytes), n + int(chunk.shape[0])
                if sl == 32:
                    sparse = sparse + SparseCounts.from_keys(*_core.count_word_keys(chunk, endian, threads))
                else:
                    h = _core.symbol_histogram(chunk, sl, per_position, endian, threads)
                    dense = h["counts"] if dense is None else dense + h["counts"]
            if n == 0:
                raise ValueError(
                    f"cannot fit {self.name} on 0 blocks: give it sample blocks of the data it will compress"
                )
            if sl == 32:
                top = sparse.summary(k)
                values, counts = top.top_values.astype(np.uint64), top.top_counts.astype(np.uint64)
                model = self._c.fit_counts(32, None, values, counts, int(top.total) - int(counts.sum()))
            else:
                model = self._c.fit_counts(sl, np.ascontiguousarray(dense, dtype=np.uint64))
            opts = dict(self._c.options())
            opts["model"] = model
            fitted = Codec(_core.make_codec(self.preset, opts))
        return fitted, sha, nbytes, n

    @property
    def modes(self) -> Dict[int, str]:
        """Names of the per-block ``mode`` values (encoding ids)."""
        return dict(self._c.modes())

    def get_config(self) -> Dict[str, Any]:
        """A JSON-serialisable config; ``Codec.from_config(c.get_config()) == c``."""
        return {"id": self.codec_id, "preset": self.preset, **copy.deepcopy(self._options)}

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> "Codec":
        if not isinstance(config, Mapping) or "preset" not in config:
            raise ValueError("a codec config is a mapping with at least a 'preset' key")
        cfg = dict(config)
        preset = cfg.pop("preset")
        codec_id = cfg.pop("id", None)
        codec = get_codec(preset, **cfg)
        if codec_id is not None and codec_id != codec.codec_id:
            raise ValueError(f"config id {codec_id!r} does not match preset {preset!r}")
        return codec

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Codec) and self.get_config() == other.get_config()

    def __hash__(self) -> int:
        return hash(json.dumps(self.get_config(), sort_keys=True))

    def __reduce__(self):
        # Pickles as its config (fitted model included), so codecs travel to Dask workers; a
        # stateful codec arrives in its initial state.
        return Codec.from_config, (self.get_config(),)

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in sorted(self._overrides.items()))
        if self._model is not None and not self._model_is_preset:
            opts += (", " if opts else "") + "model=<fitted>"
        return f"get_codec({self.preset!r}{', ' + opts if opts else ''})"

    # --- work --------------------------------------------------------------------------------
    def _named_errors(self):
        """The core's errors name the preset; a codec with its own options or members is named
        as tables name it (``bestof(e2mc.paper,bdi.paper)``), so its errors say that name."""
        return named_errors([self])

    def supports(self, block_bytes: int) -> bool:
        """True if the codec is defined for ``block_bytes`` blocks (MPC: 32 B sectors only)."""
        try:
            self.check_block_bytes(block_bytes)
        except ValueError:
            return False
        return True

    def check_block_bytes(self, block_bytes: int) -> None:
        """Raises ValueError, saying why, if the codec is not defined for ``block_bytes`` blocks."""
        block_bytes = check_int("block_bytes", block_bytes, 0, 1 << 30)
        with self._named_errors():
            self._c.check_block_bytes(block_bytes)

    def max_compressed_bits(self, block_bytes: int) -> int:
        """Upper bound of the in-band bits of any ``block_bytes`` block; ValueError, saying why, for
        a block size the codec is not defined for (:meth:`check_block_bytes`)."""
        self.check_block_bytes(block_bytes)
        return int(self._c.max_compressed_bits(int(block_bytes)))

    def measure(
        self,
        blocks: np.ndarray,
        threads: Optional[int] = None,
        *,
        session: Optional["Session"] = None,
        resume: bool = False,
        approximable: Optional[np.ndarray] = None,
    ) -> "Sizes":
        """Per-block sizes of a C-contiguous ``(n, B)`` uint8 array (see :func:`memcomp.as_blocks`).

        A stateful codec starts from its initial state, or with a ``session``
        (:meth:`session`) from where that session's last batch ended (streaming a dump in
        chunks). ``resume=True`` is the shorthand for one stream per codec object: it continues
        this object's previous batch. A lossy codec takes ``approximable``, a bool array with one
        entry per block (default: every block may be approximated)."""
        blocks = _block_array(blocks)
        stream = self._stream(session, resume)
        with self._named_errors():
            cols = self._c.measure(blocks, check_threads(threads), stream, approximable)
        return Sizes(
            codec=self,
            block_bytes=int(blocks.shape[1]),
            **{k: _readonly(v) for k, v in cols.items()},
        )

    def encode(
        self,
        blocks: np.ndarray,
        threads: Optional[int] = None,
        *,
        session: Optional["Session"] = None,
        resume: bool = False,
        approximable: Optional[np.ndarray] = None,
    ) -> "Encoded":
        """Encodes every block into one buffer (blocks start on byte boundaries); ``session``,
        ``resume`` and ``approximable`` as in :meth:`measure`. A stateful codec records the state
        the batch started from (``Encoded.entry_state``), so every chunk decodes on its own, also
        after save/load."""
        blocks = _block_array(blocks)
        stream = self._stream(session, resume)
        with self._named_errors():
            data, offsets, lengths, tags, state = self._c.encode(blocks, check_threads(threads), stream, approximable)
        return Encoded(
            config=self.get_config(),
            block_bytes=int(blocks.shape[1]),
            data=_readonly(data),
            bit_offsets=_readonly(offsets),
            bit_lengths=_readonly(lengths),
            tags=_readonly(tags),
            entry_state=None if state is None else _readonly(state),
        )

    def _encode_energy_control(
        self, blocks, bus, kind, alpha, bu, state, close, per_block, ratio, threads, session, resume, chunk_blocks=0
    ):
        """toggles.energy_control over this codec's streams of ``blocks``, encoded ``chunk_blocks``
        at a time as it goes (0: the core's cache-sized chunks; ``session`` and ``resume`` as in
        :meth:`encode`, the other arguments checked by energy_control): the core's results as
        they come."""
        blocks = _block_array(blocks)
        threads, stream = check_threads(threads), self._stream(session, resume)
        with self._named_errors():
            return _core.encode_energy_control(
                self._c, blocks, bus, kind, alpha, bu, state, close, per_block, ratio, threads, stream, chunk_blocks
            )

    def decode(self, encoded: "Encoded", threads: Optional[int] = None) -> np.ndarray:
        """The ``(n, B)`` uint8 blocks back from :meth:`encode`'s output (a stateful codec starts
        from the recorded entry state; a lossy codec returns its approximation). Raises
        :class:`CorruptStreamError` for a stream this codec cannot have written."""
        if not isinstance(encoded, Encoded):
            raise TypeError(f"decode expects an Encoded object, got {type(encoded).__name__}")
        threads = check_threads(threads)
        # the same config (the usual case) needs no codec built from it, which costs a model's tables
        if encoded.config != self.get_config() and Codec.from_config(encoded.config) != self:
            raise ValueError(
                f"these blocks were encoded by {Codec.from_config(encoded.config).name}, not {self.name}; "
                "decode with Codec.from_config(encoded.config)"
            )
        if self.stateful and encoded.entry_state is None:
            raise ValueError(
                f"{self.name} is stateful and these blocks carry no entry state (the state their encode "
                "started from), so they cannot be decoded; encode them again"
            )
        fields = encoded._fields()
        # every block's bits are checked against the data by the core, in parallel, before decoding
        _check_fields("encoded blocks", encoded.block_bytes, fields, self, TypeError, ranges=False)
        need = int(encoded.n_blocks) * int(encoded.block_bytes)  # Python ints: a huge count does not wrap
        if need > _memory_bytes():
            raise ValueError(
                f"decoding {encoded.n_blocks} blocks of {encoded.block_bytes} B needs {need} B, more "
                "than this machine's memory; decode a part (Encoded fields sliced) at a time"
            )
        fields = {k: np.ascontiguousarray(v) for k, v in fields.items()}  # width-0 fields read back zero-strided
        with self._named_errors():
            return self._c.decode(
                fields["data"],
                fields["bit_offsets"],
                fields["bit_lengths"],
                fields["tags"],
                encoded.block_bytes,
                fields.get("entry_state"),
                threads,
            )


def _describe(x: Any) -> str:
    return f"{x.dtype} array of shape {x.shape}" if isinstance(x, np.ndarray) else type(x).__name__


class Session:
    """A stream of batches through one codec, owned by the caller (as zstd keeps a per-stream
    context beside a shareable dictionary): where a stateful codec's state stands between
    batches. Make one with :meth:`Codec.session`; a fresh session starts from the initial state.
    A stateless codec's batches ignore it. One batch at a time runs on a session. It pickles with
    its codec and state, so a stream can continue in another process."""

    __slots__ = ("codec", "_s")

    def __init__(self, codec: Codec, state: Optional[np.ndarray] = None) -> None:
        if not isinstance(codec, Codec):
            raise TypeError(f"a Session is made for a Codec, got {type(codec).__name__}")
        self.codec = codec
        self._s = _core.Session(codec._c)
        if state is not None:
            if not isinstance(state, np.ndarray) or state.dtype != np.uint8 or state.ndim != 1:
                raise TypeError(f"a session's state is a 1-D uint8 array (Session.state), got {_describe(state)}")
            with codec._named_errors():
                self._s.load(np.ascontiguousarray(state))

    @property
    def state(self) -> Optional[np.ndarray]:
        """The state between batches as bytes (a fresh session: the initial state's; None for a
        stateless codec)."""
        st = self._s.state
        return None if st is None else _readonly(st)

    def __reduce__(self):
        return Session, (self.codec, self.state)

    def __repr__(self) -> str:
        return f"Session({self.codec!r})"


@dataclass(frozen=True)
class Sizes:
    """Per-block sizes in bits from :meth:`Codec.measure` (arrays are read-only).

    ``size_bits`` is the in-band stream length, ``payload_bits + meta_bits + header_bits``;
    ``tag_bits`` live beside the block and count only when a report asks for them.
    """

    codec: Codec
    block_bytes: int
    size_bits: np.ndarray
    payload_bits: np.ndarray
    meta_bits: np.ndarray
    header_bits: np.ndarray
    tag_bits: np.ndarray
    mode: np.ndarray

    @property
    def n_blocks(self) -> int:
        return int(self.size_bits.shape[0])

    @property
    def total_bits(self) -> int:
        return int(self.size_bits.sum(dtype=np.uint64))

    def stats(self, threads: Optional[int] = None) -> "SizeStats":
        """A mergeable partial result (histograms and sums) of these sizes."""
        from .metrics import SizeStats

        return SizeStats.from_sizes(self, threads)

    def cr(self, policy: Optional[str] = None, count_tag: bool = False) -> float:
        """Raw compression ratio, sum(8B) / sum(charged bits), under ``policy`` (default: the
        preset's policy); ``count_tag`` (True or False) charges the tag bits too."""
        return self.stats().cr(policy, count_tag=check_bool("count_tag", count_tag))

    def to_frame(self) -> "pandas.DataFrame":
        import pandas as pd

        modes = self.codec.modes
        return pd.DataFrame(
            {
                "size_bits": self.size_bits,
                "payload_bits": self.payload_bits,
                "meta_bits": self.meta_bits,
                "header_bits": self.header_bits,
                "tag_bits": self.tag_bits,
                "mode": self.mode,
                "mode_name": pd.Categorical([modes.get(int(m), str(m)) for m in self.mode]),
            }
        )


@dataclass(frozen=True, eq=False)
class Encoded:
    """Encoded blocks: one byte buffer plus per-block bit offsets, bit lengths and tag values.

    Block ``i`` is bits ``[bit_offsets[i], bit_offsets[i] + bit_lengths[i])`` of ``data`` (MSB
    first, SPEC 0.3); ``tags[i]`` is what the codec keeps beside the block (e.g. BDI's encoding);
    ``entry_state`` is what a stateful codec (``cpack.skku``) had seen before the first block.
    """

    config: Dict[str, Any]
    block_bytes: int
    data: np.ndarray
    bit_offsets: np.ndarray
    bit_lengths: np.ndarray
    tags: np.ndarray
    #: A stateful codec's state at the start of the batch (uint8 bytes); None for the others.
    entry_state: Optional[np.ndarray] = None

    def __post_init__(self) -> None:
        # Fields built by hand: arrays (their dtypes and lengths are checked where they are read)
        # and a block size a container can hold, so save/to_bytes/decode refuse the rest by name.
        for k in ("data", "bit_offsets", "bit_lengths", "tags", "entry_state"):
            a = getattr(self, k)
            if (a is not None or k != "entry_state") and not (isinstance(a, np.ndarray) and a.ndim == 1):
                got = f"a {a.ndim}-D array" if isinstance(a, np.ndarray) else type(a).__name__
                raise TypeError(f"Encoded field {k!r} must be a 1-D NumPy array, got {got}")
        check_int("block_bytes", self.block_bytes, 1, (1 << 32) - 1)

    @property
    def n_blocks(self) -> int:
        return int(self.bit_lengths.shape[0])

    @property
    def total_bits(self) -> int:
        return int(self.bit_lengths.sum(dtype=np.uint64))

    def block_stream(self, i: int) -> bytes:
        """The bytes of block ``i``'s stream (zero-padded to a whole byte)."""
        off, n = int(self.bit_offsets[i]), int(self.bit_lengths[i])
        if off % 8:
            raise ValueError("block does not start on a byte boundary")
        return bytes(self.data[off // 8 : off // 8 + (n + 7) // 8])

    def save(self, path: Union[str, bytes, os.PathLike]) -> None:
        """Saves to the file ``path``, exactly that name (NumPy's ``.npz`` format, no pickles; no
        suffix is added, so :meth:`load` reads back the same name). OSError naming the file if it
        cannot be written (IsADirectoryError for a directory)."""
        with open(check_path("path", path), "wb") as f:
            np.savez(
                f,
                format=np.array(_ENCODED_FORMAT),
                config=np.array(json.dumps(self.config, sort_keys=True)),
                block_bytes=np.array(self.block_bytes, dtype=np.int64),
                data=self.data,
                bit_offsets=self.bit_offsets,
                bit_lengths=self.bit_lengths,
                tags=self.tags,
                **({} if self.entry_state is None else {"entry_state": self.entry_state}),  # type: ignore[arg-type]
            )

    @classmethod
    def load(cls, path: Union[str, bytes, os.PathLike]) -> "Encoded":
        """Loads a file written by :meth:`save` (no pickles). Raises :class:`CorruptStreamError`
        (a ValueError) naming the file for a malformed, truncated or foreign one, OSError
        (FileNotFoundError, IsADirectoryError...) naming it for one that cannot be read."""
        where = check_path("path", path)
        arrays = read_npz(where, "a memcomp encoded file (.npz)", CorruptStreamError, max_members=16)
        keys = {"format", "config", "block_bytes", "data", "bit_offsets", "bit_lengths", "tags"}
        missing, extra = keys - set(arrays), set(arrays) - keys - {"entry_state"}
        if missing or extra:
            raise CorruptStreamError(
                f"{where}: not a memcomp encoded file (missing {sorted(missing)}, unexpected {sorted(extra)})"
            )
        text = {k: _scalar(where, k, arrays[k], "U") for k in ("format", "config")}
        if text["format"] != _ENCODED_FORMAT:
            raise CorruptStreamError(
                f"{where}: unsupported format {text['format'][:80]!r} (this memcomp reads {_ENCODED_FORMAT!r})"
            )
        try:
            config = parse_json(text["config"], f"{where}: field 'config'")
        except ValueError as e:
            raise CorruptStreamError(str(e)) from None
        block_bytes = _scalar(where, "block_bytes", arrays["block_bytes"], "iu")
        fields: Dict[str, np.ndarray] = {
            k: arrays[k] for k in ("data", "bit_offsets", "bit_lengths", "tags", "entry_state") if k in arrays
        }
        return cls._checked(where, config, block_bytes, fields)

    def to_bytes(self, *, config: bool = True) -> bytes:
        """The encoded blocks as one compact byte string; :meth:`from_bytes` reads it back.

        A 36-byte header, then the config (JSON), the bit lengths and the tags (1, 2 or 4 bytes
        each, the fewest that hold the largest; 0 when all are zero), the bit offsets only if the
        blocks are not packed back to back on byte boundaries (as :meth:`Codec.encode` packs
        them), the entry state and the data. ``config=False`` leaves the config out for a caller
        that keeps it elsewhere (a numcodecs or zarr codec); pass it to :meth:`from_bytes` then."""
        config = check_bool("config", config)
        stream_bytes = (self.bit_lengths.astype(np.uint64) + 7) // 8
        packed = int(stream_bytes.sum()) == self.data.nbytes and np.array_equal(
            _packed_offsets(stream_bytes), self.bit_offsets
        )
        text = json.dumps(self.config, sort_keys=True, separators=(",", ":")).encode() if config else b""
        state = b"" if self.entry_state is None else np.ascontiguousarray(self.entry_state)
        lw, tw = _int_width(self.bit_lengths), _int_width(self.tags)
        flags = (
            (_HAS_CONFIG if config else 0)
            | (_HAS_STATE if self.entry_state is not None else 0)
            | (0 if packed else _HAS_OFFSETS)
        )
        header = _BYTES_HEADER.pack(
            _BYTES_MAGIC,
            _BYTES_VERSION,
            flags,
            lw,
            tw,
            self.block_bytes,
            self.n_blocks,
            self.data.nbytes,
            len(text),
            len(state),
        )
        parts = [
            header,
            text,
            _le_bytes(self.bit_lengths, lw),
            _le_bytes(self.tags, tw),
            b"" if packed else _le_bytes(self.bit_offsets, 8),
            state,
            np.ascontiguousarray(self.data),
        ]
        return b"".join(p.data.cast("B") if isinstance(p, np.ndarray) else p for p in parts)

    @staticmethod
    def peek_n_blocks(buf: np.ndarray, offset: int = 0) -> Optional[int]:
        """The block count in the to_bytes header at ``buf[offset:]`` (uint8), None if too short:
        what a container checks before from_bytes allocates per-block arrays for it."""
        if buf.nbytes < offset + _BYTES_HEADER.size:
            return None
        return int(_BYTES_HEADER.unpack_from(buf.data, offset)[6])

    @classmethod
    def from_bytes(cls, data: Any, codec: Union["Codec", Mapping[str, Any], None] = None) -> "Encoded":
        """Reads :meth:`to_bytes`'s output from any contiguous buffer (the data array is a
        read-only view of it). ``codec`` (a Codec or its config) is required when the bytes carry
        no config and must match it when they do. Raises ValueError for malformed bytes."""
        if isinstance(data, str) or not has_buffer(data):
            raise TypeError(
                f"from_bytes reads a bytes-like object (bytes, bytearray, memoryview, uint8 array), "
                f"got {type(data).__name__}"
            )
        buf = byte_view(data)  # no copy: a non-contiguous array raises
        if buf.nbytes < _BYTES_HEADER.size:
            raise CorruptStreamError(
                f"encoded bytes truncated: {buf.nbytes} B, shorter than the {_BYTES_HEADER.size} B header"
            )
        magic, version, flags, lw, tw, block_bytes, n, n_data, n_text, n_state = _BYTES_HEADER.unpack_from(buf.data)
        if magic != _BYTES_MAGIC:
            raise CorruptStreamError(f"not memcomp encoded bytes (magic {magic!r}, expected {_BYTES_MAGIC!r})")
        if version != _BYTES_VERSION:
            raise CorruptStreamError(
                f"unsupported encoded-bytes version {version} (this memcomp reads {_BYTES_VERSION})"
            )
        if flags & ~(_HAS_CONFIG | _HAS_STATE | _HAS_OFFSETS) or lw not in (0, 1, 2, 4) or tw not in (0, 1, 2, 4):
            raise CorruptStreamError(f"malformed encoded bytes (flags {flags}, widths {lw}/{tw})")
        if (n_text and not flags & _HAS_CONFIG) or (n_state and not flags & _HAS_STATE):
            raise CorruptStreamError(
                f"malformed encoded bytes (flags {flags} with {n_text} B of config, {n_state} B of state)"
            )
        if n * max(block_bytes, 8) >= 1 << 63:  # per-block arrays and the decoded blocks must be NumPy arrays
            raise CorruptStreamError(
                f"malformed encoded bytes: {n} blocks of {block_bytes} B, more than an array can hold"
            )
        sizes = [n_text, n * lw, n * tw, 8 * n if flags & _HAS_OFFSETS else 0, n_state, n_data]
        if _BYTES_HEADER.size + sum(sizes) != buf.nbytes:
            raise CorruptStreamError(
                f"encoded bytes truncated or padded: the header describes "
                f"{_BYTES_HEADER.size + sum(sizes)} B, got {buf.nbytes} B"
            )
        at = np.cumsum([_BYTES_HEADER.size] + sizes)
        part = [buf[at[i] : at[i + 1]] for i in range(len(sizes))]
        lengths = _from_le(part[1], lw, n, np.uint32)
        fields = {"data": part[5], "bit_lengths": lengths, "tags": _from_le(part[2], tw, n, np.uint32)}
        if flags & _HAS_OFFSETS:
            fields["bit_offsets"] = _from_le(part[3], 8, n)
        else:
            if lw == 0:  # every block 0 bits long: nothing to allocate per block
                if n_data:
                    raise CorruptStreamError(
                        f"malformed encoded bytes: the bit lengths need 0 B of data, the header says {n_data} B"
                    )
                fields["bit_offsets"] = _from_le(part[3], 0, n)
            else:
                stream_bytes = (lengths.astype(np.uint64) + 7) // 8
                if int(stream_bytes.sum()) != n_data:
                    raise CorruptStreamError(
                        f"malformed encoded bytes: the bit lengths need {int(stream_bytes.sum())} "
                        f"B of data, the header says {n_data} B"
                    )
                fields["bit_offsets"] = _packed_offsets(stream_bytes)
        if flags & _HAS_STATE:
            fields["entry_state"] = part[4]
        if flags & _HAS_CONFIG:
            try:
                config = parse_json(bytes(part[0]), "encoded bytes: config")
            except ValueError as e:
                raise CorruptStreamError(str(e)) from None
            encoded = cls._checked("encoded bytes", config, block_bytes, fields)
            if codec is not None:
                given = codec if isinstance(codec, Codec) else Codec.from_config(codec)
                if Codec.from_config(config) != given:
                    raise ValueError(f"these bytes were encoded by {Codec.from_config(config).name}, not {given.name}")
            return encoded
        if codec is None:
            raise ValueError("these encoded bytes carry no config (to_bytes(config=False)): pass codec=")
        return cls._checked("encoded bytes", None, block_bytes, fields, codec)

    @classmethod
    def _checked(
        cls,
        where: str,
        config: Any,
        block_bytes: int,
        fields: Dict[str, np.ndarray],
        codec: Union["Codec", Mapping[str, Any], None] = None,
    ) -> "Encoded":
        """An Encoded from loaded fields, after the checks :meth:`load` and :meth:`from_bytes` share:
        a valid config, and fields that agree with each other, the data size and the codec."""
        try:
            if codec is None:
                if not isinstance(config, dict):
                    raise ValueError("config must be a JSON object")
                codec = Codec.from_config(config)  # validates the config
            elif not isinstance(codec, Codec):
                codec = Codec.from_config(codec)
        except (ValueError, TypeError) as e:
            raise CorruptStreamError(f"{where}: bad codec config ({e})") from None
        if config is None:
            config = codec.get_config()
        if codec.stateful and "entry_state" not in fields:
            raise CorruptStreamError(f"{where}: {codec.name} is stateful and records no entry state; encode again")
        _check_fields(where, block_bytes, fields, codec)
        return cls(config=config, block_bytes=block_bytes, **{k: _readonly(v) for k, v in fields.items()})

    def _fields(self) -> Dict[str, Any]:
        out = {"data": self.data, "bit_offsets": self.bit_offsets, "bit_lengths": self.bit_lengths, "tags": self.tags}
        if self.entry_state is not None:
            out["entry_state"] = self.entry_state
        return out


_FIELD_DTYPES = {
    "data": np.uint8,
    "bit_offsets": np.uint64,
    "bit_lengths": np.uint32,
    "tags": np.uint32,
    "entry_state": np.uint8,
}


def _check_fields(
    where: str,
    block_bytes: Any,
    fields: Dict[str, Any],
    codec: "Codec",
    type_error: type = CorruptStreamError,
    ranges: bool = True,
) -> None:
    """CorruptStreamError naming ``where`` unless the fields of encoded blocks agree: 1-D arrays
    of the right dtypes, one offset, length and tag per block, a block size the codec supports,
    and (``ranges``) every block's bits inside the data and no longer than the codec's longest
    block. A field of the wrong type raises ``type_error`` (TypeError for an Encoded built in
    Python)."""
    for k, dt in _FIELD_DTYPES.items():
        a = fields.get(k)
        if a is None:
            continue
        if not isinstance(a, np.ndarray) or a.dtype != dt or a.ndim != 1:
            got = f"{a.ndim}-D {a.dtype}" if isinstance(a, np.ndarray) else type(a).__name__
            raise type_error(f"{where}: field {k!r} must be a 1-D {np.dtype(dt).name} array, got {got}")
    n = fields["bit_offsets"].shape[0]
    for k in ("bit_lengths", "tags"):
        if fields[k].shape[0] != n:
            raise CorruptStreamError(
                f"{where}: field {k!r} must have {n} entries (one per bit offset), got {fields[k].shape[0]}"
            )
    if isinstance(block_bytes, (bool, np.bool_)) or not isinstance(block_bytes, (int, np.integer)):
        raise type_error(f"{where}: block_bytes must be an integer, got {type(block_bytes).__name__}")
    try:
        codec.check_block_bytes(int(block_bytes))
        longest = codec.max_compressed_bits(int(block_bytes))
    except ValueError as e:
        raise CorruptStreamError(f"{where}: {e}") from None
    if n and ranges:
        total = np.uint64(8 * fields["data"].shape[0])
        off, length = fields["bit_offsets"], fields["bit_lengths"]
        o, ln = (a[:1] if a.strides[0] == 0 else a for a in (off, length))  # zero-strided: one value for all
        long_ = np.flatnonzero(ln > longest)
        if long_.size:
            i = int(long_[0])
            raise CorruptStreamError(
                f"{where}: block {i} is {int(length[i])} bits long, which exceeds "
                f"{codec.name}'s maximum of {longest} bits"
            )
        out = np.flatnonzero((o > total) | (ln.astype(np.uint64) > total - np.minimum(o, total)))
        if out.size:
            i = int(out[0])
            raise CorruptStreamError(
                f"{where}: block {i} (bits {int(off[i])} + {int(length[i])}) lies outside the {int(total)} bits of data"
            )


def _scalar(where: str, key: str, a: np.ndarray, kinds: str) -> Any:
    """The value of a 0-d array of one of the dtype ``kinds`` ("U" text, "iu" integers)."""
    if a.ndim != 0 or a.dtype.kind not in kinds:
        raise CorruptStreamError(
            f"{where}: field {key!r} must be a single {'text' if kinds == 'U' else 'integer'}, "
            f"got a {a.ndim}-D {a.dtype} array"
        )
    return str(a[()]) if kinds == "U" else int(a[()])


def _packed_offsets(stream_bytes: np.ndarray) -> np.ndarray:
    """Bit offsets of block streams of ``stream_bytes`` bytes each, back to back."""
    offsets = np.zeros(len(stream_bytes), np.uint64)
    np.cumsum(stream_bytes[:-1] * 8, out=offsets[1:])
    return offsets


def _int_width(a: np.ndarray) -> int:
    """Bytes per value that hold every value of the unsigned array ``a``: 0 (all zero), 1, 2 or 4."""
    top = int(a.max()) if a.size else 0
    return 0 if top == 0 else 1 if top < 1 << 8 else 2 if top < 1 << 16 else 4


def _le_bytes(a: np.ndarray, width: int) -> np.ndarray:
    """``a`` as little-endian unsigned integers of ``width`` bytes (nothing for width 0)."""
    return np.ascontiguousarray(a, dtype=f"<u{width}") if width else np.empty(0, np.uint8)


def _from_le(raw: np.ndarray, width: int, n: int, dtype: Any = np.uint64) -> np.ndarray:
    """``n`` little-endian unsigned integers of ``width`` bytes as ``dtype`` (native order); for
    width 0, ``n`` zeros that take no memory (a read-only zero-strided view)."""
    if not width:
        return np.broadcast_to(np.zeros((), dtype), (n,))
    return raw.view(f"<u{width}").astype(dtype)
