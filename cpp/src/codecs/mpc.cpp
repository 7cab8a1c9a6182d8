// memcomp codecs: MPC, Multi-Prediction Compression (P3, IEEE CAL'22; SPEC 1.12). B = 32 only.
// A block is written as a 3-bit class and then:
//   0: all bytes zero, nothing else;  1: byte[i] = byte[i mod 4], bytes 0..3;
//   2..6: the chosen module's 16 transformed rows coded by P3 Table 1 (E bits, E < 256);
//   7: the 32 bytes as they are (the chosen module has E >= 256).
// Module choice: select="rtl" (the RTL rule, the default) takes the module with the most leading
// zero rows, ties to the higher class; select="min_bits" [ours] takes the smallest E (ties to the
// higher class). Size record: header = 3 (class), meta = row-type codes, payload = row fields,
// the class-1 word or the class-7 bytes; mode = class.
// Model: mpc.hpp (modules of class 2..6 with root, base, shift, scan). mpc.cal22_rtl carries the
// five modules of the public RTL (Compressor.v, STAGE1 TRANSFORMER PATTERN2_T..PATTERN6_T).
// Fast paths (simd.hpp; kernels/mpc_avx2.cpp, kernels/mpc_avx512.cpp), each equal to the scalar
// modules bit for bit: an AVX2 form (byte shuffles, 16-bit shifts, a bit permutation in eight
// passes) and an AVX-512 one (byte permutes, GF(2) affine maps of bytes, bit shuffles).
#include <algorithm>

#include "codec_impl.hpp"
#include "kernels/mpc.hpp"
#include "memcomp/codecs/families.hpp"
#include "memcomp/codecs/mpc.hpp"
#include "memcomp/core/simd.hpp"

namespace memcomp {
namespace {

// The parameters of compressor/rtl/Compressor.v (xyz123479/CAL_22-MPC_RTL), STAGE1 TRANSFORMER
// instances PATTERN2_T..PATTERN6_T: ROOT_IDX, BASE_IDX, SHIFT_VAL, SCAN_ROW, SCAN_COL, index i
// being the i-th listed value. Roots 8, 16, 19, 15, 8; base-tree heights 3, 7, 5, 6, 10 (SPEC 1.12).
const char* const kCal22RtlModel =
    R"json({"format":"memcomp.model/1","codec":"mpc","version":1,"modules":[{"class":2,"root":8,"base":[28,0,16,
4,8,4,16,8,8,8,16,12,16,12,16,16,8,16,4,20,8,20,16,24,16,24,16,0,8,28,16,4],"shift":[0,0,3,0,0,0,3,0,
0,0,3,0,0,0,3,0,0,0,3,0,0,0,3,0,0,0,3,0,0,0,3,0],"scan_row":[0,1,4,2,2,1,2,1,2,1,2,2,1,2,2,1,1,2,2,1,
2,1,1,2,1,2,1,2,1,1,2,1,1,2,2,1,2,1,1,2,2,1,1,2,2,1,1,2,2,5,5,5,5,5,5,5,3,4,3,4,3,4,3,4,3,4,6,3,4,3,
4,6,6,6,6,6,6,1,3,3,3,3,3,3,3,3,5,5,5,5,5,5,5,0,7,7,3,5,0,3,0,0,7,3,3,7,7,3,3,0,7,7,0,3,0,3,3,3,3,3,
3,3,3,3,4,4,4,4,4,4,4,4,7,4,7,7,4,4,5,0,7,4,0,7,4,4,0,7,7,7,4,0,5,7,7,4,0,5,7,5,5,5,5,1,5,6,4,4,6,5,
1,4,4,4,2,2,6,4,6,2,6,6,2,2,2,1,1,2,2,1,4,1,1,6,1,6,4,0,7,7,6,7,6,7,7,7,6,6,6,6,6,6,6,5,5,5,0,0,0,0,
0,5,0,0,5,5,5,7,0,5,7,7,7,7,7,7,7,0,0,0,0,0,0,0,0,0,0,3,6,6,6,6,6,6,6,6],"scan_col":[0,27,0,31,27,31,
0,8,8,28,1,2,29,29,4,5,9,9,21,21,19,20,19,20,16,15,15,17,17,12,11,11,13,13,23,25,25,23,24,24,6,6,4,5,
28,1,2,16,12,12,16,28,1,20,5,24,1,1,28,28,16,16,12,12,24,24,24,5,5,20,20,20,5,16,28,1,12,0,3,7,30,22,
10,14,26,18,17,6,9,2,21,29,13,16,24,12,13,25,5,9,20,28,1,2,21,20,5,6,29,1,28,16,24,17,12,25,19,11,23,
15,31,27,4,8,8,7,26,30,22,14,10,3,15,18,4,31,13,9,0,9,9,25,25,25,21,2,2,2,17,6,6,6,23,13,29,29,29,4,
21,15,27,19,8,7,31,10,23,4,14,11,22,15,31,11,30,26,7,19,26,3,30,18,10,22,7,3,26,18,14,30,27,14,18,22,
10,3,17,17,27,19,21,23,0,8,0,11,13,17,29,2,6,9,25,7,30,26,22,14,10,3,30,14,26,7,22,3,10,14,18,18,7,3,
22,26,10,30,18,13,21,19,23,15,11,8,4,31,27,0,23,27,31,4,19,15,11,8]},{"class":3,"root":16,"base":[16,
17,4,15,6,3,8,3,10,3,12,3,14,3,16,14,16,3,16,17,18,19,20,19,22,19,24,19,26,19,28,19],"shift":[0,0,0,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"scan_row":[7,5,3,3,3,3,3,3,3,3,3,3,3,2,2,
2,2,4,4,4,4,5,5,5,5,5,5,4,4,4,4,4,4,4,4,2,2,2,0,1,0,0,0,0,0,0,1,0,0,0,0,0,0,1,1,2,1,2,2,2,2,1,1,1,1,
1,1,1,1,1,1,5,3,7,7,7,6,6,7,5,6,6,6,7,6,5,6,6,5,6,7,6,5,7,7,7,7,7,6,6,2,1,1,1,1,1,1,1,1,1,1,1,1,3,2,
2,2,2,2,2,2,2,2,2,2,2,4,3,3,3,3,3,3,3,3,3,3,3,3,5,3,2,4,4,4,4,4,4,4,4,4,4,4,4,6,3,2,5,5,5,5,5,5,5,5,
5,5,5,5,6,6,6,6,6,6,6,6,6,6,6,6,0,7,5,4,6,2,1,3,4,7,5,0,0,0,0,0,0,0,0,0,0,0,0,7,7,7,7,7,7,7,7,7,7,7,
7,1,5,4,2,3,3,1,2,4,5,4,6,1,0,0,7,4,5,6,7,3,2,0,7,6,7,6,0,5,6,0,7,0,1,6,7,4,5,3,2],"scan_col":[31,23,
29,27,25,23,21,14,12,10,8,6,4,31,29,27,25,4,6,8,31,14,12,10,8,6,4,29,10,27,25,23,21,14,12,23,21,14,
21,2,31,29,27,25,23,17,6,14,12,10,8,6,4,4,8,12,27,10,8,6,4,31,29,25,10,23,21,19,17,14,12,21,31,21,6,
14,27,4,4,31,8,6,12,12,14,29,31,29,27,21,10,23,25,23,25,27,29,8,25,10,2,11,20,24,9,13,3,22,26,28,7,5,
30,2,28,11,22,20,3,5,7,9,24,26,13,30,2,11,9,7,13,20,22,24,26,28,30,3,5,2,19,19,26,28,30,24,22,20,11,
9,7,5,3,13,2,17,17,24,22,20,26,28,30,11,9,7,5,3,13,13,11,9,7,5,3,20,22,24,26,28,30,2,2,19,19,19,18,
18,18,18,19,18,13,11,9,7,5,3,22,20,24,26,28,30,20,22,24,26,28,30,11,9,7,5,3,13,1,17,17,1,1,15,15,15,
15,15,1,18,16,19,18,18,16,16,16,16,16,16,16,15,15,17,17,15,1,1,1,1,0,0,0,0,0,0,0,0]},{"class":4,
"root":19,"base":[4,9,10,7,8,13,14,11,16,17,14,15,16,21,15,19,19,19,10,19,16,25,14,19,20,17,18,23,24,
21,22,27],"shift":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,7,7,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"scan_row":[2,2,
2,2,2,2,3,3,3,3,3,3,3,4,4,4,4,4,4,4,1,1,1,1,1,1,1,0,3,1,2,5,6,3,1,2,5,6,3,1,2,5,6,3,1,2,5,6,3,1,2,5,
6,3,1,2,5,6,2,5,6,2,1,1,2,3,7,0,7,0,0,7,0,7,0,0,7,0,7,7,4,4,4,4,4,4,5,5,5,5,5,5,4,5,0,1,5,2,3,4,6,7,
6,6,6,6,6,6,6,3,0,0,0,0,7,7,7,7,0,0,0,7,7,7,1,1,1,1,1,1,1,2,2,2,2,2,2,2,3,3,3,3,3,3,3,4,4,4,4,4,4,4,
4,5,5,5,5,5,5,5,5,6,6,6,6,6,6,6,7,0,7,7,0,0,7,0,0,7,0,7,0,1,1,1,1,1,1,1,7,2,2,2,2,2,2,2,3,3,3,3,3,3,
3,4,4,4,4,4,4,4,5,5,5,5,5,5,0,6,7,2,0,1,3,4,0,0,5,6,6,6,6,6,7,7,6,6,7,7,5,2,3,0,7,4,6,1,5,7,7,7,7,0,
0,0,0,6],"scan_col":[22,19,30,7,3,26,23,12,27,4,8,31,16,12,16,27,31,23,8,4,23,16,12,8,4,31,27,15,7,7,
12,12,12,19,19,16,16,16,22,22,23,23,23,26,26,27,27,27,30,30,31,31,31,3,3,4,4,4,8,8,8,15,15,11,11,11,
12,8,4,23,16,16,12,8,4,31,27,27,23,31,30,22,7,19,3,26,26,19,3,7,22,30,11,11,0,0,0,0,0,0,0,0,19,3,7,
22,30,26,11,15,11,7,22,26,19,3,7,11,19,3,30,22,26,30,29,21,25,10,2,6,14,14,21,29,25,10,2,6,6,14,21,
29,25,10,2,2,10,25,21,29,14,6,15,15,10,25,21,29,14,6,2,2,10,25,14,29,21,6,6,6,14,29,29,14,21,25,10,
10,2,2,21,24,28,13,9,5,1,20,25,13,9,5,1,24,28,20,20,13,9,5,1,24,28,28,24,13,9,5,1,20,13,5,1,24,28,20,
24,15,15,18,18,18,18,18,28,20,9,13,5,24,28,9,13,5,1,20,17,1,18,17,17,17,18,17,18,17,17,24,28,20,9,5,
13,9,1,17]},{"class":5,"root":15,"base":[4,7,3,11,20,7,14,15,24,11,2,19,15,27,18,15,24,27,19,7,28,23,
18,15,27,27,27,19,31,31,22,23],"shift":[0,1,0,0,0,1,0,0,0,1,0,0,2,1,0,0,0,1,0,0,0,1,0,0,1,1,0,0,0,1,
0,0],"scan_row":[4,4,4,4,3,3,3,3,4,3,2,2,2,2,2,4,4,3,3,2,2,5,5,5,5,5,5,5,6,6,6,6,6,6,6,1,1,1,1,1,1,0,
1,0,7,7,1,7,0,0,7,0,0,7,7,7,0,0,1,1,1,1,1,2,2,2,2,3,3,2,3,3,3,4,4,7,7,6,5,4,7,6,7,5,6,3,3,2,1,1,2,4,
4,5,3,2,1,0,7,7,6,6,5,5,4,3,3,4,2,1,1,2,0,2,2,2,4,4,5,5,0,0,0,2,2,4,4,6,5,5,6,7,7,2,4,3,3,0,6,6,6,2,
2,2,4,5,6,7,2,2,4,0,0,0,0,0,6,6,7,7,0,0,0,0,0,0,0,2,1,3,3,3,3,1,1,1,0,0,0,3,5,5,7,6,6,1,1,1,1,6,6,6,
6,6,7,1,1,1,5,7,6,6,1,0,2,5,3,4,4,4,4,4,5,5,5,3,3,5,5,4,6,5,2,3,3,5,3,4,4,4,3,7,0,1,5,5,5,4,7,6,3,4,
5,2,7,7,7,7,7,7,7,7,0,1,7,6],"scan_col":[27,31,8,23,23,8,31,27,19,19,31,23,8,19,4,4,12,12,4,27,12,12,
4,8,23,31,27,19,8,23,31,27,12,4,19,8,12,23,31,27,4,0,19,19,27,12,0,31,23,27,19,8,4,23,8,4,12,31,15,
22,30,7,11,22,15,7,30,22,15,11,11,7,30,22,15,13,5,5,5,5,20,20,1,1,1,1,5,5,5,1,1,1,20,20,20,20,20,20,
16,9,9,16,16,9,9,9,16,16,16,16,9,9,5,21,6,29,30,7,15,22,22,30,11,2,17,18,3,30,30,7,7,7,30,14,28,28,
24,1,6,21,29,18,26,3,11,11,11,11,10,25,26,25,10,29,21,6,22,15,15,22,15,7,2,17,16,9,24,13,13,14,21,6,
29,18,26,3,26,18,3,2,3,18,18,18,3,29,21,6,2,2,14,25,10,17,26,25,17,14,13,28,24,26,10,13,28,28,13,2,
14,29,21,6,6,21,29,18,3,2,14,13,28,24,24,25,10,26,26,25,10,17,17,3,14,24,25,10,17,24,0,0,0,0,0,0,6,2,
14,17,21,29,25,10,28,28,24,13]},{"class":6,"root":8,"base":[8,17,10,2,7,7,7,15,8,8,18,19,15,5,6,23,8,
25,26,3,23,13,14,31,16,9,25,11,12,21,22,24],"shift":[0,0,0,0,1,1,1,0,0,0,0,0,1,0,0,0,0,0,0,0,1,0,0,0,
0,0,0,0,0,0,0,6],"scan_row":[3,4,3,4,5,3,5,2,2,4,6,6,5,6,7,7,7,2,1,1,1,0,1,0,1,0,1,3,2,2,2,3,3,3,4,4,
4,0,0,5,5,0,5,1,1,1,3,3,3,7,6,6,6,5,5,7,2,2,2,4,4,4,7,5,5,5,4,5,4,6,6,6,0,0,7,7,7,0,4,3,3,3,2,2,2,1,
1,0,5,6,4,0,1,0,4,2,2,2,4,4,4,6,6,6,5,5,6,7,7,7,1,1,1,3,3,3,4,4,5,5,5,5,7,7,7,6,6,0,0,0,3,3,6,6,6,0,
0,0,1,1,1,3,2,2,7,7,7,1,5,4,0,3,6,2,6,5,4,2,3,1,0,7,5,6,4,0,3,4,2,1,1,0,0,1,0,7,7,7,7,2,2,2,5,6,0,2,
3,1,0,1,2,7,7,7,7,6,5,4,5,5,6,6,6,5,4,1,3,3,3,4,4,4,3,2,0,1,5,5,5,3,4,4,3,3,2,2,2,7,7,7,6,6,6,2,2,5,
3,4,6,4,3,5,6,1,0,1,1,1,0,0,0,7,7,0,1,2],"scan_col":[15,8,8,15,15,23,8,23,15,23,15,8,23,23,15,23,8,8,
22,30,23,23,15,15,8,8,14,31,22,30,14,14,22,30,30,22,14,30,14,22,14,22,30,24,16,1,1,16,24,17,2,25,17,
2,25,25,16,24,1,1,16,24,2,16,24,1,25,17,2,16,24,1,24,16,16,24,1,1,17,2,25,17,2,25,17,2,25,2,31,31,31,
25,17,17,11,10,18,3,3,10,18,18,3,10,27,19,11,27,19,11,10,18,3,3,10,18,27,19,11,10,18,3,3,18,10,27,19,
10,18,3,27,19,22,30,14,29,21,13,13,21,29,11,27,19,0,31,9,0,0,0,0,0,0,0,9,9,9,9,9,9,9,26,26,26,4,26,
26,26,11,27,19,19,27,11,11,28,22,30,14,29,21,13,4,4,31,4,4,4,4,26,26,4,5,20,12,28,28,28,12,5,5,20,12,
20,5,7,13,29,21,13,29,21,28,28,28,28,21,29,13,5,20,12,20,12,5,20,12,21,29,13,21,29,13,6,7,6,6,6,6,7,
7,7,7,6,6,12,20,5,5,20,12,7,6,7,31,31]}]})json";

enum class Select { rtl, min_bits };

struct MpcSettings {
  Select select;
  std::string model;
};

const OptionTable<MpcSettings>& mpc_table() {
  using S = MpcSettings;
  static const OptionTable<S> t{
      option_choice("select", &S::select, "rtl", {{"rtl", Select::rtl}, {"min_bits", Select::min_bits}},
                    "module taken: most leading zero rows, ties to the higher class (the RTL), or fewest bits"),
      option_string("model", &S::model, "", "the fitted modules as JSON (memcomp.model/1); empty: not fitted")};
  return t;
}

class MPC final : public CodecImpl<MPC> {
 public:
  explicit MPC(const Options& o) : s_(mpc_table().parse(o, "mpc")) {
    if (!s_.model.empty()) load_model(s_.model);
  }

  Options options() const override { return mpc_table().write(s_); }
  Capabilities capabilities() const override {
    Capabilities c;
    c.needs_model = true;
    c.has_model = !mods_.empty();
    return c;
  }
  void check_block_bytes(std::size_t b) const override {
    memcomp::check_block_bytes(b);
    if (b != mpc::kBlockBytes)
      throw invalid_argument("mpc is defined for 32 B blocks only (SPEC 1.12), not " + std::to_string(b) +
                             " B: split larger blocks into 32 B sectors with memcomp.sectorize(blocks, 32)");
  }
  std::uint64_t max_compressed_bits(std::size_t) const override { return mpc::kClassBits + 256; }
  std::vector<ModeName> modes() const override {
    std::vector<ModeName> v{{0, "zero"}, {1, "word_repeat"}};
    for (const auto& c : mods_) v.push_back({static_cast<std::int16_t>(c.m.cls), "module" + std::to_string(c.m.cls)});
    v.push_back({7, "uncompressed"});
    return v;
  }

  SizeBreakdown measure(const std::uint8_t* blk, std::size_t) const override {
    SizeBreakdown s;
    s.header = mpc::kClassBits;
    if (mpc::is_all_zero(blk)) return s;
    if (mpc::is_word_repeated(blk)) {
      s.payload = 32;
      s.mode = 1;
      return s;
    }
    mpc::Rows rows{};
    mpc::RowSplit sp;
    const int k = choose(blk, rows, sp);
    if (sp.meta + sp.payload >= 256) {
      s.payload = 256;
      s.mode = 7;
      return s;
    }
    s.meta = sp.meta;
    s.payload = sp.payload;
    s.mode = static_cast<std::int16_t>(mods_[static_cast<std::size_t>(k)].m.cls);
    return s;
  }

  void measure_range(const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out,
                     CodecState*) const override {
    const auto kernel = mpc_kernels().measure_range;
    if (kernel != nullptr && forms_ != nullptr) return kernel(simd(), blocks, begin, end, out);
    CodecImpl<MPC>::measure_range(blocks, begin, end, out, nullptr);
  }

  std::uint32_t encode(const std::uint8_t* blk, std::size_t b, BitWriter& w) const override {
    check_block_bytes(b);
    if (mpc::is_all_zero(blk)) {
      w.write(0, 3);
      return 0;
    }
    if (mpc::is_word_repeated(blk)) {
      w.write(1, 3);
      w.write_bytes(blk, 4);
      return 0;
    }
    mpc::Rows rows{};
    mpc::RowSplit sp;
    const int k = choose(blk, rows, sp);
    if (sp.meta + sp.payload >= 256) {
      w.write(mpc::kRawClass, 3);
      w.write_bytes(blk, 32);
      return 0;
    }
    w.write(static_cast<std::uint64_t>(mods_[static_cast<std::size_t>(k)].m.cls), 3);
    mpc::write_rows(rows, w);
    return 0;
  }

  void decode(BitReader& in, std::uint32_t, std::uint8_t* out, std::size_t b) const override {
    check_block_bytes(b);
    const auto cls = static_cast<unsigned>(in.read(3));
    if (cls == 0) {
      std::memset(out, 0, 32);
      return;
    }
    if (cls == 1) {
      in.read_bytes(out, 4);
      for (std::size_t i = 4; i < 32; ++i) out[i] = out[i & 3];
      if (mpc::is_all_zero(out)) throw corrupt_stream("mpc: a class-1 block of zeros (class 0 codes it)");
      return;
    }
    if (cls == mpc::kRawClass) {
      in.read_bytes(out, 32);
    } else {
      const mpc::Compiled* c = module_of(cls);
      if (!c) throw corrupt_stream("mpc: class " + std::to_string(cls) + " names no module of the model");
      const std::size_t start = in.position();
      const mpc::Rows rows = read_rows(in);
      if (in.position() - start >= 256)
        throw corrupt_stream("mpc: " + std::to_string(in.position() - start) +
                             " bits of row codes (class 7 stores such blocks)");
      if (const auto kernel = mpc_kernels().inverse)
        kernel(simd(), static_cast<std::size_t>(c - mods_.data()), rows, out);
      else
        c->inverse(rows, out);
    }
    if (mpc::is_all_zero(out) || mpc::is_word_repeated(out))
      throw corrupt_stream("mpc: a class-" + std::to_string(cls) + " block that class 0 or 1 codes");
  }

 private:
  // mpc::read_rows, unchecked where the buffer holds the longest row codes; a stream that ran
  // past its end, or that the unchecked reads refuse, is read again, checked, for its error.
  static mpc::Rows read_rows(BitReader& in) {
    if (in.raw_room() >= mpc::kMaxRowBits + 64) {
      const BitReader from = in;
      try {
        const mpc::Rows rows = mpc::read_rows<true>(in);
        if (!in.overran()) return rows;
      } catch (const corrupt_stream&) {
      }
      in = from;
    }
    return mpc::read_rows(in);
  }

  // Index into mods_ of the chosen module, its rows and their split.
  int choose(const std::uint8_t* blk, mpc::Rows& rows, mpc::RowSplit& sp) const {
    require_model();
    if (const auto kernel = mpc_kernels().choose) return kernel(simd(), blk, rows, sp);
    const int k = choose_scalar(blk, rows);
    sp = mpc::split_bits(rows);
    return k;
  }

  int choose_scalar(const std::uint8_t* blk, mpc::Rows& rows) const {
    int best = 0;
    if (s_.select == Select::rtl) {
      std::array<std::uint64_t, 4> best_x{};
      best = choose_rtl(blk, best_x);
      rows = mods_[static_cast<std::size_t>(best)].rows(best_x);
      return best;
    }
    unsigned best_e = ~0u;
    for (std::size_t k = 0; k < mods_.size(); ++k) {
      const mpc::Rows r = mods_[k].transform(blk);
      const unsigned e = mpc::encoded_bits(r);
      if (e <= best_e) {
        best_e = e;
        best = static_cast<int>(k);
        rows = r;
      }
    }
    return best;
  }

  // The RTL rule: the most leading zero rows, classes ascending, >= gives ties to the higher.
  int choose_rtl(const std::uint8_t* blk, std::array<std::uint64_t, 4>& best_x) const noexcept {
    int best = 0;
    unsigned best_lz = 0;
    for (std::size_t k = 0; k < mods_.size(); ++k) {
      const auto x = mods_[k].cells(blk);
      const unsigned lz = mods_[k].leading_zero_rows(x);
      if (k == 0 || lz >= best_lz) {
        best_lz = lz;
        best = static_cast<int>(k);
        best_x = x;
      }
    }
    return best;
  }

  // What the kernels read (kernels/mpc.hpp).
  MpcView simd() const { return {&mods_, forms_.get(), s_.select == Select::rtl}; }

  const mpc::Compiled* module_of(unsigned cls) const noexcept {
    for (const auto& c : mods_)
      if (static_cast<unsigned>(c.m.cls) == cls) return &c;
    return nullptr;
  }

  void load_model(const std::string& text) {
    mpc::Model m = mpc::parse_model_text(text);
    s_.model = mpc::dump_model(m);
    std::sort(m.modules.begin(), m.modules.end(),
              [](const mpc::Module& a, const mpc::Module& b) { return a.cls < b.cls; });
    for (const auto& x : m.modules) mods_.emplace_back(x);
    forms_ = make_mpc_forms(mods_);
  }

  MpcSettings s_;                          ///< the model normalised once loaded
  std::vector<mpc::Compiled> mods_;        // by class, ascending
  std::shared_ptr<const MpcForms> forms_;  // the same modules in the kernels' forms (kernels/mpc.hpp)
};

std::unique_ptr<Codec> make_mpc(const Options& o) { return std::make_unique<MPC>(o); }

}  // namespace

void add_mpc_presets(std::vector<Preset>& out) {
  out.push_back(
      {"mpc.cal22_rtl",
       "mpc",
       "the five modules of the public CAL'22 RTL (Compressor.v), RTL module choice; bit-exact vs its stimulus",
       "none",
       {{"model", std::string(kCal22RtlModel)}},
       true,
       &make_mpc,
       &space_of<mpc_table>});
}

}  // namespace memcomp
