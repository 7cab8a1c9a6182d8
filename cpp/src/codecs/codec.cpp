// memcomp codecs: batch loops and stream validation shared by every codec.
#include "memcomp/codecs/codec.hpp"

#include "codec_impl.hpp"
#include "memcomp/codecs/registry.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <string>

#include "memcomp/core/parallel.hpp"

namespace memcomp {

namespace {
constexpr std::size_t kMinChunk = 4096;                 // blocks per thread before another thread pays off
constexpr std::size_t kMinSpeculated = 16 * kMinChunk;  // a stateful codec's blocks per thread
constexpr std::size_t kWarmBlocks = 8192;               // blocks run to guess the state a range starts in
std::atomic<std::uint64_t> g_lane_fallbacks{0};

/// A stateful codec's batch of n blocks on `threads` threads (ranges of at least kMinSpeculated
/// blocks, else one), from `state`, with the results and the final state of one thread (left in
/// `state`). warm(s, b, w) runs the w blocks before block b from state s (results dropped);
/// run(s, k, b, e) runs range k, blocks [b, e), from state s.
using WarmFn = std::function<void(CodecState*, std::size_t, std::size_t)>;
using RunFn = std::function<void(CodecState*, std::size_t, std::size_t, std::size_t)>;

// Range 0 runs from the batch's state. Range k > 0 runs from a guess of the state it starts in:
// the state that the kWarmBlocks blocks before it leave when run from the initial state, which is
// the true one wherever the state forgets what came before them (C-Pack's 16-entry dictionary
// holds its last pushes only). Then, in order, each range's guess is checked against the state the
// range before ended in (resync_state), and a range whose guess was wrong (or that threw: a wrong
// state can make a stream look corrupt) runs again from the true state.
void speculate(const Codec& codec, std::size_t n, int threads, CodecState& state, const WarmFn& warm,
               const RunFn& run) {
  threads = static_cast<int>(resolve_threads(threads));
  const std::size_t t = std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), n / kMinSpeculated);
  if (t <= 1) return run(&state, 0, 0, n);
  std::vector<std::unique_ptr<CodecState>> guessed(t);
  for (std::size_t k = 1; k < t; ++k) guessed[k] = codec.initial_state();
  std::vector<std::vector<std::uint8_t>> guess(t), ended(t);
  std::vector<char> ran(t, 0);
  parallel_for(t, static_cast<int>(t), 1, [&](std::size_t k0, std::size_t k1) {
    for (std::size_t k = k0; k < k1; ++k) {
      const std::size_t b = n * k / t, e = n * (k + 1) / t;
      if (k == 0) {
        run(&state, 0, b, e);
        ended[0] = state.save();
        continue;
      }
      CodecState* st = guessed[k].get();
      try {
        warm(st, b, std::min(b, kWarmBlocks));
        guess[k] = st->save();
        run(st, k, b, e);
        ended[k] = st->save();
        ran[k] = 1;
      } catch (const std::exception&) {  // run again below
      }
    }
  });
  std::vector<std::uint8_t> truth = std::move(ended[0]);
  for (std::size_t k = 1; k < t; ++k) {
    std::vector<std::uint8_t> next;
    if (!ran[k] || !state.resync(guess[k], truth, ended[k], next)) {
      state.load(truth.data(), truth.size());
      run(&state, k, n * k / t, n * (k + 1) / t);
      next = state.save();
    }
    truth = std::move(next);
  }
  state.load(truth.data(), truth.size());
}

}  // namespace

std::uint64_t batch::lane_fallbacks() noexcept { return g_lane_fallbacks.load(std::memory_order_relaxed); }
void batch::count_lane_fallback() noexcept { g_lane_fallbacks.fetch_add(1, std::memory_order_relaxed); }

std::uint32_t Codec::encode(const std::uint8_t*, std::size_t, BitWriter&) const { batch::not_decodable(*this); }

void Codec::decode(BitReader&, std::uint32_t, std::uint8_t*, std::size_t) const { batch::not_decodable(*this); }

void batch::not_decodable(const Codec& c) {
  throw invalid_argument(c.preset() + " is an accounting-only preset (exact=False): it reproduces " +
                         "another tool's sizes, which no decodable format reaches; use measure()");
}

std::string Codec::fit(const BlockView&, int) const {
  throw invalid_argument(preset_ + " is not data-driven: it has no model to fit");
}

std::string Codec::fit_counts(const SymbolCounts&) const {
  throw invalid_argument(preset_ + " does not fit its model from symbol counts: fit it on blocks");
}

std::unique_ptr<Codec> Codec::fitted(const BlockView& blocks, int threads) const {
  Options o = options();
  o["model"] = fit(blocks, threads);
  return make_codec(preset_, o);
}

void Codec::refuse_entry_state(std::size_t bytes) const {
  if (bytes)
    throw corrupt_stream(preset_ + " is stateless: an entry state of " + std::to_string(bytes) + " bytes is not its");
}

void Codec::check_approximable(const BlockView& blocks) const {
  if (blocks.approximable && !lossy())
    throw invalid_argument(preset_ + " is lossless: an approximable mask only applies to lossy codecs (slc)");
}

void Codec::require_model() const {
  if (!has_model())
    throw invalid_argument(preset_ + " has no model: fit it on sample blocks first (codec.fit(blocks)) "
                                     "or pass model=...");
}

std::vector<std::uint8_t> Session::save() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (state_) return state_->save();
  const std::unique_ptr<CodecState> fresh = codec_->initial_state();
  return fresh ? fresh->save() : std::vector<std::uint8_t>{};
}

void Session::load(const std::uint8_t* data, std::size_t bytes) {
  std::unique_ptr<CodecState> st = codec_->initial_state();
  if (!st) return codec_->refuse_entry_state(bytes);
  st->load(data, bytes);
  const std::lock_guard<std::mutex> lock(mutex_);
  state_ = std::move(st);
}

class Codec::Stream {
 public:
  Stream(const Codec& c, Session* session) {
    if (!c.stateful()) return;
    if (session == nullptr) {
      local_ = c.initial_state();
      state_ = local_.get();
      return;
    }
    if (&session->codec() != &c)
      throw invalid_argument("this session was made for another codec (" + session->codec().preset() +
                             "): a session runs batches of the codec object that made it, never another's");
    lock_ = std::unique_lock<std::mutex>(session->mutex_);
    if (!session->state_) session->state_ = c.initial_state();
    state_ = session->state_.get();
  }
  CodecState* state() const noexcept { return state_; }

 private:
  std::unique_lock<std::mutex> lock_;
  std::unique_ptr<CodecState> local_;
  CodecState* state_ = nullptr;
};

void Codec::measure_batch(const BlockView& blocks, const SizeColumns& out, int threads, Session* session) const {
  check_block_bytes(blocks.block_bytes);
  check_approximable(blocks);
  if (blocks.n_blocks) require_model();  // no blocks need no model (an empty dump's table row)
  const Stream stream(*this, session);
  if (!stream.state())
    return parallel_for(blocks.n_blocks, threads, kMinChunk,
                        [&](std::size_t b, std::size_t e) { measure_range(blocks, b, e, out, nullptr); });
  speculate(*this, blocks.n_blocks, threads, *stream.state(), warm_measure(blocks),
            [&](CodecState* st, std::size_t, std::size_t b, std::size_t e) { measure_range(blocks, b, e, out, st); });
}

std::function<void(CodecState*, std::size_t, std::size_t)> Codec::warm_measure(const BlockView& blocks) const {
  return [this, &blocks](CodecState* st, std::size_t b, std::size_t w) {
    SizeBuffers cols(w);
    measure_range(blocks.slice(b - w, w), 0, w, cols.view(), st);
  };
}

void Codec::check_encode(const BlockView& blocks) const {
  check_block_bytes(blocks.block_bytes);
  check_approximable(blocks);
  if (blocks.n_blocks) require_model();
  if (!exact()) batch::not_decodable(*this);
}

EncodedBlocks Codec::encode_batch(const BlockView& blocks, int threads, Session* session) const {
  check_encode(blocks);
  const Stream stream(*this, session);
  return encode_stream(blocks, threads, stream.state());
}

void Codec::encode_chunks(const BlockView& blocks, std::size_t chunk_blocks, int threads, Session* session,
                          const std::function<void(std::size_t, const EncodedBlocks&)>& each) const {
  check_encode(blocks);
  const Stream stream(*this, session);
  const std::size_t n = blocks.n_blocks, per = std::max<std::size_t>(1, chunk_blocks);
  std::size_t b = 0;
  do {  // an empty batch too: one empty chunk
    const std::size_t k = std::min(per, n - b);
    each(b, encode_stream(blocks.slice(b, k), threads, stream.state()));
    b += k;
  } while (b < n);
}

EncodedBlocks Codec::encode_stream(const BlockView& blocks, int threads, CodecState* state) const {
  const std::size_t n = blocks.n_blocks, B = blocks.block_bytes;
  const std::size_t max_bytes = static_cast<std::size_t>(ceil_div(max_compressed_bits(B), 8));
  EncodedBlocks enc;
  enc.block_bytes = B;
  enc.bit_offsets.resize(n);
  enc.bit_lengths.resize(n);
  enc.tags.resize(n);
  if (state) enc.entry_state = state->save();
  // Every worker encodes its range into a buffer (block streams start on byte boundaries,
  // offsets relative to the buffer): the first range straight into the result, which has room
  // for every block's worst case; the others into buffers of their own, appended after, their
  // bytes and offsets moved by all threads at once.
  enc.data.resize(batch::range_bytes(0, n, max_bytes));
  std::size_t head = 0;  // bytes of the first range
  std::mutex mu;
  std::vector<std::pair<std::size_t, ByteBuffer>> parts;  // (first block, bytes) of the other ranges
  if (state) {  // range k > 0 in parts[k - 1], encoded again where its speculation missed
    parts.resize(resolve_threads(threads) - 1);
    speculate(*this, n, threads, *state, warm_measure(blocks),
              [&](CodecState* st, std::size_t k, std::size_t b, std::size_t e) {
                if (k == 0) {
                  head = encode_range(blocks, b, e, enc.data.data(), max_bytes, enc, st);
                  return;
                }
                auto& [first, buf] = parts[k - 1];
                first = b;
                buf.resize(batch::range_bytes(b, e, max_bytes));
                buf.resize(encode_range(blocks, b, e, buf.data(), max_bytes, enc, st));
              });
    parts.erase(std::remove_if(parts.begin(), parts.end(), [](const auto& x) { return x.first == 0; }), parts.end());
  } else {
    parallel_for(n, threads, kMinChunk, [&](std::size_t b, std::size_t e) {
      if (b == 0) {
        head = encode_range(blocks, b, e, enc.data.data(), max_bytes, enc, nullptr);
        return;
      }
      ByteBuffer buf(batch::range_bytes(b, e, max_bytes));
      buf.resize(encode_range(blocks, b, e, buf.data(), max_bytes, enc, nullptr));
      std::lock_guard<std::mutex> join(mu);
      parts.emplace_back(b, std::move(buf));
    });
    std::sort(parts.begin(), parts.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  }
  std::vector<std::size_t> at(parts.size() + 1, head);  // where each part goes
  for (std::size_t k = 0; k < parts.size(); ++k) at[k + 1] = at[k] + parts[k].second.size();
  enc.data.resize(at.back());
  if (parts.empty()) return enc;
  const std::size_t first = parts[0].first;
  parallel_for(at.back() - head, threads, std::size_t{1} << 20, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t k = 0; k < parts.size(); ++k) {  // bytes [lo, hi) after the first range
      const std::size_t from = std::max(head + lo, at[k]), to = std::min(head + hi, at[k + 1]);
      if (from < to) std::memcpy(enc.data.data() + from, parts[k].second.data() + (from - at[k]), to - from);
    }
  });
  parallel_for(n - first, threads, kMinChunk, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t k = 0; k < parts.size(); ++k) {  // blocks [first + lo, first + hi)
      const std::size_t end = k + 1 < parts.size() ? parts[k + 1].first : n;
      for (std::size_t i = std::max(first + lo, parts[k].first); i < std::min(first + hi, end); ++i)
        enc.bit_offsets[i] += 8 * at[k];
    }
  });
  return enc;
}

void Codec::decode_batch(const EncodedView& enc, std::uint8_t* out, int threads, Session* session) const {
  check_block_bytes(enc.block_bytes);
  if (enc.n_blocks) require_model();
  if (!exact()) batch::not_decodable(*this);
  const std::uint64_t max_bits = max_compressed_bits(enc.block_bytes);
  const std::uint64_t total_bits = std::uint64_t{enc.data_bytes} * 8;
  // Every block's bits lie in the buffer before any is decoded (the first bad block is named).
  parallel_for(enc.n_blocks, threads, 4 * kMinChunk, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const std::uint64_t off = enc.bit_offsets[i], len = enc.bit_lengths[i];
      if (len > max_bits)
        throw corrupt_stream("block " + std::to_string(i) + ": stream length " + std::to_string(len) +
                             " bits exceeds the codec's maximum of " + std::to_string(max_bits));
      if (off > total_bits || len > total_bits - off)
        throw corrupt_stream("block " + std::to_string(i) + ": bits [" + std::to_string(off) + ", " +
                             std::to_string(off + len) + ") lie outside the " + std::to_string(enc.data_bytes) +
                             "-byte buffer");
    }
  });
  const Stream stream(*this, session);
  CodecState* const state = stream.state();
  if (enc.entry_state != nullptr && state)
    state->load(enc.entry_state, enc.entry_state_bytes);
  else if (enc.entry_state != nullptr)
    refuse_entry_state(enc.entry_state_bytes);
  if (!state)
    return parallel_for(enc.n_blocks, threads, kMinChunk,
                        [&](std::size_t b, std::size_t e) { decode_range(enc, out, b, e, nullptr); });
  const auto warm = [&](CodecState* st, std::size_t b, std::size_t w) {  // into scratch
    EncodedView v = enc;
    v.bit_offsets += b - w;
    v.bit_lengths += b - w;
    v.tags += b - w;
    v.n_blocks = w;
    ByteBuffer scratch(w * enc.block_bytes);
    decode_range(v, scratch.data(), 0, w, st);
  };
  speculate(*this, enc.n_blocks, threads, *state, warm,
            [&](CodecState* st, std::size_t, std::size_t b, std::size_t e) { decode_range(enc, out, b, e, st); });
}

bool batch::lane_streams(const EncodedView& enc, std::size_t i, std::size_t k, unsigned max_token,
                         const std::uint8_t*& base, std::int32_t* pos, std::int32_t* end) noexcept {
  std::uint64_t lo = enc.bit_offsets[i], hi = 0;
  for (std::size_t j = 1; j < k; ++j) lo = std::min(lo, enc.bit_offsets[i + j]);
  lo &= ~std::uint64_t{7};
  for (std::size_t j = 0; j < k; ++j) hi = std::max(hi, enc.bit_offsets[i + j] + enc.bit_lengths[i + j] - lo);
  if (hi >= (std::uint64_t{1} << 30) || lo / 8 + (hi + max_token) / 8 + 8 > enc.data_bytes) return false;
  base = enc.data + lo / 8;
  for (std::size_t j = 0; j < k; ++j) {
    pos[j] = static_cast<std::int32_t>(enc.bit_offsets[i + j] - lo);
    end[j] = pos[j] + static_cast<std::int32_t>(enc.bit_lengths[i + j]);
  }
  return true;
}

void batch::trailing_bits(std::size_t n) {
  throw corrupt_stream(std::to_string(n) + " trailing bits after the last field");
}

void batch::in_block(const Codec& c, std::size_t i, const corrupt_stream& err) {
  throw corrupt_stream(c.preset() + " block " + std::to_string(i) + ": " + err.what());
}

}  // namespace memcomp
