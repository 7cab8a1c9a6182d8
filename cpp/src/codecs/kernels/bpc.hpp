// memcomp codecs: Bit-Plane Compression's kernel table (private; kernels/kernels.hpp), and what
// the codec (bpc.cpp) and its kernels (bpc_avx2.cpp) share: the settings, the symbol classes and
// codes (Kim et al., ISCA'16 §4; SPEC 1.5), the plane statistics that size a block without a
// transpose, the measure of a block built on them, the base code's reader and the decoders'
// symbol table. The format itself is described in bpc.cpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels.hpp"
#include "memcomp/codecs/codec.hpp"
#include "memcomp/core/bits.hpp"
#include "memcomp/core/bitstream.hpp"
#include "memcomp/core/error.hpp"

namespace memcomp {
namespace bpc {

/// Classes of a non-zero DBX plane; the 5-bit codes of the first four per code map.
enum Cls : unsigned { kDbp0 = 0, kOnes = 1, kPair = 2, kSingle = 3, kRaw = 4 };
enum RunSym : unsigned { kRun = 5, kRun1 = 6 };                        // the zero-run symbols 01 + 5 and 001
inline constexpr unsigned kCode[2][4] = {{1, 0, 2, 3}, {2, 3, 1, 0}};  // [ebpc|kim][class]
inline constexpr unsigned kClassOf[2][4] = {{kOnes, kDbp0, kPair, kSingle},
                                            {kSingle, kPair, kDbp0, kOnes}};  // [map][code]

enum class Alt : std::uint8_t { none, rows, planes };
enum class Src : std::uint8_t { delta33, delta32, words };  // the rows under the planes: d_i or w_i

/// The codec's options (bpc_table() in bpc.cpp declares them).
struct Settings {
  Endian endian;
  bool kim_codes;
  unsigned delta_bits;
  bool fixed7;
  Alt alt;
  bool liu, unsigned_words, fixed32;
};

struct Cost {
  std::uint32_t payload = 0, meta = 0;
  std::uint32_t bits() const { return payload + meta; }
};

// Portable builds have no popcnt instruction; this beats the libgcc call.
inline unsigned popcount(std::uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555ull;
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<unsigned>((x * 0x0101010101010101ull) >> 56);
}
inline unsigned ctz(std::uint64_t x) { return static_cast<unsigned>(__builtin_ctzll(x)); }

/// Population counts: the portable one above, or the builtin (an instruction in a function
/// compiled for popcnt: the kernels').
struct PortablePop {
  unsigned operator()(std::uint64_t x) const { return popcount(x); }
};
struct BuiltinPop {
  unsigned operator()(std::uint64_t x) const { return static_cast<unsigned>(__builtin_popcountll(x)); }
};

/// Class of a non-zero DBX plane x whose DBP is p (all-ones value `ones`).
inline unsigned classify(std::uint64_t x, std::uint64_t p, std::uint64_t ones, bool liu) {
  const bool single = (x & (x - 1)) == 0;
  const bool pair = (x >> ctz(x)) == 3;
  if (liu) {
    if (single) return kSingle;
    if (pair) return kPair;
    if (x == ones) return kOnes;
    if (p == 0) return kDbp0;
    return kRaw;
  }
  if (p == 0) return kDbp0;
  if (x == ones) return kOnes;
  if (pair) return kPair;
  if (single) return kSingle;
  return kRaw;
}

/// The base word's code: 000, 001 + 4, 010 + 8, 011 + 16 or 1 + 32 (3 + 4 always with fixed7).
inline Cost base_cost(std::uint32_t w0, bool fixed7) {
  if (fixed7) return {4, 3};
  const std::int64_t s = static_cast<std::int32_t>(w0);
  if (s == 0) return {0, 3};
  if (fits_signed(s, 4)) return {4, 3};
  if (fits_signed(s, 8)) return {8, 3};
  if (fits_signed(s, 16)) return {16, 3};
  return {32, 1};
}

/// Reads a base word; refuses one the encoder would have written with a shorter code.
inline std::uint32_t read_base(BitReader& in) {
  if (in.read_bit()) {
    const auto w0 = static_cast<std::uint32_t>(in.read(32));
    if (fits_signed(static_cast<std::int32_t>(w0), 16))
      throw corrupt_stream("bpc base " + std::to_string(static_cast<std::int32_t>(w0)) +
                           " written raw fits a shorter base code");
    return w0;
  }
  static constexpr unsigned kBits[4] = {0, 4, 8, 16};
  const auto code = static_cast<unsigned>(in.read(2));
  const std::int64_t v = code == 0 ? 0 : sign_extend(in.read(kBits[code]), kBits[code]);
  if (code > 0 && (v == 0 || (code > 1 && fits_signed(v, kBits[code - 1]))))
    throw corrupt_stream("bpc base " + std::to_string(v) + " fits a shorter base code than " +
                         std::to_string(kBits[code]) + " bits");
  return static_cast<std::uint32_t>(v);
}

/// Zero-run symbols of the zero-plane mask z (bit j = DBX[j] == 0): 3 bits for a run of one,
/// 2 + 5 for a longer one.
template <class Pop = PortablePop>
inline void add_runs(std::uint64_t z, Cost& c, Pop popcount = {}) {
  const std::uint64_t starts = z & ~(z << 1);
  const unsigned runs = popcount(starts), ones = popcount(starts & ~(z >> 1));
  c.meta += 3 * ones + 2 * (runs - ones);
  c.payload += 5 * (runs - ones);
}

/// Statistics of P planes of width W gathered from the rows, without a transpose: row u_i is
/// d_i itself (bit j of u_i = bit i-1 of DBP[j]) and e_i = u_i ^ (u_i >> 1) is row i of the DBX
/// planes. Per plane: any/two/three = at least 1/2/3 ones, adj = two adjacent ones somewhere,
/// dbp = DBP != 0.
struct RowStats {
  std::uint64_t any = 0, two = 0, three = 0, all = ~std::uint64_t{0}, adj = 0, dbp = 0, prev = 0;  // prev: last e
  void add(std::uint64_t u) {
    const std::uint64_t e = u ^ (u >> 1);
    three |= two & e;
    two |= any & e;
    any |= e;
    all &= e;
    adj |= prev & e;
    prev = e;
    dbp |= u;
  }
  /// Symbol bits of the planes; pb = position bits, ones = the planes that equal 2^m - 1.
  template <class Pop = PortablePop>
  Cost cost(unsigned P, unsigned W, unsigned pb, bool liu, std::uint64_t ones, Pop popcount = {}) const {
    const std::uint64_t full = low_mask(P), nz = any;
    const std::uint64_t c1 = any & ~two, c2 = (two & ~three) & adj, dz = nz & ~dbp;
    std::uint64_t s, pr, on, d;
    if (liu) {
      s = c1;
      pr = c2;
      on = ones & ~(s | pr);
      d = dz & ~(s | pr | on);
    } else {
      d = dz;
      on = ones & ~d;
      s = c1 & ~(d | on);
      pr = c2 & ~(d | on);
    }
    const std::uint64_t coded = d | on | s | pr, raw = nz & ~coded;
    Cost c;
    const unsigned npos = popcount(s | pr), nraw = popcount(raw);
    c.meta = 5 * popcount(coded) + nraw;
    c.payload = pb * npos + W * nraw;
    add_runs(full & ~nz, c, popcount);
    return c;
  }
};

/// 8x8 bit matrix in a uint64 (bit 8r + c = row r, column c) -> its transpose.
inline std::uint64_t transpose8(std::uint64_t x) {
  std::uint64_t t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
  x ^= t ^ (t << 7);
  t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
  x ^= t ^ (t << 14);
  t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
  return x ^ t ^ (t << 28);
}

/// Bits 0..15 of x to the even bits 0..30.
inline std::uint32_t spread16(std::uint32_t x) {
  x = (x | x << 8) & 0x00FF00FFu;
  x = (x | x << 4) & 0x0F0F0F0Fu;
  x = (x | x << 2) & 0x33333333u;
  return (x | x << 1) & 0x55555555u;
}

/// Row i of a block's planes: word i less word i - 1 (33-bit or mod 2^32), or word i itself.
inline std::uint64_t row_of(const Settings& s, Src src, std::uint32_t cur, std::uint32_t prev) {
  if (src == Src::delta33) {
    const std::int64_t d =
        s.unsigned_words ? std::int64_t{cur} - std::int64_t{prev}
                         : std::int64_t{static_cast<std::int32_t>(cur)} - std::int64_t{static_cast<std::int32_t>(prev)};
    return static_cast<std::uint64_t>(d) & low_mask(33);
  }
  if (src == Src::delta32) return static_cast<std::uint32_t>(cur - prev);
  return cur;
}

/// Rows of alt_mode=rows: 32 elements of W = B/4 bits (W = 4: nibbles, low nibble first unless
/// endian=big).
inline void load_rows(const Settings& s, const std::uint8_t* blk, std::size_t b, std::uint64_t* r) {
  const unsigned W = static_cast<unsigned>(b / 4);
  if (W == 4) {
    const unsigned first = s.endian == Endian::big ? 4 : 0;  // shift of the even row's nibble
    for (unsigned k = 0; k < 32; ++k) r[k] = (unsigned{blk[k / 2]} >> ((k & 1) ? 4 - first : first)) & 0xFu;
    return;
  }
  for (unsigned k = 0; k < 32; ++k) r[k] = load_k(blk + k * (W / 8), W / 8, s.endian);
}

/// RowStats of a block's rows 1..n-1, one row at a time (the portable gatherer; the kernels have
/// their own).
struct ScalarRows {
  template <std::size_t B, Src S>
  static RowStats stats(const Settings& s, const std::uint8_t* blk) {
    constexpr std::size_t n = B / 4;
    std::uint32_t w[n];
    for (std::size_t i = 0; i < n; ++i) w[i] = load<std::uint32_t>(blk + 4 * i, s.endian);
    RowStats st;
    for (std::size_t i = 1; i < n; ++i) st.add(row_of(s, S, w[i], w[i - 1]));
    return st;
  }
};

/// Symbol bits of the delta (or plain-word) bit-planes, from the row domain (Rows gathers the
/// statistics, Pop counts bits).
template <std::size_t B, Src S, class Rows, class Pop>
Cost delta_cost(const Settings& s, const std::uint8_t* blk) {
  constexpr std::size_t m = B / 4 - 1;
  constexpr unsigned P = S == Src::delta33 ? 33 : 32;
  const RowStats st = Rows::template stats<B, S>(s, blk);
  if (s.fixed32) return st.cost(P, 31, 5, s.liu, m == 31 ? st.all : 0, Pop{});
  return st.cost(P, static_cast<unsigned>(m), ceil_log2(m), s.liu, st.all, Pop{});
}

/// alt_mode=rows. Rows of at most 8 bits are transposed into W columns (column c bit k = bit c
/// of row k) and go through the row-domain statistics; wider rows are classified one by one.
template <std::size_t B>
Cost rows_cost(const Settings& s, const std::uint8_t* blk) {
  constexpr unsigned W = B / 4, m = W - 1, pb = ceil_log2(W);
  if constexpr (W <= 8) {
    std::uint64_t col[8];
    if constexpr (W == 8) {  // rows are bytes: tile q holds rows 8q..8q+7
      std::uint64_t t[4];
      for (unsigned q = 0; q < 4; ++q) t[q] = transpose8(load<std::uint64_t>(blk + 8 * q, Endian::little));
      for (unsigned c = 0; c < 8; ++c) {
        col[c] = 0;
        for (unsigned q = 0; q < 4; ++q) col[c] |= ((t[q] >> (8 * c)) & 0xFFu) << (8 * q);
      }
    } else {  // nibbles: column c of the even rows is bit c of every byte (bit c + 4 for endian=big)
      const std::uint64_t t0 = transpose8(load<std::uint64_t>(blk, Endian::little));
      const std::uint64_t t1 = transpose8(load<std::uint64_t>(blk + 8, Endian::little));
      const unsigned even = s.endian == Endian::big ? 4 : 0;
      for (unsigned c = 0; c < 4; ++c) {
        auto bits16 = [&](unsigned j) {
          return static_cast<std::uint32_t>(((t0 >> (8 * j)) & 0xFFu) | ((t1 >> (8 * j)) & 0xFFu) << 8);
        };
        col[c] = spread16(bits16(c + even)) | spread16(bits16(c + 4 - even)) << 1;
      }
    }
    RowStats st;
    for (unsigned c = 0; c < m; ++c) st.add(col[c]);
    const std::uint64_t below = st.all;  // planes whose bits 0..m-1 are all set
    st.add(col[m]);
    return st.cost(32, W, pb, s.liu, below & ~(col[m] ^ (col[m] >> 1)));
  } else {
    std::uint64_t r[33];
    load_rows(s, blk, B, r);
    r[32] = 0;
    const std::uint64_t ones = low_mask(m);
    std::uint64_t z = 0;
    unsigned n5 = 0, npos = 0, nraw = 0;
    for (unsigned k = 0; k < 32; ++k) {
      const std::uint64_t x = r[k] ^ r[k + 1];
      if (x == 0) {
        z |= std::uint64_t{1} << k;
        continue;
      }
      const unsigned c = classify(x, r[k], ones, s.liu);
      n5 += c != kRaw;
      npos += c == kPair || c == kSingle;
      nraw += c == kRaw;
    }
    Cost c;
    c.meta = 5 * n5 + nraw;
    c.payload = pb * npos + W * nraw;
    add_runs(z, c);
    return c;
  }
}

/// The sizes of a block of B bytes: the delta candidate, and with alt_mode the other one behind
/// the 1-bit flag (the strictly smaller wins).
template <std::size_t B, class Rows, class Pop>
SizeBreakdown measure_block(const Settings& s, const std::uint8_t* blk) {
  const Cost base = base_cost(load<std::uint32_t>(blk, s.endian), s.fixed7);
  Cost c = s.delta_bits == 33 ? delta_cost<B, Src::delta33, Rows, Pop>(s, blk)
                              : delta_cost<B, Src::delta32, Rows, Pop>(s, blk);
  c.payload += base.payload;
  c.meta += base.meta;
  SizeBreakdown out;
  if (s.alt != Alt::none) {
    out.header = 1;
    Cost a;
    if (s.alt == Alt::rows) {
      a = rows_cost<B>(s, blk);
    } else {
      a = delta_cost<B, Src::words, Rows, Pop>(s, blk);
      a.payload += base.payload;
      a.meta += base.meta;
    }
    if (a.bits() < c.bits()) {
      c = a;
      out.mode = 1;
    }
  }
  out.payload = c.payload;
  out.meta = c.meta;
  return out;
}

/// A symbol by its first 5 bits (of a 40-bit window w): its DBX is (w >> raw_shift & raw_mask)
/// | ones | (DBP above & dbp_mask) | pat << (w >> pos_shift & pos_mask); it covers count_add +
/// (run field & count_mask) planes. The shifts and masks are the plane width's.
struct Sym {
  std::uint32_t raw_mask = 0, ones = 0, dbp_mask = 0;
  std::uint8_t kind = 0, len = 0, pat = 0, count_mask = 0, count_add = 0, run = 0;  // kind: Cls or RunSym
  std::uint8_t raw_shift = 0, pos_shift = 0, pos_mask = 0;
};

/// The symbols of planes of width W <= 31 by their first 5 bits, for code map `map`.
inline void make_symbols(unsigned map, unsigned W, Sym (&table)[32]) {
  for (unsigned t = 0; t < 32; ++t) {
    const unsigned h = t >> 2, cls = kClassOf[map][t & 3];
    const unsigned kind = h >= 4 ? kRaw : h >= 2 ? kRun : h == 1 ? kRun1 : cls;
    Sym& e = table[t];
    e.raw_mask = kind == kRaw ? static_cast<std::uint32_t>(low_mask(W)) : 0u;
    e.ones = kind == kOnes ? static_cast<std::uint32_t>(low_mask(W)) : 0u;
    e.dbp_mask = kind == kDbp0 ? ~0u : 0u;
    e.kind = static_cast<std::uint8_t>(kind);
    e.len = static_cast<std::uint8_t>(kind == kRaw    ? W + 1
                                      : kind == kRun  ? 7
                                      : kind == kRun1 ? 3
                                                      : 5 + (kind == kPair || kind == kSingle ? ceil_log2(W) : 0));
    e.pat = static_cast<std::uint8_t>(kind == kPair ? 3 : kind == kSingle ? 1 : 0);
    e.count_mask = static_cast<std::uint8_t>(kind == kRun ? 31 : 0);
    e.count_add = static_cast<std::uint8_t>(kind == kRun ? 2 : 1);
    e.run = static_cast<std::uint8_t>(kind >= kRun);
    e.raw_shift = static_cast<std::uint8_t>(39 - W);
    e.pos_shift = static_cast<std::uint8_t>(35 - ceil_log2(W));
    e.pos_mask = static_cast<std::uint8_t>(low_mask(ceil_log2(W)));
  }
}

}  // namespace bpc

struct BpcKernels {
  /// The sizes of one block of 32 bytes or more.
  SizeBreakdown (*measure_block)(const bpc::Settings&, const std::uint8_t* blk, std::size_t b) = nullptr;
  /// Sizes of blocks [begin, end) of 32 bytes or more.
  void (*measure_range)(const bpc::Settings&, const BlockView&, std::size_t begin, std::size_t end,
                        const SizeColumns& out) = nullptr;
  /// cols[c] bit r = rows[r] bit c for r < R <= 33 and c < C <= 33 (rows' bits from C on are 0).
  void (*transpose33)(const std::uint64_t* rows, unsigned R, unsigned C, std::uint64_t* cols) = nullptr;
  /// The plane symbols of a block of 32 to 128 bytes (signed words; src not words=unsigned's),
  /// after its base: as emit_planes writes them.
  void (*encode_planes)(const bpc::Settings&, const std::uint8_t* blk, std::size_t b, bpc::Src src,
                        BitWriter& out) = nullptr;
  /// A delta block of 32, 64 or 128 bytes (signed words) from its base on, with the symbols of
  /// its plane width; false, with `in` untouched, for a stream the general decoder would refuse
  /// or one that ends early (a corrupt base throws corrupt_stream).
  bool (*decode_one)(const bpc::Settings&, const bpc::Sym* sym, BitReader& in, std::uint8_t* out,
                     std::size_t b) = nullptr;
  /// Blocks i and i + 1 of a delta stream as decode_one, their walks interleaved; false if either
  /// fails or leaves bits over.
  bool (*decode_pair)(const bpc::Settings&, const bpc::Sym* sym, const EncodedView& enc, std::size_t i,
                      std::uint8_t* out0, std::uint8_t* out1, std::size_t b) = nullptr;
};

#if defined(MEMCOMP_X86_SIMD)
extern const BpcKernels kBpcAvx2;  // bpc_avx2.cpp
#endif

/// The table of the active tier.
inline const BpcKernels& bpc_kernels() noexcept {
  static constexpr BpcKernels scalar{};
#if defined(MEMCOMP_X86_SIMD)
  return pick_kernels(scalar, &kBpcAvx2, nullptr);
#else
  return pick_kernels(scalar, nullptr, nullptr);
#endif
}

}  // namespace memcomp
