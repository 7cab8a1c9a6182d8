// memcomp codecs: Bit-Plane Compression (Kim, Sullivan, Choukse, Erez, ISCA'16; SPEC 1.5; R §5).
//
// Transform of a B-byte block of n = B/4 32-bit words w_0..w_{n-1}, m = n - 1 deltas:
//   d_i = w_i - w_{i-1} over signed words, exact in 33 bits (delta_bits=33, P = 33 planes) or
//   mod 2^32 (delta_bits=32, P = 32 planes);
//   DBP[j] = the m-bit plane whose bit i-1 is bit j of d_i (plane 32 is the sign plane);
//   DBX[P-1] = DBP[P-1], DBX[j] = DBP[j] ^ DBP[j+1]; symbols go from DBX[P-1] down to DBX[0].
//
//   base word w_0 (signed)          plane symbols (W = plane width, m in delta mode)
//   000         w_0 = 0             01 + 5       run of 2..33 zero DBX (field = run - 2)
//   001 + 4     signed 4-bit        001          one zero DBX
//   010 + 8     signed 8-bit        00001        DBX != 0 and DBP = 0
//   011 + 16    signed 16-bit       00000        DBX = 2^m - 1 (all ones)
//   1 + 32      otherwise           00010 + pos  two adjacent ones, pos = the lower index
//                                   00011 + pos  a single one
//                                   1 + W        raw DBX, bit W-1 first
//
// pos has ceil(log2 W) bits. The 5-bit codes are EBPC's assignment; code_map="kim" permutes
// them (single 00000, two 00001, DBP zero 00010, all ones 00011), with the same lengths. A
// non-zero plane takes the first class that applies: DBP zero, all ones, two ones, one, raw
// (precedence="kim"); precedence="liu" tests one, two ones, all ones, DBP zero, raw.
// Zero runs are flushed at the next non-zero plane or at the end. The general-B rules
// (field widths from W) are ours (SPEC 1.5).
//
// Size: payload = base value, run, position and raw fields; meta = every code including the
// base code (SPEC 0.4); header = the 1-bit mode flag when alt_mode is set.
//
// alt_mode adds a second candidate behind a leading 1-bit flag (0 = delta bit-planes, 1 = the
// alternative; the strictly smaller wins, ties go to delta). alt_mode=rows is Yuqing Liu's
// bpc_compresso.h (NAP64/Memory-Compression-Measurements-Open@5d77a4a), read as follows. At its
// 64 B: flag 0 = base (Kim's codes) + 32 planes of 15-bit deltas mod 2^32; flag 1 = no base and
// no transform: the block's 32 16-bit halfwords are themselves the planes (DBP = halfword k,
// DBX[31] = halfword 31, DBX[k] = halfword k ^ halfword k+1, raw = 1 + 16). Both modes use
// EBPC's codes, 4-bit positions, and test single one, two ones, all ones (0x7fff, also on the
// 16-bit rows), DBP zero, raw. Generalised (ours): rows of W = B/4 bits (row k = element k of
// width W, read with `endian`; W = 4: the low nibble first, the high one for big), positions of
// ceil(log2 W) bits, all ones = 2^m - 1. alt_mode=planes is the other reading of "raw
// bit-planes": the base, then 32 bit-planes of w_1..w_m taken without a delta (W = m).
// bpc.liu = delta_bits 32, alt_mode rows, precedence liu: Liu's sizes at 64 B.
// base="fixed7" charges every base 3 + 4 bits, the SKKU `if (base = 0)` bug (accounting-only).
// words="unsigned" takes the 33-bit deltas between words read as unsigned (the MPC authors' tool
// copies 4 bytes into a 64-bit integer); fields="fixed32" charges a raw plane 32 bits and a
// position symbol 10 bits at any block size, all-ones only for 31-bit planes (that tool's
// constants, exact at 128 B). fixed32 is accounting-only; words=unsigned decodes (the word
// before is read unsigned, and a delta must keep it within 0..2^32 - 1).
//
// bpc.nap64 is NAP64's bpc plugin (NAP64/Memory-Compression-Measurements-Open@eefc809,
// include/bpc.h, src/compression/bpc.c) at its 128 B lines (bpc.c:25): the base word coded 000,
// 001+4, 010+8, 011+16 or 1+32 (bpc.h:66-89, = the codes above); 33-bit deltas whose 33rd bit
// is set when word i < word i-1 as unsigned words (bpc.h:25-27, words=unsigned); planes from
// DBX[32] = DBP[32] down (98-106); zero runs 001 and 01+5 (113-124, 160-170); a non-zero DBX
// tested for a single one, then two adjacent ones, at each position from bit 0 up (126-148:
// 00011+5 and 00010+5), then all ones 00000 (149), DBP zero 00001 (151-152), raw 1+31
// (155-156): precedence=liu. Its size is the bits written (bpc.h:171). The plugin caps a line at
// 1024 bits unless run with -p (bpc.c:46-47; parse_switch on by default, src/driver.c:345):
// policy threshold(1), no flag bit charged; policy "none" gives the -p sizes.
//
// The decoder accepts exactly the streams the encoder writes: narrowest base code, maximal
// zero runs inside the planes, positions inside the plane, each plane's first applicable
// class, a 33-bit delta that stays within int32 (uint32 with words=unsigned), and the mode flag
// the encoder would choose.
//
// With AVX2 at B = 32..128 the planes are classified eight per register (emit_planes_avx2),
// and delta blocks decode two at a time without a branch per symbol class (decode_fast2),
// handing any stream they doubt to the general decoder; both equal the scalar code bit for bit
// (tests).
#include <algorithm>
#include <cstring>
#include <string>

#include "codec_impl.hpp"
#include "memcomp/codecs/families.hpp"
#include "memcomp/core/simd.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>
#endif

namespace memcomp {
namespace {

// Classes of a non-zero DBX plane; the 5-bit codes of the first four per code map.
enum Cls : unsigned { kDbp0 = 0, kOnes = 1, kPair = 2, kSingle = 3, kRaw = 4 };
enum RunSym : unsigned { kRun = 5, kRun1 = 6 };                 // the zero-run symbols 01 + 5 and 001
constexpr unsigned kCode[2][4] = {{1, 0, 2, 3}, {2, 3, 1, 0}};  // [ebpc|kim][class]
constexpr unsigned kClassOf[2][4] = {{kOnes, kDbp0, kPair, kSingle}, {kSingle, kPair, kDbp0, kOnes}};  // [map][code]
const char* const kClassName[5] = {"DBP-zero", "all-ones", "two-ones", "single-one", "raw"};

enum class Alt : std::uint8_t { none, rows, planes };
enum class Src : std::uint8_t { delta33, delta32, words };  // the rows under the planes: d_i or w_i

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

// Class of a non-zero DBX plane x whose DBP is p (all-ones value `ones`).
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

inline Cost base_cost(std::uint32_t w0, bool fixed7) {
  if (fixed7) return {4, 3};
  const std::int64_t s = static_cast<std::int32_t>(w0);
  if (s == 0) return {0, 3};
  if (fits_signed(s, 4)) return {4, 3};
  if (fits_signed(s, 8)) return {8, 3};
  if (fits_signed(s, 16)) return {16, 3};
  return {32, 1};
}

// Zero-run symbols of the zero-plane mask z (bit j = DBX[j] == 0): 3 bits for a run of one,
// 2 + 5 for a longer one.
// Population counts: the portable one above, or the builtin (an instruction only where the
// function it ends up in is compiled for popcnt: see cost_popcnt).
struct PortablePop {
  unsigned operator()(std::uint64_t x) const { return popcount(x); }
};
struct BuiltinPop {
  unsigned operator()(std::uint64_t x) const { return static_cast<unsigned>(__builtin_popcountll(x)); }
};

template <class Pop = PortablePop>
inline void add_runs(std::uint64_t z, Cost& c, Pop popcount = {}) {
  const std::uint64_t starts = z & ~(z << 1);
  const unsigned runs = popcount(starts), ones = popcount(starts & ~(z >> 1));
  c.meta += 3 * ones + 2 * (runs - ones);
  c.payload += 5 * (runs - ones);
}

// Statistics of P planes of width W gathered from the rows, without a transpose: row u_i is
// d_i itself (bit j of u_i = bit i-1 of DBP[j]) and e_i = u_i ^ (u_i >> 1) is row i of the DBX
// planes. Per plane: any/two/three = at least 1/2/3 ones, adj = two adjacent ones somewhere,
// dbp = DBP != 0.
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
  // Symbol bits of the planes; pb = position bits, ones = the planes that equal 2^m - 1.
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

#if defined(MEMCOMP_X86_SIMD)
// RowStats::cost with the popcnt instruction (flatten: the builtin expands inside this function).
__attribute__((target("popcnt"), flatten)) Cost cost_popcnt(const RowStats& st, unsigned P, unsigned W, unsigned pb,
                                                            bool liu, std::uint64_t ones) {
  return st.cost(P, W, pb, liu, ones, BuiltinPop{});
}
#endif

// 8x8 bit matrix in a uint64 (bit 8r + c = row r, column c) -> its transpose.
inline std::uint64_t transpose8(std::uint64_t x) {
  std::uint64_t t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
  x ^= t ^ (t << 7);
  t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
  x ^= t ^ (t << 14);
  t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
  return x ^ t ^ (t << 28);
}

#if defined(MEMCOMP_X86_SIMD)
// out[c] bit r = in[r] bit c for a 32x32 bit matrix: a byte transpose (row r's byte k to byte r
// of register k), then 8 movemasks per register, each taking the top bit of every byte.
// The rows come in four registers of eight.
MEMCOMP_AVX2 void transpose32_avx2(const __m256i (&in)[4], std::uint32_t* out) {
  const __m256i group = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5, 9, 13,
                                         2, 6, 10, 14, 3, 7, 11, 15);
  __m256i r[4];
  for (int k = 0; k < 4; ++k) r[k] = _mm256_shuffle_epi8(in[k], group);
  // Dword k of each 128-bit lane holds byte k of that lane's 4 rows; a 4x4 dword transpose per
  // lane gathers them, and a dword permutation puts the rows in order.
  const __m256i a0 = _mm256_unpacklo_epi32(r[0], r[1]), a1 = _mm256_unpackhi_epi32(r[0], r[1]);
  const __m256i a2 = _mm256_unpacklo_epi32(r[2], r[3]), a3 = _mm256_unpackhi_epi32(r[2], r[3]);
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  const __m256i t[4] = {_mm256_permutevar8x32_epi32(_mm256_unpacklo_epi64(a0, a2), order),
                        _mm256_permutevar8x32_epi32(_mm256_unpackhi_epi64(a0, a2), order),
                        _mm256_permutevar8x32_epi32(_mm256_unpacklo_epi64(a1, a3), order),
                        _mm256_permutevar8x32_epi32(_mm256_unpackhi_epi64(a1, a3), order)};
  for (int k = 0; k < 4; ++k) {
    __m256i v = t[k];
    for (int j = 7; j >= 0; --j) {
      out[8 * k + j] = static_cast<std::uint32_t>(_mm256_movemask_epi8(v));
      v = _mm256_add_epi8(v, v);
    }
  }
}
#endif

// cols[c] bit r = rows[r] bit c for r < R <= 64 and c < C <= 64, through 8x8 tiles.
void transpose_bits_tiles(const std::uint64_t* rows, unsigned R, unsigned C, std::uint64_t* cols) {
  alignas(8) std::uint8_t t[64][8] = {};  // t[c][g]: column c of rows 8g..8g+7
  for (unsigned g = 0; 8 * g < R; ++g) {
    std::uint64_t rr[8];
    for (unsigned r = 0; r < 8; ++r) rr[r] = 8 * g + r < R ? rows[8 * g + r] : 0;
    for (unsigned b = 0; 8 * b < C; ++b) {
      std::uint64_t tile = 0;
      for (unsigned r = 0; r < 8; ++r) tile |= ((rr[r] >> (8 * b)) & 0xFFu) << (8 * r);
      tile = transpose8(tile);
      for (unsigned c = 0; c < 8 && 8 * b + c < 64; ++c) t[8 * b + c][g] = static_cast<std::uint8_t>(tile >> (8 * c));
    }
  }
  for (unsigned c = 0; c < C; ++c) cols[c] = load<std::uint64_t>(t[c], Endian::little);
}

// cols[c] bit r = rows[r] bit c for r < R <= 64 and c < C <= 64 (rows' bits from C on are 0).
// Up to 33 x 33 (BPC's planes of blocks up to 128 B) it goes through the 32x32 AVX2 transpose,
// with bit and row 32 apart.
#if defined(MEMCOMP_X86_SIMD)
// transpose_bits up to 33 x 33 with AVX2 throughout: rows 0..31 split into their low words and
// bit 32 (four rows per register), the 32x32 transpose, and row 32 merged as bit 32 of each
// column.
MEMCOMP_AVX2 void transpose33_avx2(const std::uint64_t* rows, unsigned R, unsigned C, std::uint64_t* cols) {
  alignas(32) std::uint64_t rr[32];
  const unsigned in = R < 32 ? R : 32;
  std::memcpy(rr, rows, 8 * std::size_t{in});
  std::memset(rr + in, 0, 8 * std::size_t{32 - in});
  alignas(32) std::uint32_t lo[32], t[32];
  const __m256i low = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  std::uint64_t top = 0;  // column 32: bit 32 of rows 0..31
  for (unsigned q = 0; q < 8; ++q) {
    const __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(rr + 4 * q));
    _mm_store_si128(reinterpret_cast<__m128i*>(lo + 4 * q),
                    _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(v, low)));
    top |= std::uint64_t{static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_slli_epi64(v, 31))))}
           << (4 * q);
  }
  const __m256i regs[4] = {_mm256_load_si256(reinterpret_cast<const __m256i*>(lo)),
                           _mm256_load_si256(reinterpret_cast<const __m256i*>(lo + 8)),
                           _mm256_load_si256(reinterpret_cast<const __m256i*>(lo + 16)),
                           _mm256_load_si256(reinterpret_cast<const __m256i*>(lo + 24))};
  transpose32_avx2(regs, t);
  const __m256i last = _mm256_set1_epi64x(static_cast<long long>(R == 33 ? rows[32] : 0));  // row 32
  const unsigned out = C < 32 ? C : 32;
  for (unsigned c = 0; c < out; c += 4) {
    const __m256i shift = _mm256_add_epi64(_mm256_set1_epi64x(c), _mm256_setr_epi64x(0, 1, 2, 3));
    const __m256i bit32 =
        _mm256_slli_epi64(_mm256_and_si256(_mm256_srlv_epi64(last, shift), _mm256_set1_epi64x(1)), 32);
    const __m256i col =
        _mm256_or_si256(_mm256_cvtepu32_epi64(_mm_load_si128(reinterpret_cast<const __m128i*>(t + c))), bit32);
    alignas(32) std::uint64_t four[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(four), col);
    for (unsigned k = 0; k < 4 && c + k < out; ++k) cols[c + k] = four[k];
  }
  if (C == 33) cols[32] = top | (((R == 33 ? rows[32] : 0) >> 32) & 1u) << 32;
}
#endif

void transpose_bits(const std::uint64_t* rows, unsigned R, unsigned C, std::uint64_t* cols) {
#if defined(MEMCOMP_X86_SIMD)
  if (R <= 33 && C <= 33 && simd_avx2()) return transpose33_avx2(rows, R, C, cols);
#endif
  transpose_bits_tiles(rows, R, C, cols);
}

// Bits 0..15 of x to the even bits 0..30.
inline std::uint32_t spread16(std::uint32_t x) {
  x = (x | x << 8) & 0x00FF00FFu;
  x = (x | x << 4) & 0x0F0F0F0Fu;
  x = (x | x << 2) & 0x33333333u;
  return (x | x << 1) & 0x55555555u;
}

struct BpcSettings {
  Endian endian;
  bool kim_codes;
  unsigned delta_bits;
  bool fixed7;
  Alt alt;
  bool liu, unsigned_words, fixed32;
};

const OptionTable<BpcSettings>& bpc_table() {
  using S = BpcSettings;
  static const OptionTable<S> t{
      option_endian(&S::endian),
      option_choice("code_map", &S::kim_codes, "ebpc", {{"ebpc", false}, {"kim", true}},
                    "the 5-bit plane codes: EBPC's assignment or Kim's permutation (same lengths)"),
      option_int("delta_bits", &S::delta_bits, 33, 32, 33, "deltas exact in 33 bits, or mod 2^32 (32 planes)"),
      option_choice("base", &S::fixed7, "coded", {{"coded", false}, {"fixed7", true}},
                    "the base word's code by its width, or 3 + 4 bits always (SKKU's bug)"),
      option_choice("alt_mode", &S::alt, "none", {{"none", Alt::none}, {"rows", Alt::rows}, {"planes", Alt::planes}},
                    "a second candidate behind a 1-bit flag: the block's rows (Liu) or planes without a delta"),
      option_choice("precedence", &S::liu, "kim", {{"kim", false}, {"liu", true}},
                    "classes tried on a plane: DBP zero, all ones, two, one (kim) or one, two, all ones, DBP zero"),
      option_choice("words", &S::unsigned_words, "signed", {{"signed", false}, {"unsigned", true}},
                    "deltas between words read as signed or unsigned (the MPC authors' tool, NAP64)"),
      option_choice("fields", &S::fixed32, "width", {{"width", false}, {"fixed32", true}},
                    "raw planes and positions as wide as the block needs, or 32 and 10 bits always")};
  return t;
}

class BPC final : public CodecImpl<BPC> {
 public:
  explicit BPC(const Options& o) : s_(bpc_table().parse(o, "bpc")) {
    // decode_fast's symbol table, by the first 5 bits of a symbol, at W = 7, 15, 31.
    const unsigned map = s_.kim_codes ? 1 : 0;
    for (unsigned k = 0; k < 3; ++k) {
      const unsigned W = (8u << k) - 1;
      for (unsigned t = 0; t < 32; ++t) {
        const unsigned h = t >> 2, cls = kClassOf[map][t & 3];
        const unsigned kind = h >= 4 ? kRaw : h >= 2 ? kRun : h == 1 ? kRun1 : cls;
        Sym& e = sym_[k][t];
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
  }

  Options options() const override { return bpc_table().write(s_); }
  Capabilities capabilities() const override { return {decodable()}; }
  /// Exact formats only (fixed7 and fixed32 are accounting-only); read per block.
  bool decodable() const { return !s_.fixed7 && !s_.fixed32; }
  std::uint64_t max_compressed_bits(std::size_t b) const override {
    // A plane costs at most max(1 + W, 5 + pos bits) (at W = 3 a position symbol is longer than
    // a raw plane); a zero plane costs less.
    const std::uint64_t m = b / 4 - 1;
    auto plane = [](std::uint64_t W) { return std::max<std::uint64_t>(1 + W, 5 + ceil_log2(W)); };
    std::uint64_t bits = 33 + s_.delta_bits * plane(s_.fixed32 ? 31 : m);
    if (s_.alt == Alt::rows) bits = std::max<std::uint64_t>(bits, 32 * plane(m + 1));
    if (s_.alt == Alt::planes) bits = std::max<std::uint64_t>(bits, 33 + 32 * plane(m));
    return bits + (s_.alt != Alt::none ? 1 : 0);
  }
  std::vector<ModeName> modes() const override {
    if (s_.alt == Alt::rows) return {{0, "delta"}, {1, "rows"}};
    if (s_.alt == Alt::planes) return {{0, "delta"}, {1, "planes"}};
    return {{0, "delta"}};
  }

  SizeBreakdown measure(const std::uint8_t* blk, std::size_t b) const override {
    return with_block_size(b, [&](auto B) { return measure_t<B()>(blk); });
  }

 protected:
  void measure_range(const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out,
                     CodecState*) const override {
#if defined(MEMCOMP_X86_SIMD)
    if (blocks.block_bytes >= 32 && simd_avx2())
      return with_block_size(blocks.block_bytes, [&](auto B) { measure_avx2<B()>(blocks, begin, end, out); });
#endif
    CodecImpl<BPC>::measure_range(blocks, begin, end, out, nullptr);
  }

 public:
  std::uint32_t encode(const std::uint8_t* blk, std::size_t b, BitWriter& out) const override {
    if (!decodable()) not_decodable();
    const std::size_t n = b / 4, m = n - 1;
    int mode = 0;
    if (s_.alt != Alt::none) {
      mode = measure(blk, b).mode;
      out.write(static_cast<unsigned>(mode), 1);
    }
    const unsigned pb = ceil_log2(m);
    std::uint64_t planes[64];
    if (mode == 1 && s_.alt == Alt::rows) {
      load_rows(blk, b, planes);
      emit_planes(planes, 32, static_cast<unsigned>(n), ceil_log2(n), low_mask(static_cast<unsigned>(m)), out);
      return 0;
    }
    emit_base(load<std::uint32_t>(blk, s_.endian), out);
    const Src src = mode == 1 ? Src::words : s_.delta_bits == 33 ? Src::delta33 : Src::delta32;
    const unsigned P = src == Src::delta33 ? 33 : 32;
#if defined(MEMCOMP_X86_SIMD)
    if (b >= 32 && b <= 128 && simd_avx2() && !s_.unsigned_words) {  // the lanes take signed words
      alignas(32) std::uint32_t rev[48];
      with_block_size(b, [&](auto B) {
        if constexpr (B() >= 32 && B() <= 128) planes_avx2<B()>(blk, src, rev);
      });
      emit_planes_avx2(rev, P, static_cast<unsigned>(m), pb, out);
      return 0;
    }
#endif
    std::uint32_t w[64];
    for (std::size_t i = 0; i < n; ++i) w[i] = load<std::uint32_t>(blk + 4 * i, s_.endian);
    std::uint64_t rows[63];
    for (std::size_t i = 1; i < n; ++i) rows[i - 1] = row_of(src, w[i], w[i - 1]);
    transpose_bits(rows, static_cast<unsigned>(m), P, planes);
    emit_planes(planes, P, static_cast<unsigned>(m), pb, low_mask(static_cast<unsigned>(m)), out);
    return 0;
  }

  // Delta blocks of 32 to 128 bytes two at a time (decode_fast2); a pair it doubts goes through
  // the general decoder, which names the bad block.
  void decode_range(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end,
                    CodecState*) const override {
    std::size_t i = begin;
#if defined(MEMCOMP_X86_SIMD)
    const std::size_t b = enc.block_bytes;
    if (s_.alt == Alt::none && decodable() && !s_.unsigned_words && (b == 32 || b == 64 || b == 128) && simd_avx2()) {
      for (; i + 2 <= end; i += 2) {
        bool ok = false;
        try {
          ok = decode_fast2(enc, i, out + i * b, out + (i + 1) * b, b);
        } catch (const corrupt_stream&) {  // a base the general decoder refuses too
        }
        if (!ok) {
          batch::count_lane_fallback();
          CodecImpl<BPC>::decode_range(enc, out, i, i + 2, nullptr);
        }
      }
    }
#endif
    CodecImpl<BPC>::decode_range(enc, out, i, end, nullptr);
  }

  // Accepts exactly the streams encode() writes: every other stream throws corrupt_stream.
  void decode(BitReader& in, std::uint32_t, std::uint8_t* out, std::size_t b) const override {
    if (!decodable()) not_decodable();
    const bool alt = s_.alt != Alt::none && in.read_bit();
    decode_mode(in, alt, out, b);
    if (s_.alt != Alt::none && measure(out, b).mode != (alt ? 1 : 0))
      throw corrupt_stream(std::string("bpc mode flag ") + (alt ? "1" : "0") +
                           " names the candidate the encoder does not choose for this block");
  }

 private:
  void decode_mode(BitReader& in, bool alt, std::uint8_t* out, std::size_t b) const {
#if defined(MEMCOMP_X86_SIMD)
    if (!alt && !s_.unsigned_words && (b == 32 || b == 64 || b == 128) && simd_avx2()) {
      if (decode_fast(in, out, b)) return;
      batch::count_lane_fallback();
    }
#endif
    const std::size_t n = b / 4, m = n - 1;
    std::uint64_t planes[64];
    if (alt && s_.alt == Alt::rows) {
      read_planes(in, planes, 32, static_cast<unsigned>(n), ceil_log2(n), low_mask(static_cast<unsigned>(m)));
      store_rows(planes, b, out);
      return;
    }
    const Src src = alt ? Src::words : s_.delta_bits == 33 ? Src::delta33 : Src::delta32;
    const unsigned P = src == Src::delta33 ? 33 : 32;
    std::uint32_t w = read_base(in);
    read_planes(in, planes, P, static_cast<unsigned>(m), ceil_log2(m), low_mask(static_cast<unsigned>(m)));
    std::uint64_t rows[64];
    transpose_bits(planes, P, static_cast<unsigned>(m), rows);
    store<std::uint32_t>(out, w, s_.endian);
    for (std::size_t i = 1; i < n; ++i) {
      const std::uint64_t u = rows[i - 1];
      if (src == Src::delta33) {
        const std::int64_t d = static_cast<std::int64_t>(u & 0xFFFFFFFFu) - ((u >> 32) ? (std::int64_t{1} << 32) : 0);
        // the word before, as the encoder read it: signed, or unsigned (words=unsigned)
        const std::int64_t s = (s_.unsigned_words ? std::int64_t{w} : std::int64_t{static_cast<std::int32_t>(w)}) + d;
        if (s_.unsigned_words ? (s < 0 || s > std::int64_t{0xFFFFFFFF}) : !fits_signed(s, 32))
          throw corrupt_stream("bpc delta " + std::to_string(d) + " of word " + std::to_string(i) + " leaves the " +
                               (s_.unsigned_words ? "unsigned" : "signed") + " 32-bit range");
        w = static_cast<std::uint32_t>(s);
      } else if (src == Src::delta32) {
        w += static_cast<std::uint32_t>(u);
      } else {
        w = static_cast<std::uint32_t>(u);
      }
      store<std::uint32_t>(out + 4 * i, w, s_.endian);
    }
  }

#if defined(MEMCOMP_X86_SIMD)
  // The planes of the rows of a block of at most 32 words, all in registers: row i (word i less
  // word i - 1, or the word) sits in lane i, its low 32 bits in the transpose and bit 32 (the
  // sign of the 33-bit delta: word i below word i - 1, as signed words, the only exact ones) in
  // a mask; lane 0 (word 0, no row) is shifted out of every plane. The planes go out from the
  // top one down as emit_planes_avx2 takes them: rev[8 + k] = plane P - 1 - k, 0 around them.
  template <std::size_t B>
  MEMCOMP_AVX2 void planes_avx2(const std::uint8_t* blk, Src src, std::uint32_t* rev) const {
    constexpr std::size_t R = B / 32;
    const __m256i up = _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6);
    __m256i lo[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
    __m256i last = _mm256_setzero_si256();
    std::uint64_t top = 0;
    for (std::size_t r = 0; r < R; ++r) {
      __m256i cur = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 32 * r));
      if (s_.endian == Endian::big) cur = bswap32(cur);
      const __m256i before =
          _mm256_blend_epi32(_mm256_permutevar8x32_epi32(cur, up), _mm256_permutevar8x32_epi32(last, up), 0x01);
      last = cur;
      lo[r] = src == Src::words ? cur : _mm256_sub_epi32(cur, before);
      const __m256i below = _mm256_cmpgt_epi32(before, cur);  // signed words: unsigned ones are not exact
      top |= std::uint64_t{static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(below)))} << (8 * r);
    }
    alignas(32) std::uint32_t t[32];
    transpose32_avx2(lo, t);
    const unsigned P = src == Src::delta33 ? 33 : 32;
    const __m256i reverse = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0), zero = _mm256_setzero_si256();
    _mm256_store_si256(reinterpret_cast<__m256i*>(rev), zero);
    _mm256_store_si256(reinterpret_cast<__m256i*>(rev + 40), zero);
    rev[8] = static_cast<std::uint32_t>(top >> 1);  // plane 32, or plane 31 written over below
    for (unsigned q = 0; q < 4; ++q) {              // planes 8q..8q+7 to rev[8 + P - 8 - 8q ..]
      const __m256i planes = _mm256_srli_epi32(_mm256_load_si256(reinterpret_cast<const __m256i*>(t + 8 * q)), 1);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(rev + P - 8 * q), _mm256_permutevar8x32_epi32(planes, reverse));
    }
  }
#endif

  std::uint64_t row_of(Src src, std::uint32_t cur, std::uint32_t prev) const {
    if (src == Src::delta33) {
      const std::int64_t d = s_.unsigned_words ? std::int64_t{cur} - std::int64_t{prev}
                                               : std::int64_t{static_cast<std::int32_t>(cur)} -
                                                     std::int64_t{static_cast<std::int32_t>(prev)};
      return static_cast<std::uint64_t>(d) & low_mask(33);
    }
    if (src == Src::delta32) return static_cast<std::uint32_t>(cur - prev);
    return cur;
  }

  // Planes of the delta (or plain-word) bit-planes, from the row domain.
  template <std::size_t B, Src S>
  Cost delta_cost(const std::uint8_t* blk) const {
    constexpr std::size_t n = B / 4, m = n - 1;
    constexpr unsigned P = S == Src::delta33 ? 33 : 32;
    RowStats st;
#if defined(MEMCOMP_X86_SIMD)
    if (B >= 32 && simd_avx2()) {
      const bool big = s_.endian == Endian::big;
      st = s_.unsigned_words ? (big ? row_stats_avx2<B, S, true, true>(blk) : row_stats_avx2<B, S, true, false>(blk))
                             : (big ? row_stats_avx2<B, S, false, true>(blk) : row_stats_avx2<B, S, false, false>(blk));
      if (s_.fixed32) return cost_popcnt(st, P, 31, 5, s_.liu, m == 31 ? st.all : 0);
      return cost_popcnt(st, P, static_cast<unsigned>(m), ceil_log2(m), s_.liu, st.all);
    }
#endif
    std::uint32_t w[n];
    for (std::size_t i = 0; i < n; ++i) w[i] = load<std::uint32_t>(blk + 4 * i, s_.endian);
    for (std::size_t i = 1; i < n; ++i) st.add(row_of(S, w[i], w[i - 1]));
    if (s_.fixed32) return st.cost(P, 31, 5, s_.liu, m == 31 ? st.all : 0);
    return st.cost(P, static_cast<unsigned>(m), ceil_log2(m), s_.liu, st.all);
  }

#if defined(MEMCOMP_X86_SIMD)
  // RowStats of rows 1..n-1 with eight rows per AVX2 register, straight from the block's words
  // (a word's predecessor by a lane rotation): the low 32 bits of each row in a 32-bit lane,
  // bit 32 of a 33-bit delta (its sign: word i below word i - 1) in a mask, which also gives
  // plane 32's statistics. Each lane gathers the statistics of its rows, then the lanes merge
  // (a plane has two ones if either part has two, or each has one; three likewise). Adjacent
  // rows meet within a register and across two. Word 0's lane is no row: its row is 0 and it
  // does not count against `all`.
  // Lane j ^ 4 (K = 0), ^ 2 (1) or ^ 1 (2) of 32-bit lanes.
  template <int K>
  MEMCOMP_AVX2_INLINE static __m256i other(__m256i x) {
    if constexpr (K == 0)
      return _mm256_permute2x128_si256(x, x, 0x01);
    else if constexpr (K == 1)
      return _mm256_shuffle_epi32(x, 0x4E);
    else
      return _mm256_shuffle_epi32(x, 0xB1);
  }
  // One step of the lane merge: each lane with its partner other<K>.
  template <int K>
  MEMCOMP_AVX2_INLINE static void merge_lanes(__m256i& any, __m256i& two, __m256i& three, __m256i& all, __m256i& dbp,
                                              __m256i& adj) {
    const __m256i a2 = other<K>(any), t2 = other<K>(two), t3 = other<K>(three);
    three = _mm256_or_si256(_mm256_or_si256(three, t3),
                            _mm256_or_si256(_mm256_and_si256(two, a2), _mm256_and_si256(any, t2)));
    two = _mm256_or_si256(_mm256_or_si256(two, t2), _mm256_and_si256(any, a2));
    any = _mm256_or_si256(any, a2);
    all = _mm256_and_si256(all, other<K>(all));
    dbp = _mm256_or_si256(dbp, other<K>(dbp));
    adj = _mm256_or_si256(adj, other<K>(adj));
  }

  template <std::size_t B, Src S, bool Unsigned, bool Big>
  MEMCOMP_AVX2 static RowStats row_stats_avx2(const std::uint8_t* blk) {
    constexpr std::size_t R = B / 32, n = B / 4;
    const __m256i zero = _mm256_setzero_si256(), ones = _mm256_set1_epi8(-1);
    const __m256i up = _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6);
    const __m256i flip = _mm256_set1_epi32(Unsigned ? static_cast<int>(0x80000000u) : 0);
    __m256i any = zero, two = zero, three = zero, all = ones, dbp = zero, adj = zero, prev = zero, last = zero;
    std::uint64_t top = 0;  // bit i: bit 32 of row i
    for (std::size_t r = 0; r < R; ++r) {
      __m256i cur = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 32 * r));
      if (Big) cur = bswap32(cur);
      const __m256i before =
          _mm256_blend_epi32(_mm256_permutevar8x32_epi32(cur, up), _mm256_permutevar8x32_epi32(last, up), 0x01);
      last = cur;
      __m256i u = S == Src::words ? cur : _mm256_sub_epi32(cur, before), sign = zero;
      if constexpr (S == Src::delta33)
        sign = _mm256_cmpgt_epi32(_mm256_xor_si256(before, flip), _mm256_xor_si256(cur, flip));
      if (r == 0) {  // lane 0 is word 0: no row
        u = _mm256_blend_epi32(u, zero, 0x01);
        sign = _mm256_blend_epi32(sign, zero, 0x01);
      }
      top |= std::uint64_t{static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(sign)))} << (8 * r);
      const __m256i e = _mm256_xor_si256(u, _mm256_or_si256(_mm256_srli_epi32(u, 1), _mm256_slli_epi32(sign, 31)));
      three = _mm256_or_si256(three, _mm256_and_si256(two, e));
      two = _mm256_or_si256(two, _mm256_and_si256(any, e));
      any = _mm256_or_si256(any, e);
      all = _mm256_and_si256(all, r == 0 ? _mm256_blend_epi32(e, ones, 0x01) : e);
      dbp = _mm256_or_si256(dbp, u);
      // The row before each lane's: lanes 0..6 of e one lane up, lane 0 from the last register.
      const __m256i before_e =
          _mm256_blend_epi32(_mm256_permutevar8x32_epi32(e, up), _mm256_permutevar8x32_epi32(prev, up), 0x01);
      adj = _mm256_or_si256(adj, _mm256_and_si256(e, before_e));
      prev = e;
    }
    // Lanes merged pairwise: halves, then pairs of 64 bits, then of 32.
    merge_lanes<0>(any, two, three, all, dbp, adj);
    merge_lanes<1>(any, two, three, all, dbp, adj);
    merge_lanes<2>(any, two, three, all, dbp, adj);
    RowStats st;
    st.any = static_cast<std::uint32_t>(_mm256_cvtsi256_si32(any));
    st.two = static_cast<std::uint32_t>(_mm256_cvtsi256_si32(two));
    st.three = static_cast<std::uint32_t>(_mm256_cvtsi256_si32(three));
    st.all = static_cast<std::uint32_t>(_mm256_cvtsi256_si32(all));
    st.dbp = static_cast<std::uint32_t>(_mm256_cvtsi256_si32(dbp));
    st.adj = static_cast<std::uint32_t>(_mm256_cvtsi256_si32(adj));
    if constexpr (S == Src::delta33) {  // plane 32: its DBX is its DBP, the rows' bit 32
      const auto k = static_cast<unsigned>(__builtin_popcountll(top));
      constexpr std::uint64_t rows = low_mask(n) & ~std::uint64_t{1};
      st.any |= std::uint64_t{k >= 1} << 32;
      st.two |= std::uint64_t{k >= 2} << 32;
      st.three |= std::uint64_t{k >= 3} << 32;
      st.all |= std::uint64_t{top == rows} << 32;
      st.dbp |= std::uint64_t{k >= 1} << 32;
      st.adj |= std::uint64_t{(top & (top >> 1)) != 0} << 32;
    }
    return st;
  }
#endif

  // alt_mode=rows. Rows of at most 8 bits are transposed into W columns (column c bit k = bit c
  // of row k) and go through the row-domain statistics; wider rows are classified one by one.
  template <std::size_t B>
  Cost rows_cost(const std::uint8_t* blk) const {
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
        const unsigned even = s_.endian == Endian::big ? 4 : 0;
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
      return st.cost(32, W, pb, s_.liu, below & ~(col[m] ^ (col[m] >> 1)));
    } else {
      std::uint64_t r[33];
      load_rows(blk, B, r);
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
        const unsigned c = classify(x, r[k], ones, s_.liu);
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

#if defined(MEMCOMP_X86_SIMD)
  // The batch loop with measure_t's statistics and costs inlined (flatten: AVX2 and popcnt).
  template <std::size_t B>
  MEMCOMP_AVX2 __attribute__((flatten)) void measure_avx2(const BlockView& blocks, std::size_t begin, std::size_t end,
                                                          const SizeColumns& out) const {
    for (std::size_t i = begin; i < end; ++i) out.set(i, measure_t<B>(blocks.block(i)));
  }
#endif

  template <std::size_t B>
  SizeBreakdown measure_t(const std::uint8_t* blk) const {
    const Cost base = base_cost(load<std::uint32_t>(blk, s_.endian), s_.fixed7);
    Cost c = s_.delta_bits == 33 ? delta_cost<B, Src::delta33>(blk) : delta_cost<B, Src::delta32>(blk);
    c.payload += base.payload;
    c.meta += base.meta;
    SizeBreakdown s;
    if (s_.alt != Alt::none) {
      s.header = 1;
      Cost a;
      if (s_.alt == Alt::rows) {
        a = rows_cost<B>(blk);
      } else {
        a = delta_cost<B, Src::words>(blk);
        a.payload += base.payload;
        a.meta += base.meta;
      }
      if (a.bits() < c.bits()) {
        c = a;
        s.mode = 1;
      }
    }
    s.payload = c.payload;
    s.meta = c.meta;
    return s;
  }

  // Rows of alt_mode=rows: 32 elements of W = B/4 bits (W = 4: nibbles, low nibble first unless
  // endian=big).
  void load_rows(const std::uint8_t* blk, std::size_t b, std::uint64_t* r) const {
    const unsigned W = static_cast<unsigned>(b / 4);
    if (W == 4) {
      const unsigned first = s_.endian == Endian::big ? 4 : 0;  // shift of the even row's nibble
      for (unsigned k = 0; k < 32; ++k) r[k] = (unsigned{blk[k / 2]} >> ((k & 1) ? 4 - first : first)) & 0xFu;
      return;
    }
    for (unsigned k = 0; k < 32; ++k) r[k] = load_k(blk + k * (W / 8), W / 8, s_.endian);
  }
  void store_rows(const std::uint64_t* r, std::size_t b, std::uint8_t* out) const {
    const unsigned W = static_cast<unsigned>(b / 4);
    if (W == 4) {
      const bool big = s_.endian == Endian::big;
      for (unsigned k = 0; k < 32; k += 2) {
        const std::uint64_t first = r[k] & 0xFu, second = r[k + 1] & 0xFu;
        out[k / 2] = static_cast<std::uint8_t>(big ? (first << 4 | second) : (second << 4 | first));
      }
      return;
    }
    for (unsigned k = 0; k < 32; ++k) store_k(out + k * (W / 8), r[k], W / 8, s_.endian);
  }

  static void emit_base(std::uint32_t w0, BitWriter& out) {
    const Cost c = base_cost(w0, false);
    if (c.meta == 1) {
      out.write(std::uint64_t{1} << 32 | w0, 33);
    } else {
      const unsigned code = c.payload == 0 ? 0 : c.payload == 4 ? 1 : c.payload == 8 ? 2 : 3;
      out.write(std::uint64_t{code} << c.payload | (w0 & low_mask(c.payload)), 3 + c.payload);
    }
  }

  static std::uint32_t read_base(BitReader& in) {
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

  static void flush_run(unsigned& run, BitWriter& out) {
    if (run == 1) out.write(0b001, 3);
    if (run >= 2) out.write(0b01u << 5 | (run - 2), 7);
    run = 0;
  }

  // Symbols of DBX[P-1] .. DBX[0] for the DBP planes `dbp` of width W.
  void emit_planes(const std::uint64_t* dbp, unsigned P, unsigned W, unsigned pb, std::uint64_t ones,
                   BitWriter& out) const {
    const unsigned map = s_.kim_codes ? 1 : 0;
    unsigned run = 0;
    for (unsigned j = P; j-- > 0;) {
      const std::uint64_t above = j + 1 < P ? dbp[j + 1] : 0, x = dbp[j] ^ above;
      if (x == 0) {
        ++run;
        continue;
      }
      flush_run(run, out);
      const unsigned c = classify(x, dbp[j], ones, s_.liu);
      if (c == kRaw) {
        if (W < 64) {
          out.write(std::uint64_t{1} << W | x, W + 1);
        } else {
          out.write(1, 1);
          out.write(x, W);
        }
      } else if (c == kPair || c == kSingle) {
        out.write(std::uint64_t{kCode[map][c]} << pb | ctz(x), 5 + pb);
      } else {
        out.write(kCode[map][c], 5);
      }
    }
    flush_run(run, out);
  }

  // A symbol by its first 5 bits (of a 40-bit window w): its DBX is (w >> raw_shift & raw_mask)
  // | ones | (DBP above & dbp_mask) | pat << (w >> pos_shift & pos_mask); it covers count_add +
  // (run field & count_mask) planes. The shifts and masks are the plane width's.
  struct Sym {
    std::uint32_t raw_mask = 0, ones = 0, dbp_mask = 0;
    std::uint8_t kind = 0, len = 0, pat = 0, count_mask = 0, count_add = 0, run = 0;  // kind: Cls or RunSym
    std::uint8_t raw_shift = 0, pos_shift = 0, pos_mask = 0;
  };
#if defined(MEMCOMP_X86_SIMD)
  MEMCOMP_AVX2_INLINE static void store5(std::uint32_t* to, __m256i v) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(to), v);
    _mm256_store_si256(reinterpret_cast<__m256i*>(to + 8), v);
    _mm256_store_si256(reinterpret_cast<__m256i*>(to + 16), v);
    _mm256_store_si256(reinterpret_cast<__m256i*>(to + 24), v);
    _mm256_store_si256(reinterpret_cast<__m256i*>(to + 32), v);
  }
  // The fast decoder of a delta block of B = 32, 64 or 128 bytes (W = m <= 31: every symbol lies
  // within 40 bits), without a branch on the symbol class. Each symbol's class, length and DBX come from
  // its first 5 bits (sym_) and masks; only the zero runs are checked in the loop (not after
  // another, not past plane 0), and a run leaves its planes' DBX 0. Then, eight planes per
  // register: DBP as a running XOR from the top, and every other symbol checked to be its
  // plane's encoding, as emit_planes_avx2 chooses it. Then the planes' low 32 bits through the
  // 32x32 transpose (bit j of word i's delta), the words as a running sum mod 2^32, and the sign
  // plane checked against the words: bit 32 of a 33-bit delta is set exactly when word i lies
  // below word i - 1 as signed words, so a delta that leaves the signed 32-bit range fails it.
  // decode_fast and decode_fast2 return false, with the readers untouched, for every stream the
  // general path rejects (it then throws the error) and for a symbol past the stream's end.
  //
  // Symbol readers of a walk: the next 40 bits, and the symbol's length consumed (false past the
  // stream's end). Checked: a BitReader. Raw: the buffer read directly, for a walk that cannot
  // read past it whatever the stream holds (the caller checks that, and the end, afterwards).
  struct Checked {
    BitReader r;
    MEMCOMP_AVX2_INLINE std::uint64_t peek40() const { return r.peek(40); }
    MEMCOMP_AVX2_INLINE bool consume(unsigned n) {
      if (n > r.remaining()) return false;
      r.skip(n);
      return true;
    }
    bool at_end() const { return r.remaining() == 0; }
  };
  struct Raw {
    const std::uint8_t* data;
    std::size_t pos, end;  // bits from data
    MEMCOMP_AVX2_INLINE std::uint64_t peek40() const {
      return (load<std::uint64_t>(data + (pos >> 3), Endian::big) << (pos & 7)) >> 24;
    }
    MEMCOMP_AVX2_INLINE bool consume(unsigned n) {
      pos += n;
      return true;
    }
    bool at_end() const { return pos == end; }
  };
  // The most bits a walk's symbols take: P <= 33 planes of at most W + 1 <= 32 bits.
  static constexpr std::size_t kWalkBits = 33 * 32;
  // One block's walk through its symbols.
  template <class R>
  struct Walk {
    R r;
    std::uint32_t w0, above = 0;  // the base; the DBP of the plane above
    unsigned j, after_zero = 0;   // planes left; the last symbol was a zero run
    // Per plane: its DBX (0 on a zero run) and its symbol's class (zero planes kRun); 0 and kRun
    // past the planes, for the checks eight planes at a time.
    alignas(32) std::uint32_t dbx[40], kind_of[40];
    MEMCOMP_AVX2_INLINE Walk(const R& in, std::uint32_t base, unsigned P) : r(in), w0(base), j(P) {
      store5(dbx, _mm256_setzero_si256());  // (five stores: a loop of them becomes a slow rep stos)
      store5(kind_of, _mm256_set1_epi32(kRun));
    }
  };
  struct Geometry {
    const Sym* sym;
    unsigned P;
    explicit Geometry(const BPC& c, std::size_t b)
        : sym(c.sym_[b == 32   ? 0
                     : b == 64 ? 1
                               : 2]),
          P(c.s_.delta_bits == 33 ? 33 : 32) {}
  };
  // One symbol of a walk; false for a zero run after another or past plane 0, or a symbol past
  // the stream's end. The symbol's entry carries the shifts and masks of the plane width.
  template <class R>
  MEMCOMP_AVX2_INLINE static bool step(Walk<R>& k, const Geometry& g) {
    const std::uint64_t w = k.r.peek40();
    const Sym& e = g.sym[w >> 35];
    if (!k.r.consume(e.len)) return false;
    const unsigned count = e.count_add + (static_cast<unsigned>(w >> 33) & e.count_mask);
    if ((e.run & k.after_zero) | unsigned{count > k.j}) return false;
    // (A pair at bit 31 leaves the plane: finish refuses it.)
    const auto pos = static_cast<unsigned>(w >> e.pos_shift) & e.pos_mask;
    const std::uint32_t x = (static_cast<std::uint32_t>(w >> e.raw_shift) & e.raw_mask) | e.ones |
                            (k.above & e.dbp_mask) | unsigned{e.pat} << pos;
    k.j -= count;
    k.dbx[k.j] = x;
    k.kind_of[k.j] = e.kind;
    k.above ^= x;
    k.after_zero = e.run;
    return true;
  }

  // The rest of a walk, symbol by symbol.
  template <class R>
  MEMCOMP_AVX2_INLINE static bool walk(Walk<R>& k, const Geometry& g) {
    while (k.j > 0)
      if (!step(k, g)) return false;
    return true;
  }

  MEMCOMP_AVX2 bool decode_fast(BitReader& in, std::uint8_t* out, std::size_t b) const {
    const Geometry g(*this, b);
    BitReader r = in;
    const std::uint32_t base = read_base(r);
    Walk<Checked> k(Checked{r}, base, g.P);
    if (!walk(k, g) || !finish(k, g, out, b)) return false;
    in = k.r.r;
    return true;
  }
  // Blocks i and i + 1, their walks in turns: their chains (a symbol's length before the next
  // one's bits) overlap. The walks read the buffer directly where it extends kWalkBits past
  // both bases, else through the readers. False if either block's fast decode fails or leaves
  // bits over.
  MEMCOMP_AVX2 bool decode_fast2(const EncodedView& enc, std::size_t i, std::uint8_t* out0, std::uint8_t* out1,
                                 std::size_t b) const {
    const Geometry g(*this, b);
    BitReader r0 = batch::block_reader(enc, i), r1 = batch::block_reader(enc, i + 1);
    const std::uint32_t base0 = read_base(r0), base1 = read_base(r1);
    const std::size_t p0 = enc.bit_offsets[i] + r0.position(), p1 = enc.bit_offsets[i + 1] + r1.position();
    if ((std::max(p0, p1) + kWalkBits) / 8 + 8 > enc.data_bytes) {
      Walk<Checked> k0(Checked{r0}, base0, g.P), k1(Checked{r1}, base1, g.P);
      return walk_pair(k0, k1, g, out0, out1, b);
    }
    Walk<Raw> k0(Raw{enc.data, p0, p0 + r0.remaining()}, base0, g.P),
        k1(Raw{enc.data, p1, p1 + r1.remaining()}, base1, g.P);
    return walk_pair(k0, k1, g, out0, out1, b);
  }
  template <class R>
  MEMCOMP_AVX2_INLINE bool walk_pair(Walk<R>& k0, Walk<R>& k1, const Geometry& g, std::uint8_t* out0,
                                     std::uint8_t* out1, std::size_t b) const {
    while ((k0.j > 0) & (k1.j > 0))
      if (!(step(k0, g) & step(k1, g))) return false;
    return walk(k0, g) && walk(k1, g) && k0.r.at_end() && k1.r.at_end() && finish(k0, g, out0, b) &&
           finish(k1, g, out1, b);
  }

  // A finished walk's checks and words: DBP, each symbol its plane's encoding, the words.
  template <class R>
  MEMCOMP_AVX2_INLINE bool finish(const Walk<R>& k, const Geometry& g, std::uint8_t* out, std::size_t b) const {
    const __m256i zero = _mm256_setzero_si256();
    const std::uint32_t* dbx = k.dbx;
    const std::uint32_t* kind_of = k.kind_of;
    const auto m = static_cast<unsigned>(b / 4 - 1);
    const unsigned P = g.P;
    const auto ones = static_cast<std::uint32_t>(low_mask(m));
    const std::uint32_t w0 = k.w0;
    // DBP: each register of eight DBX planes XORed from its top lane down (shifts within the
    // 128-bit halves, then the high half's into the low one), then with the planes above it.
    __m256i x[5], p[5];
    __m256i above_q = zero;  // every lane: the DBP of the plane above the register
    for (unsigned q = 5; q-- > 0;) {
      x[q] = _mm256_load_si256(reinterpret_cast<const __m256i*>(dbx + 8 * q));
      __m256i v = _mm256_xor_si256(x[q], _mm256_srli_si256(x[q], 4));
      v = _mm256_xor_si256(v, _mm256_srli_si256(v, 8));
      v = _mm256_xor_si256(v, _mm256_blend_epi32(_mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(4)), zero, 0xF0));
      p[q] = _mm256_xor_si256(v, above_q);
      above_q = _mm256_permutevar8x32_epi32(p[q], zero);
    }
    // Each symbol must be its plane's encoding: a non-zero DBX within the plane, of the first
    // class that applies (as emit_planes_avx2 chooses it).
    const __m256i ones_v = _mm256_set1_epi32(static_cast<int>(ones)), raw_kind = _mm256_set1_epi32(kRaw);
    __m256i wrong = zero;  // lanes of planes coded wrongly (a zero run's planes are right by construction)
    for (unsigned q = 0; q < 5; ++q) {
      const __m256i kind = _mm256_load_si256(reinterpret_cast<const __m256i*>(kind_of + 8 * q));
      const __m256i cls = first_class(plane_classes(p[q], x[q], ones_v), raw_kind, _mm256_set1_epi32(kDbp0),
                                      _mm256_set1_epi32(kOnes), _mm256_set1_epi32(kPair), _mm256_set1_epi32(kSingle));
      const __m256i bad = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi32(x[q], zero), _mm256_xor_si256(cls, kind)),
                                          _mm256_andnot_si256(ones_v, x[q]));
      wrong = _mm256_or_si256(wrong, _mm256_andnot_si256(_mm256_cmpgt_epi32(kind, raw_kind), bad));
    }
    if (!_mm256_testz_si256(wrong, wrong)) return false;
    // Rows: planes 0..31 moved up a bit, so that row i (bit i of each plane) is word i's delta
    // (row 0, word 0, is 0); bit i of `sign` (DBP 32 = DBX 32) is that delta's bit 32.
    const __m256i regs[4] = {_mm256_slli_epi32(p[0], 1), _mm256_slli_epi32(p[1], 1), _mm256_slli_epi32(p[2], 1),
                             _mm256_slli_epi32(p[3], 1)};
    alignas(32) std::uint32_t d[32];
    transpose32_avx2(regs, d);
    const std::uint32_t sign = P == 33 ? dbx[32] << 1 : 0;
    // The words: w0 plus the running sum of the deltas mod 2^32 (within each 128-bit half, then
    // across them, then from the register before); a word below the one before it (as signed
    // words) must have its sign bit set, and only then.
    const __m256i up = _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6), top = _mm256_set1_epi32(7);
    __m256i carry = _mm256_set1_epi32(static_cast<int>(w0)), last = zero;
    std::uint32_t below = 0;
    for (unsigned q = 0; 32 * q < b; ++q) {
      __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(d + 8 * q));
      v = _mm256_add_epi32(v, _mm256_slli_si256(v, 4));
      v = _mm256_add_epi32(v, _mm256_slli_si256(v, 8));
      v = _mm256_add_epi32(v, _mm256_blend_epi32(zero, _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(3)), 0xF0));
      const __m256i words = _mm256_add_epi32(v, carry);
      carry = _mm256_permutevar8x32_epi32(words, top);
      const __m256i before =
          _mm256_blend_epi32(_mm256_permutevar8x32_epi32(words, up), _mm256_permutevar8x32_epi32(last, up), 0x01);
      last = words;
      below |= static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(before, words))))
               << (8 * q);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * q), s_.endian == Endian::big ? bswap32(words) : words);
    }
    return P != 33 || ((below ^ sign) & static_cast<std::uint32_t>(low_mask(m + 1)) & ~1u) == 0;
  }
#endif

#if defined(MEMCOMP_X86_SIMD)
  // classify's tests on eight planes at once (DBP p, DBX x; x = 0 counts as a single one).
  struct PlaneClasses {
    __m256i single, pair, all, dbp_zero;
  };
  MEMCOMP_AVX2_INLINE static PlaneClasses plane_classes(__m256i p, __m256i x, __m256i ones) {
    const __m256i zero = _mm256_setzero_si256(), low = _mm256_and_si256(x, _mm256_sub_epi32(zero, x));
    return {_mm256_cmpeq_epi32(x, low), _mm256_cmpeq_epi32(x, _mm256_or_si256(low, _mm256_slli_epi32(low, 1))),
            _mm256_cmpeq_epi32(x, ones), _mm256_cmpeq_epi32(p, zero)};
  }
  // Per lane, the value given for the first class that applies in this codec's precedence (raw
  // when none does): the blends go in reverse order, so the first class is applied last.
  MEMCOMP_AVX2_INLINE __m256i first_class(const PlaneClasses& c, __m256i raw, __m256i dbp_zero, __m256i all,
                                          __m256i pair, __m256i single) const {
    __m256i v = raw;
    if (s_.liu) {
      v = _mm256_blendv_epi8(v, dbp_zero, c.dbp_zero);
      v = _mm256_blendv_epi8(v, all, c.all);
      v = _mm256_blendv_epi8(v, pair, c.pair);
      return _mm256_blendv_epi8(v, single, c.single);
    }
    v = _mm256_blendv_epi8(v, single, c.single);
    v = _mm256_blendv_epi8(v, pair, c.pair);
    v = _mm256_blendv_epi8(v, all, c.all);
    return _mm256_blendv_epi8(v, dbp_zero, c.dbp_zero);
  }
  // emit_planes for W <= 31 without a branch per plane: eight planes per register, from the top
  // plane down, each plane's symbol as a field (value, length) chosen by blends in reverse order
  // of precedence (the first class that applies is applied last); a zero plane's field stays
  // empty unless it tops a run, which gets the run symbol; all fields go out in one write_fields.
  // rev[8 + k] is DBP plane P - 1 - k, rev[7] = 0 (above the top plane), 0 past plane 0 up to rev[47].
  MEMCOMP_AVX2 void emit_planes_avx2(const std::uint32_t* rev, unsigned P, unsigned W, unsigned pb,
                                     BitWriter& out) const {
    const unsigned map = s_.kim_codes ? 1 : 0;
    const __m256i ones = _mm256_set1_epi32(static_cast<int>(low_mask(W))), zero = _mm256_setzero_si256();
    const __m256i code_d = _mm256_set1_epi32(static_cast<int>(kCode[map][kDbp0]));
    const __m256i code_o = _mm256_set1_epi32(static_cast<int>(kCode[map][kOnes]));
    const __m256i code_p = _mm256_set1_epi32(static_cast<int>(kCode[map][kPair] << pb));
    const __m256i code_s = _mm256_set1_epi32(static_cast<int>(kCode[map][kSingle] << pb));
    const __m256i raw_flag = _mm256_set1_epi32(static_cast<int>(1u << W));
    const __m256i len5 = _mm256_set1_epi32(5), len_pos = _mm256_set1_epi32(static_cast<int>(5 + pb));
    const __m256i len_raw = _mm256_set1_epi32(static_cast<int>(W + 1)), bias = _mm256_set1_epi32(127);
    alignas(32) std::uint32_t v[40], len[40];
    std::uint64_t nz = 0;  // bit k: DBX of plane P - 1 - k is not 0
    for (unsigned q = 0; 8 * q < P; ++q) {
      const __m256i p = _mm256_load_si256(reinterpret_cast<const __m256i*>(rev + 8 + 8 * q));
      const __m256i x = _mm256_xor_si256(p, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rev + 7 + 8 * q)));
      const __m256i low = _mm256_and_si256(x, _mm256_sub_epi32(zero, x));
      const __m256i pos = _mm256_sub_epi32(_mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(low)), 23), bias);
      const PlaneClasses c = plane_classes(p, x, ones);
      const __m256i none = _mm256_cmpeq_epi32(x, zero);
      __m256i val = first_class(c, _mm256_or_si256(raw_flag, x), code_d, code_o, _mm256_or_si256(code_p, pos),
                                _mm256_or_si256(code_s, pos));
      __m256i ln = first_class(c, len_raw, len5, len5, len_pos, len_pos);
      val = _mm256_andnot_si256(none, val);
      ln = _mm256_andnot_si256(none, ln);
      nz |= std::uint64_t{~static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(none))) & 0xFFu} << (8 * q);
      _mm256_store_si256(reinterpret_cast<__m256i*>(v + 8 * q), val);
      _mm256_store_si256(reinterpret_cast<__m256i*>(len + 8 * q), ln);
    }
    nz &= low_mask(P);
    const std::uint64_t z = ~nz & low_mask(P), nz_end = nz | std::uint64_t{1} << P, tops = z & ~(z << 1);
    // Only the planes with a symbol (non-zero, or a run's top), packed to the front eight at a
    // time (lane indices by pext), go to write_fields; the runs' symbols are set in the packed
    // fields (a scalar store into v would stall the vector load after it).
    alignas(32) std::uint32_t fv[48], fl[48];
    const std::uint64_t has = nz | tops;
    unsigned n = 0;
    for (unsigned q = 0; 8 * q < P; ++q) {
      const auto m = static_cast<unsigned>(has >> (8 * q)) & 0xFFu;
      const std::uint64_t lanes = _pext_u64(0x0706050403020100u, _pdep_u64(m, 0x0101010101010101u) * 0xFFu);
      const __m256i idx = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(lanes)));
      const __m256i vq = _mm256_load_si256(reinterpret_cast<const __m256i*>(v + 8 * q));
      const __m256i lq = _mm256_load_si256(reinterpret_cast<const __m256i*>(len + 8 * q));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(fv + n), _mm256_permutevar8x32_epi32(vq, idx));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(fl + n), _mm256_permutevar8x32_epi32(lq, idx));
      n += static_cast<unsigned>(__builtin_popcount(m));
    }
    for (std::uint64_t t = tops; t != 0; t &= t - 1) {  // each run's top plane, as the field it packed to
      const unsigned k = ctz(t), run = ctz(nz_end >> k);
      const auto at = static_cast<unsigned>(__builtin_popcountll(has & low_mask(k)));
      fv[at] = run == 1 ? 0b001 : 0b01u << 5 | (run - 2);
      fl[at] = run == 1 ? 3 : 7;
    }
    out.write_fields(fv, fl, n);
  }
#endif

  // Reads the symbols of P planes of width W into dbp; rejects every stream emit_planes cannot
  // have written (runs past the planes or not maximal, positions outside the plane, a symbol
  // that is not the plane's first applicable class).
  void read_planes(BitReader& in, std::uint64_t* dbp, unsigned P, unsigned W, unsigned pb, std::uint64_t ones) const {
    const unsigned map = s_.kim_codes ? 1 : 0;
    std::uint64_t above = 0;  // DBP of the plane above (0 above the top plane)
    bool after_zero = false;  // the previous symbol was a zero run
    unsigned j = P;           // planes left to read
    auto zero_run = [&](unsigned run) {
      if (after_zero) throw corrupt_stream("bpc zero run at plane " + std::to_string(j - 1) + " follows another");
      if (run > j)
        throw corrupt_stream("bpc zero run of " + std::to_string(run) + " planes at plane " + std::to_string(j - 1) +
                             " runs past plane 0");
      for (unsigned t = 0; t < run; ++t) dbp[--j] = above;
      after_zero = true;
    };
    while (j > 0) {
      const unsigned plane = j - 1;
      std::uint64_t x;
      unsigned cls;
      // Every symbol has at least 3 bits: read them at once.
      const auto head = static_cast<unsigned>(in.read(3));
      if (head >= 4) {  // 1 + W: raw DBX
        x = (std::uint64_t{head} & 3u) << (W - 2) | in.read(W - 2);
        cls = kRaw;
      } else if (head >= 2) {  // 01 + 5: run of 2..33
        zero_run(static_cast<unsigned>((head & 1u) << 4 | in.read(4)) + 2);
        continue;
      } else if (head == 1) {  // 001: one zero plane
        zero_run(1);
        continue;
      } else {  // 000 + 2: the 5-bit codes
        cls = kClassOf[map][in.read(2)];
        if (cls == kDbp0) {
          x = above;
        } else if (cls == kOnes) {
          x = ones;
        } else {
          const auto pos = static_cast<unsigned>(in.read(pb));
          const unsigned width = cls == kPair ? 2 : 1;
          if (pos + width > W)
            throw corrupt_stream("bpc " + std::string(kClassName[cls]) + " position " + std::to_string(pos) +
                                 " lies outside the " + std::to_string(W) + "-bit plane " + std::to_string(plane));
          x = (cls == kPair ? std::uint64_t{3} : std::uint64_t{1}) << pos;
        }
      }
      const std::uint64_t p = x ^ above;
      if (x == 0 || classify(x, p, ones, s_.liu) != cls)
        throw corrupt_stream("bpc plane " + std::to_string(plane) + " is coded " + kClassName[cls] +
                             ", which is not its encoding");
      dbp[--j] = p;
      above = p;
      after_zero = false;
    }
  }

  const BpcSettings s_;
  Sym sym_[3][32];  // at W = 7, 15, 31 (B = 32, 64, 128)
};

std::unique_ptr<Codec> make_bpc(const Options& o) { return std::make_unique<BPC>(o); }

}  // namespace

void add_bpc_presets(std::vector<Preset>& out) {
  using S = std::string;
  out.push_back({"bpc.isca16",
                 "bpc",
                 "ISCA'16 bit-plane compression as Kim's reference model: 33-bit deltas, DBX symbols, sizes in bits",
                 "none",
                 {},
                 true,
                 &make_bpc,
                 &space_of<bpc_table>});
  out.push_back({"bpc.skku",
                 "bpc",
                 "SKKU MPC tools' BPC: every base charged 7 bits, the `if (base = 0)` bug (accounting-only)",
                 "none",
                 {{"base", S("fixed7")}},
                 false,
                 &make_bpc,
                 &space_of<bpc_table>});
  out.push_back({"bpc.cal22",
                 "bpc",
                 "the MPC authors' tool (CAL_22-MPC): bpc.skku with words read as unsigned and 32-bit raw planes / "
                 "10-bit position symbols at every block size (accounting-only)",
                 "none",
                 {{"base", S("fixed7")}, {"words", S("unsigned")}, {"fields", S("fixed32")}},
                 false,
                 &make_bpc,
                 &space_of<bpc_table>});
  out.push_back({"bpc.liu",
                 "bpc",
                 "Liu's Compresso-style BPC: 32-bit deltas, a 1-bit flag choosing delta planes or the block's rows",
                 "none",
                 {{"delta_bits", std::int64_t{32}}, {"alt_mode", S("rows")}, {"precedence", S("liu")}},
                 false,
                 &make_bpc,
                 &space_of<bpc_table>});
  out.push_back({"bpc.nap64",
                 "bpc",
                 "NAP64 bpc plugin at 128 B: 33rd delta bit from an unsigned compare, Liu's pattern order, capped at "
                 "the line as NAP64 reports by default",
                 "threshold(1)",
                 {{"words", S("unsigned")}, {"precedence", S("liu")}},
                 false,
                 &make_bpc,
                 &space_of<bpc_table>});
}

}  // namespace memcomp
