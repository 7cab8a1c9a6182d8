// memcomp codecs: MPC's kernel table (private; kernels/kernels.hpp): AVX2 in mpc_avx2.cpp,
// AVX-512 in mpc_avx512.cpp, both reading the model's modules in their forms (MpcForms, built
// once per model).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels.hpp"
#include "memcomp/codecs/mpc.hpp"
#include "memcomp/core/blocks.hpp"
#include "memcomp/core/size.hpp"

namespace memcomp {

struct MpcForms;  // mpc_avx2.hpp

/// A model as the kernels take it: its modules, by class ascending, the same in the kernels'
/// forms, and the module choice (select="rtl", else "min_bits").
struct MpcView {
  const std::vector<mpc::Compiled>* mods = nullptr;
  const MpcForms* forms = nullptr;
  bool rtl = true;
};

struct MpcKernels {
  /// Sizes of blocks [begin, end) (Codec::measure_range).
  void (*measure_range)(const MpcView&, const BlockView&, std::size_t begin, std::size_t end,
                        const SizeColumns& out) = nullptr;
  /// The chosen module's index, its rows and their split.
  int (*choose)(const MpcView&, const std::uint8_t* blk, mpc::Rows& rows, mpc::RowSplit& sp) = nullptr;
  /// mpc::Compiled::inverse of module k.
  void (*inverse)(const MpcView&, std::size_t k, const mpc::Rows& rows, std::uint8_t* out) = nullptr;
};

#if defined(MEMCOMP_X86_SIMD)
extern const MpcKernels kMpcAvx2;    // mpc_avx2.cpp
extern const MpcKernels kMpcAvx512;  // mpc_avx512.cpp
/// The modules in the kernels' forms.
std::shared_ptr<const MpcForms> make_mpc_forms(const std::vector<mpc::Compiled>& mods);
#else
inline std::shared_ptr<const MpcForms> make_mpc_forms(const std::vector<mpc::Compiled>&) { return nullptr; }
#endif

/// The table of the active tier.
inline const MpcKernels& mpc_kernels() noexcept {
  static constexpr MpcKernels scalar{};
#if defined(MEMCOMP_X86_SIMD)
  return pick_kernels(scalar, &kMpcAvx2, &kMpcAvx512);
#else
  return pick_kernels(scalar, nullptr, nullptr);
#endif
}

}  // namespace memcomp
