//===- Diagnostics.cpp - Rules a cooperative kernel must follow -----------===//
//
// Uniformity: a builtin must not be reached in control flow that depends on
// the local id (workgroup-uniform builtins) or on any id (global barriers).
// A flow-insensitive taint analysis marks the values derived from the ids:
// through SSA, through the bytes of private variables that tainted values
// are stored to (field by field: a struct may hold an id in one field and a
// uniform value in another), and through local or global memory that
// tainted values are stored to. A branch on a tainted value is divergent:
// the blocks control-dependent on it (post-dominance frontier) are reached
// by only some threads, and so are those control-dependent on any branch in
// such a block. What only some threads do makes values divergent: their
// stores to private variables, the phis where the paths of a divergent
// branch join, and the values they define that are used past the region.
// Not their stores to local or global memory: one thread writing a value
// that all read after a barrier is how a workgroup broadcasts, whatever
// that thread computed, branches included. In a kernel that calls
// offer_kill or request_fork, get_num_groups(0) and get_global_size(0) are
// sources too: M changes whenever another workgroup is killed or forked,
// also between two threads' reads.
//
// Broadcast: a store (or a call writing through a pointer) to local or
// global memory made by one thread only, that is, dominated by the edge
// where `get_local_id(0) == C` (or the linear id, or the global id, each of
// which names at most one thread of a workgroup; C a constant) holds,
// does not make the memory divergent within the workgroup, even if the
// value is: the reads of that memory are, unless a work-group barrier lies
// between them and the write on every path from one to the other (a read
// that the write can reach, or that can reach the write, without passing a
// barrier may see either value). Across workgroups the broadcast value
// still differs wherever the writer's value depends on the workgroup: the
// kernel-uniform check (global barriers) takes the divergence within the
// workgroup together with a second analysis whose sources are the
// workgroup-dependent ids, where nothing is a broadcast.
//
// Transmit: a `transmit` variable must be declared in the kernel's root
// scope: its annotation is in the kernel's own body (not inlined from a
// helper) and its debug info's scope is the kernel's DISubprogram, not a
// DILexicalBlock (a nested block, a loop's init). Without variable debug
// info (frontends older than the one that asks clang for it) we check the
// stronger rule that the annotation is in the entry block, before any
// control flow. At -O0 clang puts every alloca in the entry block, so the
// variable is one static slot whatever its scope. Its type must be copyable
// to another workgroup: no pointers to private, local or generic memory, at
// any depth.
//
//===----------------------------------------------------------------------===//

#include "CooperativeKernels.hpp"

#include "ck/context.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PatternMatch.h"

using namespace llvm;

namespace ck {
namespace {

/// LocalIds: the ids that differ within a workgroup. GroupIds: those that
/// differ between workgroups. ActiveCount: M, as get_num_groups(0) and
/// get_global_size(0) read it, which differs between any two work-items'
/// reads in a kernel that calls offer_kill or request_fork.
enum class IdSources { LocalIds, GroupIds, ActiveCount };

/// Whether \p Call may read M: get_num_groups or get_global_size of
/// dimension 0, or of a dimension not known at build time.
bool readsActiveCount(const CallBase &Call) {
  const Function *Callee = Call.getCalledFunction();
  if (!Callee || (Callee->getName() != "_Z14get_num_groupsj" &&
                  Callee->getName() != "_Z15get_global_sizej"))
    return false;
  const auto *Dim = dyn_cast<ConstantInt>(Call.getArgOperand(0));
  return !Dim || Dim->isZero();
}

bool isIdSource(const Instruction &I, IdSources Sources) {
  const auto *Call = dyn_cast<CallBase>(&I);
  const Function *Callee = Call ? Call->getCalledFunction() : nullptr;
  if (!Callee)
    return false;
  if (Sources == IdSources::ActiveCount)
    return readsActiveCount(*Call);
  return StringSwitch<bool>(Callee->getName())
      .Cases("_Z13get_global_idj", "_Z20get_global_linear_idv", true)
      .Cases("_Z12get_local_idj", "_Z19get_local_linear_idv",
             Sources == IdSources::LocalIds)
      .Case("_Z12get_group_idj", Sources == IdSources::GroupIds)
      .Default(false);
}

/// Whether \p V is the calling thread's id in a way that no two threads of
/// a workgroup share: the local, local linear, global or global linear id
/// (dimension 0: cooperative kernels run in one dimension), through integer
/// casts that keep 32 bits or more, and through a private variable that
/// holds nothing else (as at -O0).
bool isThreadId(const Value *V, unsigned Depth = 0) {
  if (Depth > 8)
    return false;
  while (const auto *Cast = dyn_cast<CastInst>(V)) {
    if (!isa<TruncInst>(Cast) && !isa<ZExtInst>(Cast) && !isa<SExtInst>(Cast))
      return false;
    if (Cast->getType()->getScalarSizeInBits() < 32)
      return false;
    V = Cast->getOperand(0);
  }
  if (const auto *Call = dyn_cast<CallBase>(V)) {
    const Function *Callee = Call->getCalledFunction();
    if (!Callee)
      return false;
    StringRef Name = Callee->getName();
    if (Name == "_Z19get_local_linear_idv" ||
        Name == "_Z20get_global_linear_idv")
      return true;
    if (Name == "_Z12get_local_idj" || Name == "_Z13get_global_idj")
      if (const auto *Dim = dyn_cast<ConstantInt>(Call->getArgOperand(0)))
        return Dim->isZero();
    return false;
  }
  // A load of a private variable whose every use is a plain load, or a
  // store of a thread id, of the whole variable.
  const auto *Load = dyn_cast<LoadInst>(V);
  const auto *Variable =
      Load ? dyn_cast<AllocaInst>(Load->getPointerOperand()) : nullptr;
  if (!Variable)
    return false;
  for (const User *U : Variable->users()) {
    if (const auto *Store = dyn_cast<StoreInst>(U)) {
      if (Store->getValueOperand() == Variable ||
          !isThreadId(Store->getValueOperand(), Depth + 1))
        return false;
    } else if (const auto *Reader = dyn_cast<LoadInst>(U)) {
      if (Reader->getType() != Load->getType())
        return false;
    } else if (const auto *Call = dyn_cast<CallBase>(U)) {
      if (!isa<DbgInfoIntrinsic>(Call) && !Call->isLifetimeStartOrEnd())
        return false;
    } else if (const auto *Cast = dyn_cast<BitCastInst>(U)) {
      // Lifetime markers take the variable through a bitcast.
      if (any_of(Cast->users(), [](const User *CastUser) {
            const auto *Call = dyn_cast<CallBase>(CastUser);
            return !Call || !Call->isLifetimeStartOrEnd();
          }))
        return false;
    } else {
      return false;
    }
  }
  return true;
}

/// Whether \p Condition being \p WhenTrue means the calling thread's id is
/// one constant.
bool namesOneThread(const Value *Condition, bool WhenTrue) {
  using namespace PatternMatch;
  const Value *A, *B;
  if (WhenTrue ? match(Condition, m_LogicalAnd(m_Value(A), m_Value(B)))
               : match(Condition, m_LogicalOr(m_Value(A), m_Value(B))))
    return namesOneThread(A, WhenTrue) || namesOneThread(B, WhenTrue);
  const auto *Compare = dyn_cast<ICmpInst>(Condition);
  if (!Compare ||
      Compare->getPredicate() !=
          (WhenTrue ? ICmpInst::ICMP_EQ : ICmpInst::ICMP_NE))
    return false;
  const Value *L = Compare->getOperand(0), *R = Compare->getOperand(1);
  return (isa<ConstantInt>(R) && isThreadId(L)) ||
         (isa<ConstantInt>(L) && isThreadId(R));
}

/// Whether \p I is a work-group barrier: `barrier`, `work_group_barrier`,
/// or a cooperative builtin (each includes one).
bool isWorkgroupBarrier(const Instruction &I) {
  const auto *Call = dyn_cast<CallBase>(&I);
  if (!Call)
    return false;
  if (getCalledBuiltin(*Call))
    return true;
  const Function *Callee = Call->getCalledFunction();
  return Callee && StringSwitch<bool>(Callee->getName())
                       .Cases("_Z7barrierj", "_Z18work_group_barrierj",
                              "_Z18work_group_barrierj12memory_scope", true)
                       .Default(false);
}

/// Whether a thread can execute \p To after \p From without passing a
/// work-group barrier in between.
bool reachesWithoutBarrier(const Instruction &From, const Instruction &To) {
  // The rest of From's block.
  for (const Instruction *I = From.getNextNode(); I; I = I->getNextNode()) {
    if (I == &To)
      return true;
    if (isWorkgroupBarrier(*I))
      return false;
  }
  SmallVector<const BasicBlock *, 16> Pending(successors(From.getParent()));
  SmallPtrSet<const BasicBlock *, 16> Seen(Pending.begin(), Pending.end());
  while (!Pending.empty()) {
    const BasicBlock *BB = Pending.pop_back_val();
    bool Blocked = false;
    for (const Instruction &I : *BB) {
      if (&I == &To)
        return true;
      if (isWorkgroupBarrier(I)) {
        Blocked = true;
        break;
      }
    }
    if (!Blocked)
      for (const BasicBlock *Next : successors(BB))
        if (Seen.insert(Next).second)
          Pending.push_back(Next);
  }
  return false;
}

/// Whether \p Call neither reads nor writes memory for the program.
bool isBookkeeping(const CallBase &Call) {
  return isa<DbgInfoIntrinsic>(Call) || Call.isLifetimeStartOrEnd() ||
         isTransmitAnnotation(Call);
}

/// The pointers through which \p Call may write: a memcpy's or memset's
/// destination, every pointer argument of any other call.
SmallVector<const Value *, 2> writtenPointers(const CallBase &Call) {
  if (isBookkeeping(Call))
    return {};
  if (const auto *Intrinsic = dyn_cast<AnyMemIntrinsic>(&Call))
    return {Intrinsic->getRawDest()};
  SmallVector<const Value *, 2> Pointers;
  for (const Value *Argument : Call.args())
    if (Argument->getType()->isPointerTy())
      Pointers.push_back(Argument);
  return Pointers;
}

/// Bytes [Begin, End) of a private variable.
struct ByteRange {
  uint64_t Begin;
  uint64_t End;
  bool overlaps(const ByteRange &Other) const {
    return Begin < Other.End && Other.Begin < End;
  }
};
constexpr ByteRange WholeObject{0, ~uint64_t(0)};

/// Where a private memory access goes: the variable, if known, and the
/// bytes of it, if known.
struct PrivateAccess {
  const AllocaInst *Variable; ///< Null: somewhere in an escaped variable.
  ByteRange Bytes;
};

class DivergenceAnalysis {
public:
  /// With \p DT, a write by one thread is a broadcast (LocalIds only).
  DivergenceAnalysis(Function &F, const PostDominatorTree &PDT,
                     IdSources Sources, const DominatorTree *DT);
  bool isDivergent(const BasicBlock &BB) const {
    return DivergentBlocks.count(&BB);
  }

private:
  std::optional<PrivateAccess> privateAccess(const Value *Pointer,
                                             std::optional<uint64_t> Bytes) const;
  void collectPrivateAccesses(Function &F);
  void taint(const Value &V);
  void taintWrite(const Instruction &Writer, const Value *Pointer,
                  std::optional<uint64_t> Bytes);
  bool isWrittenByOneThread(const Instruction &Writer) const;
  const Value *memoryObject(const Value *Pointer) const;
  void broadcast(const Instruction &Writer, const Value &Object);
  void taintMemory(const Value *Pointer, std::optional<uint64_t> Bytes);
  void taintPrivate(const PrivateAccess &Access);
  void taintVariable(const AllocaInst *Variable, ByteRange Bytes);
  void propagate();
  void markControlledBlocks(const Instruction &Branch, bool Divergent);
  void taintJoins(const Instruction &Branch);

  const Function &F;
  const DataLayout &DL;
  const IdSources Sources;
  const PostDominatorTree &PDT;
  const DominatorTree *DT;
  /// The broadcasts already followed: the writer and the memory object.
  DenseSet<std::pair<const Instruction *, const Value *>> Broadcasts;
  SmallPtrSet<const Value *, 32> Tainted;
  SmallPtrSet<const BasicBlock *, 16> DivergentBlocks;
  SmallVector<const Value *, 32> Worklist;
  /// The tainted bytes of each private variable.
  DenseMap<const AllocaInst *, SmallVector<ByteRange, 2>> TaintedBytes;
  /// The instructions that read each private variable (null: an escaped
  /// one), with the bytes they read: loads, and calls given its address.
  DenseMap<const AllocaInst *, SmallVector<std::pair<const Instruction *, ByteRange>, 4>>
      Readers;
  /// Variables whose address is stored, merged or converted: an access
  /// through a pointer of unknown origin may reach them.
  SmallPtrSet<const AllocaInst *, 8> Escaped;
};

DivergenceAnalysis::DivergenceAnalysis(Function &F,
                                       const PostDominatorTree &PDT,
                                       IdSources Sources,
                                       const DominatorTree *DT)
    : F(F), DL(F.getParent()->getDataLayout()), Sources(Sources), PDT(PDT),
      DT(DT) {
  collectPrivateAccesses(F);
  for (Instruction &I : instructions(F))
    if (isIdSource(I, Sources))
      taint(I);
  propagate();
}

/// The private access of \p Bytes (unknown: all of them) at \p Pointer, or
/// none if \p Pointer is not private.
std::optional<PrivateAccess>
DivergenceAnalysis::privateAccess(const Value *Pointer,
                                  std::optional<uint64_t> Bytes) const {
  if (Pointer->getType()->getPointerAddressSpace() != 0)
    return std::nullopt;
  int64_t Offset = 0;
  const Value *Base = GetPointerBaseWithConstantOffset(Pointer, Offset, DL);
  if (const auto *Variable = dyn_cast<AllocaInst>(Base))
    if (Bytes && Offset >= 0)
      return PrivateAccess{Variable, {uint64_t(Offset), Offset + *Bytes}};
  if (const auto *Variable =
          dyn_cast<AllocaInst>(getUnderlyingObject(Pointer)))
    return PrivateAccess{Variable, WholeObject};
  return PrivateAccess{nullptr, WholeObject};
}

void DivergenceAnalysis::collectPrivateAccesses(Function &F) {
  auto AddReader = [&](const Instruction &I, const Value *Pointer,
                       std::optional<uint64_t> Bytes) {
    if (std::optional<PrivateAccess> Access = privateAccess(Pointer, Bytes))
      Readers[Access->Variable].push_back({&I, Access->Bytes});
  };
  for (Instruction &I : instructions(F)) {
    if (auto *Load = dyn_cast<LoadInst>(&I)) {
      AddReader(I, Load->getPointerOperand(),
                DL.getTypeStoreSize(Load->getType()).getFixedSize());
    } else if (auto *Transfer = dyn_cast<AnyMemTransferInst>(&I)) {
      std::optional<uint64_t> Bytes;
      if (auto *Length = dyn_cast<ConstantInt>(Transfer->getLength()))
        Bytes = Length->getZExtValue();
      AddReader(I, Transfer->getRawSource(), Bytes);
    } else if (auto *Call = dyn_cast<CallBase>(&I)) {
      if (!isBookkeeping(*Call))
        for (const Value *Argument : Call->args())
          if (Argument->getType()->isPointerTy())
            AddReader(I, Argument, std::nullopt);
    }
    // An address that is stored, merged or converted escapes.
    const Value *Escaping = nullptr;
    if (auto *Store = dyn_cast<StoreInst>(&I))
      Escaping = Store->getValueOperand();
    if (Escaping && Escaping->getType()->isPointerTy())
      if (auto *Variable = dyn_cast<AllocaInst>(getUnderlyingObject(Escaping)))
        Escaped.insert(Variable);
    if (isa<PHINode>(I) || isa<SelectInst>(I) || isa<PtrToIntInst>(I))
      for (const Value *Operand : I.operands())
        if (Operand->getType()->isPointerTy())
          if (auto *Variable =
                  dyn_cast<AllocaInst>(getUnderlyingObject(Operand)))
            Escaped.insert(Variable);
  }
}

void DivergenceAnalysis::taint(const Value &V) {
  if (!Tainted.insert(&V).second)
    return;
  Worklist.push_back(&V);
  // A call that computes something divergent may write it through the
  // pointers it gets.
  if (const auto *Call = dyn_cast<CallBase>(&V))
    for (const Value *Pointer : writtenPointers(*Call))
      taintWrite(*Call, Pointer, std::nullopt);
}

/// \p Writer writes something divergent to the \p Bytes (unknown: any) at
/// \p Pointer.
void DivergenceAnalysis::taintWrite(const Instruction &Writer,
                                    const Value *Pointer,
                                    std::optional<uint64_t> Bytes) {
  // M stored to local or global memory is data like any other there, which
  // other threads and workgroups may change between two reads anyway.
  if (Sources == IdSources::ActiveCount &&
      Pointer->getType()->getPointerAddressSpace() != 0)
    return;
  if (DT && Pointer->getType()->getPointerAddressSpace() != 0 &&
      isWrittenByOneThread(Writer))
    broadcast(Writer, *memoryObject(Pointer));
  else
    taintMemory(Pointer, Bytes);
}

/// The object that \p Pointer points into: its underlying object, or, for
/// a pointer loaded from a private variable that holds nothing else (a
/// kernel argument's copy at -O0), what that variable holds.
const Value *DivergenceAnalysis::memoryObject(const Value *Pointer) const {
  const Value *Object = getUnderlyingObject(Pointer);
  for (unsigned Depth = 0; Depth < 4; ++Depth) {
    const auto *Load = dyn_cast<LoadInst>(Object);
    const auto *Variable =
        Load ? dyn_cast<AllocaInst>(Load->getPointerOperand()) : nullptr;
    if (!Variable || Escaped.count(Variable))
      return Object;
    const Value *Held = nullptr;
    for (const User *U : Variable->users()) {
      if (const auto *Store = dyn_cast<StoreInst>(U)) {
        if (Held || Store->getPointerOperand() != Variable)
          return Object;
        Held = Store->getValueOperand();
      } else if (!isa<LoadInst>(U)) {
        const auto *Call = dyn_cast<CallBase>(U);
        if (!Call || !(isa<DbgInfoIntrinsic>(Call) || Call->isLifetimeStartOrEnd()))
          return Object;
      }
    }
    if (!Held)
      return Object;
    Object = getUnderlyingObject(Held);
  }
  return Object;
}

/// Whether at most one thread of a workgroup executes \p Writer: it runs
/// only past the edge of a branch on which that thread's id is a constant.
bool DivergenceAnalysis::isWrittenByOneThread(
    const Instruction &Writer) const {
  const BasicBlock *BB = Writer.getParent();
  const DomTreeNode *Node = DT->getNode(BB);
  for (Node = Node ? Node->getIDom() : nullptr; Node; Node = Node->getIDom()) {
    const BasicBlock *Dominator = Node->getBlock();
    const auto *Branch = dyn_cast<BranchInst>(Dominator->getTerminator());
    if (!Branch || !Branch->isConditional())
      continue;
    for (unsigned Side = 0; Side < 2; ++Side)
      if (namesOneThread(Branch->getCondition(), Side == 0) &&
          DT->dominates(BasicBlockEdge(Dominator, Branch->getSuccessor(Side)),
                        BB))
        return true;
  }
  return false;
}

/// One thread writes something divergent to \p Object: the reads of it that
/// no barrier separates from the write are divergent, the others are not.
/// An address of \p Object that escapes (stored, converted) makes every
/// read of it divergent.
void DivergenceAnalysis::broadcast(const Instruction &Writer,
                                   const Value &Object) {
  if (!Broadcasts.insert({&Writer, &Object}).second)
    return;
  SmallVector<const Value *, 8> Pending{&Object};
  SmallPtrSet<const Value *, 8> Seen{&Object};
  SmallVector<const Instruction *, 8> Reads;
  while (!Pending.empty()) {
    const Value *Address = Pending.pop_back_val();
    for (const User *U : Address->users()) {
      const auto *I = dyn_cast<Instruction>(U);
      if (!I) {
        // A constant expression (a field of a local variable).
        if (isa<ConstantExpr>(U) && U->getType()->isPointerTy()) {
          if (Seen.insert(U).second)
            Pending.push_back(U);
          continue;
        }
        if (isa<ConstantExpr>(U)) {
          taint(Object);
          return;
        }
        continue; // A global's initializer, another global.
      }
      if (I->getFunction() != &F)
        continue;
      if (isa<GetElementPtrInst>(I) || isa<BitCastInst>(I) ||
          isa<AddrSpaceCastInst>(I) || isa<PHINode>(I) ||
          isa<SelectInst>(I)) {
        if (I->getType()->isPointerTy() && Seen.insert(I).second)
          Pending.push_back(I);
        continue;
      }
      if (const auto *Store = dyn_cast<StoreInst>(I)) {
        if (Store->getValueOperand() == Address) {
          // Copied to a private variable that holds only it (-O0): its
          // loads are the address again. Anywhere else, it escapes.
          const auto *Copy = dyn_cast<AllocaInst>(Store->getPointerOperand());
          bool Followed = false;
          if (Copy && !Escaped.count(Copy))
            for (const User *CopyUser : Copy->users())
              if (const auto *Reload = dyn_cast<LoadInst>(CopyUser))
                if (memoryObject(Reload) == &Object) {
                  Followed = true;
                  if (Seen.insert(Reload).second)
                    Pending.push_back(Reload);
                }
          if (!Followed) {
            taint(Object);
            return;
          }
          continue;
        }
        continue; // A write through it.
      }
      if (isa<LoadInst>(I) || isa<AtomicRMWInst>(I) ||
          isa<AtomicCmpXchgInst>(I) || isa<CallBase>(I)) {
        Reads.push_back(I);
        continue;
      }
      taint(Object); // Converted, compared: followed no further.
      return;
    }
  }
  for (const Instruction *Read : Reads)
    if (const auto *Call = dyn_cast<CallBase>(Read); Call && isBookkeeping(*Call))
      continue;
    else if (reachesWithoutBarrier(Writer, *Read) ||
             reachesWithoutBarrier(*Read, Writer))
      taint(*Read);
}

/// Some threads write something else to the \p Bytes (unknown: any) at
/// \p Pointer than others do.
void DivergenceAnalysis::taintMemory(const Value *Pointer,
                                     std::optional<uint64_t> Bytes) {
  if (std::optional<PrivateAccess> Access = privateAccess(Pointer, Bytes))
    taintPrivate(*Access);
  else // Local or global memory: a divergent value stored there.
    taint(*memoryObject(Pointer));
}

void DivergenceAnalysis::taintPrivate(const PrivateAccess &Access) {
  if (Access.Variable) {
    taintVariable(Access.Variable, Access.Bytes);
    return;
  }
  for (const AllocaInst *Variable : Escaped)
    taintVariable(Variable, WholeObject);
  taintVariable(nullptr, WholeObject);
}

void DivergenceAnalysis::taintVariable(const AllocaInst *Variable,
                                       ByteRange Bytes) {
  SmallVector<ByteRange, 2> &Ranges = TaintedBytes[Variable];
  if (any_of(Ranges, [&](const ByteRange &R) {
        return R.Begin <= Bytes.Begin && Bytes.End <= R.End;
      }))
    return;
  Ranges.push_back(Bytes);
  auto TaintReaders = [&](const AllocaInst *Of) {
    for (auto &[Reader, Read] : Readers.lookup(Of))
      if (Read.overlaps(Bytes))
        taint(*Reader);
  };
  TaintReaders(Variable);
  // Reads through pointers of unknown origin may see any escaped variable.
  if (!Variable || Escaped.count(Variable))
    for (auto &[Reader, Read] : Readers.lookup(nullptr))
      taint(*Reader);
}

void DivergenceAnalysis::propagate() {
  while (!Worklist.empty()) {
    const Value *V = Worklist.pop_back_val();
    for (const User *U : V->users()) {
      const auto *I = dyn_cast<Instruction>(U);
      if (!I)
        continue;
      if (const auto *Store = dyn_cast<StoreInst>(I)) {
        // A divergent value, or a divergent address (another element in
        // each thread).
        const Value *Stored = Store->getValueOperand();
        taintWrite(*Store, Store->getPointerOperand(),
                    Store->getPointerOperand() == V
                        ? std::nullopt
                        : std::optional<uint64_t>(
                              DL.getTypeStoreSize(Stored->getType())
                                  .getFixedSize()));
      } else if (I->isTerminator()) {
        if (isa<BranchInst>(I) || isa<SwitchInst>(I))
          markControlledBlocks(*I, /*Divergent=*/true);
      } else {
        taint(*I);
      }
    }
  }
}

/// Marks the blocks control-dependent on \p Branch as reached by only some
/// threads: for each successor, the post-dominator tree path up to (not
/// including) the branch block's immediate post-dominator. A \p Divergent
/// branch (on a tainted value) also makes its joins divergent.
void DivergenceAnalysis::markControlledBlocks(const Instruction &Branch,
                                              bool Divergent) {
  const DomTreeNode *BranchNode = PDT.getNode(Branch.getParent());
  if (!BranchNode)
    return;
  if (Divergent && !Tainted.insert(&Branch).second)
    return;
  const DomTreeNode *Stop = BranchNode->getIDom();
  SmallPtrSet<const BasicBlock *, 16> Region;
  for (const BasicBlock *Successor : successors(Branch.getParent()))
    for (const DomTreeNode *N = PDT.getNode(Successor); N && N != Stop;
         N = N->getIDom())
      if (const BasicBlock *BB = N->getBlock())
        Region.insert(BB);
  if (Divergent)
    taintJoins(Branch);
  for (const BasicBlock *BB : Region) {
    // Values that leave the region (a loop's) differ between the threads
    // that left it at different times.
    if (Divergent)
      for (const Instruction &I : *BB)
        if (any_of(I.users(), [&](const User *U) {
              const auto *UserI = dyn_cast<Instruction>(U);
              return UserI && !isa<PHINode>(UserI) &&
                     !Region.count(UserI->getParent());
            }))
          taint(I);
    if (!DivergentBlocks.insert(BB).second)
      continue;
    // Only some threads get here: what they store in their private
    // variables differs from what the others hold, and the blocks that
    // their branches control are reached by fewer threads still. (Those
    // branches are not divergent by being here: the threads that take
    // them take them alike unless their condition is tainted.)
    for (const Instruction &I : *BB) {
      if (const auto *Store = dyn_cast<StoreInst>(&I)) {
        if (std::optional<PrivateAccess> Access = privateAccess(
                Store->getPointerOperand(),
                DL.getTypeStoreSize(Store->getValueOperand()->getType())
                    .getFixedSize()))
          taintPrivate(*Access);
      } else if (const auto *Call = dyn_cast<CallBase>(&I)) {
        for (const Value *Pointer : writtenPointers(*Call))
          if (std::optional<PrivateAccess> Access =
                  privateAccess(Pointer, std::nullopt))
            taintPrivate(*Access);
      } else if (I.isTerminator() && I.getNumSuccessors() > 1) {
        markControlledBlocks(I, /*Divergent=*/false);
      }
    }
  }
}

/// Taints the phis where paths from different successors of the divergent
/// \p Branch meet before its immediate post-dominator (or at it): threads
/// arrive there from different sides with different values.
void DivergenceAnalysis::taintJoins(const Instruction &Branch) {
  const DomTreeNode *Stop = PDT.getNode(Branch.getParent())->getIDom();
  const BasicBlock *Reconverged = Stop ? Stop->getBlock() : nullptr;
  DenseMap<const BasicBlock *, unsigned> ReachedFrom;
  unsigned Side = 0;
  for (const BasicBlock *Successor : successors(Branch.getParent())) {
    ++Side;
    SmallVector<const BasicBlock *, 16> Pending{Successor};
    SmallPtrSet<const BasicBlock *, 16> Seen{Successor};
    while (!Pending.empty()) {
      const BasicBlock *BB = Pending.pop_back_val();
      unsigned &From = ReachedFrom[BB];
      if (From && From != Side)
        for (const PHINode &Phi : BB->phis())
          taint(Phi);
      From = Side;
      if (BB == Reconverged)
        continue;
      for (const BasicBlock *Next : successors(BB))
        if (Seen.insert(Next).second)
          Pending.push_back(Next);
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

/// Whether M changes while the kernel's workgroups run, not only inside
/// resizing barriers where every workgroup waits.
static bool activeCountChangesAnytime(Function &Kernel) {
  return any_of(instructions(Kernel), [](Instruction &I) {
    auto *Call = dyn_cast<CallBase>(&I);
    std::optional<Builtin> B = Call ? getCalledBuiltin(*Call) : std::nullopt;
    return B == Builtin::OfferKill || B == Builtin::RequestFork;
  });
}

void checkUniformControlFlow(Function &Kernel, DiagnosticLog &Log) {
  PostDominatorTree PDT(Kernel);
  DominatorTree DT(Kernel);
  DivergenceAnalysis InWorkgroup(Kernel, PDT, IdSources::LocalIds, &DT);
  DivergenceAnalysis BetweenWorkgroups(Kernel, PDT, IdSources::GroupIds,
                                       nullptr);
  // Each work-item reads M when it calls get_num_groups(0), and another
  // workgroup's kill or fork may fall between two work-items' reads (SIMD
  // chunks of one workgroup read it at different times): a value for one
  // thread to broadcast, like an id.
  std::optional<DivergenceAnalysis> ActiveCount;
  if (activeCountChangesAnytime(Kernel))
    ActiveCount.emplace(Kernel, PDT, IdSources::ActiveCount, &DT);
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
    } else if (ActiveCount && ActiveCount->isDivergent(*I.getParent())) {
      Log.error(I,
                "'" + getBuiltinName(*B) +
                    "' is reached in control flow that depends on "
                    "get_num_groups(0) or get_global_size(0), which change "
                    "whenever another workgroup is killed or forked, so the "
                    "threads of a workgroup may disagree; let one thread "
                    "read it and broadcast it through local memory",
                "workgroup-uniform control flow");
    } else if ((*B == Builtin::GlobalBarrier ||
                *B == Builtin::ResizingGlobalBarrier) &&
               BetweenWorkgroups.isDivergent(*I.getParent())) {
      Log.error(I,
                "'" + getBuiltinName(*B) +
                    "' is reached in control flow that depends on the "
                    "workgroup or thread id, so not all workgroups reach it",
                "kernel-uniform control flow");
    }
  }
}

TransmitRecord layOutTransmitRecord(Function &Kernel,
                                    const TransmitScopes &OwnAnnotations,
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
    const auto Own = OwnAnnotations.find(Call);
    if (Own == OwnAnnotations.end()) {
      Log.error(I,
                "'transmit' variable is declared in a function called by the "
                "kernel; declare it in the kernel's root scope",
                "transmit");
      continue;
    }
    if (Own->second == TransmitScope::NestedBlock) {
      Log.error(I,
                "'transmit' variable is declared in a nested scope (a block "
                "or a for loop's init); declare it in the kernel's root scope, "
                "its outermost block",
                "transmit");
      continue;
    }
    if (!Variable || Variable->getParent() != &Entry ||
        !Variable->isStaticAlloca() ||
        (Own->second == TransmitScope::Unknown && I.getParent() != &Entry)) {
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
