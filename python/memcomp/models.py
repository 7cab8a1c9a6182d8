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

FORMAT = "memcomp.model/1"


class Model:
    """An immutable fitted model. ``model["values"]`` reads a field; ``model.data`` copies all."""

    __slots__ = ("_data", "_text")

    def __init__(self, data: Union[Mapping[str, Any], str]):
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as e:
                raise ValueError(f"model is not valid JSON: {e}") from e
        if not isinstance(data, Mapping):
            raise TypeError(f"a model is a JSON object (mapping), got {type(data).__name__}")
        if data.get("format") != FORMAT:
            raise ValueError(f"model 'format' must be {FORMAT!r}, got {data.get('format')!r}")
        if not isinstance(data.get("codec"), str):
            raise ValueError("model needs a 'codec' name")
        self._data = copy.deepcopy(dict(data))
        self._text = json.dumps(self._data, separators=(",", ":"))

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
        """Reads a model file; ValueError for a malformed one."""
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            return cls(text)
        except (ValueError, TypeError) as e:
            raise ValueError(f"{path}: {e}") from e

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Model) and self._data == other._data

    def __hash__(self) -> int:
        return hash(json.dumps(self._data, sort_keys=True))

    def __repr__(self) -> str:
        fields = ", ".join(k for k in self._data if k not in ("format", "codec"))
        return f"<Model codec={self.codec!r} fields: {fields}>"
