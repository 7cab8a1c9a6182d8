// memcomp codecs: Fibonacci coding of word deltas (the code of Pool, Lastra, Singh, I3D'12;
// SPEC 1.14; R §11). Everything around the code itself is ours.
//
//   field                     bits
//   w_0, raw                  32
//   Fib(u_i + 1), i >= 1      2..47   u_i = zigzag((w_i - w_{i-1}) mod 2^32 read as int32)
//
// zigzag(r) = (r << 1) ^ (r >> 31) as uint32: 0, -1, 1, -2, ... -> 0, 1, 2, 3, ...
// Fib(n), 1 <= n <= 2^32: the Zeckendorf representation of n over F2 = 1, F3 = 2, F4 = 3, F5 = 5,
// ... written from the lowest term up, then a terminating 1, so every codeword ends in 11 and
// no other 11 occurs. Its length is k + 1 where F(k+1) <= n < F(k+2):
//   n = 1 -> 11, 2 -> 011, 3 -> 0011, 4 -> 1011, 5 -> 00011; n = 2^32 -> 47 bits.
// Size: payload = first word + codewords (SPEC 0.4); no meta, header or tag.
// The decoder rejects a codeword with no terminator within 47 bits, a value above 2^32 (u must
// fit 32 bits) and a stream that ends early or has bits left over.
#include <algorithm>

#include "codec_impl.hpp"
#include "kernels/fibonacci.hpp"
#include "memcomp/codecs/families.hpp"
#include "memcomp/core/simd.hpp"

namespace memcomp {
namespace {

using namespace fib;

struct FibSettings {
  Endian endian;
};

const OptionTable<FibSettings>& fib_table() {
  static const OptionTable<FibSettings> t{option_endian(&FibSettings::endian)};
  return t;
}

class Fibonacci final : public CodecImpl<Fibonacci> {
 public:
  explicit Fibonacci(const Options& o) : s_(fib_table().parse(o, "fib")) { endian_ = s_.endian; }

  Options options() const override { return fib_table().write(s_); }
  std::uint64_t max_compressed_bits(std::size_t b) const override { return 32 + kMaxLen * (b / 4 - 1); }
  std::vector<ModeName> modes() const override { return {{0, "fib"}}; }

  SizeBreakdown measure(const std::uint8_t* blk, std::size_t b) const override {
    return with_block_size(b, [&](auto B) { return measure_t<B()>(blk); });
  }

  std::uint32_t encode(const std::uint8_t* blk, std::size_t b, BitWriter& out) const override {
    fib::encode_block(blk, b, endian_, out);
    return 0;
  }

  // Codeword by codeword through a peek at the next 48 bits (zeros past the stream's end): the
  // first "11" ends it, and its value is summed a byte of coefficients at a time (kByteValues).
  void decode(BitReader& in, std::uint32_t, std::uint8_t* out, std::size_t b) const override {
    std::uint32_t w = read_first(in, out);
    for (std::size_t i = 1; i < b / 4; ++i) w = read_word(in, w, out, i);
  }

 protected:
  // Eight blocks side by side through the kernel table of the active tier (kernels/fibonacci.hpp),
  // where it has a kernel: every word's value, the greedy steps and the codewords for all of them
  // at once, then their streams through lanes::pack.
  std::size_t encode_range(const BlockView& blocks, std::size_t begin, std::size_t end, std::uint8_t* buf,
                           std::size_t max_bytes, EncodedBlocks& enc, CodecState*) const override {
    if (const auto kernel = fib_kernels().encode_range)
      return kernel(endian_ == Endian::big, blocks, begin, end, buf, max_bytes, enc);
    return CodecImpl<Fibonacci>::encode_range(blocks, begin, end, buf, max_bytes, enc, nullptr);
  }

  // Each codeword's length waits on the one before it, so a block's codewords form a chain:
  // independent blocks are decoded side by side, 24 at a time as vector lanes (AVX2), the rest
  // two at a time.
  void decode_range(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end,
                    CodecState*) const override {
    if (!simd_enabled()) return CodecImpl<Fibonacci>::decode_range(enc, out, begin, end, nullptr);
    if (const auto lanes = fib_kernels().decode_lanes) {
      // Groups of kFibDecodeLanes blocks; a group whose streams are not all valid, or too near
      // the end of the data for its reads, is decoded one block at a time (which names the first
      // bad block).
      const bool big = endian_ == Endian::big;
      const auto n = static_cast<unsigned>(enc.block_bytes / 4), b = static_cast<unsigned>(enc.block_bytes);
      begin = decode_groups<kFibDecodeLanes>(
          enc, out, begin, end, kMaxLen + 1,
          [&](const std::uint8_t* base, const std::int32_t* pos, const std::int32_t* stop, std::uint8_t* buf) {
            return lanes(big, base, pos, stop, n, b, buf);
          });
    }
    const std::size_t n = enc.block_bytes / 4;
    decode_pairs(
        enc, out, begin, end,
        [&](BitReader& ra, std::uint8_t* oa, BitReader& rb, std::uint8_t* ob) {
          std::uint32_t wa = read_first(ra, oa), wb = read_first(rb, ob);
          for (std::size_t i = 1; i < n; ++i) {
            wa = read_word(ra, wa, oa, i);
            wb = read_word(rb, wb, ob, i);
          }
        },
        [&](BitReader& r, std::uint32_t tag, std::uint8_t* o, std::size_t b) { decode(r, tag, o, b); });
  }

 private:
  /// Word 0, stored as is.
  std::uint32_t read_first(BitReader& in, std::uint8_t* out) const {
    const auto w = static_cast<std::uint32_t>(in.read(32));
    store<std::uint32_t>(out, w, endian_);
    return w;
  }
  /// Word i from its codeword and word i - 1 (prev); returns it.
  std::uint32_t read_word(BitReader& in, std::uint32_t prev, std::uint8_t* out, std::size_t i) const {
    const std::uint64_t win = in.peek(48) << 16;   // stream bits at the top
    const std::uint64_t pairs = win & (win << 1);  // bit 63 - t: stream bits t and t + 1 are set
    const unsigned len = pairs ? static_cast<unsigned>(__builtin_clzll(pairs)) + 2 : 64u;
    if (len > kMaxLen) {
      if (in.remaining() < kMaxLen) in.skip(static_cast<unsigned>(in.remaining()) + 1);  // throws: truncated
      throw corrupt_stream("fib codeword of word " + std::to_string(i) + " has no terminator within " +
                           std::to_string(kMaxLen) + " bits");
    }
    in.skip(len);
    const std::uint64_t n = fib_value(win & ~low_mask(65 - len));
    if (n > kMaxN)
      throw corrupt_stream("fib codeword of word " + std::to_string(i) + " has value " + std::to_string(n) + " > 2^32");
    const std::uint64_t u = n - 1;
    const std::uint32_t w = prev + static_cast<std::uint32_t>((u >> 1) ^ (0u - (u & 1u)));
    store<std::uint32_t>(out + 4 * i, w, endian_);
    return w;
  }

  template <std::size_t B>
  SizeBreakdown measure_t(const std::uint8_t* blk) const {
    std::uint32_t prev = load<std::uint32_t>(blk, endian_), bits = 32;
    for (std::size_t i = 4; i < B; i += 4) {
      const std::uint32_t w = load<std::uint32_t>(blk + i, endian_);
      bits += fib_len(std::uint64_t{zigzag(w, prev)} + 1);
      prev = w;
    }
    SizeBreakdown s;
    s.payload = bits;
    return s;
  }

  const FibSettings s_;
  Endian endian_ = Endian::little;
};

std::unique_ptr<Codec> make_fib(const Options& o) { return std::make_unique<Fibonacci>(o); }

}  // namespace

void add_fib_presets(std::vector<Preset>& out) {
  out.push_back({"fib.ours",
                 "fib",
                 "Fibonacci codes (Pool et al. I3D'12) of zigzagged word deltas after a raw first word",
                 "none",
                 {},
                 true,
                 &make_fib,
                 &space_of<fib_table>});
}

}  // namespace memcomp
