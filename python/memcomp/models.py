"""Fitted models of data-driven codecs (SPEC 0.7 item 5).

A model is immutable, versioned JSON, ``{"format": "memcomp.model/1", "codec": <family>, ...}``,
given to the encoder and the decoder alike and never charged to blocks. ``codec.fit(blocks)``
returns a codec that carries one; ``codec.model.save(path)`` and ``Model.load(path)`` move it
between sessions, and ``get_codec(name, model=...)`` puts it back to work.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any, Dict, Mapping, Union

from ._common import parse_json, read_text

FORMAT = "memcomp.model/1"

#: Longest Huffman code of an E2MC/SC2 table (bits), as the codecs read it.
MAX_CODE_LEN = 32


class Model:
    """An immutable fitted model. ``model["values"]`` reads a field; ``model.data`` copies all."""

    __slots__ = ("_data", "_text")

    def __init__(self, data: Union[Mapping[str, Any], str]):
        if isinstance(data, (str, bytes)):
            data = parse_json(data, "model")
            if not isinstance(data, Mapping):
                raise ValueError(f"model: a model is a JSON object, got a JSON {type(data).__name__}")
        if not isinstance(data, Mapping):
            raise TypeError(f"a model is a JSON object (mapping), got {type(data).__name__}")
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

    def __getitem__(self, key: str) -> Any:
        return copy.deepcopy(self._data[key])

    def to_json(self, indent: Any = None) -> str:
        return self._text if indent is None else json.dumps(self._data, indent=indent)

    def save(self, path: Union[str, os.PathLike]) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_json(indent=1))
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
