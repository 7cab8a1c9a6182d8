// memcomp codecs: C-Pack (Chen, Yang, Dick, Shang, Lekatsas, TVLSI'10; SPEC 1.4; R §4).
// Every 32-bit word of the word view takes the smallest code, in the order
// zzzz < mmmm < zzzx < mmmx < mmxx < xxxx; among dictionary entries the lowest index wins.
//
//   code   pattern                        fields                  meta + payload bits
//   00     zzzz: word == 0                -                       2 + 0
//   01     xxxx: no match                 32-bit word             2 + 32
//   10     mmmm: entry == word            4-bit index             2 + 4
//   1100   mmxx: bits 31..16 match        index, low 16 bits      4 + 20
//   1101   zzzx: bits 31..8 are zero      low 8 bits              4 + 8
//   1110   mmmx: bits 31..8 match         index, low 8 bits       4 + 12
//   (1111 is undefined)
//
// Stream: [code][index:4][low bits of the word view] per word, in word order (layout
// "interleaved", the default); layout "mc" (Metadata Consolidation, P2 §4.3, SPEC 2) writes all
// B/4 codes in word order, then all [index][low bits] fields in word order (same size; the
// decoder reads the codes first). Options:
//   endian      word view: little (masks on the upper bytes of the LE word) or big (memory
//               bytes 0..2 act as the upper bytes: the memory-order-byte implementations);
//   push        which coded words enter the dictionary: unmatched = xxxx, mmxx, mmmx (paper);
//               literal = xxxx only (kim, schreiber, skku); nonnarrow = every word whose bits
//               31..8 are not all zero, i.e. all codes but zzzz and zzzx (gem5, whose zzzz and
//               zzzx patterns are built with allocate=false; SPEC 1.4 reads "every word not
//               coded zzzz", which is nonzero);
//   dictionary  fifo = 16 physical slots and a wrapping write pointer, index = slot (paper, kim);
//               deque = the same 16 entries indexed by age, 0 = oldest (skku's std::deque:
//               push_back + pop_front, searched from the front); fill = at most 16 entries,
//               pushes stop when full (schreiber); block = B/4 slots with no replacement, the
//               index still charged 4 bits (gem5: accounting-only, indices >= 16 do not fit;
//               gem5 v24 src/mem/cache/compressors/cpack.hh, dictionary_compressor_impl.hh
//               compressValue: the lowest index wins a tie; Compressors.py dictionary_size =
//               the line size; the preset's policy threshold(0.5) is base.cc's fallback);
//   init        empty, or 16 zero entries (kim resets its slots to 0 per line, skku's deque
//               starts as 16 zeros): zero entries match like any other, so 0x0000abcd is mmxx;
//   persistent  one dictionary carried across the blocks of a batch in array order (skku;
//               stateful). A batch starts from the initial dictionary unless it resumes.
//               Direct measure() calls keep a dictionary of their own, from the initial one.
// An index naming an empty slot, the code 1111 and a truncated stream are corrupt.
//
// First-match implementations (schreiber, skku: take the first entry whose bits 31..16 match,
// then its best code) give the same codes as the smallest-code rule under push=literal: a word
// is pushed only when no entry shares its bits 31..16, so all entries that share them are
// copies of one value (the initial zeros).
//
// cpack.nap64 is NAP64's cpack plugin (NAP64/Memory-Compression-Measurements-Open@eefc809,
// include/cpack.h, a C transplant of benschreiber/cpack) on 64 B lines, i.e. cpack.schreiber:
// bytes a, b, c, d of a word are memory bytes 4i..4i+3 (cpack.h:76-79, endian=big); zzzz and
// zzzx are tested first (82-90); then the first entry whose a, b match gives mmmm, mmmx or mmxx
// (93-113); otherwise xxxx, pushed as the next entry (119-132, push=literal, dictionary=fill: at
// most 16 pushes in 16 words). The plugin caps a line at 512 bits unless run with -p
// (src/compression/cpack.c:30-31, parse_switch on by default in src/driver.c:345): policy
// threshold(1), no flag bit charged; policy "none" gives the -p sizes.
//
// measure() avoids data-dependent branches: the smallest word ^ entry over the dictionary
// gives the code through a table, pushes are masked writes, and two independent blocks step
// through their words together.
#include <algorithm>
#include <cstring>

#include "codec_impl.hpp"
#include "kernels/cpack.hpp"
#include "memcomp/codecs/families.hpp"
#include "memcomp/core/simd.hpp"

namespace memcomp {
namespace {

using namespace cpack;  // the format's tables and the dictionaries (kernels/cpack.hpp)

/// One block being measured.
struct Lane {
  Dictionary d;
  std::uint32_t payload, meta;
};

struct CPackSettings {
  Endian endian;
  std::string push;
  Dict dictionary;
  bool zeros, persistent, mc;
};

const OptionTable<CPackSettings>& cpack_table() {
  using S = CPackSettings;
  static const OptionTable<S> t{
      option_endian(&S::endian),
      option_choice("push", &S::push, "unmatched", {"unmatched", "literal", "nonnarrow", "nonzero"},
                    "words pushed: unmatched (xxxx, mmxx, mmmx), literal (xxxx), nonnarrow (above 0xFF), nonzero"),
      option_choice("dictionary", &S::dictionary, "fifo",
                    {{"fifo", Dict::fifo}, {"deque", Dict::deque}, {"fill", Dict::fill}, {"block", Dict::block}},
                    "16-slot FIFO, 16-entry deque, 16 entries filled once, or one slot per word of the block"),
      option_choice("init", &S::zeros, "empty", {{"empty", false}, {"zeros", true}},
                    "the dictionary starts empty or full of zeros"),
      option_bool("persistent", &S::persistent, false, "the dictionary is kept from block to block (stateful)"),
      option_choice("layout", &S::mc, "interleaved", {{"interleaved", false}, {"mc", true}},
                    "code and fields per word, or all codes first (Metadata Consolidation, HPCA'16)")};
  return t;
}

/// The settings of `o`, combinations the dictionaries cannot hold refused.
CPackSettings cpack_settings(const Options& o) {
  CPackSettings s = cpack_table().parse(o, "cpack");
  if (s.zeros && s.dictionary != Dict::fifo && s.dictionary != Dict::deque)
    throw invalid_argument("cpack: init=zeros needs dictionary=fifo or deque (a full dictionary of zeros)");
  if (s.persistent && s.dictionary == Dict::block)
    throw invalid_argument("cpack: persistent=True needs a bounded dictionary (fifo, deque or fill), not block");
  return s;
}

/// A persistent codec's stream state: its dictionary, serialised as
/// [count:8][wp:8][16 entries, 32-bit little-endian].
class CpackState final : public CodecState {
 public:
  CpackState(std::string preset, Dict kind, bool zeros) : preset_(std::move(preset)), kind_(kind), zeros_(zeros) {
    cpack::init(d, zeros);
  }
  std::unique_ptr<CodecState> clone() const override { return std::make_unique<CpackState>(*this); }

  std::vector<std::uint8_t> save() const override {
    std::vector<std::uint8_t> out(2 + 4 * kSlots);
    out[0] = static_cast<std::uint8_t>(d.count);
    out[1] = static_cast<std::uint8_t>(d.wp);
    for (unsigned k = 0; k < kSlots; ++k) {  // slots past count are written as load fills them
      const std::uint32_t e = zeros_ || k < d.count ? d.e[k] : d.count ? d.e[0] : 0u;
      store<std::uint32_t>(out.data() + 2 + 4 * k, e, Endian::little);
    }
    return out;
  }

  void load(const std::uint8_t* p, std::size_t n) override {
    if (n != 2 + 4 * kSlots)
      throw corrupt_stream(preset_ + " entry state: expected " + std::to_string(2 + 4 * kSlots) + " bytes, got " +
                           std::to_string(n));
    Dictionary x{};
    x.count = p[0];
    x.wp = p[1];
    const bool filling = (kind_ == Dict::fifo || kind_ == Dict::deque) && x.count < kSlots;
    if (x.count > kSlots || x.wp >= kSlots || (filling && x.wp != x.count) || (kind_ == Dict::fill && x.wp != 0))
      throw corrupt_stream(preset_ + " entry state: count " + std::to_string(x.count) + " and write pointer " +
                           std::to_string(x.wp) + " describe no dictionary");
    for (unsigned k = 0; k < kSlots; ++k) x.e[k] = load_le(p + 2 + 4 * k);
    // Slots past count hold copies of the first entry (the branch-free search reads them).
    if (!zeros_ && x.count > 0) std::fill(x.e + x.count, x.e + kSlots, x.e[0]);
    d = x;
  }

  /// A deque of zeros behaves by its entries in age order alone (every slot valid, indices by
  /// age): a run from a guess with the same entries in that order as the truth is the same run,
  /// and where the truth is full (count 16) it ends with the guess's entries, its write pointer
  /// moved as far as the guess's.
  bool resync(const std::vector<std::uint8_t>& guess, const std::vector<std::uint8_t>& truth,
              const std::vector<std::uint8_t>& guess_end, std::vector<std::uint8_t>& truth_end) const override {
    if (!(zeros_ && kind_ == Dict::deque) || truth[0] != kSlots)
      return CodecState::resync(guess, truth, guess_end, truth_end);
    auto entry = [](const std::vector<std::uint8_t>& st, unsigned age) {  // age 0: the oldest
      return load_le(st.data() + 2 + 4 * ((st[1] + age) % kSlots));
    };
    for (unsigned a = 0; a < kSlots; ++a)
      if (entry(guess, a) != entry(truth, a)) return false;
    truth_end = truth;
    truth_end[1] = static_cast<std::uint8_t>((truth[1] + guess_end[1] + kSlots - guess[1]) % kSlots);
    for (unsigned a = 0; a < kSlots; ++a)
      store<std::uint32_t>(truth_end.data() + 2 + 4 * ((truth_end[1] + a) % kSlots), entry(guess_end, a),
                           Endian::little);
    return true;
  }

  Dictionary d{};

 private:
  static std::uint32_t load_le(const std::uint8_t* p) { return memcomp::load<std::uint32_t>(p, Endian::little); }
  std::string preset_;
  Dict kind_;
  bool zeros_;
};
/// The dictionary of a batch's state (null: a stateless batch), once per range.
Dictionary* dictionary_of(CodecState* st) {
  auto* c = dynamic_cast<CpackState*>(st);
  return c ? &c->d : nullptr;
}

class CPack final : public CodecImpl<CPack> {
 public:
  explicit CPack(const Options& o) : s_(cpack_settings(o)) {
    if (s_.push == "unmatched") push_mask_ = bit(kXXXX) | bit(kMMXX) | bit(kMMMX);
    if (s_.push == "literal") push_mask_ = bit(kXXXX);
    if (s_.push == "nonnarrow") push_mask_ = bit(kXXXX) | bit(kMMMM) | bit(kMMXX) | bit(kMMMX);
    if (s_.push == "nonzero") push_mask_ = 0x3Fu & ~bit(kZZZZ);
    for (unsigned k = 0; k < 25; ++k) push_keys_ |= ((push_mask_ >> kKeys.code[k]) & 1u) << k;
    kind_min_ = s_.push == "nonzero" ? 1u : 256u;
    set_search_ = !s_.persistent && s_.push != "literal";
  }

  Options options() const override { return cpack_table().write(s_); }
  Capabilities capabilities() const override {
    Capabilities c;
    c.exact = s_.dictionary != Dict::block;
    c.stateful = s_.persistent;
    return c;
  }
  std::unique_ptr<CodecState> initial_state() const override {
    if (!s_.persistent) return nullptr;
    return std::make_unique<CpackState>(preset(), s_.dictionary, s_.zeros);
  }
  std::uint64_t max_compressed_bits(std::size_t b) const override { return kMaxToken * (b / 4); }
  std::vector<ModeName> modes() const override { return {{0, "cpack"}}; }

  /// One block, a persistent codec's from the initial dictionary (a stream's blocks go through
  /// a batch, with a Session to carry the dictionary from batch to batch).
  SizeBreakdown measure(const std::uint8_t* blk, std::size_t b) const override {
    SizeBreakdown s;
    Dictionary fresh;
    init(fresh);
    measure_lanes<1>(&blk, b, &s, s_.persistent ? &fresh : nullptr);
    return s;
  }

  /// Also callable on a block dictionary (cpack.gem5) while every index fits 4 bits, which the
  /// W6 tests use; the batch API refuses it (exact() is false).
  std::uint32_t encode(const std::uint8_t* blk, std::size_t b, BitWriter& out) const override {
    Dictionary fresh;
    init(fresh);
    return encode_in(blk, b, out, s_.persistent ? &fresh : nullptr);
  }

  /// encode() from a persistent dictionary `p` (moved on), or a fresh one per block (p null).
  std::uint32_t encode_in(const std::uint8_t* blk, std::size_t b, BitWriter& out, Dictionary* p) const {
    const CpackKernels& kern = cpack_kernels();  // the kernel table of the active tier (kernels/cpack.hpp)
    if (kern.encode_sets != nullptr && set_search() && !s_.zeros && s_.dictionary != Dict::block && b >= 16 && b <= 64)
      return kern.encode_sets(shape(nullptr), *this, blk, b, out);
    const std::size_t n = b / 4;
    Dictionary local;
    Dictionary& d = start(local, p);
    if (kern.encode_block != nullptr && s_.dictionary != Dict::block) {
      kern.encode_block(shape(p), *this, blk, b, out, d);
      return 0;
    }
    WordWriter words{out, s_.mc};
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t w = load<std::uint32_t>(blk + 4 * i, s_.endian);
      const unsigned k = key(w, d.e, d.count, zero_entry(d));
      const unsigned c = kKeys.code[k];
      std::uint64_t field = 0;  // index, low bits
      if (has_index(c)) {
        const unsigned idx = lowest_index(d, w, kMatchMask[c]);
        if (idx >= kSlots) not_decodable();
        field = idx;
      }
      words.put(c, field << kLowBits[c] | (w & low_mask(kLowBits[c])));
      push_any(d, w, (push_mask_ >> c) & 1u);
    }
    words.finish();
    return 0;
  }

  void decode(BitReader& in, std::uint32_t, std::uint8_t* out, std::size_t b) const override {
    Dictionary fresh;
    init(fresh);
    decode_in(in, out, b, s_.persistent ? &fresh : nullptr);
  }

  /// decode() from a persistent dictionary `p` (moved on), or a fresh one per block (p null).
  void decode_in(BitReader& in, std::uint8_t* out, std::size_t b, Dictionary* p) const {
    if (s_.zeros) {
      if (s_.dictionary == Dict::fifo) return decode_k<Dict::fifo, true>(in, out, b, p);
      return decode_k<Dict::deque, true>(in, out, b, p);
    }
    switch (s_.dictionary) {
      case Dict::fifo: return decode_k<Dict::fifo, false>(in, out, b, p);
      case Dict::deque: return decode_k<Dict::deque, false>(in, out, b, p);
      case Dict::fill: return decode_k<Dict::fill, false>(in, out, b, p);
      default: return decode_k<Dict::block, false>(in, out, b, p);
    }
  }

 protected:
  std::size_t encode_range(const BlockView& blocks, std::size_t begin, std::size_t end, std::uint8_t* buf,
                           std::size_t max_bytes, EncodedBlocks& enc, CodecState* state) const override {
    // Fresh 16-slot dictionaries: groups of blocks side by side (the kernel table of the active
    // tier, kernels/cpack.hpp).
    const auto kernel = cpack_kernels().encode_range;
    if (kernel != nullptr && !s_.persistent && s_.dictionary != Dict::block && blocks.block_bytes >= 16)
      return kernel(shape(nullptr), *this, blocks, begin, end, buf, max_bytes, enc);
    Dictionary* p = dictionary_of(state);
    return batch::encode_loop(
        blocks, begin, end, buf, max_bytes, enc,
        [&](const BlockView& v, std::size_t i, BitWriter& w) { return encode_in(v.block(i), v.block_bytes, w, p); });
  }
  // Fresh dictionaries, layout interleaved: groups of kCpackDecodeLanes blocks through the lane
  // decoder. A group whose streams are not all valid, or too near the end of the data for its
  // reads, is decoded one block at a time (which names the first bad block).
  void decode_range(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end,
                    CodecState* state) const override {
    const auto lanes = cpack_kernels().decode_lanes;
    if (lanes != nullptr && !s_.persistent && !s_.mc && s_.dictionary != Dict::block) {
      const CpackShape sh = shape(nullptr);
      const auto n = static_cast<unsigned>(enc.block_bytes / 4), b = static_cast<unsigned>(enc.block_bytes);
      alignas(32) std::uint32_t dict[kCpackDecodeLanes * kSlots + 1] = {};  // zeros: init=zeros' entries
      begin = decode_groups<kCpackDecodeLanes>(
          enc, out, begin, end, kMaxToken,
          [&](const std::uint8_t* base, const std::int32_t* pos, const std::int32_t* stop, std::uint8_t* buf) {
            if (s_.zeros) std::fill(dict, dict + kCpackDecodeLanes * kSlots, 0u);
            return lanes(sh, base, pos, stop, n, b, buf, dict);
          });
    }
    Dictionary* p = dictionary_of(state);
    decode_loop(enc, out, begin, end,
                [&](BitReader& r, std::uint32_t, std::uint8_t* o, std::size_t b) { decode_in(r, o, b, p); });
  }
  void measure_range(const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out,
                     CodecState* state) const override {
    Dictionary* p = dictionary_of(state);
    if (const auto groups = cpack_kernels().measure_groups; groups != nullptr && p == nullptr)
      begin = groups(shape(nullptr), *this, blocks, begin, end, out);
    if (s_.push == "literal" && s_.dictionary != Dict::block && simd_enabled())
      return measure_literal(blocks, begin, end, out, p);
    const auto kernel = cpack_kernels().measure_range;
    if (kernel != nullptr && s_.dictionary != Dict::block && blocks.block_bytes >= 16)
      return kernel(shape(p), *this, blocks, begin, end, out);
    if (p) {  // one dictionary, block after block (a stateful range runs on one thread)
      for (std::size_t i = begin; i < end; ++i) {
        const std::uint8_t* blk = blocks.block(i);
        SizeBreakdown s;
        measure_lanes<1>(&blk, blocks.block_bytes, &s, p);
        out.set(i, s);
      }
      return;
    }
    // Independent blocks: two step through their words together, so the dependent chains of
    // one block (code -> push -> next search) overlap with the other's.
    std::size_t i = begin;
    for (; i + 2 <= end; i += 2) {
      const std::uint8_t* blk[2] = {blocks.block(i), blocks.block(i + 1)};
      SizeBreakdown s[2];
      measure_lanes<2>(blk, blocks.block_bytes, s, nullptr);
      out.set(i, s[0]);
      out.set(i + 1, s[1]);
    }
    if (i < end) out.set(i, measure(blocks.block(i), blocks.block_bytes));
  }

 private:
  /// decode() for one kind of dictionary, on a local copy of a persistent one (stores of the
  /// words could alias it otherwise and force reloads).
  template <Dict K, bool Zeros>
  void decode_k(BitReader& in, std::uint8_t* out, std::size_t b, Dictionary* p) const {
    const std::size_t n = b / 4;
    const std::uint32_t push_mask = push_mask_;
    const Endian endian = s_.endian;
    const bool mc = s_.mc;
    Dictionary d;
    const auto begin = [&] {
      if (p) return copy_dict(*p, d);  // fifo, deque or fill: 16 slots
      init(d);
      if (!Zeros) std::fill(d.e, d.e + kSlots, 0u);  // read (masked out) before the first push
    };
    begin();
    const auto finish = [&] {
      if (p) copy_dict(d, *p);
    };
    if (!mc && in.raw_room() >= n * kMaxToken + 64) {
      // Interleaved with room in the buffer: a token a step, by unchecked reads, the end checked
      // once. Anything amiss (a bad code or index, a stream too short): again, checked, below.
      BitReader r = in;
      std::size_t i = 0;
      for (; i < n; ++i) {
        const std::uint64_t t = r.peek_raw(kMaxToken);
        const unsigned c = kTopCode[t >> (kMaxToken - 4)];
        if (c == kBadCode) break;
        const unsigned len = kMeta[c] + kPayload[c];
        const std::uint64_t payload = (t >> (kMaxToken - len)) & low_mask(kPayload[c]);
        const auto idx = static_cast<unsigned>(payload >> kLowBits[c]);  // < 16, 0 without an index
        const unsigned valid = Zeros ? kSlots : d.count;
        if (!Zeros && has_index(c) && idx >= valid) break;
        const std::uint32_t w = (d.e[physical_slot(K == Dict::deque, valid, d.wp, idx)] & kMatchMask[c]) |
                                static_cast<std::uint32_t>(payload & low_mask(kLowBits[c]));
        r.skip_raw(len);
        store<std::uint32_t>(out + 4 * i, w, endian);
        push<K, Zeros>(d, w, (push_mask >> c) & 1u);
      }
      if (i == n && !r.overran()) {
        in = r;
        return finish();
      }
      begin();
    }
    unsigned char codes[kMaxEntries];
    if (mc)
      for (std::size_t i = 0; i < n; ++i) codes[i] = static_cast<unsigned char>(read_code(in, i));
    for (std::size_t i = 0; i < n; ++i) {
      unsigned c, idx = 0;
      std::uint32_t low;
      const unsigned valid = Zeros ? kSlots : d.count;  // entries an index may name
      // Interleaved: the next token at once when the stream holds all of it (else field by
      // field, which names what is wrong).
      const std::uint64_t t = mc ? 0 : in.peek(kMaxToken);
      const unsigned top = kTopCode[t >> (kMaxToken - 4)];
      if (!mc && top != kBadCode && kMeta[top] + kPayload[top] <= in.remaining()) {
        c = top;
        const unsigned len = kMeta[c] + kPayload[c];
        const std::uint64_t payload = (t >> (kMaxToken - len)) & low_mask(kPayload[c]);
        idx = static_cast<unsigned>(payload >> kLowBits[c]);
        low = static_cast<std::uint32_t>(payload & low_mask(kLowBits[c]));
        in.skip(len);
      } else {
        c = mc ? codes[i] : read_code(in, i);
        if (has_index(c)) idx = static_cast<unsigned>(in.read(4));
        low = has_index(c) && idx >= valid ? 0u : static_cast<std::uint32_t>(in.read(kLowBits[c]));
      }
      std::uint32_t entry = 0;
      if (has_index(c)) {
        if (idx >= valid)
          throw corrupt_stream("cpack index " + std::to_string(idx) + " names an empty dictionary slot (" +
                               std::to_string(valid) + " valid, word " + std::to_string(i) + ")");
        entry = d.e[physical_slot(K == Dict::deque, valid, d.wp, idx)];
      }
      const std::uint32_t w = (entry & kMatchMask[c]) | low;
      store<std::uint32_t>(out + 4 * i, w, endian);
      push<K, Zeros>(d, w, (push_mask >> c) & 1u);
    }
    finish();
  }

  static unsigned read_code(BitReader& in, std::size_t i) {
    switch (in.read(2)) {
      case 0: return kZZZZ;
      case 1: return kXXXX;
      case 2: return kMMMM;
      default: {
        const auto sub = static_cast<unsigned>(in.read(2));
        if (sub == 3) throw corrupt_stream("cpack code 1111 is undefined (word " + std::to_string(i) + ")");
        return sub == 0 ? kMMXX : sub == 1 ? kZZZX : kMMMX;
      }
    }
  }

  template <std::size_t L>
  void measure_lanes(const std::uint8_t* const* blk, std::size_t b, SizeBreakdown* out, Dictionary* st) const {
    if (s_.zeros) {
      switch (s_.dictionary) {
        case Dict::fifo: return measure_k<Dict::fifo, true, L>(blk, b, out, st);
        default: return measure_k<Dict::deque, true, L>(blk, b, out, st);
      }
    }
    switch (s_.dictionary) {
      case Dict::fifo: return measure_k<Dict::fifo, false, L>(blk, b, out, st);
      case Dict::deque: return measure_k<Dict::deque, false, L>(blk, b, out, st);
      case Dict::fill: return measure_k<Dict::fill, false, L>(blk, b, out, st);
      default: return measure_k<Dict::block, false, L>(blk, b, out, st);
    }
  }

  /// Measures L blocks word by word in lockstep, each from a fresh dictionary, or (L = 1) one
  /// block from the persistent dictionary *st, which it updates.
  template <Dict K, bool Zeros, std::size_t L>
  void measure_k(const std::uint8_t* const* blk, std::size_t b, SizeBreakdown* out, Dictionary* st) const {
    const std::size_t n = b / 4;
    // Locals, not members: stores into e[] could alias members and force reloads.
    const std::uint32_t push_keys = push_keys_;
    const Endian endian = s_.endian;
    Lane lane[L];
    for (std::size_t l = 0; l < L; ++l) {
      if (st) {  // L == 1
        copy_dict(*st, lane[l].d);
      } else {
        init(lane[l].d);
      }
      lane[l].payload = lane[l].meta = 0;
    }
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t l = 0; l < L; ++l) {
        Lane& x = lane[l];
        const std::uint32_t w = load<std::uint32_t>(blk[l] + 4 * i, endian);
        const unsigned k = key(w, x.d.e, x.d.count, Zeros ? static_cast<unsigned>(x.d.count < kSlots) : 0u);
        x.payload += kKeys.payload[k];
        x.meta += kKeys.meta[k];
        push<K, Zeros>(x.d, w, (push_keys >> k) & 1u);
      }
    }
    if (st) copy_dict(lane[0].d, *st);
    for (std::size_t l = 0; l < L; ++l) {
      out[l] = SizeBreakdown{};
      out[l].payload = lane[l].payload;
      out[l].meta = lane[l].meta;
    }
  }

  // push=literal (kim, schreiber, skku) with a 16-slot dictionary: a word is pushed only when
  // no entry shares its bits 31..16, so the entries have distinct upper halves (but those of
  // upper half 0: the initial zeros) and a word's best match is the one entry with its upper
  // half. An index by upper half replaces the search: one lookup per word instead of a chain of
  // compares over 16 entries. The dictionary itself is kept as measure_k keeps it (a persistent
  // state is the same either way), and nothing branches on the data.
  void measure_literal(const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out,
                       Dictionary* p) const {
    if (s_.zeros)
      return s_.dictionary == Dict::fifo ? measure_literal<Dict::fifo, true>(blocks, begin, end, out, p)
                                         : measure_literal<Dict::deque, true>(blocks, begin, end, out, p);
    if (s_.dictionary == Dict::fifo) return measure_literal<Dict::fifo, false>(blocks, begin, end, out, p);
    if (s_.dictionary == Dict::deque) return measure_literal<Dict::deque, false>(blocks, begin, end, out, p);
    measure_literal<Dict::fill, false>(blocks, begin, end, out, p);
  }

  template <Dict K, bool Zeros>
  void measure_literal(const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out,
                       Dictionary* kept) const {
    // entry[h]: the entry with upper half h != 0 (its own upper half tells it is there, 0 is
    // not), or for h = 0 the last one pushed (0 for the zeros), with `low` entries there.
    thread_local std::vector<std::uint32_t> table(std::size_t{1} << 16);
    std::uint32_t* entry = table.data();
    unsigned low = 0;
    auto add = [&](std::uint32_t e, unsigned on) {  // on = 1: e enters, 0: nothing
      entry[e >> 16] = on ? e : entry[e >> 16];
      low += on & static_cast<unsigned>(e >> 16 == 0);
    };
    auto remove = [&](std::uint32_t e, unsigned on) {
      entry[e >> 16] = on && (e >> 16) ? 0u : entry[e >> 16];
      low -= on & static_cast<unsigned>(e >> 16 == 0);
    };
    constexpr unsigned evicting = K == Dict::fifo || K == Dict::deque ? 1u : 0u;
    const std::uint32_t push_keys = push_keys_;
    const Endian endian = s_.endian;
    Dictionary d{};  // a local copy: stores into the index cannot alias it
    if (kept) d = *kept;
    auto index = [&](bool in) {
      for (unsigned k = 0; k < valid(d); ++k) in ? add(d.e[k], 1) : remove(d.e[k], 1);
    };
    if (kept) index(true);
    for (std::size_t i = begin; i < end; ++i) {
      if (!kept) {
        init(d);
        index(true);
      }
      const std::uint8_t* blk = blocks.block(i);
      std::uint32_t payload = 0, meta = 0;
      for (std::size_t j = 0; j < blocks.block_bytes / 4; ++j) {
        const std::uint32_t w = load<std::uint32_t>(blk + 4 * j, endian), h = w >> 16, e = entry[h];
        const bool has = h ? e >> 16 == h : low > 0;
        const unsigned lm = has ? lz_bytes(w ^ e) : 0u;  // below 2 every code is the same
        const unsigned k = key_of(lm, lz_bytes(w));
        payload += kKeys.payload[k];
        meta += kKeys.meta[k];
        const unsigned p = (push_keys >> k) & static_cast<unsigned>(K != Dict::fill || d.count < kSlots);
        remove(d.e[d.wp], p & evicting & static_cast<unsigned>(Zeros || d.count >= kSlots));
        push<K, Zeros>(d, w, p);
        add(w, p);
      }
      SizeBreakdown s;
      s.payload = payload;
      s.meta = meta;
      out.set(i, s);
      if (!kept) index(false);
    }
    if (kept) {
      index(false);  // the index is left empty for the next call
      *kept = d;
    }
  }

  /// An empty dictionary, or 16 zero entries.
  void init(Dictionary& d) const { cpack::init(d, s_.zeros); }
  /// The dictionary a block starts from: the persistent one p, or `local` freshly initialised.
  Dictionary& start(Dictionary& local, Dictionary* p) const {
    if (p) return *p;
    init(local);
    return local;
  }

  void push_any(Dictionary& d, std::uint32_t w, unsigned p) const {
    if (s_.zeros) {
      if (s_.dictionary == Dict::fifo)
        push<Dict::fifo, true>(d, w, p);
      else
        push<Dict::deque, true>(d, w, p);
      return;
    }
    switch (s_.dictionary) {
      case Dict::fifo: push<Dict::fifo, false>(d, w, p); break;
      case Dict::deque: push<Dict::deque, false>(d, w, p); break;
      case Dict::fill: push<Dict::fill, false>(d, w, p); break;
      case Dict::block: push<Dict::block, false>(d, w, p); break;
    }
  }

  /// 1 while zero entries of init=zeros remain (fewer than 16 pushes so far).
  unsigned zero_entry(const Dictionary& d) const { return static_cast<unsigned>(s_.zeros && d.count < kSlots); }
  /// Entries an index may name.
  unsigned valid(const Dictionary& d) const { return s_.zeros ? kSlots : d.count; }

  /// Physical slot of the entry a stream index names (physical_slot).
  unsigned physical(const Dictionary& d, unsigned idx) const {
    return physical_slot(s_.dictionary == Dict::deque, valid(d), d.wp, idx);
  }

  /// The lowest index whose entry matches w under mask (the caller knows one exists).
  unsigned lowest_index(const Dictionary& d, std::uint32_t w, std::uint32_t mask) const {
    for (unsigned idx = 0; idx < valid(d); ++idx)
      if (((w ^ d.e[physical(d, idx)]) & mask) == 0) return idx;
    return valid(d);  // unreachable for a code from key()
  }

  const CPackSettings s_;

  // Fresh dictionaries that never evict (B <= 64: at most 15 pushes before the last word meets
  // 16 slots, or B/4 block slots), under a push rule that pushes every word of a kind unless its
  // value is already in: unmatched and nonnarrow (bits 31..8 not all zero; a word that is not
  // pushed equals an entry, or is zzzz or zzzx), nonzero. The dictionary a word is searched in
  // is then, as a set of values, every earlier word of that kind (plus the zero entries), so
  // every word's best match is a minimum over earlier words: no chain from word to word.
  bool set_search() const { return set_search_; }  // B <= 64 is checked per batch

  // What the kernels read (kernels/cpack.hpp), with a persistent batch's dictionary p.
  CpackShape shape(Dictionary* p) const {
    return {s_.endian == Endian::big,
            s_.zeros,
            s_.mc,
            s_.persistent,
            set_search_,
            s_.dictionary,
            push_mask_,
            push_keys_,
            kind_min_,
            p};
  }

  unsigned push_mask_ = 0;       ///< bit c: words coded c are pushed
  std::uint32_t kind_min_ = 0;   ///< set search: the smallest word of the kind that is pushed
  bool set_search_ = false;      ///< measure_sets applies (a fresh dictionary, push not literal)
  std::uint32_t push_keys_ = 0;  ///< the same by key (bit k: kKeys.code[k] is pushed)
};

std::unique_ptr<Codec> make_cpack(const Options& o) { return std::make_unique<CPack>(o); }

}  // namespace

void add_cpack_presets(std::vector<Preset>& out) {
  using S = std::string;
  out.push_back({"cpack.paper",
                 "cpack",
                 "TVLSI'10 codes on the LE word; push xxxx/mmxx/mmmx into a 16-slot FIFO reset per block",
                 "none",
                 {},
                 true,
                 &make_cpack,
                 &space_of<cpack_table>});
  out.push_back({"cpack.mc",
                 "cpack",
                 "cpack.paper with Metadata Consolidation (HPCA'16): all codes, then all index and literal fields",
                 "none",
                 {{"layout", S("mc")}},
                 false,
                 &make_cpack,
                 &space_of<cpack_table>});
  out.push_back({"cpack.gem5",
                 "cpack",
                 "gem5 v24 CPack: every word above 0xFF allocated, B/4 slots charged 4 bits, lines above 50 % "
                 "stored whole (threshold(0.5); accounting-only)",
                 "threshold(0.5)",
                 {{"push", S("nonnarrow")}, {"dictionary", S("block")}},
                 false,
                 &make_cpack,
                 &space_of<cpack_table>});
  out.push_back({"cpack.kim",
                 "cpack",
                 "scalable-arch C-Pack model: push xxxx only, 16-slot FIFO reset to zeros per line",
                 "none",
                 {{"push", S("literal")}, {"init", S("zeros")}},
                 false,
                 &make_cpack,
                 &space_of<cpack_table>});
  out.push_back({"cpack.schreiber",
                 "cpack",
                 "benschreiber/cpack: memory-order bytes, push xxxx only, up to 16 entries",
                 "none",
                 {{"endian", S("big")}, {"push", S("literal")}, {"dictionary", S("fill")}},
                 false,
                 &make_cpack,
                 &space_of<cpack_table>});
  out.push_back({"cpack.nap64",
                 "cpack",
                 "NAP64 cpack plugin (= cpack.schreiber), capped at the line as NAP64 reports by default",
                 "threshold(1)",
                 {{"endian", S("big")}, {"push", S("literal")}, {"dictionary", S("fill")}},
                 false,
                 &make_cpack,
                 &space_of<cpack_table>});
  out.push_back({"cpack.skku",
                 "cpack",
                 "SKKU CAL_22-MPC: memory-order bytes, one 16-entry deque of zeros kept across blocks (stateful)",
                 "none",
                 {{"endian", S("big")},
                  {"push", S("literal")},
                  {"dictionary", S("deque")},
                  {"init", S("zeros")},
                  {"persistent", true}},
                 false,
                 &make_cpack,
                 &space_of<cpack_table>});
  out.push_back({"cpack.cal22",
                 "cpack",
                 "the MPC authors' tool (CAL_22-MPC): = cpack.skku (stateful)",
                 "none",
                 {{"endian", S("big")},
                  {"push", S("literal")},
                  {"dictionary", S("deque")},
                  {"init", S("zeros")},
                  {"persistent", true}},
                 false,
                 &make_cpack,
                 &space_of<cpack_table>});
}

}  // namespace memcomp
