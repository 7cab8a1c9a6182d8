"""memcomp's lossless codecs as a numcodecs codec and a zarr v3 bytes-to-bytes codec.

:class:`MemcompCodec` is a ``numcodecs.abc.Codec`` (id ``"memcomp"``, registered with numcodecs
on import and through the ``numcodecs.codecs`` entry point), usable wherever numcodecs codecs
are (zarr v2 arrays included). :class:`MemcompZarrCodec` wraps it for zarr v3 arrays, under the
name ``"numcodecs.memcomp"`` (zarr's convention for numcodecs codecs; found by zarr through the
``zarr.codecs`` entry point)::

    from memcomp.numcodecs import MemcompZarrCodec
    z = zarr.create_array(store, shape=(1000, 1000), dtype="float32", chunks=(100, 100),
                          compressors=[MemcompZarrCodec("bdi", block_bytes=128)])

A buffer is cut into ``block_bytes`` blocks; if its length is not a multiple of ``block_bytes``
the last block is zero-padded, the byte count is recorded and decode drops the padding. Each
buffer (chunk) is encoded on its own: a stateful codec (``cpack.skku``) starts every chunk from
its initial state. The output is a 30-byte header (magic ``MCNC``, format version 3, flags, byte
count, block count, block size, CRC-32 of the rest of the header and the body) followed by the
body: :meth:`memcomp.Encoded.to_bytes` without the config, which the numcodecs config (or the zarr
array metadata) holds; or, when that stream would not be smaller than the chunk (random bytes, or
BDI and FPC on FP32 photos), the chunk's bytes as they are, flagged ``raw`` (flags bit 0). So an
encoded chunk is never longer than the chunk plus the 30-byte header, and a zarr array never grows.
Version 2 buffers (29 bytes of header, no flags) and version 1 buffers (25 bytes, no flags, no
CRC) are still read.
"""

from __future__ import annotations

import asyncio
import copy
import struct
import sys
import zlib
from typing import Any, Dict, Mapping, Optional, Union

import numpy as np
from numcodecs.abc import Codec as _NumcodecsCodec
from numcodecs.compat import ensure_contiguous_ndarray, ndarray_copy
from numcodecs.registry import register_codec

from .codecs import Codec, CorruptStreamError, Encoded, get_codec

__all__ = ["MemcompCodec", "MemcompZarrCodec"]  # noqa: F822 (defined when zarr is installed)

_MAGIC = b"MCNC"
_VERSION = 3
_PREFIX = struct.Struct("<4sB")  # magic, version: how the rest of the header reads
#: per version, the header fields (a CRC-32 of them and the body follows from version 2 on):
#: magic, version, [flags (version 3),] byte count, block count, block bytes
_FIELDS = {1: struct.Struct("<4sBQQI"), 2: struct.Struct("<4sBQQI"), _VERSION: struct.Struct("<4sBBQQI")}
_CRC = struct.Struct("<I")
_RAW = 1  # flags bit 0: the body is the chunk's bytes as they are (the codec's stream would not be smaller)


class MemcompCodec(_NumcodecsCodec):
    """A lossless memcomp codec as a numcodecs codec.

    ``codec`` is a preset or family name as :func:`memcomp.get_codec` takes it, with ``options``
    (a dict of codec options) and, for a data-driven codec, ``model`` (its model dict or JSON,
    as the fitted codec's ``get_config()["model"]``); or a ready :class:`memcomp.Codec` (fitted
    ones included), which brings its options and model. Raises ValueError for a lossy codec, an
    accounting-only preset, a data-driven codec without a model and an unsupported block size.

    ``encode`` takes any contiguous buffer and stores it raw (flagged) when the codec would not
    make it smaller, so its output is at most the buffer's bytes plus the 30-byte header;
    ``decode`` raises ValueError
    (:class:`memcomp.CorruptStreamError` is one) for a corrupt or truncated buffer.
    """

    codec_id = "memcomp"

    def __init__(
        self,
        codec: Union[str, Codec] = "bdi",
        block_bytes: int = 128,
        options: Optional[Mapping[str, Any]] = None,
        model: Any = None,
    ):
        if options is not None and (not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options)):
            raise TypeError(f"options must be a mapping of option names to values, got {type(options).__name__}")
        if isinstance(codec, Codec):
            if options or model is not None:
                raise TypeError("options and model come from the Codec object; give them with a codec name only")
        elif not isinstance(codec, str):
            raise TypeError(f"codec must be a codec name or a memcomp Codec, got {type(codec).__name__}")
        else:
            options = dict(options or {})
            if model is not None:
                if "model" in options:
                    raise TypeError("model given twice, as model= and in options")
                options["model"] = model
            codec = get_codec(codec, **options)
        what = f"{codec.name} cannot be a numcodecs codec"
        if codec.lossy:
            raise ValueError(f"{what}: it is lossy (numcodecs codecs must give back the exact bytes)")
        if not codec.exact:
            raise ValueError(f"{what}: it is an accounting-only preset that measures but does not encode")
        if codec.requires_fit:
            raise ValueError(
                f"{what}: it is data-driven and has no model; pass model= or a fitted codec, "
                f"e.g. MemcompCodec(memcomp.get_codec({codec.preset!r}).fit(blocks))"
            )
        try:
            codec.check_block_bytes(block_bytes)
        except ValueError as e:
            raise ValueError(f"{what} with block_bytes={block_bytes}: {e}") from None
        #: The memcomp Codec doing the work.
        self.codec = codec
        self.block_bytes = int(block_bytes)

    def get_config(self) -> Dict[str, Any]:
        """``{"id": "memcomp", "codec": preset, "block_bytes": ..., "options": {...}[, "model": {...}]}``
        (from :meth:`memcomp.Codec.get_config`, every option spelled out)."""
        cfg = self.codec.get_config()
        cfg.pop("id")
        preset, model = cfg.pop("preset"), cfg.pop("model", None)
        out = {"id": self.codec_id, "codec": preset, "block_bytes": self.block_bytes, "options": cfg}
        if model is not None:
            out["model"] = model
        return out

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> "MemcompCodec":
        if not isinstance(config, Mapping):
            raise TypeError(f"config must be a mapping (get_config()'s output), got {type(config).__name__}")
        config = dict(config)
        if config.pop("id", cls.codec_id) != cls.codec_id:
            raise ValueError(f"not a {cls.codec_id} codec config: {config}")
        return cls(**config)

    def __repr__(self) -> str:
        return f"MemcompCodec(codec={self.codec!r}, block_bytes={self.block_bytes})"

    def __reduce__(self) -> Any:
        # The memcomp Codec wraps a C++ object that does not pickle; the config rebuilds it.
        return type(self).from_config, (self.get_config(),)

    def encode(self, buf: Any) -> bytes:
        data = ensure_contiguous_ndarray(buf).reshape(-1).view(np.uint8)
        B = self.block_bytes
        full, rest = divmod(data.nbytes, B)
        codec, stream = self.codec, self.codec.session()  # a chunk is one stream, of its own
        enc = codec.encode(data[: full * B].reshape(full, B), session=stream)  # a view: no copy
        if rest:  # only the last partial block is copied, zero-padded
            last = np.zeros((1, B), np.uint8)
            last[0, :rest] = data[full * B :]
            enc = _concat(enc, codec.encode(last, session=stream))
        body, flags = enc.to_bytes(config=False), 0
        if len(body) >= data.nbytes:  # the codec would expand the chunk: store it raw, flagged
            body, flags = data.tobytes(), _RAW
        fields = _FIELDS[_VERSION].pack(_MAGIC, _VERSION, flags, data.nbytes, enc.n_blocks, B)
        return fields + _CRC.pack(zlib.crc32(body, zlib.crc32(fields))) + body

    def decode(self, buf: Any, out: Any = None) -> Any:
        return self._decode(buf, out)

    def _decode(self, buf: Any, out: Any = None, max_bytes: Optional[int] = None) -> Any:
        """decode, refusing (before decoding) a buffer that holds more than ``max_bytes``."""
        raw = ensure_contiguous_ndarray(buf).reshape(-1).view(np.uint8)
        least = _FIELDS[1].size
        if raw.nbytes < least:
            raise CorruptStreamError(f"memcomp: buffer of {raw.nbytes} B is shorter than the {least} B header")
        magic, version = _PREFIX.unpack_from(raw)
        if magic != _MAGIC:
            raise CorruptStreamError(f"memcomp: not a memcomp buffer (magic {magic!r}, expected {_MAGIC!r})")
        if version not in _FIELDS:
            raise CorruptStreamError(
                f"memcomp: unsupported format version {version} (this memcomp reads 1 to {_VERSION})"
            )
        fields = _FIELDS[version]
        head = fields.size + (_CRC.size if version >= 2 else 0)
        if raw.nbytes < head:
            raise CorruptStreamError(f"memcomp: buffer of {raw.nbytes} B is shorter than the {head} B header")
        values = fields.unpack_from(raw)
        nbytes, n_blocks, block_bytes = values[-3:]
        flags = values[2] if version >= 3 else 0
        if version >= 2:
            crc = _CRC.unpack_from(raw, fields.size)[0]
            if zlib.crc32(raw[head:], zlib.crc32(raw[: fields.size])) != crc:
                raise CorruptStreamError(f"memcomp: corrupt buffer (CRC-32 mismatch over {raw.nbytes} B)")
        if flags & ~_RAW:
            raise CorruptStreamError(f"memcomp: corrupt header (unknown flags {flags:#04x})")
        if max_bytes is not None and nbytes > max_bytes:
            raise CorruptStreamError(f"memcomp: corrupt buffer (it says {nbytes} B, the chunk holds {max_bytes} B)")
        if block_bytes != self.block_bytes:
            raise ValueError(f"memcomp: buffer of {block_bytes} B blocks, this codec has {self.block_bytes} B")
        if n_blocks != -(-nbytes // block_bytes):
            raise CorruptStreamError(f"memcomp: corrupt header ({n_blocks} blocks cannot hold {nbytes} B)")
        out_bytes = None if out is None else ensure_contiguous_ndarray(out).nbytes
        if out_bytes is not None and out_bytes != nbytes:  # before decoding anything
            raise ValueError(f"memcomp: buffer holds {nbytes} B, out has {out_bytes} B")
        if flags & _RAW:
            body = raw[head:]
            if body.nbytes != nbytes:
                raise CorruptStreamError(
                    f"memcomp: corrupt buffer (a raw chunk of {body.nbytes} B, header says {nbytes} B)"
                )
            return body.copy() if out is None else ndarray_copy(body, out)
        # the stream's own block count, checked before from_bytes allocates per-block arrays for it
        # (when every block is 0 bits long, e.g. all-zero data, nothing else bounds it)
        inner = Encoded.peek_n_blocks(raw, head)
        if inner is not None and inner != n_blocks:
            raise CorruptStreamError(
                f"memcomp: corrupt buffer ({inner} blocks in the stream, {n_blocks} in the header)"
            )
        enc = Encoded.from_bytes(raw[head:], self.codec)
        if enc.n_blocks != n_blocks or enc.block_bytes != block_bytes:
            raise CorruptStreamError(
                f"memcomp: corrupt buffer ({enc.n_blocks} blocks of {enc.block_bytes} B in the "
                f"stream, {n_blocks} of {block_bytes} B in the header)"
            )
        blocks = self.codec.decode(enc)
        return ndarray_copy(blocks.reshape(-1)[:nbytes], out)


def _concat(a: Encoded, b: Encoded) -> Encoded:
    """``a``'s blocks followed by ``b``'s (``b`` encoded right after ``a``): one stream."""
    return Encoded(
        config=a.config,
        block_bytes=a.block_bytes,
        data=np.concatenate([a.data, b.data]),
        bit_offsets=np.concatenate([a.bit_offsets, b.bit_offsets + np.uint64(8 * a.data.nbytes)]),
        bit_lengths=np.concatenate([a.bit_lengths, b.bit_lengths]),
        tags=np.concatenate([a.tags, b.tags]),
        entry_state=a.entry_state,
    )


register_codec(MemcompCodec)


def _zarr_codec_class() -> type:
    """Builds :class:`MemcompZarrCodec` (zarr is imported only when it is asked for)."""
    from dataclasses import dataclass

    from zarr.abc.codec import BytesBytesCodec
    from zarr.registry import register_codec as register_zarr_codec

    @dataclass(frozen=True)
    class MemcompZarrCodec(BytesBytesCodec):
        """:class:`MemcompCodec` as a zarr v3 bytes-to-bytes codec (``compressors=[...]``); takes
        the same arguments, or a MemcompCodec. Its metadata is ``{"name": "numcodecs.memcomp",
        "configuration": <MemcompCodec config without the id>}``."""

        is_fixed_size = False
        codec_name = "numcodecs.memcomp"
        configuration: Dict[str, Any]
        _numcodec: MemcompCodec

        def __init__(
            self,
            codec: Any = "bdi",
            block_bytes: int = 128,
            options: Optional[Mapping[str, Any]] = None,
            model: Any = None,
        ):
            numcodec = codec if isinstance(codec, MemcompCodec) else MemcompCodec(codec, block_bytes, options, model)
            config = numcodec.get_config()
            config.pop("id")
            object.__setattr__(self, "configuration", config)
            object.__setattr__(self, "_numcodec", numcodec)

        @classmethod
        def from_dict(cls, data: Dict[str, Any]) -> "MemcompZarrCodec":
            if data.get("name") != cls.codec_name:
                raise ValueError(f"expected a {cls.codec_name!r} codec, got {data.get('name')!r}")
            return cls(**data.get("configuration", {}))

        def to_dict(self) -> Dict[str, Any]:
            return {"name": self.codec_name, "configuration": copy.deepcopy(self.configuration)}

        def __repr__(self) -> str:
            return f"MemcompZarrCodec({self._numcodec!r})"

        async def _encode_single(self, chunk_bytes: Any, chunk_spec: Any) -> Any:
            out = await asyncio.to_thread(self._numcodec.encode, chunk_bytes.as_numpy_array())
            return chunk_spec.prototype.buffer.from_bytes(out)

        async def _decode_single(self, chunk_bytes: Any, chunk_spec: Any) -> Any:
            out = await asyncio.to_thread(
                self._numcodec._decode, chunk_bytes.as_numpy_array(), None, _chunk_nbytes(chunk_spec)
            )
            return chunk_spec.prototype.buffer.from_bytes(out)

        def compute_encoded_size(self, input_byte_length: int, chunk_spec: Any) -> int:
            raise NotImplementedError  # variable-size output, like every compressor

    MemcompZarrCodec.__qualname__ = "MemcompZarrCodec"  # pickles as memcomp.numcodecs.MemcompZarrCodec
    register_zarr_codec(MemcompZarrCodec.codec_name, MemcompZarrCodec)
    return MemcompZarrCodec


def _chunk_nbytes(chunk_spec: Any) -> Optional[int]:
    """Bytes of a zarr chunk (shape x item size; None if the spec does not say), the most a
    chunk's buffer may decode to."""
    try:
        dtype = chunk_spec.dtype
        dtype = dtype.to_native_dtype() if hasattr(dtype, "to_native_dtype") else np.dtype(dtype)
        n = 1
        for d in chunk_spec.shape:
            n *= int(d)
        return n * int(dtype.itemsize) if dtype.itemsize else None
    except (AttributeError, TypeError, ValueError):
        return None


def __getattr__(name: str) -> Any:
    if name == "MemcompZarrCodec":
        cls = globals()[name] = _zarr_codec_class()
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if "zarr" in sys.modules:  # zarr already loaded: make the codec known to it now
    __getattr__("MemcompZarrCodec")
