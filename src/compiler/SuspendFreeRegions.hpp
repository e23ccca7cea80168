//===- SuspendFreeRegions.hpp - Outline code between suspend points -------===//
//
// Before LLVM's CoroSplit: see SuspendFreeRegions.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef CK_COMPILER_SUSPEND_FREE_REGIONS_HPP
#define CK_COMPILER_SUSPEND_FREE_REGIONS_HPP

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace ck {

struct OutliningThresholds {
  /// Smaller coroutines split fast enough as they are.
  unsigned MinCoroutineBlocks = 512;
  /// A smaller region would cost a call and save too few blocks.
  unsigned MinRegionBlocks = 8;
};

/// Moves the maximal single-entry, single-exit regions of \p Coroutine that
/// hold no coroutine intrinsic into functions of their own; returns how
/// many. Does nothing to a function that is not a coroutine yet to split.
unsigned outlineSuspendFreeRegions(llvm::Function &Coroutine,
                                   const OutliningThresholds &Thresholds);

/// The same for every coroutine of \p M.
unsigned outlineSuspendFreeRegions(llvm::Module &M,
                                   const OutliningThresholds &Thresholds);

} // namespace ck

#endif
