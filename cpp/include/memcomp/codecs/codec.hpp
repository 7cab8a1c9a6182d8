// memcomp codecs: the block-codec interface (DESIGN "Contracts").
//   measure(block)  -> SizeBreakdown, the fast path, no bitstream;
//   encode(block, w) -> writes exactly measure(block).inband() bits, returns the tag value;
//   decode(r, tag)   -> the block back, consuming exactly the stream length.
// The base class owns the batch API (threads over contiguous block ranges, a stateful codec's
// ranges speculated) and the checks that keep a corrupt stream from ever being read out of
// bounds; the loops inside a range are the codec's (src/codecs/codec_impl.hpp). A codec is an immutable value,
// shareable between threads; the per-stream state of a stateful codec lives in a Session the
// caller owns (as zstd separates a shareable dictionary from a per-stream context).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "memcomp/core/bitstream.hpp"
#include "memcomp/core/blocks.hpp"
#include "memcomp/core/memory.hpp"
#include "memcomp/core/options.hpp"
#include "memcomp/core/size.hpp"

namespace memcomp {

struct ModeName {
  std::int16_t mode;
  std::string name;
};

/// Streams of n blocks in one buffer. Block i occupies bits
/// [bit_offsets[i], bit_offsets[i] + bit_lengths[i]); every block starts on a byte boundary.
struct EncodedBlocks {
  std::size_t block_bytes = 0;
  ByteBuffer data;
  PodVector<std::uint64_t> bit_offsets;
  PodVector<std::uint32_t> bit_lengths;
  PodVector<std::uint32_t> tags;  ///< tag-side values the decoder needs (encoding ids, flags)
  /// A stateful codec's state at the start of the batch (Codec::save_state); empty otherwise.
  /// Decoding starts from it, so a resumed chunk decodes on its own.
  std::vector<std::uint8_t> entry_state;
};

/// Read-only view of encoded blocks (possibly from disk: every field is validated on decode).
struct EncodedView {
  const std::uint8_t* data = nullptr;
  std::size_t data_bytes = 0;
  const std::uint64_t* bit_offsets = nullptr;
  const std::uint32_t* bit_lengths = nullptr;
  const std::uint32_t* tags = nullptr;
  std::size_t n_blocks = 0;
  std::size_t block_bytes = 0;
  /// A stateful codec's entry state (EncodedBlocks::entry_state); null: the batch's `resume` rule.
  const std::uint8_t* entry_state = nullptr;
  std::size_t entry_state_bytes = 0;
};

class Codec;

/// Symbol counts gathered apart from a codec (chunk by chunk over a stream, merged, spilled to
/// disk), which a data-driven codec fits its model from (Codec::fit_counts) as it would from the
/// blocks themselves.
struct SymbolCounts {
  unsigned symbol_bits = 0;
  std::size_t positions = 1;         ///< rows of `dense`
  std::vector<std::uint64_t> dense;  ///< SL <= 16: positions x 2^SL counts, row-major
  /// SL 32: (value, count) pairs, distinct; with `uncounted`, the symbols counted but not listed
  /// (a summary's values beyond its most frequent ones).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> values;
  std::uint64_t uncounted = 0;
};

/// The symbol counts a data-driven codec's model is fitted from (Codec::fit_counts), so that a
/// stream fits chunk by chunk; symbol_bits 0: the fit needs the blocks themselves.
struct CountPlan {
  unsigned symbol_bits = 0;        ///< SL of the counted symbols (0: no plan)
  bool per_position = false;       ///< one histogram row per symbol position in the block (SL <= 8)
  Endian endian = Endian::little;  ///< the byte order symbols are read in
  /// SL 32: the most frequent values the fit reads; the other symbols weigh as `uncounted`.
  std::size_t top = 0;
};

/// What a codec is, fixed when it is built (one record instead of a virtual per flag).
struct Capabilities {
  bool exact = true;         ///< a decodable format; false for accounting-only presets (SPEC 0.7)
  bool lossy = false;        ///< decode approximates the blocks marked approximable (SLC, SPEC 0.7 item 3)
  bool stateful = false;     ///< state carried from block to block in array order (SPEC 0.1; a Session holds it)
  bool needs_model = false;  ///< data-driven (SPEC 0.7 item 5): the "model" option holds a fitted model
  bool has_model = true;     ///< false for a data-driven codec until it is given a model
  /// The counts fit_counts fits the model from, exactly as fit() over the blocks would; none
  /// (symbol_bits 0) where the fit needs the blocks.
  CountPlan counts;
};
/// The capabilities of a model-free, stateless, lossless codec: only `exact` given.
inline Capabilities exact_only(bool exact) {
  Capabilities c;
  c.exact = exact;
  return c;
}

/// A stateful codec's per-stream state (SPEC 0.1: the persistent C-Pack dictionary), made by
/// Codec::initial_state and owned by a Session (or by a batch without one).
class CodecState {
 public:
  virtual ~CodecState() = default;
  virtual std::unique_ptr<CodecState> clone() const = 0;
  /// The state as bytes (EncodedBlocks::entry_state).
  virtual std::vector<std::uint8_t> save() const = 0;
  /// The state from such bytes; throws corrupt_stream for bytes that no state serialises to,
  /// leaving it as it was.
  virtual void load(const std::uint8_t* data, std::size_t bytes) = 0;
  /// For a batch split across threads: a run of blocks went from saved state `guess` to
  /// `guess_end`. True if the same run from `truth` gives the same results (sizes, streams and
  /// decoded blocks), and then the state it ends in is set in `truth_end`. By default only an
  /// equal state does.
  virtual bool resync(const std::vector<std::uint8_t>& guess, const std::vector<std::uint8_t>& truth,
                      const std::vector<std::uint8_t>& guess_end, std::vector<std::uint8_t>& truth_end) const {
    if (guess != truth) return false;
    truth_end = guess_end;
    return true;
  }
};

/// A stream of batches through one codec, owned by the caller: where a stateful codec's state
/// stands between batches. A fresh session starts from the codec's initial state; each batch run
/// with it continues from where the last one left it. A stateless codec's batches ignore it. One
/// batch at a time runs on a session (it holds the session's lock); the codec must outlive it.
class Session {
 public:
  explicit Session(const Codec& codec) noexcept : codec_(&codec) {}
  const Codec& codec() const noexcept { return *codec_; }
  /// The state between batches as bytes (Codec::save_state; fresh: the initial state's; empty
  /// for a stateless codec), taken between two batches.
  std::vector<std::uint8_t> save() const;
  /// Sets the state between batches from such bytes (throws corrupt_stream for bytes that no
  /// state of the codec serialises to, leaving the session as it was).
  void load(const std::uint8_t* data, std::size_t bytes);

 private:
  friend class Codec;
  const Codec* codec_;
  std::unique_ptr<CodecState> state_;
  mutable std::mutex mutex_;
};

class Codec {
 public:
  virtual ~Codec() = default;

  const std::string& family() const noexcept { return family_; }
  const std::string& preset() const noexcept { return preset_; }
  const std::string& policy() const noexcept { return policy_; }
  void set_identity(std::string family, std::string preset, std::string policy) {
    family_ = std::move(family);
    preset_ = std::move(preset);
    policy_ = std::move(policy);
  }

  virtual Capabilities capabilities() const { return {}; }
  /// A stateful codec (SPEC 0.1: the persistent C-Pack presets) carries state from block to block
  /// in array order. A batch starts from its session's state (no session: the initial state); on
  /// threads, it runs as ranges that start from guessed states, checked in order (speculate).
  bool stateful() const { return capabilities().stateful; }
  /// Data-driven codecs (SPEC 0.7 item 5) need a model fitted on sample blocks: the "model"
  /// option holds it as JSON text. has_model() is false until one is given.
  bool needs_model() const { return capabilities().needs_model; }
  bool has_model() const { return capabilities().has_model; }
  /// True for a decodable format; false for accounting-only presets (SPEC 0.7).
  bool exact() const { return capabilities().exact; }
  /// True if decode returns an approximation of the blocks the caller marked approximable
  /// (SLC, SPEC 0.7 item 3); such codecs read BlockView::approximable.
  bool lossy() const { return capabilities().lossy; }

  /// Fits a model on the blocks and returns it as JSON text for the "model" option.
  virtual std::string fit(const BlockView& blocks, int threads) const;
  /// The model fitted from symbol counts (Capabilities::counts), as JSON text; equal to
  /// fit() over the blocks the counts come from.
  virtual std::string fit_counts(const SymbolCounts& counts) const;
  /// A copy of this codec fitted on the blocks (hybrids fit their data-driven members).
  virtual std::unique_ptr<Codec> fitted(const BlockView& blocks, int threads) const;

  /// Every option with its effective value (a complete config).
  virtual Options options() const = 0;
  /// Throws invalid_argument if the codec is not defined for B-byte blocks.
  virtual void check_block_bytes(std::size_t block_bytes) const { memcomp::check_block_bytes(block_bytes); }
  /// Upper bound of the in-band bits of any block.
  virtual std::uint64_t max_compressed_bits(std::size_t block_bytes) const = 0;
  /// Names of the values `mode` takes.
  virtual std::vector<ModeName> modes() const = 0;

  /// One block; a stateful codec's block as the first of a stream (its initial state).
  virtual SizeBreakdown measure(const std::uint8_t* block, std::size_t block_bytes) const = 0;
  virtual std::uint32_t encode(const std::uint8_t* block, std::size_t block_bytes, BitWriter& out) const;
  /// Block i of a batch: encode() by default; lossy codecs also read the block's approximable flag.
  virtual std::uint32_t encode_block(const BlockView& blocks, std::size_t i, BitWriter& out) const {
    return encode(blocks.block(i), blocks.block_bytes, out);
  }
  virtual void decode(BitReader& in, std::uint32_t tag, std::uint8_t* out, std::size_t block_bytes) const;

  /// Batch API. threads <= 0 means all hardware threads; results never depend on it. A stateful
  /// codec starts each batch from the initial state, or with a session from where the session's
  /// last batch left it (streaming a dump in chunks), and leaves the session where the batch
  /// ended. encode_batch records the state it started from, and decode_batch starts from the
  /// recorded state when the view carries one.
  void measure_batch(const BlockView& blocks, const SizeColumns& out, int threads, Session* session = nullptr) const;
  EncodedBlocks encode_batch(const BlockView& blocks, int threads, Session* session = nullptr) const;
  /// encode_batch chunk_blocks blocks at a time, as one batch (a stateful codec's state carried
  /// from chunk to chunk): each(first block, the chunk's streams) after each chunk.
  void encode_chunks(const BlockView& blocks, std::size_t chunk_blocks, int threads, Session* session,
                     const std::function<void(std::size_t, const EncodedBlocks&)>& each) const;
  void decode_batch(const EncodedView& enc, std::uint8_t* out, int threads, Session* session = nullptr) const;

  /// A fresh stream's state: null for a stateless codec.
  virtual std::unique_ptr<CodecState> initial_state() const { return nullptr; }

 protected:
  /// The range functions below run blocks [begin, end) of a batch; `state` is a stateful codec's
  /// state where block `begin` starts, which they move on (null for a stateless codec). A codec
  /// implements them by deriving from CodecImpl (src/codecs/codec_impl.hpp), which runs its
  /// measure, encode and decode in statically dispatched loops; codecs with SIMD kernels
  /// override them again.
  /// Measures blocks [begin, end).
  virtual void measure_range(const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out,
                             CodecState* state) const = 0;
  /// Encodes blocks [begin, end) one after another into buf (each stream from a byte boundary,
  /// at most max_bytes), filling their offsets (from buf), lengths and tags; returns the bytes
  /// used. buf holds batch::range_bytes(begin, end, max_bytes): the worst case and the bytes a
  /// writer may scribble on past its stream.
  virtual std::size_t encode_range(const BlockView& blocks, std::size_t begin, std::size_t end, std::uint8_t* buf,
                                   std::size_t max_bytes, EncodedBlocks& enc, CodecState* state) const = 0;
  /// Decodes blocks [begin, end) of a validated view.
  virtual void decode_range(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end,
                            CodecState* state) const = 0;
  /// Throws invalid_argument if the codec needs a model and has none.
  void require_model() const;

 private:
  /// The state a batch runs from: a stateless codec's none; the session's (locked for the
  /// batch; fresh: the initial state); else a fresh one in `local`.
  class Stream;
  /// Throws corrupt_stream for a stateless codec given an entry state of any bytes.
  void refuse_entry_state(std::size_t bytes) const;
  /// Throws invalid_argument for an approximable mask given to a lossless codec.
  void check_approximable(const BlockView& blocks) const;
  /// encode_batch's checks, and its work on an open stream.
  void check_encode(const BlockView& blocks) const;
  EncodedBlocks encode_stream(const BlockView& blocks, int threads, CodecState* state) const;
  /// The warm-up of a stateful measure or encode split across threads (codec.cpp's speculate):
  /// measures the w blocks before block b from state s, sizes dropped.
  std::function<void(CodecState* s, std::size_t b, std::size_t w)> warm_measure(const BlockView& blocks) const;

  friend class Session;  // Session::load refuses bytes for a stateless codec
  std::string family_, preset_, policy_;
};

}  // namespace memcomp
