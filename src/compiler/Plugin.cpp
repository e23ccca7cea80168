//===- Plugin.cpp - The ck-lower pass as an opt plugin --------------------===//
//
//   opt -load-pass-plugin libCKPass.so -passes=ck-lower in.ll
//   opt -load-pass-plugin libCKPass.so \
//       -passes=ck-lower,ck-link-kernel-side in.ll
//
// ck-lower leaves calls to the kernel side of the protocol; ck-link-kernel-side
// links and inlines it. Clover and rusticl run both (ck_lower_module).
//
//===----------------------------------------------------------------------===//

#include "CooperativeKernels.hpp"

#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace llvm;

namespace {

struct CooperativeKernelLoweringPass
    : PassInfoMixin<CooperativeKernelLoweringPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    std::string Log;
    bool Changed = false;
    const bool Lowered = ck::lowerCooperativeKernels(M, Log, Changed);
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
                  if (Name == "ck-link-kernel-side") {
                    MPM.addPass(KernelSideLinkingPass());
                    return true;
                  }
                  return false;
                });
          }};
}
