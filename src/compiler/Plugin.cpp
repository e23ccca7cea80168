//===- Plugin.cpp - The ck-lower pass as an opt plugin --------------------===//
//
//   opt -load-pass-plugin libCKPass.so -passes=ck-lower in.ll
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

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "CKPass", "0.1", [](PassBuilder &PB) {
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name != "ck-lower")
                    return false;
                  MPM.addPass(CooperativeKernelLoweringPass());
                  return true;
                });
          }};
}
