// memcomp codecs: the block-codec interface (DESIGN "Contracts").
//   measure(block)  -> SizeBreakdown, the fast path, no bitstream;
//   encode(block, w) -> writes exactly measure(block).inband() bits, returns the tag value;
//   decode(r, tag)   -> the block back, consuming exactly the stream length.
// The base class owns the batch loops (threads over contiguous block ranges) and the checks
// that keep a corrupt stream from ever being read out of bounds. A codec is an immutable value,
// shareable between threads; the per-stream state of a stateful codec lives in a Session the
// caller owns (as zstd separates a shareable dictionary from a per-stream context).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
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

/// What a codec is, fixed when it is built (one record instead of a virtual per flag).
struct Capabilities {
  bool exact = true;         ///< a decodable format; false for accounting-only presets (SPEC 0.7)
  bool lossy = false;        ///< decode approximates the blocks marked approximable (SLC, SPEC 0.7 item 3)
  bool stateful = false;     ///< state carried from block to block in array order (SPEC 0.1; a Session holds it)
  bool needs_model = false;  ///< data-driven (SPEC 0.7 item 5): the "model" option holds a fitted model
  bool has_model = true;     ///< false for a data-driven codec until it is given a model
};

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

  /// Groups of blocks that a lane decoder (codecs/lanes.hpp) handed to the one-block loop because
  /// their streams were not all valid, counted over the process. Valid streams never add to it:
  /// the tests read it to see that the lane kernels do decode them.
  static std::uint64_t lane_fallbacks() noexcept;

 protected:
  /// The range functions below run blocks [begin, end) of a batch; `state` is a stateful codec's
  /// state where block `begin` starts, which they move on (null for a stateless codec).
  /// Measures blocks [begin, end); CodecImpl overrides it with a statically dispatched loop.
  virtual void measure_range(const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out,
                             CodecState* state) const;
  /// Encodes blocks [begin, end) one after another into buf (each stream from a byte boundary,
  /// at most max_bytes), filling their offsets (from buf), lengths and tags; returns the bytes
  /// used. buf holds range_bytes(begin, end, max_bytes): the worst case and kWriteSlack bytes a
  /// writer may scribble on past its stream. CodecImpl overrides it with a statically
  /// dispatched loop.
  virtual std::size_t encode_range(const BlockView& blocks, std::size_t begin, std::size_t end, std::uint8_t* buf,
                                   std::size_t max_bytes, EncodedBlocks& enc, CodecState* state) const;
  /// Decodes blocks [begin, end) of a validated view; CodecImpl: statically dispatched.
  virtual void decode_range(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end,
                            CodecState* state) const;
  /// The loops themselves, around a block encoder f(blocks, i, writer) -> tag and a block
  /// decoder g(reader, tag, out, block_bytes).
  template <class F>
  static std::size_t encode_loop(const BlockView& blocks, std::size_t begin, std::size_t end, std::uint8_t* buf,
                                 std::size_t max_bytes, EncodedBlocks& enc, F&& f) {
    std::size_t at = 0;
    for (std::size_t i = begin; i < end; ++i) {
      BitWriter w = block_writer(buf, at, max_bytes, range_bytes(begin, end, max_bytes));
      const std::uint32_t tag = f(blocks, i, w);
      at = record_block(enc, i, at, tag, w.finish());
    }
    return at;
  }
  /// Bytes past a range's worst case that its writers may scribble on (BitWriter::write_fields).
  static constexpr std::size_t kWriteSlack = 8;
  static std::size_t range_bytes(std::size_t begin, std::size_t end, std::size_t max_bytes) noexcept {
    return (end - begin) * max_bytes + kWriteSlack;
  }
  /// The writer of a block's stream from byte `at` of a range's buffer of buf_bytes bytes.
  static BitWriter block_writer(std::uint8_t* buf, std::size_t at, std::size_t max_bytes,
                                std::size_t buf_bytes) noexcept {
    return BitWriter(buf + at, 8 * max_bytes, buf_bytes - at);
  }
  /// Records block i's stream of `bits` bits from byte `at` of its range's buffer, and returns
  /// the byte where the next one starts (encode_loop's step, for kernels that run their own loop).
  static std::size_t record_block(EncodedBlocks& enc, std::size_t i, std::size_t at, std::uint32_t tag,
                                  std::size_t bits) noexcept {
    enc.tags[i] = tag;
    enc.bit_offsets[i] = 8 * at;
    enc.bit_lengths[i] = static_cast<std::uint32_t>(bits);
    return at + (bits + 7) / 8;
  }
  /// Records blocks [i, i + k) whose streams of bits[j] bits were written apart, at lanes +
  /// j * lane_bytes (a lane kernel's), each behind the last from byte `at` of the range's buffer
  /// (8 bytes at a time, into kWriteSlack); returns the byte where the next one starts.
  static std::size_t append_streams(EncodedBlocks& enc, std::size_t i, std::size_t k, std::uint8_t* buf, std::size_t at,
                                    const std::uint8_t* lanes, std::size_t lane_bytes,
                                    const std::uint32_t* bits) noexcept {
    for (std::size_t j = 0; j < k; ++j) {
      for (std::size_t o = 0; o < (bits[j] + 7) / 8; o += 8) std::memcpy(buf + at + o, lanes + j * lane_bytes + o, 8);
      at = record_block(enc, i + j, at, 0, bits[j]);
    }
    return at;
  }
  /// The reader of block i's stream (the view is validated).
  static BitReader block_reader(const EncodedView& enc, std::size_t i) {
    const auto off = static_cast<std::size_t>(enc.bit_offsets[i]);
    return BitReader(enc.data, off, off + enc.bit_lengths[i], enc.data_bytes);
  }
  /// Blocks [i, i + k) as the lanes of a vector decoder: each stream as bits [pos, end) from
  /// `base`. False (decode those blocks one by one) unless every position is below 2^30 and
  /// `base` is readable 8 bytes past a token of up to max_token bits begun at any stream's end.
  static bool lane_streams(const EncodedView& enc, std::size_t i, std::size_t k, unsigned max_token,
                           const std::uint8_t*& base, std::int32_t* pos, std::int32_t* end) noexcept;
  /// Decodes blocks [i, i + k) one by one after their lane decode failed (counted: lane_fallbacks).
  template <class G>
  void lane_fallback(const EncodedView& enc, std::uint8_t* out, std::size_t i, std::size_t k, G&& g) const {
    count_lane_fallback();
    decode_loop(enc, out, i, i + k, std::forward<G>(g));
  }
  static void count_lane_fallback() noexcept;
  /// A lane decoder's loop: groups of K blocks, while lane_streams takes them, decoded by
  /// lanes(base, pos, end, buf) into buf (K blocks), copied out when it returns true, else one
  /// block at a time (lane_fallback, which names the first bad block). Returns where it stopped.
  template <std::size_t K, class L>
  std::size_t decode_groups(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end,
                            unsigned max_token, L&& lanes) const {
    const std::size_t b = enc.block_bytes;
    alignas(32) std::uint8_t buf[K * 256 + 4];
    std::int32_t pos[K], stop[K];
    const std::uint8_t* base = nullptr;
    std::size_t i = begin;
    for (; i + K <= end; i += K) {
      if (!lane_streams(enc, i, K, max_token, base, pos, stop)) break;
      if (lanes(base, pos, stop, buf))
        std::memcpy(out + i * b, buf, K * b);
      else
        lane_fallback(enc, out, i, K,
                      [&](BitReader& r, std::uint32_t tag, std::uint8_t* o, std::size_t bb) { decode(r, tag, o, bb); });
    }
    return i;
  }
  template <class G>
  void decode_loop(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end, G&& g) const {
    for (std::size_t i = begin; i < end; ++i) {
      BitReader r = block_reader(enc, i);
      try {
        g(r, enc.tags[i], out + i * enc.block_bytes, enc.block_bytes);
        if (r.remaining() != 0) trailing_bits(r.remaining());
      } catch (const corrupt_stream& err) {
        in_block(i, err);
      }
    }
  }
  /// decode_loop two blocks at a time: pair(ra, oa, rb, ob) decodes blocks i and i + 1 side by
  /// side (their dependency chains overlap). A pair that throws corrupt_stream or leaves bits
  /// over is decoded again one block after the other by g, which names the first bad block.
  template <class P, class G>
  void decode_pairs(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end, P&& pair,
                    G&& g) const {
    const std::size_t b = enc.block_bytes;
    std::size_t i = begin;
    for (; i + 2 <= end; i += 2) {
      BitReader ra = block_reader(enc, i), rb = block_reader(enc, i + 1);
      bool ok = false;
      try {
        pair(ra, out + i * b, rb, out + (i + 1) * b);
        ok = ra.remaining() == 0 && rb.remaining() == 0;
      } catch (const corrupt_stream&) {
      }
      if (!ok) decode_loop(enc, out, i, i + 2, g);
    }
    decode_loop(enc, out, i, end, g);
  }
  [[noreturn]] static void trailing_bits(std::size_t n);
  [[noreturn]] void in_block(std::size_t i, const corrupt_stream& err) const;
  [[noreturn]] void not_decodable() const;
  /// Throws invalid_argument if the codec needs a model and has none.
  void require_model() const;
  /// Throws invalid_argument for an approximable mask given to a lossless codec.
  void check_approximable(const BlockView& blocks) const;
 private:
  /// The state a batch runs from: a stateless codec's none; the session's (locked for the
  /// batch; fresh: the initial state); else a fresh one in `local`.
  class Stream;
  /// Throws corrupt_stream for a stateless codec given an entry state of any bytes.
  void refuse_entry_state(std::size_t bytes) const;
  /// encode_batch's checks, and its work on an open stream.
  void check_encode(const BlockView& blocks) const;
  EncodedBlocks encode_stream(const BlockView& blocks, int threads, CodecState* state) const;
  /// A stateful codec's batch of n blocks on `threads` threads (ranges of at least
  /// kMinSpeculated blocks, else one), from `state`, with the results and the final state of one
  /// thread (left in `state`). warm(s, b, w) runs the w blocks before block b from state s
  /// (results dropped); run(s, k, b, e) runs range k, blocks [b, e), from state s.
  using WarmFn = std::function<void(CodecState*, std::size_t, std::size_t)>;
  using RunFn = std::function<void(CodecState*, std::size_t, std::size_t, std::size_t)>;
  void speculate(std::size_t n, int threads, CodecState& state, const WarmFn& warm, const RunFn& run) const;
  /// The warm-up of a measure or encode: measures the blocks, sizes dropped.
  WarmFn warm_measure(const BlockView& blocks) const;

  friend class Session;  // Session::load refuses bytes for a stateless codec
  std::string family_, preset_, policy_;
};

/// Calls f(std::integral_constant<std::size_t, B>{}) for a runtime block size b in {16, ..., 256},
/// so codecs can specialise their loops on the block size.
template <class F>
decltype(auto) with_block_size(std::size_t b, F&& f) {
  switch (b) {
    case 16: return f(std::integral_constant<std::size_t, 16>{});
    case 32: return f(std::integral_constant<std::size_t, 32>{});
    case 64: return f(std::integral_constant<std::size_t, 64>{});
    case 128: return f(std::integral_constant<std::size_t, 128>{});
    default: return f(std::integral_constant<std::size_t, 256>{});
  }
}

/// CRTP helper: the batch loop calls Derived::measure directly so it inlines.
template <class Derived>
class CodecImpl : public Codec {
 protected:
  void measure_range(const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out,
                     CodecState*) const override {
    const Derived& self = static_cast<const Derived&>(*this);
    const std::size_t b = blocks.block_bytes;
    for (std::size_t i = begin; i < end; ++i) out.set(i, self.Derived::measure(blocks.block(i), b));
  }
  std::size_t encode_range(const BlockView& blocks, std::size_t begin, std::size_t end, std::uint8_t* buf,
                           std::size_t max_bytes, EncodedBlocks& enc, CodecState*) const override {
    const Derived& self = static_cast<const Derived&>(*this);
    return encode_loop(blocks, begin, end, buf, max_bytes, enc, [&](const BlockView& v, std::size_t i, BitWriter& w) {
      // A codec that reads more than the block (a lossy one's approximable flag) overrides
      // encode_block; the others are called at encode directly.
      using Default = std::uint32_t (Codec::*)(const BlockView&, std::size_t, BitWriter&) const;
      if constexpr (std::is_same_v<decltype(&Derived::encode_block), Default>)
        return self.Derived::encode(v.block(i), v.block_bytes, w);
      else
        return self.Derived::encode_block(v, i, w);
    });
  }
  void decode_range(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end,
                    CodecState*) const override {
    const Derived& self = static_cast<const Derived&>(*this);
    decode_loop(enc, out, begin, end, [&](BitReader& r, std::uint32_t tag, std::uint8_t* o, std::size_t b) {
      self.Derived::decode(r, tag, o, b);
    });
  }
};

}  // namespace memcomp
