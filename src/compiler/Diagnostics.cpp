//===- Diagnostics.cpp - Rules a cooperative kernel must follow -----------===//
//
// Uniformity: a builtin must not be reached in control flow that depends on
// the local id (workgroup-uniform builtins) or on any id (global barriers).
// A flow-insensitive taint analysis marks the values derived from the ids,
// through SSA and through the allocas that tainted values are stored to;
// a block is divergent when it is control-dependent (post-dominance
// frontier) on a tainted branch or on any branch in a divergent block, and
// stores in divergent blocks taint the allocas they write (not local or
// global memory, through which thread 0 broadcasts to the workgroup).
//
// Transmit: a `transmit` variable must be declared in the kernel's root
// scope, which we check soundly as: its annotation is in the kernel's own
// body (not inlined from a helper) and, like its alloca, in the entry block,
// that is, before any control flow. Its type must be copyable to another
// workgroup: no pointers to private, local or generic memory, at any depth.
//
//===----------------------------------------------------------------------===//

#include "CooperativeKernels.hpp"

#include "ck/context.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace ck {
namespace {

enum class IdSources { LocalIds, AnyIds };

bool isIdSource(const Instruction &I, IdSources Sources) {
  const auto *Call = dyn_cast<CallBase>(&I);
  const Function *Callee = Call ? Call->getCalledFunction() : nullptr;
  if (!Callee)
    return false;
  return StringSwitch<bool>(Callee->getName())
      .Cases("_Z12get_local_idj", "_Z13get_global_idj",
             "_Z19get_local_linear_idv", "_Z20get_global_linear_idv", true)
      .Case("_Z12get_group_idj", Sources == IdSources::AnyIds)
      .Default(false);
}

class DivergenceAnalysis {
public:
  DivergenceAnalysis(Function &F, const PostDominatorTree &PDT,
                     IdSources Sources);
  bool isDivergent(const BasicBlock &BB) const {
    return DivergentBlocks.count(&BB);
  }

private:
  void taint(const Value &V);
  void propagate();
  void markControlledBlocks(const Instruction &Branch);

  const PostDominatorTree &PDT;
  SmallPtrSet<const Value *, 32> Tainted;
  SmallPtrSet<const BasicBlock *, 16> DivergentBlocks;
  SmallVector<const Value *, 32> Worklist;
};

DivergenceAnalysis::DivergenceAnalysis(Function &F,
                                       const PostDominatorTree &PDT,
                                       IdSources Sources)
    : PDT(PDT) {
  for (Instruction &I : instructions(F))
    if (isIdSource(I, Sources))
      taint(I);
  propagate();
}

void DivergenceAnalysis::taint(const Value &V) {
  if (Tainted.insert(&V).second)
    Worklist.push_back(&V);
}

void DivergenceAnalysis::propagate() {
  while (!Worklist.empty()) {
    const Value *V = Worklist.pop_back_val();
    for (const User *U : V->users()) {
      const auto *I = dyn_cast<Instruction>(U);
      if (!I)
        continue;
      if (const auto *Store = dyn_cast<StoreInst>(I)) {
        if (Store->getValueOperand() == V)
          taint(*getUnderlyingObject(Store->getPointerOperand()));
      } else if (I->isTerminator()) {
        if (isa<BranchInst>(I) || isa<SwitchInst>(I))
          markControlledBlocks(*I);
      } else {
        taint(*I);
      }
    }
  }
}

/// Marks the blocks control-dependent on \p Branch: for each successor,
/// the post-dominator tree path up to (not including) the branch block's
/// immediate post-dominator.
void DivergenceAnalysis::markControlledBlocks(const Instruction &Branch) {
  const DomTreeNode *BranchNode = PDT.getNode(Branch.getParent());
  if (!BranchNode)
    return;
  const DomTreeNode *Stop = BranchNode->getIDom();
  for (const BasicBlock *Successor : successors(Branch.getParent())) {
    for (const DomTreeNode *N = PDT.getNode(Successor); N && N != Stop;
         N = N->getIDom()) {
      const BasicBlock *BB = N->getBlock();
      if (!BB || !DivergentBlocks.insert(BB).second)
        continue;
      // Only some threads get here: what they store in their private
      // variables and the branches they take are divergent, and so are the
      // merges of the paths. (A store to local or global memory is not: one
      // thread writing a value that all read after a barrier is how a
      // workgroup broadcasts.)
      for (const Instruction &I : *BB) {
        if (const auto *Store = dyn_cast<StoreInst>(&I)) {
          const Value *Object = getUnderlyingObject(Store->getPointerOperand());
          if (isa<AllocaInst>(Object))
            taint(*Object);
        }
        else if (I.isTerminator() && I.getNumSuccessors() > 1)
          markControlledBlocks(I);
      }
      for (const BasicBlock *Next : successors(BB))
        for (const PHINode &Phi : Next->phis())
          taint(Phi);
    }
  }
}

bool isTransmittable(Type *T) {
  if (auto *Pointer = dyn_cast<PointerType>(T))
    return Pointer->getAddressSpace() == 1 || Pointer->getAddressSpace() == 2;
  if (auto *Array = dyn_cast<ArrayType>(T))
    return isTransmittable(Array->getElementType());
  if (auto *Vector = dyn_cast<VectorType>(T))
    return isTransmittable(Vector->getElementType());
  if (auto *Struct = dyn_cast<StructType>(T))
    return all_of(Struct->elements(), isTransmittable);
  return T->isSized();
}

} // namespace

void checkUniformControlFlow(Function &Kernel, DiagnosticLog &Log) {
  PostDominatorTree PDT(Kernel);
  DivergenceAnalysis InWorkgroup(Kernel, PDT, IdSources::LocalIds);
  DivergenceAnalysis InKernel(Kernel, PDT, IdSources::AnyIds);
  for (Instruction &I : instructions(Kernel)) {
    auto *Call = dyn_cast<CallBase>(&I);
    std::optional<Builtin> B = Call ? getCalledBuiltin(*Call) : std::nullopt;
    if (!B)
      continue;
    if (InWorkgroup.isDivergent(*I.getParent())) {
      Log.error(I,
                "'" + getBuiltinName(*B) +
                    "' is reached in control flow that depends on the local "
                    "id, so not all threads of a workgroup reach it",
                "workgroup-uniform control flow");
    } else if ((*B == Builtin::GlobalBarrier ||
                *B == Builtin::ResizingGlobalBarrier) &&
               InKernel.isDivergent(*I.getParent())) {
      Log.error(I,
                "'" + getBuiltinName(*B) +
                    "' is reached in control flow that depends on the "
                    "workgroup or thread id, so not all workgroups reach it",
                "kernel-uniform control flow");
    }
  }
}

TransmitRecord
layOutTransmitRecord(Function &Kernel,
                     const SmallPtrSetImpl<const CallBase *> &OwnAnnotations,
                     DiagnosticLog &Log) {
  const DataLayout &DL = Kernel.getParent()->getDataLayout();
  const BasicBlock &Entry = Kernel.getEntryBlock();
  TransmitRecord Record;
  SmallPtrSet<const AllocaInst *, 4> Seen;
  for (Instruction &I : instructions(Kernel)) {
    auto *Call = dyn_cast<CallBase>(&I);
    if (!Call || !isTransmitAnnotation(*Call))
      continue;
    auto *Variable = dyn_cast<AllocaInst>(
        getUnderlyingObject(Call->getArgOperand(0)));
    if (!OwnAnnotations.count(Call)) {
      Log.error(I,
                "'transmit' variable is declared in a function called by the "
                "kernel; declare it in the kernel's root scope",
                "transmit");
      continue;
    }
    if (!Variable || Variable->getParent() != &Entry ||
        I.getParent() != &Entry || !Variable->isStaticAlloca()) {
      Log.error(I,
                "'transmit' variable must be declared in the kernel's root "
                "scope, before any control flow",
                "transmit");
      continue;
    }
    Type *T = Variable->getAllocatedType();
    if (!isTransmittable(T)) {
      Log.error(I,
                "'transmit' variable holds a pointer to private, local or "
                "generic memory, which another workgroup cannot use",
                "transmit");
      continue;
    }
    if (!Seen.insert(Variable).second)
      continue;
    bool Fitted = Record.Bytes <= CK_TRANSMIT_MAX_BYTES;
    uint64_t Offset = alignTo(Record.Bytes, DL.getABITypeAlign(T));
    Record.Fields.push_back({Variable, Offset});
    Record.Bytes = Offset + DL.getTypeAllocSize(T);
    if (Fitted && Record.Bytes > CK_TRANSMIT_MAX_BYTES)
      Log.error(I,
                "the transmit record needs " + Twine(Record.Bytes) +
                    " bytes; at most " + Twine(CK_TRANSMIT_MAX_BYTES) +
                    " fit in a workgroup slot",
                "transmit");
  }
  return Record;
}

} // namespace ck
