//===- Plugin.cpp - The compiler passes as an opt plugin ------------------===//
//
//   opt -load-pass-plugin libCKPass.so -passes=ck-lower in.ll
//   opt -load-pass-plugin libCKPass.so -passes='ck-lower<dispatched>' in.ll
//   opt -load-pass-plugin libCKPass.so -passes=ck-lower,ck-link-kernel-side
//
// ck-lower leaves calls to the kernel side of the protocol; ck-link-kernel-side
// links and inlines it. Mesa's clc runs both for rusticl (ck_lower_module).
// ck-lower<dispatched> lowers for a driver that dispatches every work-group
// at once (ck::GroupStart::Dispatched).
//
//   opt -load-pass-plugin libCKPass.so -passes=ck-outline-suspend-free in.ll
//   opt -load-pass-plugin libCKPass.so -passes='ck-outline-suspend-free<P>'
//
// outlines the code between a coroutine's suspend points, as llvmpipe does
// before CoroSplit (ck_outline_suspend_free_regions); P, such as
// min-coroutine-blocks=0;min-region-blocks=2, replaces default thresholds.
//
//===----------------------------------------------------------------------===//

#include "CooperativeKernels.hpp"
#include "SuspendFreeRegions.hpp"

#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <optional>

using namespace llvm;

namespace {

struct CooperativeKernelLoweringPass
    : PassInfoMixin<CooperativeKernelLoweringPass> {
  ck::GroupStart Start = ck::GroupStart::Scheduled;
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    std::string Log;
    bool Changed = false;
    const bool Lowered = ck::lowerCooperativeKernels(M, Start, Log, Changed);
    errs() << Log;
    // A user error, not a crash: fail like a compiler.
    if (!Lowered)
      exit(1);
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};

struct KernelSideLinkingPass : PassInfoMixin<KernelSideLinkingPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    std::string Error;
    if (!ck::linkKernelSide(M, Error)) {
      errs() << "error: " << Error << "\n";
      exit(1);
    }
    return PreservedAnalyses::none();
  }
};

struct SuspendFreeRegionOutliningPass
    : PassInfoMixin<SuspendFreeRegionOutliningPass> {
  ck::OutliningThresholds Thresholds;
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    // Promotes allocas in large coroutines even where it outlines nothing.
    ck::outlineSuspendFreeRegions(M, Thresholds);
    return PreservedAnalyses::none();
  }
};

/// "NAME" or "NAME<key=N;...>" with the keys of the thresholds.
std::optional<ck::OutliningThresholds> parseOutliningPass(StringRef Name) {
  ck::OutliningThresholds Thresholds;
  if (!Name.consume_front("ck-outline-suspend-free"))
    return std::nullopt;
  if (Name.empty())
    return Thresholds;
  if (!Name.consume_front("<") || !Name.consume_back(">"))
    return std::nullopt;
  SmallVector<StringRef, 2> Params;
  Name.split(Params, ';', -1, false);
  for (StringRef Param : Params) {
    auto [Key, Value] = Param.split('=');
    unsigned N;
    if (Value.getAsInteger(10, N))
      return std::nullopt;
    if (Key == "min-coroutine-blocks")
      Thresholds.MinCoroutineBlocks = N;
    else if (Key == "min-region-blocks")
      Thresholds.MinRegionBlocks = N;
    else
      return std::nullopt;
  }
  return Thresholds;
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "CKPass", "0.1", [](PassBuilder &PB) {
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name == "ck-lower") {
                    MPM.addPass(CooperativeKernelLoweringPass());
                    return true;
                  }
                  if (Name == "ck-lower<dispatched>") {
                    MPM.addPass(CooperativeKernelLoweringPass{
                        {}, ck::GroupStart::Dispatched});
                    return true;
                  }
                  if (Name == "ck-link-kernel-side") {
                    MPM.addPass(KernelSideLinkingPass());
                    return true;
                  }
                  if (auto Thresholds = parseOutliningPass(Name)) {
                    MPM.addPass(SuspendFreeRegionOutliningPass{{}, *Thresholds});
                    return true;
                  }
                  return false;
                });
          }};
}
