//===- ForkedReads.cpp - Reads that are undefined in forked workgroups ----===//
//
// A workgroup that joins a cooperative kernel at a fork point (request_fork,
// or resizing_global_barrier, which forks as workgroup 0) starts there with
// the kernel's arguments and its `transmit` variables, and every other
// private variable undefined (FSE'17 section 3). A variable that the kernel
// set before the fork point and reads after it without writing it again,
// such as a cached get_local_id(0), reads garbage in the new workgroup.
//
// For each fork point, a must-write dataflow over the kernel's private
// variables (clang's -O0 allocas, helpers inlined) from the instruction after
// the call finds the reads that a joining workgroup can reach before any
// write; the build log warns at each. Only scalars, vectors and pointers are
// tracked: arrays and structures are often filled and read element by
// element under correlated conditions, which a whole-variable, path-blind
// analysis would flag wrongly. Variables whose address escapes, the kernel's
// argument spills (forked workgroups run them) and the `transmit` variables
// are not tracked either.
//
//===----------------------------------------------------------------------===//

#include "CooperativeKernels.hpp"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace ck {
namespace {

/// Whether every use of \p Address (through casts and GEPs) loads from it,
/// stores to it or is a memory intrinsic's operand: nothing else can read
/// or write the variable behind the analysis' back.
bool addressStaysLocal(const Value &Address) {
  for (const User *U : Address.users()) {
    if (isa<GetElementPtrInst>(U) || isa<BitCastInst>(U) ||
        isa<AddrSpaceCastInst>(U)) {
      if (!addressStaysLocal(*U))
        return false;
    } else if (const auto *Store = dyn_cast<StoreInst>(U)) {
      if (Store->getValueOperand() == &Address)
        return false;
    } else if (!isa<LoadInst>(U) && !isa<MemIntrinsic>(U) &&
               !isa<DbgInfoIntrinsic>(U) && !U->isDroppable() &&
               !(isa<IntrinsicInst>(U) &&
                 cast<IntrinsicInst>(U)->isLifetimeStartOrEnd())) {
      return false;
    }
  }
  return true;
}

class ForkedReadFinder {
public:
  ForkedReadFinder(Function &Kernel, const TransmitRecord &Record);
  void report(const CallBase &ForkPoint, Builtin Kind, DiagnosticLog &Log);

private:
  using Written = BitVector;
  /// Runs [\p From, \p To) from \p State, warning at reads of unwritten
  /// variables when \p Reporting; returns the state at \p To.
  Written scan(BasicBlock::const_iterator From, BasicBlock::const_iterator To,
               Written State, const Twine *Reporting);
  std::optional<unsigned> variableOf(const Value *Pointer) const;

  Function &F;
  DenseMap<const AllocaInst *, unsigned> Tracked;
  DiagnosticLog *Log = nullptr;
};

ForkedReadFinder::ForkedReadFinder(Function &Kernel,
                                   const TransmitRecord &Record)
    : F(Kernel) {
  SmallPtrSet<const AllocaInst *, 8> Excluded;
  for (const TransmitField &Field : Record.Fields)
    Excluded.insert(Field.Variable);
  for (const Instruction &I : instructions(F))
    if (const auto *Store = dyn_cast<StoreInst>(&I))
      if (isa<Argument>(Store->getValueOperand()))
        if (const auto *Spill =
                dyn_cast<AllocaInst>(Store->getPointerOperand()))
          Excluded.insert(Spill);
  for (const Instruction &I : instructions(F))
    if (const auto *Variable = dyn_cast<AllocaInst>(&I))
      if (!Variable->getAllocatedType()->isAggregateType() &&
          !Variable->isArrayAllocation() && !Excluded.count(Variable) &&
          addressStaysLocal(*Variable))
        Tracked.try_emplace(Variable, Tracked.size());
}

std::optional<unsigned>
ForkedReadFinder::variableOf(const Value *Pointer) const {
  const auto *Variable = dyn_cast<AllocaInst>(getUnderlyingObject(Pointer));
  auto Found = Tracked.find(Variable);
  if (!Variable || Found == Tracked.end())
    return std::nullopt;
  return Found->second;
}

ForkedReadFinder::Written
ForkedReadFinder::scan(BasicBlock::const_iterator From,
                       BasicBlock::const_iterator To, Written State,
                       const Twine *Reporting) {
  auto Read = [&](const Instruction &At, const Value *Pointer) {
    std::optional<unsigned> Variable = variableOf(Pointer);
    if (Reporting && Variable && !State.test(*Variable))
      Log->warning(At,
                   "this read of a private variable can run in a work-group "
                   "that joined at " +
                       *Reporting +
                       ", where only the kernel's arguments and `transmit` "
                       "variables are defined; declare the variable "
                       "`transmit` or set it again after the call",
                   "undefined after fork");
  };
  auto Write = [&](const Value *Pointer) {
    if (std::optional<unsigned> Variable = variableOf(Pointer))
      State.set(*Variable);
  };
  for (const Instruction &I : make_range(From, To)) {
    if (const auto *Load = dyn_cast<LoadInst>(&I)) {
      Read(I, Load->getPointerOperand());
    } else if (const auto *Store = dyn_cast<StoreInst>(&I)) {
      Write(Store->getPointerOperand());
    } else if (const auto *Transfer = dyn_cast<MemTransferInst>(&I)) {
      Read(I, Transfer->getRawSource());
      Write(Transfer->getRawDest());
    } else if (const auto *Set = dyn_cast<MemSetInst>(&I)) {
      Write(Set->getRawDest());
    }
  }
  return State;
}

void ForkedReadFinder::report(const CallBase &ForkPoint, Builtin Kind,
                              DiagnosticLog &Log) {
  this->Log = &Log;
  const BasicBlock *Start = ForkPoint.getParent();
  const auto AfterCall = std::next(ForkPoint.getIterator());

  // The blocks a joining workgroup can reach; the start block only again
  // through a loop.
  SetVector<const BasicBlock *> Reached;
  SmallVector<const BasicBlock *, 16> Work(succ_begin(Start), succ_end(Start));
  while (!Work.empty()) {
    const BasicBlock *Block = Work.pop_back_val();
    if (Reached.insert(Block))
      Work.append(succ_begin(Block), succ_end(Block));
  }

  // Greatest fixpoint of "written on every path from the fork point".
  const Written None(Tracked.size()), All(Tracked.size(), true);
  const Written FromCall = scan(AfterCall, Start->end(), None, nullptr);
  DenseMap<const BasicBlock *, Written> In, Out;
  for (const BasicBlock *Block : Reached)
    Out[Block] = All;
  auto Entering = [&](const BasicBlock *Block) {
    Written State = All;
    for (const BasicBlock *Predecessor : predecessors(Block)) {
      if (Predecessor == Start)
        State &= FromCall;
      if (Reached.count(Predecessor))
        State &= Out[Predecessor];
    }
    return State;
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const BasicBlock *Block : Reached) {
      In[Block] = Entering(Block);
      Written State = scan(Block->begin(), Block->end(), In[Block], nullptr);
      if (State != Out[Block]) {
        Out[Block] = State;
        Changed = true;
      }
    }
  }

  const DebugLoc &Where = ForkPoint.getDebugLoc();
  const std::string Name = getBuiltinName(Kind).str();
  const std::string At =
      Where ? Name + " (line " + std::to_string(Where.getLine()) + ")" : Name;
  const Twine Reporting(At);
  scan(AfterCall, Start->end(), None, &Reporting);
  for (const BasicBlock *Block : Reached)
    scan(Block->begin(), Block->end(), In[Block], &Reporting);
}

} // namespace

void warnReadsUndefinedAfterForks(Function &Kernel,
                                  const TransmitRecord &Record,
                                  DiagnosticLog &Log) {
  SmallVector<std::pair<const CallBase *, Builtin>, 4> ForkPoints;
  for (const Instruction &I : instructions(Kernel))
    if (const auto *Call = dyn_cast<CallBase>(&I))
      if (std::optional<Builtin> Kind = getCalledBuiltin(*Call))
        if (*Kind == Builtin::RequestFork ||
            *Kind == Builtin::ResizingGlobalBarrier)
          ForkPoints.push_back({Call, *Kind});
  if (ForkPoints.empty())
    return;
  ForkedReadFinder Finder(Kernel, Record);
  for (auto [ForkPoint, Kind] : ForkPoints)
    Finder.report(*ForkPoint, Kind, Log);
}

} // namespace ck
