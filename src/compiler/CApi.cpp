//===- CApi.cpp - C ABI of the compiler passes (include/ck/compiler.h) ---===//

#include "ck/compiler.h"

#include "CooperativeKernels.hpp"
#include "SuspendFreeRegions.hpp"

#include "llvm/IR/Module.h"

#include <cstdlib>
#include <cstring>

int ck_lower_module(LLVMModuleRef module, char **log) {
  return ck_lower_module_for(module, CK_GROUPS_SCHEDULED, log);
}

int ck_lower_module_for(LLVMModuleRef module, enum ck_group_start start,
                        char **log) {
  std::string Log;
  bool Changed = false;
  llvm::Module &M = *llvm::unwrap(module);
  bool Ok = ck::lowerCooperativeKernels(
      M,
      start == CK_GROUPS_DISPATCHED ? ck::GroupStart::Dispatched
                                    : ck::GroupStart::Scheduled,
      Log, Changed);
  std::string Error;
  if (Ok && Changed && !ck::linkKernelSide(M, Error)) {
    Log += "error: internal error of the cooperative-kernel compiler: " +
           Error + "\n";
    Ok = false;
  }
  if (log)
    *log = Log.empty() ? nullptr : strdup(Log.c_str());
  return Ok ? 0 : 1;
}

void ck_free_log(char *log) { free(log); }

unsigned ck_outline_suspend_free_regions(LLVMModuleRef module) {
  return ck::outlineSuspendFreeRegions(*llvm::unwrap(module),
                                       ck::OutliningThresholds());
}
