"""Fitted models of data-driven codecs (SPEC 0.7 item 5).

A model is immutable, versioned JSON, ``{"format": "memcomp.model/1", "codec": <family>, ...}``,
given to the encoder and the decoder alike and never charged to blocks. ``codec.fit(blocks)``
returns a codec that carries one; ``codec.model.save(path)`` and ``Model.load(path)`` move it
between sessions, and ``get_codec(name, model=...)`` puts it back to work.

A model file may also hold ``"provenance"``: how the model was made (:func:`training_provenance`:
memcomp version, training options, the data trained on with its byte ranges and SHA-256, blocks
per group). It is not part of the model: the codecs never read it, ``Model.data``, ``to_json``
and ``==`` leave it out, and ``Model.provenance`` reads it (None for files written before it
existed, which load as they always did). ``memcomp info model.json`` prints it.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any, Dict, Mapping, Optional, Sequence, Union

import numpy as np

from ._common import parse_json, read_text, source_of
from ._version import __version__

FORMAT = "memcomp.model/1"

#: The key of a model file that records how the model was made (not part of the model).
PROVENANCE = "provenance"

#: Longest Huffman code of an E2MC/SC2 table (bits), as the codecs read it.
MAX_CODE_LEN = 32


class Model:
    """An immutable fitted model. ``model["values"]`` reads a field; ``model.data`` copies all
    fields; ``model.provenance`` how it was made (module doc), given as ``provenance=`` or as the
    ``"provenance"`` key of ``data``."""

    __slots__ = ("_data", "_text", "_provenance")

    def __init__(self, data: Union[Mapping[str, Any], str], provenance: Optional[Mapping[str, Any]] = None):
        if isinstance(data, (str, bytes)):
            data = parse_json(data, "model")
            if not isinstance(data, Mapping):
                raise ValueError(f"model: a model is a JSON object, got a JSON {type(data).__name__}")
        if not isinstance(data, Mapping):
            raise TypeError(f"a model is a JSON object (mapping), got {type(data).__name__}")
        if PROVENANCE in data:
            if provenance is not None:
                raise TypeError("model: give the provenance once, as provenance= or in the data, not both")
            data = dict(data)
            provenance = data.pop(PROVENANCE)
        self._provenance = _json_object(PROVENANCE, provenance)
        if data.get("format") != FORMAT:
            raise ValueError(f"model 'format' must be {FORMAT!r}, got {str(data.get('format'))[:80]!r}")
        if not isinstance(data.get("codec"), str):
            raise ValueError("model needs a 'codec' name")
        try:  # strict JSON (no NaN) and a bounded depth, so the codecs read exactly what is kept
            self._text = json.dumps(dict(data), separators=(",", ":"), allow_nan=False)
        except RecursionError:
            raise ValueError("model: nested too deeply") from None
        except (TypeError, ValueError) as e:
            raise ValueError(f"model: not JSON-serialisable ({e})") from None
        self._data = json.loads(self._text)
        _check_fields(self._data)

    @property
    def codec(self) -> str:
        """Family id of the codec the model belongs to."""
        return self._data["codec"]

    @property
    def data(self) -> Dict[str, Any]:
        return copy.deepcopy(self._data)

    @property
    def provenance(self) -> Optional[Dict[str, Any]]:
        """How the model was made (:func:`training_provenance`), None if not recorded."""
        return copy.deepcopy(self._provenance)

    def with_provenance(self, provenance: Optional[Mapping[str, Any]]) -> "Model":
        """This model with ``provenance`` (a JSON object; None: without)."""
        return Model(self._data, provenance=provenance)

    def __getitem__(self, key: str) -> Any:
        return copy.deepcopy(self._data[key])

    def to_json(self, indent: Any = None) -> str:
        """The model as JSON text, as the codecs read it (without the provenance)."""
        return self._text if indent is None else json.dumps(self._data, indent=indent)

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Writes the model file: the model and, after it, its provenance."""
        data = self._data if self._provenance is None else {**self._data, PROVENANCE: self._provenance}
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(data, indent=1))
            f.write("\n")

    @classmethod
    def load(cls, path: Union[str, os.PathLike]) -> "Model":
        """Reads a model file; ValueError naming the file for a malformed one, OSError for a
        missing or unreadable one."""
        text = read_text(path, "a memcomp model (JSON)")
        try:
            return cls(text)
        except (ValueError, TypeError) as e:
            raise ValueError(f"{os.fspath(path)}: {e}") from None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Model) and self._data == other._data

    def __hash__(self) -> int:
        return hash(json.dumps(self._data, sort_keys=True))

    def __repr__(self) -> str:
        fields = ", ".join(k for k in self._data if k not in ("format", "codec"))
        return f"<Model codec={self.codec!r} fields: {fields}>"


def _json_object(key: str, value: Any) -> Optional[Dict[str, Any]]:
    """A copy of ``value``, a JSON object (strict JSON: no NaN) or None; ValueError naming ``key``."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ValueError(f"model field {key!r} must be a JSON object, got {type(value).__name__}")
    try:
        return json.loads(json.dumps(dict(value), allow_nan=False))
    except RecursionError:
        raise ValueError(f"model field {key!r}: nested too deeply") from None
    except (TypeError, ValueError) as e:
        raise ValueError(f"model field {key!r}: not JSON-serialisable ({e})") from None


def training_provenance(
    trainer: str,
    options: Mapping[str, Any],
    sources: Sequence[Any] = (),
    *,
    sha256: Optional[str] = None,
    nbytes: Optional[int] = None,
    described: bool = False,
    **counts: Any,
) -> Dict[str, Any]:
    """A model's provenance: the memcomp version, the ``trainer`` (the function that made it) and
    its ``options``; the training ``source`` (per source, a dump's dataset, file, format and byte
    range, or an array's shape), the ``bytes`` read and their ``sha256`` (hex digest of those
    bytes in order: for one whole raw file, ``sha256sum FILE``), when known (``described``: the
    sources given as their provenance dicts already); then ``counts``
    (e.g. ``blocks``, MPC's ``groups``)."""
    out: Dict[str, Any] = {"memcomp_version": __version__, "trainer": trainer, "options": dict(options)}
    if sources:
        out["source"] = [dict(s) if described else _source(s) for s in sources]
    if nbytes is not None:
        out["bytes"] = int(nbytes)
    if sha256 is not None:
        out["sha256"] = sha256
    return {**out, **counts}


def _source(blocks: Any) -> Dict[str, Any]:
    """A training source: a dump's dataset, file (an absolute path) and byte range, or an array's shape."""
    src = source_of(blocks)
    if not src:
        return {"array": f"{np.shape(blocks)} {getattr(blocks, 'dtype', 'uint8')}"}
    if os.path.exists(src.get("file", "")):
        src["file"] = os.path.abspath(src["file"])
    return src


def _check_fields(data: Dict[str, Any]) -> None:
    """Checks the fields the codecs' own model readers leave unchecked: an E2MC/SC2 model's
    ``max_len`` (1..32) bounds every code length of its tables."""
    if data["codec"] not in ("e2mc", "sc2") or "max_len" not in data:
        return
    ml = data["max_len"]
    if isinstance(ml, bool) or not isinstance(ml, int) or not 1 <= ml <= MAX_CODE_LEN:
        raise ValueError(f"model field 'max_len' must be an integer in [1, {MAX_CODE_LEN}], got {str(ml)[:40]}")
    tables = data.get("tables")
    for i, t in enumerate(tables if isinstance(tables, list) else []):
        lengths = t.get("lengths") if isinstance(t, dict) else None
        lengths = lengths if isinstance(lengths, list) else []
        longest = max([x for x in lengths if isinstance(x, int)] + [0])
        if longest > ml:
            raise ValueError(
                f"model field 'tables[{i}].lengths' has a code of {longest} bits, longer than 'max_len' {ml}"
            )
