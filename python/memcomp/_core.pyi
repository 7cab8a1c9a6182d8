"""
memcomp C++ core (codecs, analyses); use the memcomp package, not this module
"""
from __future__ import annotations
import collections.abc
import numpy
import numpy.typing
import typing
__all__: list[str] = ['Codec', 'CorruptStreamError', 'Session', 'SpaceSaving', 'WireState', 'block_entropy', 'block_entropy_4_8', 'bus_count_raw', 'bus_count_streams', 'bus_drive', 'bus_option_space', 'bus_options', 'byte_position_counts', 'charge', 'compare_totals', 'count_word_keys', 'ec_decide', 'ec_gain', 'ec_k', 'ec_option_space', 'encode_energy_control', 'energy_control', 'length_limited_bits', 'list_presets', 'make_codec', 'merge_count_runs', 'mpc_cell_zeros', 'mpc_classify', 'mpc_edge_weights', 'mpc_greedy_scan', 'mpc_mst', 'mpc_orient', 'mpc_shifts', 'mpc_xor_planes', 'option_space', 'oracle_totals', 'policy_extra_tag_bits', 'policy_str', 'ratio_buckets', 'ratio_counts', 'ratio_entropy_matrix', 'ratio_layout', 'release_buffers', 'set_simd', 'set_simd_avx512', 'set_simd_tier', 'simd_avx2', 'simd_avx512', 'simd_enabled', 'simd_tier', 'simd_tier_supported', 'size_totals', 'summarize_key_runs', 'symbol_histogram']
class CorruptStreamError(ValueError):
    pass
class Codec:
    """
    A block codec built from a preset (immutable).
    """
    def check_block_bytes(self, block_bytes: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def decode(self, data: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], bit_offsets: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], bit_lengths: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], tags: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], block_bytes: typing.SupportsInt | typing.SupportsIndex, entry_state: typing.Any = None, threads: typing.Any = None) -> numpy.typing.NDArray[numpy.uint8]:
        ...
    def encode(self, blocks: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], threads: typing.Any = None, session: Session | None = None, approximable: typing.Any = None) -> tuple:
        ...
    def fit(self, blocks: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], threads: typing.Any = None) -> str:
        """
        Fits a model on the blocks; returns it as JSON text (the 'model' option).
        """
    def fit_counts(self, symbol_bits: typing.SupportsInt | typing.SupportsIndex, dense: typing.Any = None, values: typing.Any = None, counts: typing.Any = None, uncounted: typing.SupportsInt | typing.SupportsIndex = 0) -> str:
        """
        The model fitted from symbol counts (dense: SL <= 16, one row per position; values/counts: SL 32, with `uncounted` symbols not listed), as JSON text.
        """
    def fitted(self, blocks: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], threads: typing.Any = None) -> Codec:
        """
        A copy of the codec fitted on the blocks (hybrids fit their data-driven members).
        """
    def max_compressed_bits(self, block_bytes: typing.SupportsInt | typing.SupportsIndex) -> int:
        ...
    def measure(self, blocks: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], threads: typing.Any = None, session: Session | None = None, approximable: typing.Any = None) -> dict:
        ...
    def modes(self) -> dict:
        ...
    def options(self) -> dict:
        ...
    @property
    def exact(self) -> bool:
        ...
    @property
    def count_plan(self) -> dict[str, typing.Any] | None:
        ...
    @property
    def family(self) -> str:
        ...
    @property
    def has_model(self) -> bool:
        ...
    @property
    def lossy(self) -> bool:
        ...
    @property
    def needs_model(self) -> bool:
        ...
    @property
    def policy(self) -> str:
        ...
    @property
    def preset(self) -> str:
        ...
    @property
    def stateful(self) -> bool:
        ...
class Session:
    """
    A stream of batches through one codec: where a stateful codec's state stands between batches (fresh: the initial state).
    """
    def __init__(self, codec: Codec) -> None:
        ...
    def load(self, state: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]]) -> None:
        """
        Sets the state from bytes that .state returned.
        """
    @property
    def state(self) -> typing.Any:
        """
        The state as bytes (a fresh session: the initial state; None for a stateless codec).
        """
class SpaceSaving:
    """
    Bounded-memory heavy hitters of 32-bit values (Space-Saving).
    """
    def __getstate__(self) -> tuple[int, int, tuple]:
        ...
    def __init__(self, capacity: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __setstate__(self, arg0: tuple) -> None:
        ...
    def add_words(self, blocks: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], endian: str = 'little') -> None:
        ...
    def entries(self) -> tuple:
        """
        (values, counts, errors), by count descending
        """
    def merge(self, other: SpaceSaving) -> None:
        ...
    @property
    def capacity(self) -> int:
        ...
    @property
    def total(self) -> int:
        ...
class WireState:
    """
    Wire levels carried from one chunk of transfers to the next.
    """
    __hash__: typing.ClassVar[None] = None  # type: ignore[assignment]
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> tuple[bytes, bytes, bool, dict]:
        ...
    def __setstate__(self, arg0: tuple) -> None:
        ...
    def copy(self) -> WireState:
        ...
    @property
    def idle(self) -> bool:
        ...
def block_entropy(blocks: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], symbol_bits: typing.SupportsInt | typing.SupportsIndex, endian: str = 'little', threads: typing.Any = None) -> numpy.typing.NDArray[numpy.float64]:
    ...
def byte_position_counts(blocks: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], threads: typing.Any = None) -> numpy.typing.NDArray[numpy.uint64]:
    """
    (B, 256) uint64: the blocks whose byte j is v, per position j and value v.
    """
def block_entropy_4_8(blocks: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], threads: typing.Any = None) -> tuple:
    """
    (block_entropy at SL 4, at SL 8) in one pass over the blocks, the same values.
    """
def bus_count_raw(blocks: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], bus: dict, state: typing.Any = None, close: bool = True, per_block: bool = True) -> tuple:
    """
    Counts raw blocks: (per-block columns, totals, state); per_block=False leaves the columns empty.
    """
def bus_count_streams(data: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], bit_offsets: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], bit_lengths: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], bus: dict, state: typing.Any = None, close: bool = True, per_block: bool = True) -> tuple:
    """
    Counts compressed streams: (per-block columns, totals, state).
    """
def bus_drive(stream: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], nbits: typing.SupportsInt | typing.SupportsIndex, bus: dict, state: typing.Any = None) -> tuple:
    """
    One transfer: (beats as driven, DBI pin levels per lane and beat, counts, state).
    """
def bus_option_space() -> dict:
    """
    Every bus option with its kind, default, accepted values and help, from the bus's option table.
    """
def bus_options(bus: dict) -> dict:
    """
    Every bus option with its effective value (validates them).
    """
def charge(bits: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], block_bytes: typing.SupportsInt | typing.SupportsIndex, policy: str) -> numpy.typing.NDArray[numpy.uint64]:
    """
    Bits charged per block under a policy (in-band bits in, tags excluded).
    """
def compare_totals(codecs: collections.abc.Sequence[Codec], sessions: collections.abc.Sequence[Session | None], blocks: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], hist_lens: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], oracle_members: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], oracle_hist_len: typing.SupportsInt | typing.SupportsIndex, threads: typing.Any = None) -> tuple[list, tuple[numpy.typing.NDArray[numpy.int64], numpy.typing.NDArray[numpy.int64]]]:
    """
    Compare's one pass: every codec measures each cache-sized piece of blocks in turn, the sizes reduced to totals as they come: ([size_totals' (hist, modes, tag bits) per codec], (oracle hist, wins per member)). sessions: one per codec (None: none); oracle_members: indices of the codecs the per-block best takes.
    """
def count_word_keys(blocks: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], endian: str = 'little', threads: typing.Any = None) -> tuple:
    """
    Every 32-bit word counted as (keys, counts) sorted by key, key = word * 0x9E3779B1 mod 2^32 (its top bits are the shard): counts are uint32 when every count fits, else uint64.
    """
def ec_decide(t0: typing.SupportsFloat | typing.SupportsIndex, t1: typing.SupportsFloat | typing.SupportsIndex, cr: typing.SupportsFloat | typing.SupportsIndex, g: typing.SupportsFloat | typing.SupportsIndex = 1.0, k: typing.SupportsInt | typing.SupportsIndex = 2, alpha: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> bool:
    ...
def ec_k(kind: str) -> int:
    """
    The power of CR in the decision of an Energy Control kind (ec1: 1, ec2: 2, helps: 0).
    """
def ec_option_space() -> dict:
    """
    Every Energy Control option (kind, alpha, ratio) with its kind, default, accepted values and help, from Energy Control's option table.
    """
def ec_gain(bu: typing.SupportsFloat | typing.SupportsIndex) -> float:
    ...
def encode_energy_control(codec: Codec, blocks: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], bus: dict, kind: str = 'ec2', alpha: typing.SupportsFloat | typing.SupportsIndex = 1.0, bu: typing.Any = 0.0, state: typing.Any = None, close: bool = True, per_block: bool = True, ratio: str = 'units', threads: typing.Any = None, session: Session | None = None, chunk_blocks: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple:
    """
    energy_control over codec.encode(blocks) in one pass, chunk_blocks at a time (0: 256 KiB of blocks; no stream kept): the same results.
    """
def energy_control(blocks: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], data: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], bit_offsets: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], bit_lengths: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], bus: dict, kind: str = 'ec2', alpha: typing.SupportsFloat | typing.SupportsIndex = 1.0, bu: typing.Any = 0.0, state: typing.Any = None, close: bool = True, per_block: bool = True, ratio: str = 'units') -> tuple:
    """
    Energy Control: (per-block columns, counts of the forms sent, totals, state); per_block=False keeps only the decisions (column 'compressed').
    """
def length_limited_bits(values: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], counts: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], symbol_bits: typing.SupportsInt | typing.SupportsIndex, k: typing.SupportsInt | typing.SupportsIndex, max_len: typing.SupportsInt | typing.SupportsIndex, escaped: typing.SupportsInt | typing.SupportsIndex = 0) -> float:
    """
    SPEC 3's L*: mean bits per symbol of the optimal length-limited MFV code.
    """
def list_presets() -> list:
    ...
def make_codec(name: str, options: dict = {}) -> Codec:
    ...
def merge_count_runs(runs: collections.abc.Sequence[tuple[numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], numpy.ndarray[typing.Any, numpy.dtype[typing.Any]]]]) -> tuple[numpy.typing.NDArray[numpy.uint32], numpy.typing.NDArray[numpy.uint64]]:
    """
    Runs of (values: uint32, counts: uint64) merged into one sorted by value with each value once, the counts of equal values added (runs sorted with each value once merge in linear passes).
    """
def mpc_cell_zeros(blocks: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], root: typing.SupportsInt | typing.SupportsIndex, base: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], shift: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], threads: typing.Any = None) -> tuple[numpy.typing.NDArray[numpy.uint64], numpy.typing.NDArray[numpy.uint64]]:
    """
    (zeros[256], co_zeros[256, 256]) of the XORed cells 32p + c; add to merge.
    """
def mpc_classify(blocks: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], threads: typing.Any = None) -> tuple[numpy.typing.NDArray[numpy.int8], numpy.typing.NDArray[numpy.int8]]:
    """
    (group 0..4 by guess_dtype, special class 0 all-zero / 1 all-words-same / -1) per 32 B block.
    """
def mpc_edge_weights(re: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], weight: str = 'mean') -> numpy.ndarray[typing.Any, numpy.dtype[typing.Any]]:
    ...
def mpc_greedy_scan(zeros: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], co_zeros: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]]) -> list[int]:
    """
    The 256 cells 32p + c in scan order.
    """
def mpc_mst(weights: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]]) -> numpy.typing.NDArray[numpy.int32]:
    """
    Kruskal MST edges (u < v) in the order taken; ties by (w, u, v).
    """
def mpc_orient(edges: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], n: typing.SupportsInt | typing.SupportsIndex, byte_entropy: typing.Any = None) -> dict:
    """
    Root (minimum height, then highest byte entropy, then lowest index) and parents.
    """
def mpc_shifts(counts: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], root: typing.SupportsInt | typing.SupportsIndex, base: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], zeros: str = 'buckets', quantiser: str = 'floor', signed: bool = False) -> list[int]:
    """
    Modal shift of every (target, base) pair.
    """
def mpc_xor_planes(blocks: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], root: typing.SupportsInt | typing.SupportsIndex, base: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], shift: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> numpy.typing.NDArray[numpy.uint8]:
    """
    X[p][c] of SPEC 1.12 (transform steps 1-4) per block, shape (n, 8, 32).
    """
def option_space(name: str) -> dict:
    """
    Every option the preset's codec reads, with its kind, default, accepted values and help, from the codec's option table.
    """
def oracle_totals(sizes: collections.abc.Sequence[numpy.ndarray[typing.Any, numpy.dtype[typing.Any]]], n: typing.SupportsInt | typing.SupportsIndex, hist_len: typing.SupportsInt | typing.SupportsIndex, threads: typing.Any = None) -> tuple[numpy.typing.NDArray[numpy.int64], numpy.typing.NDArray[numpy.int64]]:
    """
    The per-block smallest of several codecs' size_bits (uint32, n each): (hist of the minimum, hist_len bins; blocks each codec is the first smallest for).
    """
def policy_extra_tag_bits(spec: str) -> int:
    ...
def policy_str(spec: str) -> str:
    """
    Canonical spelling of a policy; raises ValueError for a malformed one.
    """
def ratio_buckets(a: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], b: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], zeros: str = 'buckets', quantiser: str = 'floor', signed: bool = False, elem_bytes: typing.SupportsInt | typing.SupportsIndex = 1) -> numpy.typing.NDArray[numpy.uint16]:
    """
    Bucket of every (target a, base b) pair.
    """
def ratio_counts(blocks: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], zeros: str = 'buckets', quantiser: str = 'floor', signed: bool = False, elem_bytes: typing.SupportsInt | typing.SupportsIndex = 1, threads: typing.Any = None) -> numpy.typing.NDArray[numpy.uint64]:
    """
    Joint counts (n, n, K) of the ratio bucket of every (target i, base j) pair; add to merge.
    """
def ratio_entropy_matrix(counts: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], zeros: str = 'buckets') -> numpy.typing.NDArray[numpy.float64]:
    """
    RE(i target, j base) in bits; diagonal 0.
    """
def ratio_layout(zeros: str = 'buckets', quantiser: str = 'floor', signed: bool = False, elem_bytes: typing.SupportsInt | typing.SupportsIndex = 1) -> dict:
    """
    Bucket layout: 0 Z00, 1 Z0x, 2 Zx0, then 3 + q - q_min (+ n_q for a negative sign product).
    """
def release_buffers() -> None:
    """
    Returns the large output buffers kept for reuse (up to 512 MiB) to the system.
    """
def set_simd(enabled: bool) -> None:
    """
    Turns the SIMD fast paths on (default, where the CPU has them; the tier set before) or off (the scalar reference, as MEMCOMP_SIMD=0).
    """
def set_simd_avx512(enabled: bool) -> None:
    """
    Lets the AVX-512 tier run (default) or holds every fast path to AVX2 at most (as MEMCOMP_SIMD=avx2).
    """
def set_simd_tier(tier: str) -> None:
    """
    Runs the kernels of a SIMD tier, 'scalar', 'avx2' or 'avx512' (every tier gives the same bits), and turns the fast paths on; ValueError for a tier above simd_tier_supported(). 'scalar' keeps the portable shortcuts; set_simd(False) is the whole scalar reference.
    """
def simd_avx2() -> bool:
    """
    True when the SIMD tier is avx2 or avx512 (simd_tier()).
    """
def simd_avx512() -> bool:
    """
    True when the SIMD tier is avx512 (the CPU has AVX-512 F/BW/VL/DQ/VBMI/BITALG/VPOPCNTDQ and GFNI, SIMD on, not held to AVX2).
    """
def simd_enabled() -> bool:
    """
    False after set_simd(False) or with MEMCOMP_SIMD=0.
    """
def simd_tier() -> str:
    """
    The SIMD tier the kernels run: 'scalar', 'avx2' or 'avx512' ('scalar' after set_simd(False)).
    """
def simd_tier_supported() -> str:
    """
    The highest SIMD tier this CPU has: 'scalar', 'avx2' or 'avx512'.
    """
def size_totals(columns: dict, hist_len: typing.SupportsInt | typing.SupportsIndex, threads: typing.Any = None) -> tuple[numpy.typing.NDArray[numpy.int64], numpy.typing.NDArray[numpy.int64], int]:
    """
    A measure's columns (size_bits, payload_bits, meta_bits, header_bits, tag_bits: uint32; mode: int16) reduced in one pass: (hist of in-band bits with hist_len bins, rows of (mode, blocks, payload, meta, header, tag bits) per mode present, tag bits).
    """
def summarize_key_runs(runs: collections.abc.Sequence[tuple[numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], numpy.ndarray[typing.Any, numpy.dtype[typing.Any]]]], k: typing.SupportsInt | typing.SupportsIndex) -> dict:
    """
    The sum of runs of (keys: uint32, strictly increasing; counts: uint32 or uint64, nonzero) without merging them: {'total', 'distinct', 'count_values', 'count_multiplicity' (how many values have each count), 'top_values', 'top_counts' (the k most frequent values, count descending, ties to the smaller value)}.
    """
def symbol_histogram(blocks: numpy.ndarray[typing.Any, numpy.dtype[typing.Any]], symbol_bits: typing.SupportsInt | typing.SupportsIndex, per_position: bool = False, endian: str = 'little', threads: typing.Any = None) -> dict:
    """
    Exact SL-bit symbol counts: {'total', 'counts'[positions, 2^SL]} or, for SL 32, {'values', 'counts'}.
    """
