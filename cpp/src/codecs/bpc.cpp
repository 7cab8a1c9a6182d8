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
//
// The AVX2 kernels (kernels/bpc_avx2.cpp, behind bpc_kernels()) classify the planes eight per
// register, and decode delta blocks of 32 to 128 bytes two at a time without a branch per symbol
// class, handing any stream they doubt to the general decoder here; both equal this file's scalar
// code bit for bit (tests).
#include <algorithm>
#include <string>

#include "codec_impl.hpp"
#include "kernels/bpc.hpp"
#include "memcomp/codecs/families.hpp"

namespace memcomp {
namespace {

using namespace bpc;

const char* const kClassName[5] = {"DBP-zero", "all-ones", "two-ones", "single-one", "raw"};

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
void transpose_bits(const std::uint64_t* rows, unsigned R, unsigned C, std::uint64_t* cols) {
  if (R <= 33 && C <= 33) {
    if (const auto k = bpc_kernels().transpose33) return k(rows, R, C, cols);
  }
  transpose_bits_tiles(rows, R, C, cols);
}

const OptionTable<Settings>& bpc_table() {
  using S = Settings;
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
    for (unsigned k = 0; k < 3; ++k) make_symbols(s_.kim_codes ? 1 : 0, (8u << k) - 1, sym_[k]);
  }

  Options options() const override { return bpc_table().write(s_); }
  Capabilities capabilities() const override { return exact_only(decodable()); }
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
    if (b >= 32) {
      if (const auto k = bpc_kernels().measure_block) return k(s_, blk, b);
    }
    return with_block_size(b, [&](auto B) { return measure_block<B(), ScalarRows, PortablePop>(s_, blk); });
  }

 protected:
  void measure_range(const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out,
                     CodecState*) const override {
    if (blocks.block_bytes >= 32) {
      if (const auto k = bpc_kernels().measure_range) return k(s_, blocks, begin, end, out);
    }
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
      load_rows(s_, blk, b, planes);
      emit_planes(planes, 32, static_cast<unsigned>(n), ceil_log2(n), low_mask(static_cast<unsigned>(m)), out);
      return 0;
    }
    emit_base(load<std::uint32_t>(blk, s_.endian), out);
    const Src src = mode == 1 ? Src::words : s_.delta_bits == 33 ? Src::delta33 : Src::delta32;
    const unsigned P = src == Src::delta33 ? 33 : 32;
    if (b >= 32 && b <= 128 && !s_.unsigned_words) {  // the kernel takes signed words
      if (const auto k = bpc_kernels().encode_planes) {
        k(s_, blk, b, src, out);
        return 0;
      }
    }
    std::uint32_t w[64];
    for (std::size_t i = 0; i < n; ++i) w[i] = load<std::uint32_t>(blk + 4 * i, s_.endian);
    std::uint64_t rows[63];
    for (std::size_t i = 1; i < n; ++i) rows[i - 1] = row_of(s_, src, w[i], w[i - 1]);
    transpose_bits(rows, static_cast<unsigned>(m), P, planes);
    emit_planes(planes, P, static_cast<unsigned>(m), pb, low_mask(static_cast<unsigned>(m)), out);
    return 0;
  }

  // Delta blocks of 32 to 128 bytes two at a time (the kernel's decode_pair); a pair it doubts
  // goes through the general decoder, which names the bad block.
  void decode_range(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end,
                    CodecState*) const override {
    std::size_t i = begin;
    const std::size_t b = enc.block_bytes;
    const auto pair = bpc_kernels().decode_pair;
    if (pair != nullptr && fast_decodable(b)) {
      for (; i + 2 <= end; i += 2) {
        bool ok = false;
        try {
          ok = pair(s_, symbols(b), enc, i, out + i * b, out + (i + 1) * b, b);
        } catch (const corrupt_stream&) {  // a base the general decoder refuses too
        }
        if (!ok) {
          batch::count_lane_fallback();
          CodecImpl<BPC>::decode_range(enc, out, i, i + 2, nullptr);
        }
      }
    }
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
  // Delta blocks the kernels' decoders take: 32, 64 or 128 bytes of signed words.
  bool fast_decodable(std::size_t b) const {
    return s_.alt == Alt::none && decodable() && !s_.unsigned_words && (b == 32 || b == 64 || b == 128);
  }
  const Sym* symbols(std::size_t b) const { return sym_[b == 32 ? 0 : b == 64 ? 1 : 2]; }

  void decode_mode(BitReader& in, bool alt, std::uint8_t* out, std::size_t b) const {
    if (!alt && !s_.unsigned_words && (b == 32 || b == 64 || b == 128)) {
      if (const auto k = bpc_kernels().decode_one) {
        if (k(s_, symbols(b), in, out, b)) return;
        batch::count_lane_fallback();
      }
    }
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

  const Settings s_;
  Sym sym_[3][32];  // the kernels' decoders' symbols at W = 7, 15, 31 (B = 32, 64, 128)
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
