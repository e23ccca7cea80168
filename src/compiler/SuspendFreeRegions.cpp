//===- SuspendFreeRegions.cpp - Outline code between suspend points -------===//
//
// llvmpipe runs a compute shader that has work-group barriers as a
// coroutine per SIMD chunk, suspended at each barrier, and LLVM's CoroSplit
// pass turns it into a ramp and a resume function. To find the values that
// live across a suspend point, LLVM 14's CoroSplit propagates a bit set of
// blocks over the blocks until nothing changes, visiting them in the order
// of their addresses: time and memory grow with the square of the blocks.
// llvmpipe's SIMD code has a few blocks per memory access (is any lane
// active? are the addresses consecutive?), and a random program of the
// fuzzer (tests/fuzz) with 5,000 blocks spent 15 of its 21 s of compile
// time there; the FSE'17 applications' kernels have up to 3,000.
//
// The code between two suspend points needs none of that. This pass moves
// every maximal single-entry, single-exit region of a coroutine that holds
// no coroutine intrinsic into a function of its own (LLVM's CodeExtractor):
// the coroutine keeps its suspend points and calls. A call passes the
// region's inputs as arguments and its outputs through allocas in the entry
// block, which stay on the stack unless a value crosses a suspend point, as
// any value would.
//
// Regions. From each block A in reverse post-order that no region holds
// yet, a region grows along A's chain of post-dominators B1, B2, ...:
// R(A, Bk) is what A reaches without passing Bk, and it is R(A, Bk-1) plus
// what Bk-1 reaches without passing Bk. Every path out of it goes through
// Bk (Bk post-dominates A), so it has one exit block; it has one entry
// while A dominates every block of it. It stops growing before a part that
// holds a coroutine intrinsic, an alloca, the stack intrinsics, a return or
// an unreachable. Each block joins at most one region, and the growth of a
// region visits each block once, so the pass is linear in the blocks but
// for the failed growths of nested regions.
//
//===----------------------------------------------------------------------===//

#include "SuspendFreeRegions.hpp"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/CodeExtractor.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

#include <vector>

using namespace llvm;

namespace ck {
namespace {

using Region = SetVector<BasicBlock *>;

bool isCoroutineIntrinsic(const Function &Callee) {
  return Callee.isIntrinsic() && Callee.getName().startswith("llvm.coro.");
}

bool isCoroutine(const Function &F) {
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      if (const auto *Suspend = dyn_cast<IntrinsicInst>(&I))
        if (Suspend->getIntrinsicID() == Intrinsic::coro_suspend)
          return true;
  return false;
}

/// Whether \p BB must stay in the coroutine.
bool staysInCoroutine(const BasicBlock &BB) {
  const Instruction *Terminator = BB.getTerminator();
  if (isa<ReturnInst>(Terminator) || isa<UnreachableInst>(Terminator))
    return true;
  for (const Instruction &I : BB) {
    if (isa<AllocaInst>(I))
      return true;
    if (const auto *Call = dyn_cast<CallBase>(&I)) {
      const Function *Callee = Call->getCalledFunction();
      if (!Callee)
        continue;
      if (isCoroutineIntrinsic(*Callee) ||
          Callee->getIntrinsicID() == Intrinsic::stacksave ||
          Callee->getIntrinsicID() == Intrinsic::stackrestore)
        return true;
    }
  }
  return false;
}

/// Adds to \p R what \p From reaches without passing \p Stop. Adds nothing
/// and returns false if that reaches a block that must stay in the
/// coroutine, that R's entry does not dominate or that another region took.
bool grow(Region &R, BasicBlock *From, BasicBlock *Stop,
          const DominatorTree &DT, const DenseSet<BasicBlock *> &Taken) {
  BasicBlock *Entry = R.empty() ? From : R.front();
  Region Added;
  SmallVector<BasicBlock *, 32> Work{From};
  while (!Work.empty()) {
    BasicBlock *BB = Work.pop_back_val();
    if (BB == Stop || R.count(BB) || !Added.insert(BB))
      continue;
    if (staysInCoroutine(*BB) || !DT.dominates(Entry, BB) || Taken.count(BB))
      return false;
    append_range(Work, successors(BB));
  }
  R.insert(Added.begin(), Added.end());
  return true;
}

/// The largest region that starts at \p Entry, as the header comment says.
Region growRegion(BasicBlock *Entry, const DominatorTree &DT,
                  const PostDominatorTree &PDT,
                  const DenseSet<BasicBlock *> &Taken) {
  Region R;
  BasicBlock *From = Entry;
  while (const DomTreeNode *Node = PDT.getNode(From)) {
    const DomTreeNode *Exit = Node->getIDom();
    // The virtual exit node has no block: From reaches a return.
    if (!Exit || !Exit->getBlock() ||
        !grow(R, From, Exit->getBlock(), DT, Taken))
      break;
    From = Exit->getBlock();
  }
  return R;
}

/// Turns the coroutine's promotable allocas (llvmpipe's registers and
/// execution mask) into SSA values, as mem2reg would after the split. A
/// region would otherwise take their addresses as arguments, and they could
/// no longer be promoted, in the coroutine or in the region's function.
void promoteAllocas(Function &Coroutine) {
  SmallVector<AllocaInst *, 64> Promotable;
  for (Instruction &I : Coroutine.getEntryBlock())
    if (auto *Alloca = dyn_cast<AllocaInst>(&I))
      if (isAllocaPromotable(Alloca))
        Promotable.push_back(Alloca);
  if (Promotable.empty())
    return;
  DominatorTree DT(Coroutine);
  PromoteMemToReg(Promotable, DT);
}

} // namespace

unsigned outlineSuspendFreeRegions(Function &Coroutine,
                                   const OutliningThresholds &Thresholds) {
  if (Coroutine.size() < Thresholds.MinCoroutineBlocks ||
      !isCoroutine(Coroutine))
    return 0;
  // Blocks that nothing reaches would give a region a second entry.
  removeUnreachableBlocks(Coroutine);
  promoteAllocas(Coroutine);

  std::vector<Region> Regions;
  {
    DominatorTree DT(Coroutine);
    PostDominatorTree PDT(Coroutine);
    DenseSet<BasicBlock *> Taken;
    BasicBlock *FunctionEntry = &Coroutine.getEntryBlock();
    for (BasicBlock *Start :
         ReversePostOrderTraversal<Function *>(&Coroutine)) {
      if (Start == FunctionEntry || Taken.count(Start))
        continue;
      Region R = growRegion(Start, DT, PDT, Taken);
      if (R.size() < Thresholds.MinRegionBlocks)
        continue;
      Taken.insert(R.begin(), R.end());
      Regions.push_back(std::move(R));
    }
  }

  // The regions are disjoint: extracting one leaves the others' blocks,
  // entries and exits as they were, and the cache stays valid.
  CodeExtractorAnalysisCache Cache(Coroutine);
  unsigned Outlined = 0;
  for (const Region &R : Regions) {
    CodeExtractor Extractor(R.getArrayRef(), /*DT=*/nullptr,
                            /*AggregateArgs=*/false, /*BFI=*/nullptr,
                            /*BPI=*/nullptr, /*AC=*/nullptr,
                            /*AllowVarArgs=*/false, /*AllowAlloca=*/false,
#if LLVM_VERSION_MAJOR >= 15
                            /*AllocationBlock=*/nullptr,
#endif
                            "suspend_free");
    if (Extractor.isEligible() && Extractor.extractCodeRegion(Cache))
      ++Outlined;
  }
  return Outlined;
}

unsigned outlineSuspendFreeRegions(Module &M,
                                   const OutliningThresholds &Thresholds) {
  // Outlining adds functions: take the coroutines first.
  std::vector<Function *> Functions;
  for (Function &F : M)
    if (!F.isDeclaration())
      Functions.push_back(&F);
  unsigned Outlined = 0;
  for (Function *F : Functions)
    Outlined += outlineSuspendFreeRegions(*F, Thresholds);
  return Outlined;
}

} // namespace ck
