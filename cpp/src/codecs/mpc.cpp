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
// Fast paths (simd.hpp), each equal to the scalar modules bit for bit: an AVX2 form (byte
// shuffles, 16-bit shifts, a bit permutation in eight passes) and an AVX-512 one (byte permutes,
// GF(2) affine maps of bytes, bit shuffles).
#include <algorithm>

#include "memcomp/codecs/families.hpp"
#include "memcomp/codecs/mpc.hpp"
#include "memcomp/core/simd.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>
#endif

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

#if defined(MEMCOMP_X86_SIMD)

// pshufb indexes that gather byte `from` into byte o from the low or the high half of a block
// (0x80 in the other: the shuffle writes 0 there; none: 0 in both).
inline void split_index(std::uint8_t* lo, std::uint8_t* hi, std::size_t o, unsigned from, bool none = false) {
  lo[o] = static_cast<std::uint8_t>(!none && from < 16 ? from : 0x80u);
  hi[o] = static_cast<std::uint8_t>(!none && from >= 16 ? from - 16 : 0x80u);
}

// A permutation of 256 bits held as 32 bytes: pass j sets bit j of every output byte o to the
// bit bit[j][o] (a one-bit mask) of input byte lo/hi[j][o].
struct alignas(32) BitPermutation {
  std::uint8_t lo[8][32] = {}, hi[8][32] = {}, bit[8][32] = {};
  void set(unsigned j, unsigned o, unsigned from_byte, unsigned from_mask) {
    split_index(lo[j], hi[j], o, from_byte);
    bit[j][o] = static_cast<std::uint8_t>(from_mask);
  }
};

// One module for the AVX2 path (run-time dispatched; equal to mpc::Compiled bit for bit, see the
// tests). XOR of adjacent planes is a Gray code of each residue column: cell (p, c) of X is bit
// 7-p of g[c] = col[c] ^ (col[c] >> 1) (column 0 as is), so the 256 cells stay one register of
// 32 bytes. Leading zero rows: tests against the cells of the first r rows (MPC::select_rtl). Rows
// and their inverse: a BitPermutation between the cells and the rows as little-endian 16-bit
// words (row i is bytes 2i, positions 8..15, and 2i+1, positions 0..7; bit j of a byte holds
// position 15 - j or 7 - j).
struct alignas(32) Avx2Module {
  std::uint8_t src_lo[32] = {}, src_hi[32] = {}, bsrc_lo[32] = {}, bsrc_hi[32] = {};
  // mpc::Compiled's shift groups: the bytes of group g are the base shifted left by grp_l[g] then
  // right by grp_r[g] as 16-bit lanes, masked by grp_m[g] (its columns and the bits that stay in
  // their byte); the bytes of no group (keep) are the base as it is.
  std::uint8_t grp_m[16][32] = {}, keep[32] = {};
  std::uint8_t before[16][32] = {};  // cells (byte c, bit 7-p) of the rows before row r
  BitPermutation scan = {}, unscan = {};
  std::uint8_t grp_l[16] = {}, grp_r[16] = {};
  unsigned ngrp;

  explicit Avx2Module(const mpc::Compiled& c) : ngrp(c.ngrp) {
    for (std::size_t k = 0; k < 32; ++k) {
      split_index(src_lo, src_hi, k, c.src[k]);
      split_index(bsrc_lo, bsrc_hi, k, c.bsrc[k], k == 0);  // column 0 (the root) has no prediction
    }
    std::memset(keep, 0xFF, 32);
    for (unsigned g = 0; g < ngrp; ++g) {
      const int sh = c.grp_shift[g];
      grp_l[g] = static_cast<std::uint8_t>(sh > 0 ? sh : 0);
      grp_r[g] = static_cast<std::uint8_t>(sh < 0 ? -sh : 0);
      const unsigned stay = ((0xFFu << grp_l[g]) & 0xFFu) >> grp_r[g];
      for (unsigned k = 0; k < 32; ++k) {
        grp_m[g][k] = static_cast<std::uint8_t>(c.grp_mask[g][k] & stay);
        keep[k] = static_cast<std::uint8_t>(keep[k] & ~c.grp_mask[g][k]);
      }
    }
    for (unsigned t = 0; t < mpc::kCells; ++t) {
      const unsigned p = c.m.scan_row[t], col = c.m.scan_col[t];
      for (unsigned r = t / 16 + 1; r < 16; ++r)
        before[r][col] = static_cast<std::uint8_t>(before[r][col] | (0x80u >> p));
    }
    for (unsigned j = 0; j < 8; ++j)
      for (unsigned o = 0; o < 32; ++o) {
        const unsigned t = 16 * (o / 2) + (o % 2 ? 7 : 15) - j;  // scan index of bit j of rows byte o
        scan.set(j, o, c.m.scan_col[t], 0x80u >> c.m.scan_row[t]);
        const unsigned u = c.inv[32 * (7 - j) + o], pos = u % 16;  // scan index of cell (7 - j, o)
        unscan.set(j, o, 2 * (u / 16) + (pos < 8 ? 1 : 0), 1u << (pos < 8 ? 7 - pos : 15 - pos));
      }
  }
};

namespace mpc_avx2 {

MEMCOMP_AVX2_INLINE __m256i ld(const std::uint8_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
MEMCOMP_AVX2_INLINE __m256i ldu(const std::uint8_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
MEMCOMP_AVX2_INLINE __m256i gather(__m256i lo, __m256i hi, const std::uint8_t* ilo, const std::uint8_t* ihi) {
  return _mm256_or_si256(_mm256_shuffle_epi8(lo, ld(ilo)), _mm256_shuffle_epi8(hi, ld(ihi)));
}

// The Gray-coded residue columns of the block whose halves lo, hi fill both lanes (G2: every
// module has at most 2 shift groups, applied without a loop; an absent one has no columns).
template <bool G2>
MEMCOMP_AVX2_INLINE __m256i cells(const Avx2Module& a, __m256i lo, __m256i hi) {
  const __m256i s = gather(lo, hi, a.src_lo, a.src_hi), b = gather(lo, hi, a.bsrc_lo, a.bsrc_hi);
  __m256i p = _mm256_and_si256(b, ld(a.keep));
  for (unsigned g = 0; g < (G2 ? 2 : a.ngrp); ++g) {
    const __m256i v =
        _mm256_srl_epi16(_mm256_sll_epi16(b, _mm_cvtsi32_si128(a.grp_l[g])), _mm_cvtsi32_si128(a.grp_r[g]));
    p = _mm256_or_si256(p, _mm256_and_si256(v, ld(a.grp_m[g])));
  }
  const __m256i col = _mm256_sub_epi8(s, p);
  const __m256i keep = _mm256_set_epi8(0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F,
                                       0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F,
                                       0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0);
  return _mm256_xor_si256(col, _mm256_and_si256(_mm256_srli_epi16(col, 1), keep));
}

// 1 when no cell of the rows before row r is set.
MEMCOMP_AVX2_INLINE unsigned none_before(const Avx2Module& a, __m256i g, unsigned r) {
  return static_cast<unsigned>(_mm256_testz_si256(g, ld(a.before[r])));
}

MEMCOMP_AVX2_INLINE __m256i permute(const BitPermutation& t, __m256i x) {
  const __m256i lo = _mm256_permute2x128_si256(x, x, 0x00), hi = _mm256_permute2x128_si256(x, x, 0x11);
  __m256i acc = _mm256_setzero_si256();
  for (unsigned j = 0; j < 8; ++j) {
    const __m256i m = ld(t.bit[j]);
    const __m256i hit = _mm256_cmpeq_epi8(_mm256_and_si256(gather(lo, hi, t.lo[j], t.hi[j]), m), m);
    acc = _mm256_or_si256(acc, _mm256_and_si256(hit, _mm256_set1_epi8(static_cast<char>(1u << j))));
  }
  return acc;
}

// The 16 rows as 16-bit lanes (lane i = row i).
MEMCOMP_AVX2_INLINE __m256i rows(const Avx2Module& a, __m256i g) { return permute(a.scan, g); }

// mpc::Compiled::inverse: the Gray-coded columns from the rows, a prefix XOR of each byte but
// column 0, then the bytes in decoding order.
MEMCOMP_AVX2_INLINE void inverse(const Avx2Module& a, const mpc::Compiled& c, const mpc::Rows& r, std::uint8_t* out) {
  const __m256i g = permute(a.unscan, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r.data())));
  __m256i x = g;
  x = _mm256_xor_si256(x, _mm256_and_si256(_mm256_srli_epi16(x, 1), _mm256_set1_epi8(0x7F)));
  x = _mm256_xor_si256(x, _mm256_and_si256(_mm256_srli_epi16(x, 2), _mm256_set1_epi8(0x3F)));
  x = _mm256_xor_si256(x, _mm256_and_si256(_mm256_srli_epi16(x, 4), _mm256_set1_epi8(0x0F)));
  alignas(32) std::uint8_t col[32];
  _mm256_store_si256(reinterpret_cast<__m256i*>(col), x);
  col[0] = static_cast<std::uint8_t>(_mm256_extract_epi8(g, 0));
  c.unpredict(col, out);
}

MEMCOMP_AVX2_INLINE unsigned rows_where(__m256i x) {  // bit 2i: lane i is all ones
  return static_cast<unsigned>(_mm256_movemask_epi8(x)) & 0x55555555u;
}

// mpc::split_bits of the rows in r: row classes as masks (bit 2i = row i), then counts.
MEMCOMP_AVX2_INLINE mpc::RowSplit split(__m256i r) {
  const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi16(1);
  const __m256i w = _mm256_and_si256(r, _mm256_sub_epi16(r, one));
  const unsigned z = rows_where(_mm256_cmpeq_epi16(r, zero));
  const unsigned p1 = rows_where(_mm256_cmpeq_epi16(w, zero));  // at most one 1
  const unsigned p2 = rows_where(_mm256_cmpeq_epi16(_mm256_and_si256(w, _mm256_sub_epi16(w, one)), zero));
  const unsigned nadj = rows_where(_mm256_cmpeq_epi16(_mm256_and_si256(r, _mm256_slli_epi16(r, 1)), zero));
  const unsigned half =
      rows_where(_mm256_or_si256(_mm256_cmpeq_epi16(_mm256_and_si256(r, _mm256_set1_epi16(-256)), zero),
                                 _mm256_cmpeq_epi16(_mm256_and_si256(r, _mm256_set1_epi16(255)), zero)));
  const unsigned c7 = p1 & ~z, c8 = p2 & ~p1 & ~nadj, c12 = half & ~p1 & ~c8, c17 = ~(p1 | c8 | half) & 0x55555555u;
  const unsigned starts = z & ~(z << 2), single = starts & ~(z >> 2);
  const auto n1 = static_cast<unsigned>(_mm_popcnt_u32(single)),
             n2 = static_cast<unsigned>(_mm_popcnt_u32(starts)) - n1;
  const auto k7 = static_cast<unsigned>(_mm_popcnt_u32(c7)), k8 = static_cast<unsigned>(_mm_popcnt_u32(c8));
  const auto k12 = static_cast<unsigned>(_mm_popcnt_u32(c12)), k17 = static_cast<unsigned>(_mm_popcnt_u32(c17));
  return {3 * k7 + 4 * k8 + 4 * k12 + k17 + 4 * n1 + 3 * n2, 4 * k7 + 4 * k8 + 8 * k12 + 16 * k17 + 4 * n2};
}

}  // namespace mpc_avx2

// The GF2P8AFFINEQB matrix that sets bit i of each byte to the XOR of the bits in rows[i].
std::uint64_t affine_matrix(const std::array<unsigned, 8>& rows) {
  std::uint64_t m = 0;
  for (unsigned i = 0; i < 8; ++i) m |= static_cast<std::uint64_t>(rows[i] & 0xFFu) << (8 * (7 - i));
  return m;
}
// A byte shifted by s (> 0 left, < 0 right, |s| >= 8: 0).
std::uint64_t shift_matrix(int s) {
  std::array<unsigned, 8> rows{};
  for (int i = 0; i < 8; ++i)
    if (i - s >= 0 && i - s < 8) rows[static_cast<unsigned>(i)] = 1u << (i - s);
  return affine_matrix(rows);
}
const std::uint64_t kGrayMatrix = affine_matrix({3, 6, 12, 24, 48, 96, 192, 128});            // x ^ (x >> 1)
const std::uint64_t kPrefixMatrix = affine_matrix({255, 254, 252, 248, 240, 224, 192, 128});  // its inverse

// A BitPermutation as four VPSHUFBITQMB of 64 bits (output bytes 8m..8m+7), each from a byte
// permute that brings output byte o's (at most 8) source bytes into its 64-bit lane.
struct alignas(64) BitShuffle {
  std::uint8_t idx[4][64] = {}, ctl[4][64] = {};
  explicit BitShuffle(const BitPermutation& t) {
    for (unsigned o = 0; o < 32; ++o) {
      const unsigned m = o / 8, q = o % 8;
      std::uint8_t from[8] = {};
      unsigned used = 0;
      for (unsigned j = 0; j < 8; ++j) {
        const unsigned byte = t.lo[j][o] < 0x80 ? t.lo[j][o] : t.hi[j][o] + 16u;
        unsigned s = 0;
        while (s < used && from[s] != byte) ++s;
        if (s == used) from[used++] = static_cast<std::uint8_t>(byte);
        ctl[m][8 * q + j] = static_cast<std::uint8_t>(8 * s + static_cast<unsigned>(__builtin_ctz(t.bit[j][o])));
      }
      std::memcpy(&idx[m][8 * q], from, 8);
    }
  }
};

// One module for the AVX-512 path (simd_avx512(); equal to the AVX2 form bit for bit, see the
// tests): the gathers are byte permutes, the shifts and the Gray code affine maps of bytes, the
// rows and their inverse BitShuffles; the search over rows is mpc_avx2's.
struct alignas(64) Avx512Module {
  BitShuffle scan, unscan;
  std::uint8_t src[32] = {}, bsrc[32] = {};
  std::uint64_t grp_matrix[16] = {};
  std::uint32_t grp_k[16] = {};
  unsigned ngrp;

  Avx512Module(const mpc::Compiled& c, const Avx2Module& a) : scan(a.scan), unscan(a.unscan), ngrp(c.ngrp) {
    std::memcpy(src, c.src.data(), 32);
    std::memcpy(bsrc, c.bsrc.data(), 32);
    for (unsigned g = 0; g < ngrp; ++g) {
      grp_matrix[g] = shift_matrix(c.grp_shift[g]);
      for (unsigned k = 0; k < 32; ++k) grp_k[g] |= (c.grp_mask[g][k] ? 1u : 0u) << k;
    }
  }
};

namespace mpc_avx512 {

MEMCOMP_AVX512_INLINE __m256i shuffle_bits(const BitShuffle& t, __m256i x) {
  const __m512i z = _mm512_castsi256_si512(x);  // (the permutes read bytes 0..31 only)
  std::uint64_t q[4];
  for (unsigned m = 0; m < 4; ++m)
    q[m] = _cvtmask64_u64(_mm512_bitshuffle_epi64_mask(
        _mm512_maskz_permutexvar_epi8(~0ull, _mm512_load_si512(t.idx[m]), z), _mm512_load_si512(t.ctl[m])));
  return _mm256_set_epi64x(static_cast<long long>(q[3]), static_cast<long long>(q[2]), static_cast<long long>(q[1]),
                           static_cast<long long>(q[0]));
}

// mpc_avx2::cells of the block v (G2: every module has at most 2 shift groups, applied without a
// loop; an absent one has no columns).
template <bool G2>
MEMCOMP_AVX512_INLINE __m256i cells(const Avx512Module& a, __m256i v) {
  const __m256i s = _mm256_maskz_permutexvar_epi8(~0u, _mm256_load_si256(reinterpret_cast<const __m256i*>(a.src)), v);
  const __m256i b =  // column 0 (the root) has no prediction
      _mm256_maskz_permutexvar_epi8(~1u, _mm256_load_si256(reinterpret_cast<const __m256i*>(a.bsrc)), v);
  __m256i p = b;
  for (unsigned g = 0; g < (G2 ? 2 : a.ngrp); ++g)
    p = _mm256_mask_mov_epi8(
        p, a.grp_k[g],
        _mm256_gf2p8affine_epi64_epi8(b, _mm256_set1_epi64x(static_cast<long long>(a.grp_matrix[g])), 0));
  const __m256i col = _mm256_sub_epi8(s, p);
  return _mm256_mask_gf2p8affine_epi64_epi8(col, ~1u, col, _mm256_set1_epi64x(static_cast<long long>(kGrayMatrix)), 0);
}

MEMCOMP_AVX512_INLINE __m256i rows(const Avx512Module& a, __m256i g) { return shuffle_bits(a.scan, g); }

// mpc_avx2::inverse.
MEMCOMP_AVX512_INLINE void inverse(const Avx512Module& a, const mpc::Compiled& c, const mpc::Rows& r,
                                   std::uint8_t* out) {
  const __m256i g = shuffle_bits(a.unscan, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r.data())));
  alignas(32) std::uint8_t col[32];
  _mm256_store_si256(
      reinterpret_cast<__m256i*>(col),
      _mm256_mask_gf2p8affine_epi64_epi8(g, ~1u, g, _mm256_set1_epi64x(static_cast<long long>(kPrefixMatrix)), 0));
  c.unpredict(col, out);
}

}  // namespace mpc_avx512
#endif

enum class Select { rtl, min_bits };

class MPC final : public CodecImpl<MPC> {
 public:
  explicit MPC(const Options& o) {
    OptionReader r(o, "mpc");
    select_ = r.get_choice("select", "rtl", {"rtl", "min_bits"}) == "min_bits" ? Select::min_bits : Select::rtl;
    const std::string model = r.get_string("model", "");
    r.finish();
    if (!model.empty()) load_model(model);
  }

  Options options() const override {
    return {{"select", std::string(select_ == Select::rtl ? "rtl" : "min_bits")}, {"model", model_text_}};
  }
  bool needs_model() const override { return true; }
  bool has_model() const override { return !mods_.empty(); }
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

  void measure_range(const BlockView& blocks, std::size_t begin, std::size_t end,
                     const SizeColumns& out) const override {
#if defined(MEMCOMP_X86_SIMD)
    if (simd_avx512()) return measure_avx512(blocks, begin, end, out);
    if (simd_avx2()) return measure_avx2(blocks, begin, end, out);
#endif
    CodecImpl<MPC>::measure_range(blocks, begin, end, out);
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
#if defined(MEMCOMP_X86_SIMD)
      if (simd_avx512())
        inverse_avx512(static_cast<std::size_t>(c - mods_.data()), rows, out);
      else if (simd_avx2())
        inverse_avx2(static_cast<std::size_t>(c - mods_.data()), rows, out);
      else
#endif
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
#if defined(MEMCOMP_X86_SIMD)
    if (simd_avx512()) return choose_avx512(blk, rows, sp);
    if (simd_avx2()) return choose_avx2(blk, rows, sp);
#endif
    const int k = choose_scalar(blk, rows);
    sp = mpc::split_bits(rows);
    return k;
  }

  int choose_scalar(const std::uint8_t* blk, mpc::Rows& rows) const {
    int best = 0;
    if (select_ == Select::rtl) {
      std::array<std::uint64_t, 4> best_x{};
#if defined(MEMCOMP_MPC_SSSE3)
      if (simd_avx2())  // SSSE3: every CPU of the avx2 tier has it
        best = choose_rtl_ssse3(blk, best_x);
      else
#endif
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
#if defined(MEMCOMP_MPC_SSSE3)
  __attribute__((target("ssse3"))) int choose_rtl_ssse3(const std::uint8_t* blk,
                                                        std::array<std::uint64_t, 4>& best_x) const noexcept {
    int best = 0;
    unsigned best_lz = 0;
    for (std::size_t k = 0; k < mods_.size(); ++k) {
      const auto x = mods_[k].cells_ssse3(blk);
      const unsigned lz = mods_[k].leading_zero_rows(x);
      if (k == 0 || lz >= best_lz) {
        best_lz = lz;
        best = static_cast<int>(k);
        best_x = x;
      }
    }
    return best;
  }
#endif
#if defined(MEMCOMP_X86_SIMD)
  // Both rules on the AVX2 form of the modules (ties to the higher class either way): the index
  // of the chosen module, its rows in `rows` and their split.
  template <std::size_t N = 0, bool G2 = false>
  MEMCOMP_AVX2_INLINE int pick_avx2(__m256i v, __m256i& rows, mpc::RowSplit& sp) const {
    if (select_ == Select::rtl) {
      __m256i g;
      const int best = select_rtl<N, G2>(v, g);
      rows = mpc_avx2::rows(avx2_[static_cast<std::size_t>(best)], g);
      sp = mpc_avx2::split(rows);
      return best;
    }
    const __m256i lo = _mm256_permute2x128_si256(v, v, 0x00), hi = _mm256_permute2x128_si256(v, v, 0x11);
    const std::size_t n = avx2_.size();
    int best = 0;
    unsigned best_e = ~0u;
    for (std::size_t k = 0; k < n; ++k)
      keep_smaller(k, mpc_avx2::rows(avx2_[k], mpc_avx2::cells<G2>(avx2_[k], lo, hi)), best, best_e, rows, sp);
    return best;
  }

  // A step of the min_bits rule: module k, whose rows are r, becomes the best when its E is no
  // larger (ties to the higher class).
  MEMCOMP_AVX2_INLINE static void keep_smaller(std::size_t k, __m256i r, int& best, unsigned& best_e, __m256i& rows,
                                               mpc::RowSplit& sp) {
    const mpc::RowSplit s = mpc_avx2::split(r);
    if (s.meta + s.payload <= best_e) {
      best_e = s.meta + s.payload;
      best = static_cast<int>(k);
      rows = r;
      sp = s;
    }
  }

  // Records the sizes of block i, coded by module k with rows r.
  MEMCOMP_AVX2_INLINE void set_sizes(const SizeColumns& out, std::size_t i, int k, __m256i r) const {
    out.set(i, sizes_of(k, mpc_avx2::split(r)));
  }

  // The RTL rule: every module's cells and leading zero rows, then a branch-free pick; the index
  // of the chosen module and its cells in g.
  template <std::size_t N = 0, bool G2 = false>
  MEMCOMP_AVX2_INLINE int select_rtl(__m256i v, __m256i& g) const {
    const __m256i lo = _mm256_permute2x128_si256(v, v, 0x00), hi = _mm256_permute2x128_si256(v, v, 0x11);
    const std::size_t n = N ? N : avx2_.size();
    if (n == 0 || n > 5) __builtin_unreachable();  // a model has 1 to 5 modules
    __m256i cells[5];
    for (std::size_t k = 0; k < n; ++k) cells[k] = mpc_avx2::cells<G2>(avx2_[k], lo, hi);
    const int best = most_leading_zero_rows(cells, n);
    g = cells[best];
    return best;
  }

  // One binary search over the rows for all n modules' cells: the most leading zero rows any
  // module has and, bit k, the modules that have them; the highest such module wins.
  MEMCOMP_AVX2_INLINE int most_leading_zero_rows(const __m256i* cells, std::size_t n) const {
    if (n == 0 || n > 5) __builtin_unreachable();  // a model has 1 to 5 modules
    unsigned most = 0, have = (1u << n) - 1;
    for (unsigned step = 8; step; step >>= 1) {
      const unsigned r = most + step;
      unsigned ok = 0;
      for (std::size_t k = 0; k < n; ++k) ok |= mpc_avx2::none_before(avx2_[k], cells[k], r) << k;
      most = ok ? r : most;
      have = ok ? ok : have;
    }
    return 31 - __builtin_clz(have);
  }

  MEMCOMP_AVX2 void inverse_avx2(std::size_t k, const mpc::Rows& rows, std::uint8_t* out) const {
    mpc_avx2::inverse(avx2_[k], mods_[k], rows, out);
  }

  MEMCOMP_AVX2 int choose_avx2(const std::uint8_t* blk, mpc::Rows& rows, mpc::RowSplit& sp) const {
    __m256i r = _mm256_setzero_si256();
    const int k = pick_avx2(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)), r, sp);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(rows.data()), r);
    return k;
  }

  SizeBreakdown sizes_of(int k, const mpc::RowSplit& sp) const {
    SizeBreakdown s;
    s.header = mpc::kClassBits;
    const bool raw = sp.meta + sp.payload >= 256;
    s.meta = raw ? 0 : sp.meta;
    s.payload = raw ? 256 : sp.payload;
    s.mode = static_cast<std::int16_t>(raw ? 7 : mods_[static_cast<std::size_t>(k)].m.cls);
    return s;
  }

  // Measures blocks [c, stop) of classes 0 and 1; the others' offsets from c go to todo (kChunk
  // at most), their count is returned.
  static constexpr std::size_t kChunk = 256;
  MEMCOMP_AVX2_INLINE static std::size_t measure_simple(const BlockView& blocks, std::size_t c, std::size_t stop,
                                                        const SizeColumns& out, std::uint32_t* todo) {
    std::size_t n = 0;
    for (std::size_t i = c; i < stop; ++i) {
      const __m256i v = mpc_avx2::ldu(blocks.block(i));
      SizeBreakdown s;
      s.header = mpc::kClassBits;
      if (_mm256_testz_si256(v, v)) {
        out.set(i, s);
      } else if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(v, _mm256_broadcastd_epi32(_mm256_castsi256_si128(v)))) ==
                 -1) {
        s.payload = 32;
        s.mode = 1;
        out.set(i, s);
      } else {
        todo[n++] = static_cast<std::uint32_t>(i - c);
      }
    }
    return n;
  }

  // Classes 0 and 1 first, then the other blocks of a chunk two at a time under the RTL rule (the
  // rows and split of one overlap the module search of the other).
  MEMCOMP_AVX2 void measure_avx2(const BlockView& blocks, std::size_t begin, std::size_t end,
                                 const SizeColumns& out) const {
    if (avx2_.size() == 5 && g2_) return measure_avx2_n<5, true>(blocks, begin, end, out);
    measure_avx2_n<0, false>(blocks, begin, end, out);
  }
  template <std::size_t N, bool G2>
  MEMCOMP_AVX2_INLINE void measure_avx2_n(const BlockView& blocks, std::size_t begin, std::size_t end,
                                          const SizeColumns& out) const {
    std::uint32_t todo[kChunk];
    for (std::size_t c = begin; c < end; c += kChunk) {
      const std::size_t n = measure_simple(blocks, c, std::min(end, c + kChunk), out, todo);
      std::size_t j = 0;
      if (select_ == Select::rtl) {
        for (; j + 2 <= n; j += 2) {
          const std::size_t a = c + todo[j], b = c + todo[j + 1];
          __m256i ga, gb;
          const int ka = select_rtl<N, G2>(mpc_avx2::ldu(blocks.block(a)), ga),
                    kb = select_rtl<N, G2>(mpc_avx2::ldu(blocks.block(b)), gb);
          set_sizes(out, a, ka, mpc_avx2::rows(avx2_[static_cast<std::size_t>(ka)], ga));
          set_sizes(out, b, kb, mpc_avx2::rows(avx2_[static_cast<std::size_t>(kb)], gb));
        }
      }
      for (; j < n; ++j) {
        __m256i r = _mm256_setzero_si256();
        mpc::RowSplit sp;
        const int k = pick_avx2<N, G2>(mpc_avx2::ldu(blocks.block(c + todo[j])), r, sp);
        out.set(c + todo[j], sizes_of(k, sp));
      }
    }
  }

  // pick_avx2 on the AVX-512 form of the modules (N: their number when known at compile time).
  template <std::size_t N = 0, bool G2 = false>
  MEMCOMP_AVX512_INLINE int pick_avx512(__m256i v, __m256i& rows, mpc::RowSplit& sp) const {
    if (select_ == Select::rtl) {
      __m256i g;
      const int best = select_rtl512<N, G2>(v, g);
      rows = mpc_avx512::rows(avx512_[static_cast<std::size_t>(best)], g);
      sp = mpc_avx2::split(rows);
      return best;
    }
    const std::size_t n = avx512_.size();
    int best = 0;
    unsigned best_e = ~0u;
    for (std::size_t k = 0; k < n; ++k)
      keep_smaller(k, mpc_avx512::rows(avx512_[k], mpc_avx512::cells<G2>(avx512_[k], v)), best, best_e, rows, sp);
    return best;
  }

  // select_rtl on the AVX-512 form of the modules.
  template <std::size_t N = 0, bool G2 = false>
  MEMCOMP_AVX512_INLINE int select_rtl512(__m256i v, __m256i& g) const {
    const std::size_t n = N ? N : avx512_.size();
    if (n == 0 || n > 5) __builtin_unreachable();  // a model has 1 to 5 modules
    __m256i cells[5];
    for (std::size_t k = 0; k < n; ++k) cells[k] = mpc_avx512::cells<G2>(avx512_[k], v);
    const int best = most_leading_zero_rows(cells, n);
    g = cells[best];
    return best;
  }

  MEMCOMP_AVX512 int choose_avx512(const std::uint8_t* blk, mpc::Rows& rows, mpc::RowSplit& sp) const {
    __m256i r = _mm256_setzero_si256();
    const int k = pick_avx512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)), r, sp);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(rows.data()), r);
    return k;
  }

  MEMCOMP_AVX512 void inverse_avx512(std::size_t k, const mpc::Rows& rows, std::uint8_t* out) const {
    mpc_avx512::inverse(avx512_[k], mods_[k], rows, out);
  }

  MEMCOMP_AVX512 void measure_avx512(const BlockView& blocks, std::size_t begin, std::size_t end,
                                     const SizeColumns& out) const {
    if (avx512_.size() == 5 && g2_) return measure_avx512_n<5, true>(blocks, begin, end, out);
    measure_avx512_n<0, false>(blocks, begin, end, out);
  }
  template <std::size_t N, bool G2>
  MEMCOMP_AVX512_INLINE void measure_avx512_n(const BlockView& blocks, std::size_t begin, std::size_t end,
                                              const SizeColumns& out) const {
    std::uint32_t todo[kChunk];
    for (std::size_t c = begin; c < end; c += kChunk) {
      const std::size_t n = measure_simple(blocks, c, std::min(end, c + kChunk), out, todo);
      std::size_t j = 0;
      if (select_ == Select::rtl) {  // two at a time, as measure_avx2
        for (; j + 2 <= n; j += 2) {
          const std::size_t a = c + todo[j], b = c + todo[j + 1];
          __m256i ga, gb;
          const int ka = select_rtl512<N, G2>(mpc_avx2::ldu(blocks.block(a)), ga),
                    kb = select_rtl512<N, G2>(mpc_avx2::ldu(blocks.block(b)), gb);
          set_sizes(out, a, ka, mpc_avx512::rows(avx512_[static_cast<std::size_t>(ka)], ga));
          set_sizes(out, b, kb, mpc_avx512::rows(avx512_[static_cast<std::size_t>(kb)], gb));
        }
      }
      for (; j < n; ++j) {
        __m256i r;
        mpc::RowSplit sp;
        const int k = pick_avx512<N, G2>(mpc_avx2::ldu(blocks.block(c + todo[j])), r, sp);
        out.set(c + todo[j], sizes_of(k, sp));
      }
    }
  }
#endif

  const mpc::Compiled* module_of(unsigned cls) const noexcept {
    for (const auto& c : mods_)
      if (static_cast<unsigned>(c.m.cls) == cls) return &c;
    return nullptr;
  }

  void load_model(const std::string& text) {
    mpc::Model m = mpc::parse_model_text(text);
    model_text_ = mpc::dump_model(m);
    std::sort(m.modules.begin(), m.modules.end(),
              [](const mpc::Module& a, const mpc::Module& b) { return a.cls < b.cls; });
    for (const auto& x : m.modules) mods_.emplace_back(x);
#if defined(MEMCOMP_X86_SIMD)
    for (const auto& c : mods_) avx2_.emplace_back(c);
    for (std::size_t k = 0; k < mods_.size(); ++k) avx512_.emplace_back(mods_[k], avx2_[k]);
    g2_ = std::all_of(mods_.begin(), mods_.end(), [](const mpc::Compiled& c) { return c.ngrp <= 2; });
#endif
  }

  Select select_ = Select::rtl;
  std::string model_text_;
  std::vector<mpc::Compiled> mods_;  // by class, ascending
#if defined(MEMCOMP_X86_SIMD)
  std::vector<Avx2Module> avx2_;      // the same modules, for the AVX2 path
  std::vector<Avx512Module> avx512_;  // and the AVX-512 path
  bool g2_ = false;                   // every module has at most 2 shift groups
#endif
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
       &make_mpc});
}

}  // namespace memcomp
