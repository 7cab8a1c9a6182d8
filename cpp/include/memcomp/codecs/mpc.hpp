// memcomp codecs: MPC, Multi-Prediction Compression (P3; SPEC 1.12), the parts the codec and the
// analysis side share: the model (modules of class 2..6), its versioned JSON form and validation,
// the forward transform of one 32 B block into 16 rows of 16 bits and its inverse, and the
// Table-1 row encoder.
//
//   bytes --predict--> residues R[32] (R[0] = root byte) --> bit-planes P[8] (plane 0 = MSB)
//         --XOR--> X (X[p] = P[p] ^ P[p-1] for p >= 1, column 0 untouched)
//         --scan--> S[t] = X[row[t]][col[t]], row i = S[16i .. 16i+15]
//
// Conventions of this header: a plane is a 32-bit word whose bit c is column c; cell (p, c) has
// index 32p + c; a row is a 16-bit word whose bit 15 is row position 0 (the first scanned bit),
// so writing it as a 16-bit field is MSB first, as the stream wants.
//
// Model JSON: {"format": "memcomp.model/1", "codec": "mpc", "version": 1, "modules": [
//   {"class": 2..6, "root": r, "base": [32], "shift": [32], "scan_row": [256], "scan_col": [256]}, ...]}
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "memcomp/codecs/model.hpp"
#include "memcomp/core/bitstream.hpp"
#include "memcomp/core/json.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__SSE2__) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <tmmintrin.h>
#define MEMCOMP_MPC_SSSE3 1  // Compiled::cells_ssse3, for callers that checked the CPU at run time
#endif

namespace memcomp::mpc {

inline constexpr std::size_t kBlockBytes = 32;
inline constexpr unsigned kPlanes = 8;
inline constexpr unsigned kRows = 16;
inline constexpr unsigned kCells = 256;
inline constexpr unsigned kClassBits = 3;
inline constexpr unsigned kFirstModuleClass = 2, kLastModuleClass = 6;
inline constexpr unsigned kRawClass = 7;
inline constexpr int kModelVersion = 1;

/// One prediction module (SPEC 1.12 "Parameters"). The root's own base and shift are ignored.
struct Module {
  int cls = kFirstModuleClass;               ///< class id 2..6 written in the stream
  int root = 0;                              ///< byte stored as is (R[0])
  std::array<std::uint8_t, 32> base{};       ///< byte j is predicted from byte base[j]
  std::array<std::int8_t, 32> shift{};       ///< > 0: left shift (mod 256), < 0: right shift
  std::array<std::uint8_t, 256> scan_row{};  ///< plane of scanned bit t
  std::array<std::uint8_t, 256> scan_col{};  ///< column of scanned bit t
  bool operator==(const Module& o) const {
    return cls == o.cls && root == o.root && base == o.base && shift == o.shift && scan_row == o.scan_row &&
           scan_col == o.scan_col;
  }
};

struct Model {
  std::vector<Module> modules;  ///< 1..5 modules with distinct classes
  bool operator==(const Model& o) const { return modules == o.modules; }
};

using Planes = std::array<std::uint32_t, kPlanes>;  ///< bit c of plane p = column c
using Rows = std::array<std::uint16_t, kRows>;      ///< bit 15 = row position 0

// ---- validation and JSON ---------------------------------------------------------------------

/// Throws json_error unless the module is well formed (SPEC 1.12): class in 2..6, root in 0..31,
/// every base in 0..31 and the base pointers of every byte reach the root without a cycle, shift
/// in [-8, 8], and the (scan_row, scan_col) pairs a permutation of the 8 x 32 cells.
inline void validate_module(const Module& m, const std::string& where = "mpc model") {
  if (m.cls < static_cast<int>(kFirstModuleClass) || m.cls > static_cast<int>(kLastModuleClass))
    throw json_error(where + ": class " + std::to_string(m.cls) + " is outside 2..6");
  const std::string at = where + " (class " + std::to_string(m.cls) + ")";
  if (m.root < 0 || m.root > 31) throw json_error(at + ": root " + std::to_string(m.root) + " is outside 0..31");
  for (std::size_t j = 0; j < 32; ++j) {
    if (m.base[j] > 31)
      throw json_error(at + ": base[" + std::to_string(j) + "] = " + std::to_string(m.base[j]) + " is outside 0..31");
    if (m.shift[j] < -8 || m.shift[j] > 8)
      throw json_error(at + ": shift[" + std::to_string(j) + "] = " + std::to_string(m.shift[j]) + " is outside -8..8");
  }
  for (std::size_t j = 0; j < 32; ++j) {  // follow the pointers: the root within 31 steps
    std::size_t k = j;
    for (int step = 0; step < 32 && k != static_cast<std::size_t>(m.root); ++step) k = m.base[k];
    if (k != static_cast<std::size_t>(m.root))
      throw json_error(at + ": the base pointers of byte " + std::to_string(j) + " do not reach the root " +
                       std::to_string(m.root) + " (a cycle)");
  }
  std::array<bool, kCells> seen{};
  for (std::size_t t = 0; t < kCells; ++t) {
    const unsigned p = m.scan_row[t], c = m.scan_col[t];
    if (p >= kPlanes || c >= 32)
      throw json_error(at + ": scan entry " + std::to_string(t) + " = (" + std::to_string(p) + ", " +
                       std::to_string(c) + ") is outside the 8 x 32 planes");
    if (seen[32 * p + c])
      throw json_error(at + ": scan cell (" + std::to_string(p) + ", " + std::to_string(c) +
                       ") appears twice: (scan_row, scan_col) must be a permutation of 8 x 32");
    seen[32 * p + c] = true;
  }
}

/// Throws json_error unless there are 1..5 valid modules with distinct classes.
inline void validate_model(const Model& m) {
  if (m.modules.empty() || m.modules.size() > 5)
    throw json_error("mpc model: expected 1 to 5 modules, got " + std::to_string(m.modules.size()));
  std::array<bool, 8> used{};
  for (const Module& x : m.modules) {
    validate_module(x);
    if (used[static_cast<std::size_t>(x.cls)])
      throw json_error("mpc model: class " + std::to_string(x.cls) + " is used by two modules");
    used[static_cast<std::size_t>(x.cls)] = true;
  }
}

namespace detail {
template <class T, std::size_t N>
void int_array(const Json& obj, const char* key, std::array<T, N>& out, std::int64_t lo, std::int64_t hi,
               const std::string& where) {
  const Json* v = obj.find(key);
  if (!v || !v->is_array())
    throw json_error(where + ": '" + key + "' must be an array of " + std::to_string(N) + " integers");
  if (v->size() != N)
    throw json_error(where + ": '" + key + "' has " + std::to_string(v->size()) + " entries, expected " +
                     std::to_string(N));
  for (std::size_t i = 0; i < N; ++i) {
    const std::int64_t x = v->at(i).as_int();
    if (x < lo || x > hi)
      throw json_error(where + ": " + key + "[" + std::to_string(i) + "] = " + std::to_string(x) + " is outside " +
                       std::to_string(lo) + ".." + std::to_string(hi));
    out[i] = static_cast<T>(x);
  }
}
template <class T, std::size_t N>
Json to_array(const std::array<T, N>& a) {
  std::vector<Json> v;
  v.reserve(N);
  for (T x : a) v.push_back(Json::integer(static_cast<std::int64_t>(x)));
  return Json::array(std::move(v));
}
}  // namespace detail

/// The model in a parsed JSON object (envelope included); validated. Throws json_error.
inline Model model_from_json(const Json& j) {
  const Json* ver = j.find("version");
  if (!ver || ver->as_int() != kModelVersion)
    throw json_error("mpc model: 'version' must be " + std::to_string(kModelVersion));
  const Json* mods = j.find("modules");
  if (!mods || !mods->is_array()) throw json_error("mpc model: 'modules' must be an array");
  Model m;
  for (std::size_t k = 0; k < mods->size(); ++k) {
    const Json& o = mods->at(k);
    const std::string where = "mpc model: modules[" + std::to_string(k) + "]";
    if (!o.is_object()) throw json_error(where + ": expected an object");
    for (const auto& kv : o.items())
      if (kv.first != "class" && kv.first != "root" && kv.first != "base" && kv.first != "shift" &&
          kv.first != "scan_row" && kv.first != "scan_col")
        throw json_error(where + ": unknown key '" + kv.first + "'");
    Module x;
    const Json* c = o.find("class");
    const Json* r = o.find("root");
    if (!c || !r) throw json_error(where + ": 'class' and 'root' are required");
    const std::int64_t ci = c->as_int(), ri = r->as_int();
    if (ci < 2 || ci > 6) throw json_error(where + ": class " + std::to_string(ci) + " is outside 2..6");
    if (ri < 0 || ri > 31) throw json_error(where + ": root " + std::to_string(ri) + " is outside 0..31");
    x.cls = static_cast<int>(ci);
    x.root = static_cast<int>(ri);
    detail::int_array(o, "base", x.base, 0, 31, where);
    detail::int_array(o, "shift", x.shift, -8, 8, where);
    detail::int_array(o, "scan_row", x.scan_row, 0, 7, where);
    detail::int_array(o, "scan_col", x.scan_col, 0, 31, where);
    m.modules.push_back(x);
  }
  validate_model(m);
  return m;
}

/// Parses and validates model text (envelope "memcomp.model/1", codec "mpc"). Throws json_error.
inline Model parse_model_text(const std::string& text) { return model_from_json(memcomp::parse_model(text, "mpc")); }

/// The model as a JSON object with the envelope; modules in their stored order.
inline Json model_to_json(const Model& m) {
  Json j = new_model("mpc");
  j.set("version", Json::integer(kModelVersion));
  Json mods = Json::array();
  for (const Module& x : m.modules) {
    mods.push(Json::object({{"class", Json::integer(x.cls)},
                            {"root", Json::integer(x.root)},
                            {"base", detail::to_array(x.base)},
                            {"shift", detail::to_array(x.shift)},
                            {"scan_row", detail::to_array(x.scan_row)},
                            {"scan_col", detail::to_array(x.scan_col)}}));
  }
  j.set("modules", std::move(mods));
  return j;
}

/// Compact JSON text of the model; parse_model_text(dump_model(m)) == m.
inline std::string dump_model(const Model& m) { return model_to_json(m).dump(); }

// ---- the transform, step by step (reference form, SPEC 1.12 "Transform of module m") --------

/// pred = v shifted left by s (mod 256) if s > 0, right by -s if s < 0.
inline std::uint8_t predict(std::uint8_t v, int s) noexcept {
  if (s >= 8 || s <= -8) return 0;
  return static_cast<std::uint8_t>(s >= 0 ? (unsigned{v} << s) : (unsigned{v} >> -s));
}

/// Residue columns: R[0] = b[root]; R[1..31] = b[j] - pred(j) for j ascending, skipping the root.
inline std::array<std::uint8_t, 32> residues(const Module& m, const std::uint8_t* b) noexcept {
  std::array<std::uint8_t, 32> r{};
  r[0] = b[m.root];
  std::size_t k = 1;
  for (std::size_t j = 0; j < 32; ++j) {
    if (static_cast<int>(j) == m.root) continue;
    r[k++] = static_cast<std::uint8_t>(b[j] - predict(b[m.base[j]], m.shift[j]));
  }
  return r;
}

/// Bit-planes of 32 columns: bit c of plane p = bit 7-p of col[c].
inline Planes bit_planes(const std::uint8_t* col) noexcept {
  Planes P{};
#if defined(__SSE2__)
  __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(col));
  __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(col + 16));
  for (unsigned p = 0; p < kPlanes; ++p) {
    P[p] = static_cast<std::uint32_t>(_mm_movemask_epi8(lo)) | static_cast<std::uint32_t>(_mm_movemask_epi8(hi)) << 16;
    lo = _mm_add_epi8(lo, lo);
    hi = _mm_add_epi8(hi, hi);
  }
#else
  for (unsigned c = 0; c < 32; ++c)
    for (unsigned p = 0; p < kPlanes; ++p) P[p] |= std::uint32_t{(col[c] >> (7 - p)) & 1u} << c;
#endif
  return P;
}

/// Columns from bit-planes (the inverse of bit_planes).
inline std::array<std::uint8_t, 32> columns(const Planes& P) noexcept {
  std::array<std::uint8_t, 32> col{};
  for (unsigned c = 0; c < 32; ++c) {
    unsigned v = 0;
    for (unsigned p = 0; p < kPlanes; ++p) v = (v << 1) | ((P[p] >> c) & 1u);
    col[c] = static_cast<std::uint8_t>(v);
  }
  return col;
}

/// X[p] = P[p] ^ P[p-1] for p >= 1 on columns 1..31; plane 0 and column 0 pass through.
inline Planes xor_planes(const Planes& P) noexcept {
  Planes X = P;
  for (unsigned p = 1; p < kPlanes; ++p) X[p] = P[p] ^ (P[p - 1] & ~1u);
  return X;
}

/// The decoder's P from X: P[p] = X[p] ^ P[p-1] on columns 1..31 (cumulative).
inline Planes unxor_planes(const Planes& X) noexcept {
  Planes P = X;
  for (unsigned p = 1; p < kPlanes; ++p) P[p] = X[p] ^ (P[p - 1] & ~1u);
  return P;
}

/// Rows from X by the module's scan.
inline Rows scan(const Module& m, const Planes& X) noexcept {
  Rows r{};
  for (unsigned t = 0; t < kCells; ++t) {
    const unsigned bit = (X[m.scan_row[t]] >> m.scan_col[t]) & 1u;
    r[t >> 4] = static_cast<std::uint16_t>(r[t >> 4] | bit << (15 - (t & 15)));
  }
  return r;
}

/// X from rows (the inverse of scan; the module must be valid).
inline Planes unscan(const Module& m, const Rows& r) noexcept {
  Planes X{};
  for (unsigned t = 0; t < kCells; ++t) {
    const std::uint32_t bit = (std::uint32_t{r[t >> 4]} >> (15 - (t & 15))) & 1u;
    X[m.scan_row[t]] |= bit << m.scan_col[t];
  }
  return X;
}

/// The whole forward transform of one 32 B block.
inline Rows transform(const Module& m, const std::uint8_t* block) noexcept {
  const auto r = residues(m, block);
  return scan(m, xor_planes(bit_planes(r.data())));
}

/// Bytes from residue columns: the root first, then bytes in BFS order from the root (every
/// base is decoded before the bytes it predicts). The module must be valid.
inline void unpredict(const Module& m, const std::uint8_t* col, std::uint8_t* out) noexcept {
  std::array<std::uint8_t, 32> res{};  // residue of byte j
  std::size_t k = 1;
  for (std::size_t j = 0; j < 32; ++j)
    if (static_cast<int>(j) != m.root) res[j] = col[k++];
  std::array<std::uint8_t, 32> queue{};
  std::size_t head = 0, tail = 0;
  out[m.root] = col[0];
  queue[tail++] = static_cast<std::uint8_t>(m.root);
  while (head < tail) {
    const std::size_t parent = queue[head++];
    for (std::size_t j = 0; j < 32; ++j) {
      if (static_cast<int>(j) == m.root || m.base[j] != parent) continue;
      out[j] = static_cast<std::uint8_t>(res[j] + predict(out[parent], m.shift[j]));
      queue[tail++] = static_cast<std::uint8_t>(j);
    }
  }
}

/// The inverse transform: rows -> X -> P -> residues -> bytes.
inline void inverse_transform(const Module& m, const Rows& rows, std::uint8_t* out) noexcept {
  const auto col = columns(unxor_planes(unscan(m, rows)));
  unpredict(m, col.data(), out);
}

// ---- row encoder (P3 Table 1; SPEC 1.12) -----------------------------------------------------

/// Bits of one non-zero row: single 1 -> 7, two adjacent 1s -> 8, a zero half -> 12, else 17.
inline unsigned row_bits(std::uint16_t r) noexcept {
  const unsigned v = r;
  if ((v & (v - 1)) == 0) return 7;
  if ((v >> static_cast<unsigned>(__builtin_ctz(v))) == 3) return 8;
  if ((v & 0xFF00u) == 0 || (v & 0x00FFu) == 0) return 12;
  return 17;
}

/// Leading all-zero rows (16 for an all-zero array).
inline unsigned leading_zero_rows(const Rows& r) noexcept {
  unsigned i = 0;
  while (i < kRows && r[i] == 0) ++i;
  return i;
}

/// E: bits of the row codes, zero runs flushed at the next non-zero row and at the end.
inline unsigned encoded_bits(const Rows& r) noexcept {
  unsigned bits = 0, run = 0;
  for (unsigned i = 0; i < kRows; ++i) {
    if (r[i] == 0) {
      ++run;
      continue;
    }
    if (run) bits += run == 1 ? 4 : 7;
    run = 0;
    bits += row_bits(r[i]);
  }
  if (run) bits += run == 1 ? 4 : 7;
  return bits;
}

/// Code (meta) and field (payload) bits of the row codes, summing to encoded_bits(r).
struct RowSplit {
  unsigned meta = 0, payload = 0;
};
/// Set bits of a 16-bit value.
inline unsigned popcount16(unsigned v) noexcept {
  v = v - ((v >> 1) & 0x5555u);
  v = (v & 0x3333u) + ((v >> 2) & 0x3333u);
  v = (v + (v >> 4)) & 0x0F0Fu;
  return (v + (v >> 8)) & 0x1Fu;
}

inline RowSplit split_bits(const Rows& r) noexcept {
  RowSplit s;
#if defined(__SSE2__)
  // Row classes as 16-bit masks (bit i = row i), then counts: the same sums as the loop below.
  const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r.data()));
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r.data() + 8));
  const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi16(1);
  const __m128i hi8 = _mm_set1_epi16(-256), lo8 = _mm_set1_epi16(255);
  auto mask_of = [](__m128i x, __m128i y) { return static_cast<unsigned>(_mm_movemask_epi8(_mm_packs_epi16(x, y))); };
  auto is0 = [&](__m128i x) { return _mm_cmpeq_epi16(x, zero); };
  const __m128i wa = _mm_and_si128(a, _mm_sub_epi16(a, one)), wb = _mm_and_si128(b, _mm_sub_epi16(b, one));
  const unsigned z = mask_of(is0(a), is0(b));
  const unsigned p1 = mask_of(is0(wa), is0(wb));  // at most one 1
  const unsigned p2 = mask_of(is0(_mm_and_si128(wa, _mm_sub_epi16(wa, one))),
                              is0(_mm_and_si128(wb, _mm_sub_epi16(wb, one))));  // at most two 1s
  const unsigned nadj =
      mask_of(is0(_mm_and_si128(a, _mm_slli_epi16(a, 1))), is0(_mm_and_si128(b, _mm_slli_epi16(b, 1))));
  const unsigned half = mask_of(_mm_or_si128(is0(_mm_and_si128(a, hi8)), is0(_mm_and_si128(a, lo8))),
                                _mm_or_si128(is0(_mm_and_si128(b, hi8)), is0(_mm_and_si128(b, lo8))));
  const unsigned c7 = p1 & ~z, c8 = p2 & ~p1 & ~nadj & 0xFFFFu;
  const unsigned c12 = half & ~p1 & ~c8 & 0xFFFFu, c17 = ~(p1 | c8 | half) & 0xFFFFu;
  const unsigned starts = z & ~(z << 1), single = starts & ~(z >> 1);
  const unsigned n1 = popcount16(single), n2 = popcount16(starts) - n1;
  const unsigned k7 = popcount16(c7), k8 = popcount16(c8), k12 = popcount16(c12), k17 = popcount16(c17);
  s.meta = 3 * k7 + 4 * k8 + 4 * k12 + k17 + 4 * n1 + 3 * n2;
  s.payload = 4 * k7 + 4 * k8 + 8 * k12 + 16 * k17 + 4 * n2;
#else
  unsigned run = 0;
  auto flush = [&] {
    if (run == 1) s.meta += 4;
    if (run >= 2) s.meta += 3, s.payload += 4;
    run = 0;
  };
  for (unsigned i = 0; i < kRows; ++i) {
    if (r[i] == 0) {
      ++run;
      continue;
    }
    flush();
    switch (row_bits(r[i])) {
      case 7: s.meta += 3, s.payload += 4; break;
      case 8: s.meta += 4, s.payload += 4; break;
      case 12: s.meta += 4, s.payload += 8; break;
      default: s.meta += 1, s.payload += 16; break;
    }
  }
  flush();
#endif
  return s;
}

inline unsigned first_position(std::uint16_t r) noexcept {  // position of the first 1 (r != 0)
  return static_cast<unsigned>(__builtin_clz(r)) - 16;
}

/// Writes the row codes (encoded_bits(r) bits), gathered 64 bits at a time.
inline void write_rows(const Rows& r, BitWriter& w) {
  std::uint64_t acc = 0;
  unsigned n = 0, run = 0;
  auto put = [&](std::uint32_t code, unsigned len) __attribute__((always_inline)) {  // len <= 17
    if (n + len > 64) {
      w.write(acc, n);
      acc = 0;
      n = 0;
    }
    acc = (acc << len) | code;
    n += len;
  };
  auto flush = [&]() __attribute__((always_inline)) {
    if (run == 1) put(0x3, 4);
    if (run >= 2) put((0x2u << 4) | (run - 1), 7);
    run = 0;
  };
  for (unsigned i = 0; i < kRows; ++i) {
    const std::uint16_t v = r[i];
    if (v == 0) {
      ++run;
      continue;
    }
    flush();
    switch (row_bits(v)) {
      case 7: put((0x3u << 4) | first_position(v), 7); break;
      case 8: put(first_position(v), 8); break;  // 0000 pppp
      case 12:
        if ((v & 0xFF00u) == 0)
          put((0x1u << 8) | v, 12);  // 0001: positions 0-7 zero, bits 8-15 follow
        else
          put((0x2u << 8) | (v >> 8), 12);  // 0010: positions 8-15 zero, bits 0-7 follow
        break;
      default: put((1u << 16) | v, 17); break;
    }
  }
  flush();
  w.write(acc, n);
}

/// The most bits 16 row codes take.
inline constexpr unsigned kMaxRowBits = 16 * 17;

/// Reads the row codes of 16 rows. Throws corrupt_stream on a run past row 16, a code the
/// encoder never writes for its row (a non-canonical choice, two runs in a row), or truncation.
/// Raw: BitReader's unchecked reads (REQUIRES raw_room() >= kMaxRowBits + 64; the caller checks
/// overran() after, and a stream that overran may have thrown another error than truncation).
template <bool Raw = false>
inline Rows read_rows(BitReader& in) {
  Rows r{};
  unsigned i = 0;
  bool after_run = false;
  auto bad = [](const std::string& what) { throw corrupt_stream("mpc: " + what); };
  auto skip = [&in](unsigned n) {
    if (Raw)
      in.skip_raw(n);
    else
      in.skip(n);
  };
  while (i < kRows) {
    // The longest code; the shorter ones are its top bits.
    const auto x = static_cast<unsigned>(Raw ? in.peek_raw(17) : in.peek(17));
    if (x >> 16) {  // 1 + 16 bits
      skip(17);
      const auto v = static_cast<std::uint16_t>(x);
      if (v == 0 || row_bits(v) != 17) bad("a 17-bit row " + std::to_string(v) + " has a shorter code");
      r[i++] = v;
      after_run = false;
      continue;
    }
    const unsigned two = x >> 14, field4 = (x >> 10) & 15u;
    if (two == 0x2) {  // 010: run of q >= 2 zero rows
      skip(7);
      const unsigned q = field4 + 1;
      if (q < 2) bad("a zero-run code of length 1 (the single-zero-row code is 0011)");
      if (after_run) bad("two zero-run codes in a row");
      if (i + q > kRows)
        bad("a zero run of " + std::to_string(q) + " rows at row " + std::to_string(i) + " runs past row 16");
      i += q;
      after_run = true;
      continue;
    }
    if (two == 0x3) {  // 011: single one
      skip(7);
      r[i++] = static_cast<std::uint16_t>(0x8000u >> field4);
      after_run = false;
      continue;
    }
    // 000x or 001x
    const unsigned sub = x >> 13;
    if (sub == 0x3) {  // 0011: one zero row
      skip(4);
      if (after_run) bad("two zero-run codes in a row");
      ++i;
      after_run = true;
      continue;
    }
    after_run = false;
    if (sub == 0x0) {  // 0000: two adjacent ones
      skip(8);
      const unsigned p = (x >> 9) & 15u;
      if (p == 15) bad("two adjacent ones starting at position 15");
      r[i++] = static_cast<std::uint16_t>(0xC000u >> p);
    } else {  // 0001: positions 0-7 zero, bits 8-15 follow; 0010: positions 8-15 zero, bits 0-7 follow
      skip(12);
      const auto half = static_cast<std::uint16_t>((x >> 5) & 0xFFu);
      const std::uint16_t v = sub == 0x1 ? half : static_cast<std::uint16_t>(half << 8);
      if (v == 0 || row_bits(v) != 12) bad("a 12-bit row " + std::to_string(v) + " has a shorter code");
      r[i++] = v;
    }
  }
  return r;
}

// ---- block classes ---------------------------------------------------------------------------

inline bool is_all_zero(const std::uint8_t* b) noexcept {
  std::uint64_t acc = 0;
  for (std::size_t i = 0; i < 32; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, b + i, 8);
    acc |= w;
  }
  return acc == 0;
}

/// byte[i] == byte[i mod 4] for all i (class 1).
inline bool is_word_repeated(const std::uint8_t* b) noexcept {
  std::uint64_t w0, acc = 0;
  std::memcpy(&w0, b, 8);
  if ((w0 >> 32) != (w0 & 0xFFFFFFFFu)) return false;
  for (std::size_t i = 8; i < 32; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, b + i, 8);
    acc |= w ^ w0;
  }
  return acc == 0;
}

// ---- a module compiled for speed -------------------------------------------------------------

/// Precomputed tables of one module: the column order, shifts, the inverse scan and per-row
/// cell masks (cells as 4 x 64 bits: cell 32p + c is bit (32p + c) % 64 of word (32p + c) / 64),
/// byte-shuffle masks and shift groups for a vector residue computation, and a nibble table of
/// the scan (cells 4n..4n+3 -> their bits in the rows).
struct Compiled {
  Module m;
  std::array<std::uint8_t, 32> src{};   ///< byte of column k (src[0] = root)
  std::array<std::uint8_t, 32> bsrc{};  ///< base byte of column k (column 0: unused, 0)
  std::array<std::uint8_t, 32> lsh{}, rsh{};
  std::array<std::uint8_t, kCells> inv{};  ///< cell -> scan index t
  std::array<std::array<std::uint64_t, 4>, kRows> row_mask{};
  /// pshufb masks: [0..3] gather src (columns 0-15 from bytes 0-15 / 16-31, columns 16-31 from
  /// bytes 0-15 / 16-31), [4..7] the same for bsrc; 0x80 where the other half supplies the byte
  /// (and for the base of column 0, whose prediction is 0).
  alignas(16) std::array<std::array<std::uint8_t, 16>, 8> shuf{};
  /// Columns by shift: group g shifts the base byte by grp_shift[g] (> 0 left, < 0 right, |8| -> 0)
  /// on the columns whose byte in grp_mask[g] is 0xFF. Columns with shift 0 are in no group.
  alignas(16) std::array<std::array<std::uint8_t, 32>, 16> grp_mask{};
  std::array<std::int8_t, 16> grp_shift{};
  unsigned ngrp = 0;
  /// nib[n][v]: the rows of the cells 4n..4n+3 whose bits are v (bit j = cell 4n + j).
  alignas(16) std::array<std::array<Rows, 16>, 64> nib{};
  /// The inverse: scan index t -> byte c and bit 7 - p of the Gray-coded columns (see inverse).
  std::array<std::uint8_t, kCells> cell_byte{}, cell_bit{};
  /// Bytes in decoding order (every base before the bytes it predicts): byte, its column, base.
  struct Step {
    std::uint8_t byte, column, base, lsh, rsh;
  };
  std::array<Step, 31> steps{};

  Compiled() = default;
  explicit Compiled(const Module& mod) : m(mod) {
    src[0] = static_cast<std::uint8_t>(m.root);
    std::size_t k = 1;
    for (std::size_t j = 0; j < 32; ++j) {
      if (static_cast<int>(j) == m.root) continue;
      src[k] = static_cast<std::uint8_t>(j);
      bsrc[k] = m.base[j];
      const int s = m.shift[j];
      // pred = (v << lsh) >> rsh, truncated to 8 bits; |s| = 8 gives 0 either way
      lsh[k] = static_cast<std::uint8_t>(s > 0 ? s : 0);
      rsh[k] = static_cast<std::uint8_t>(s < 0 ? -s : 0);
      if (s != 0) {
        unsigned g = 0;
        while (g < ngrp && grp_shift[g] != s) ++g;
        if (g == ngrp) grp_shift[ngrp++] = static_cast<std::int8_t>(s);
        grp_mask[g][k] = 0xFF;
      }
      ++k;
    }
    for (std::size_t c = 0; c < 32; ++c) {
      const std::size_t half = c / 16, o = c % 16;
      for (std::size_t which = 0; which < 2; ++which) {  // 0: src, 1: bsrc
        const unsigned from = which == 0 ? src[c] : bsrc[c];
        const bool none = which == 1 && c == 0;
        const std::size_t base_row = 4 * which + 2 * half;
        shuf[base_row][o] = static_cast<std::uint8_t>(!none && from < 16 ? from : 0x80u);
        shuf[base_row + 1][o] = static_cast<std::uint8_t>(!none && from >= 16 ? from - 16 : 0x80u);
      }
    }
    for (unsigned t = 0; t < kCells; ++t) {
      const unsigned cell = 32u * m.scan_row[t] + m.scan_col[t];
      inv[cell] = static_cast<std::uint8_t>(t);
      row_mask[t >> 4][cell >> 6] |= std::uint64_t{1} << (cell & 63);
    }
    for (unsigned n = 0; n < 64; ++n)
      for (unsigned v = 0; v < 16; ++v)
        for (unsigned j = 0; j < 4; ++j)
          if (v >> j & 1u) {
            const unsigned t = inv[4 * n + j];
            nib[n][v][t >> 4] = static_cast<std::uint16_t>(nib[n][v][t >> 4] | (0x8000u >> (t & 15)));
          }
    for (unsigned t = 0; t < kCells; ++t) {
      cell_byte[t] = m.scan_col[t];
      cell_bit[t] = static_cast<std::uint8_t>(0x80u >> m.scan_row[t]);
    }
    std::array<std::uint8_t, 32> column_of{};  // byte j -> its column
    for (std::size_t c = 0; c < 32; ++c) column_of[src[c]] = static_cast<std::uint8_t>(c);
    std::array<bool, 32> done{};
    done[static_cast<std::size_t>(m.root)] = true;
    for (std::size_t n = 0; n < steps.size();)  // breadth first from the root (the model is valid)
      for (std::size_t j = 0; j < 32; ++j)
        if (!done[j] && done[m.base[j]]) {
          const std::size_t c = column_of[j];
          steps[n++] = {static_cast<std::uint8_t>(j), static_cast<std::uint8_t>(c), m.base[j], lsh[c], rsh[c]};
          done[j] = true;
        }
  }

  /// inverse_transform: the rows' set bits into Gray-coded columns (cell (p, c) is bit 7 - p of
  /// g[c]), columns by a prefix XOR of each byte but column 0, then the bytes in decoding order.
  void inverse(const Rows& r, std::uint8_t* out) const noexcept {
    std::uint8_t g[32] = {};
    for (unsigned i = 0; i < kRows; ++i)
      for (unsigned v = r[i]; v; v &= v - 1) {
        const unsigned t = 16 * i + 15 - static_cast<unsigned>(__builtin_ctz(v));
        g[cell_byte[t]] = static_cast<std::uint8_t>(g[cell_byte[t]] | cell_bit[t]);
      }
    const std::uint8_t root = g[0];
    for (std::size_t w = 0; w < 32; w += 8) {
      std::uint64_t x;
      std::memcpy(&x, g + w, 8);
      x ^= (x >> 1) & 0x7F7F7F7F7F7F7F7Full;
      x ^= (x >> 2) & 0x3F3F3F3F3F3F3F3Full;
      x ^= (x >> 4) & 0x0F0F0F0F0F0F0F0Full;
      std::memcpy(g + w, &x, 8);
    }
    g[0] = root;
    unpredict(g, out);
  }

  /// The bytes from the residue columns, in decoding order.
  void unpredict(const std::uint8_t* col, std::uint8_t* out) const noexcept {
    out[m.root] = col[0];
    for (const Step& s : steps)
      out[s.byte] = static_cast<std::uint8_t>(col[s.column] + ((unsigned{out[s.base]} << s.lsh) >> s.rsh));
  }

  static std::array<std::uint64_t, 4> pack(const Planes& X) noexcept {
    return {X[0] | std::uint64_t{X[1]} << 32, X[2] | std::uint64_t{X[3]} << 32, X[4] | std::uint64_t{X[5]} << 32,
            X[6] | std::uint64_t{X[7]} << 32};
  }

  /// X as 4 x 64-bit words.
  std::array<std::uint64_t, 4> cells(const std::uint8_t* b) const noexcept {
    alignas(16) std::uint8_t col[32];
    col[0] = b[src[0]];
    for (std::size_t k = 1; k < 32; ++k)
      col[k] = static_cast<std::uint8_t>(b[src[k]] - ((unsigned{b[bsrc[k]]} << lsh[k]) >> rsh[k]));
    return pack(xor_planes(bit_planes(col)));
  }

#if defined(MEMCOMP_MPC_SSSE3)
  /// cells() with SSSE3 byte shuffles; call only where the CPU supports SSSE3.
  __attribute__((target("ssse3"))) std::array<std::uint64_t, 4> cells_ssse3(const std::uint8_t* b) const noexcept {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16));
    const __m128i* sh = reinterpret_cast<const __m128i*>(shuf.data());
    const __m128i s0 =
        _mm_or_si128(_mm_shuffle_epi8(lo, _mm_load_si128(sh + 0)), _mm_shuffle_epi8(hi, _mm_load_si128(sh + 1)));
    const __m128i s1 =
        _mm_or_si128(_mm_shuffle_epi8(lo, _mm_load_si128(sh + 2)), _mm_shuffle_epi8(hi, _mm_load_si128(sh + 3)));
    __m128i p0 =
        _mm_or_si128(_mm_shuffle_epi8(lo, _mm_load_si128(sh + 4)), _mm_shuffle_epi8(hi, _mm_load_si128(sh + 5)));
    __m128i p1 =
        _mm_or_si128(_mm_shuffle_epi8(lo, _mm_load_si128(sh + 6)), _mm_shuffle_epi8(hi, _mm_load_si128(sh + 7)));
    const __m128i b0 = p0, b1 = p1;
    for (unsigned g = 0; g < ngrp; ++g) {
      const int s = grp_shift[g];
      const __m128i m0 = _mm_load_si128(reinterpret_cast<const __m128i*>(grp_mask[g].data()));
      const __m128i m1 = _mm_load_si128(reinterpret_cast<const __m128i*>(grp_mask[g].data() + 16));
      __m128i v0 = _mm_setzero_si128(), v1 = _mm_setzero_si128();
      if (s > 0 && s < 8) {
        const __m128i cnt = _mm_cvtsi32_si128(s);
        const __m128i keep = _mm_set1_epi8(static_cast<char>((0xFFu << s) & 0xFFu));
        v0 = _mm_and_si128(_mm_sll_epi16(b0, cnt), keep);
        v1 = _mm_and_si128(_mm_sll_epi16(b1, cnt), keep);
      } else if (s < 0 && s > -8) {
        const __m128i cnt = _mm_cvtsi32_si128(-s);
        const __m128i keep = _mm_set1_epi8(static_cast<char>(0xFFu >> -s));
        v0 = _mm_and_si128(_mm_srl_epi16(b0, cnt), keep);
        v1 = _mm_and_si128(_mm_srl_epi16(b1, cnt), keep);
      }
      p0 = _mm_or_si128(_mm_andnot_si128(m0, p0), _mm_and_si128(m0, v0));
      p1 = _mm_or_si128(_mm_andnot_si128(m1, p1), _mm_and_si128(m1, v1));
    }
    __m128i c0 = _mm_sub_epi8(s0, p0), c1 = _mm_sub_epi8(s1, p1);
    Planes P{};
    for (unsigned p = 0; p < kPlanes; ++p) {
      P[p] = static_cast<std::uint32_t>(_mm_movemask_epi8(c0)) | static_cast<std::uint32_t>(_mm_movemask_epi8(c1))
                                                                     << 16;
      c0 = _mm_add_epi8(c0, c0);
      c1 = _mm_add_epi8(c1, c1);
    }
    return pack(xor_planes(P));
  }
#endif

  unsigned leading_zero_rows(const std::array<std::uint64_t, 4>& x) const noexcept {
    unsigned i = 0;
    for (; i < kRows; ++i) {
      const auto& mk = row_mask[i];
      if ((x[0] & mk[0]) | (x[1] & mk[1]) | (x[2] & mk[2]) | (x[3] & mk[3])) break;
    }
    return i;
  }

  Rows rows(const std::array<std::uint64_t, 4>& x) const noexcept {
    Rows r{};
#if defined(__SSE2__)
    __m128i a = _mm_setzero_si128(), c = _mm_setzero_si128();
    for (unsigned w = 0; w < 4; ++w) {
      const std::uint64_t v = x[w];
      if (!v) continue;
      for (unsigned n = 0; n < 16; ++n) {
        const Rows& e = nib[16 * w + n][(v >> (4 * n)) & 15u];
        a = _mm_or_si128(a, _mm_load_si128(reinterpret_cast<const __m128i*>(e.data())));
        c = _mm_or_si128(c, _mm_load_si128(reinterpret_cast<const __m128i*>(e.data() + 8)));
      }
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(r.data()), a);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(r.data() + 8), c);
#else
    for (unsigned w = 0; w < 4; ++w) {
      std::uint64_t v = x[w];
      while (v) {
        const unsigned t = inv[64 * w + static_cast<unsigned>(__builtin_ctzll(v))];
        r[t >> 4] = static_cast<std::uint16_t>(r[t >> 4] | (0x8000u >> (t & 15)));
        v &= v - 1;
      }
    }
#endif
    return r;
  }

  Rows transform(const std::uint8_t* b) const noexcept { return rows(cells(b)); }
};

}  // namespace memcomp::mpc
