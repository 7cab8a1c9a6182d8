// memcomp codecs: zero-content (ZCA, Dusser et al. ICS'09) and zero/repeated-value blocks
// (SPEC 1.6; R §12).
//   zca : tag 1 = zero block (0 in-band bits); tag 0 = raw block (8B bits).
//   zrep: 2-bit header 00 = zero, 01 = repeated w-byte element (8w bits), 11 = raw (8B bits).
#include <cstring>

#include "codec_impl.hpp"
#include "memcomp/codecs/families.hpp"

namespace memcomp {
namespace {

bool all_zero(const std::uint8_t* b, std::size_t n) {
  std::uint64_t acc = 0;
  for (std::size_t i = 0; i < n; i += 8) acc |= load<std::uint64_t>(b + i, Endian::little);
  return acc == 0;
}

void read_raw(BitReader& in, std::uint8_t* out, std::size_t n) { in.read_bytes(out, n); }

const OptionTable<NoSettings>& zca_table() {
  static const OptionTable<NoSettings> t;
  return t;
}

class ZCA final : public CodecImpl<ZCA> {
 public:
  explicit ZCA(const Options& o) { zca_table().parse(o, "zca"); }
  Options options() const override { return zca_table().write({}); }
  std::uint64_t max_compressed_bits(std::size_t b) const override { return 8 * b; }
  std::vector<ModeName> modes() const override { return {{0, "raw"}, {1, "zero"}}; }

  SizeBreakdown measure(const std::uint8_t* blk, std::size_t b) const override {
    SizeBreakdown s;
    s.tag = 1;
    if (all_zero(blk, b)) {
      s.mode = 1;
    } else {
      s.payload = static_cast<std::uint32_t>(8 * b);
    }
    return s;
  }
  std::uint32_t encode(const std::uint8_t* blk, std::size_t b, BitWriter& w) const override {
    if (all_zero(blk, b)) return 1;
    w.write_bytes(blk, b);
    return 0;
  }
  void decode(BitReader& in, std::uint32_t tag, std::uint8_t* out, std::size_t b) const override {
    if (tag > 1) throw corrupt_stream("zca tag must be 0 or 1, got " + std::to_string(tag));
    if (tag == 1)
      std::memset(out, 0, b);
    else
      read_raw(in, out, b);
  }
};

struct ZRepSettings {
  unsigned w;
};

const OptionTable<ZRepSettings>& zrep_table() {
  static const OptionTable<ZRepSettings> t{
      option_int("w", &ZRepSettings::w, 8, {1, 2, 4, 8}, "bytes of the element a repeated block repeats")};
  return t;
}

class ZRep final : public CodecImpl<ZRep> {
 public:
  explicit ZRep(const Options& o) : s_(zrep_table().parse(o, "zrep")), w_(s_.w) {}
  Options options() const override { return zrep_table().write(s_); }
  std::uint64_t max_compressed_bits(std::size_t b) const override { return 2 + 8 * b; }
  std::vector<ModeName> modes() const override { return {{0, "zero"}, {1, "repeated"}, {3, "raw"}}; }

  int classify(const std::uint8_t* blk, std::size_t b) const {
    if (all_zero(blk, b)) return 0;
    for (std::size_t i = w_; i < b; i += w_)
      if (std::memcmp(blk, blk + i, w_) != 0) return 3;
    return 1;
  }
  SizeBreakdown measure(const std::uint8_t* blk, std::size_t b) const override {
    SizeBreakdown s;
    s.header = 2;
    s.mode = static_cast<std::int16_t>(classify(blk, b));
    s.payload = s.mode == 0 ? 0u : static_cast<std::uint32_t>(s.mode == 1 ? 8 * w_ : 8 * b);
    return s;
  }
  std::uint32_t encode(const std::uint8_t* blk, std::size_t b, BitWriter& w) const override {
    const int m = classify(blk, b);
    w.write(static_cast<std::uint64_t>(m), 2);
    if (m == 1) w.write_bytes(blk, w_);
    if (m == 3) w.write_bytes(blk, b);
    return 0;
  }
  void decode(BitReader& in, std::uint32_t, std::uint8_t* out, std::size_t b) const override {
    const auto m = in.read(2);
    if (m == 0) {
      std::memset(out, 0, b);
    } else if (m == 1) {
      read_raw(in, out, w_);
      for (std::size_t i = w_; i < b; i += w_) std::memcpy(out + i, out, w_);
    } else if (m == 3) {
      read_raw(in, out, b);
    } else {
      throw corrupt_stream("zrep header 10 is not a defined mode");
    }
  }

 private:
  const ZRepSettings s_;
  unsigned w_ = 8;
};

template <class C>
std::unique_ptr<Codec> make(const Options& o) {
  return std::make_unique<C>(o);
}

}  // namespace

void add_zero_presets(std::vector<Preset>& out) {
  out.push_back({"zca.paper",
                 "zca",
                 "zero-content augmented: zero blocks cost only a 1-bit tag",
                 "none",
                 {},
                 true,
                 &make<ZCA>,
                 &space_of<zca_table>});
  out.push_back({"zrep.ours",
                 "zrep",
                 "2-bit header: zero, repeated 8-byte value, or raw",
                 "none",
                 {{"w", std::int64_t{8}}},
                 true,
                 &make<ZRep>,
                 &space_of<zrep_table>});
}

}  // namespace memcomp
