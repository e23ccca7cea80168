//===- Lowering.cpp - Lowering of the builtins in one cooperative kernel --===//
//
// Every builtin becomes atomics on the per-launch context (ck/context.h),
// reached through the hidden last kernel parameter. Workgroup-uniform
// decisions are taken by local thread 0 between two workgroup barriers and
// broadcast through a workgroup-local variable. Fork points get resume ids;
// a forked workgroup enters the kernel, reads its resume id and transmit
// record from its slot and jumps to the fork point. SSA values whose
// definitions no longer dominate their uses are then demoted to memory.
//
//===----------------------------------------------------------------------===//

#include "CooperativeKernels.hpp"

#include "ck/context.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

namespace ck {
namespace {

constexpr unsigned GlobalAddressSpace = 1;
constexpr unsigned LocalAddressSpace = 3;
constexpr unsigned LocalAndGlobalMemFence = 1 | 2;
constexpr unsigned SlotWords = CK_SLOT_BYTES / 4;
constexpr AtomicOrdering SeqCst = AtomicOrdering::SequentiallyConsistent;
/// emitResizeGather's result for a barrier that can never complete (the
/// others are its decision, 0 or 1).
constexpr unsigned ResizeStuck = 2;

/// Appends one entry for the context parameter to a kernel_arg_* node.
MDNode *extendKernelArgInfo(LLVMContext &Ctx, StringRef Kind, MDNode *Node) {
  Metadata *Entry =
      StringSwitch<Metadata *>(Kind)
          .Case("kernel_arg_addr_space",
                ConstantAsMetadata::get(ConstantInt::get(
                    Type::getInt32Ty(Ctx), GlobalAddressSpace)))
          .Case("kernel_arg_access_qual", MDString::get(Ctx, "none"))
          .Cases("kernel_arg_type", "kernel_arg_base_type",
                 MDString::get(Ctx, "uint*"))
          .Case("kernel_arg_type_qual", MDString::get(Ctx, ""))
          .Case("kernel_arg_name", MDString::get(Ctx, CK_CONTEXT_ARG_NAME))
          .Default(nullptr);
  if (!Entry)
    return Node;
  SmallVector<Metadata *, 8> Entries(Node->op_begin(), Node->op_end());
  Entries.push_back(Entry);
  return MDNode::get(Ctx, Entries);
}

/// Whether \p I is clang's -O0 spill of a kernel argument into its alloca.
static bool isArgumentSpill(const Instruction &I) {
  const auto *Store = dyn_cast<StoreInst>(&I);
  return Store && isa<Argument>(Store->getValueOperand()) &&
         isa<AllocaInst>(Store->getPointerOperand());
}

/// The first instruction of \p Entry after its allocas and argument spills:
/// code from there on is skipped by forked workgroups.
static BasicBlock::iterator afterArgumentSpills(BasicBlock &Entry) {
  BasicBlock::iterator I = Entry.begin();
  while (isa<AllocaInst>(*I) || isArgumentSpill(*I))
    ++I;
  return I;
}

class KernelLowering {
public:
  KernelLowering(Function &Kernel, const TransmitRecord &Record);
  void run();

private:
  using EmitFn = function_ref<Value *(IRBuilder<> &)>;

  // Context and OpenCL builtin access.
  Value *contextWord(IRBuilder<> &B, Value *Index);
  Value *headerWord(IRBuilder<> &B, ck_context_word Word);
  Value *slotWord(IRBuilder<> &B, Value *Group, uint64_t ByteOffset);
  Value *load(IRBuilder<> &B, ck_context_word Word);
  Value *add(IRBuilder<> &B, ck_context_word Word, Value *Amount);
  Value *compareExchange(IRBuilder<> &B, ck_context_word Word, Value *Expected,
                         Value *Desired);
  Value *callWorkItemQuery(IRBuilder<> &B, StringRef Name, unsigned Dim);
  Value *groupId(IRBuilder<> &B);
  Value *isThread0(IRBuilder<> &B);
  void workgroupBarrier(IRBuilder<> &B);
  void spinWait(IRBuilder<> &B);
  SmallVector<Value *, 16> packTransmitRecord(IRBuilder<> &B);
  void unpackTransmitRecord(IRBuilder<> &B, ArrayRef<Value *> Words);

  // Control-flow construction; blocks go before the current continuation.
  BasicBlock *newBlock(const Twine &Name);
  Value *workgroupUniform(IRBuilder<> &B, EmitFn Thread0);
  Value *ifElse(IRBuilder<> &B, Value *Condition, EmitFn Then, EmitFn Else);

  // The protocols, as run by local thread 0.
  Value *emitRandomChoice(IRBuilder<> &B, Value *Bound);
  Value *emitOfferKill(IRBuilder<> &B);
  Value *emitKillSlowPath(IRBuilder<> &B, bool FromOfferKill);
  void emitFork(IRBuilder<> &B, unsigned ResumeId,
                function_ref<void(IRBuilder<> &)> BeforePublish = nullptr);
  Value *emitResizeGather(IRBuilder<> &B, unsigned ResumeId);
  std::pair<Value *, Value *> emitArrive(IRBuilder<> &B);
  Value *generationChanged(IRBuilder<> &B, Value *State, Value *Generation);
  Value *allArrived(IRBuilder<> &B, Value *State);
  Value *barrierStuck(IRBuilder<> &B, Value *Generation);
  Value *spinUntilOrStuck(IRBuilder<> &B, const Twine &Name, EmitFn Ready,
                          EmitFn Stuck);
  void recordStuck(IRBuilder<> &B);
  Value *emitGlobalBarrierThread0(IRBuilder<> &B);
  Value *emitResizeKills(IRBuilder<> &B);
  Value *emitKillAndMeet(IRBuilder<> &B);

  // Whole builtins, run by every thread.
  void emitGlobalBarrier(IRBuilder<> &B);
  void emitExitIf(IRBuilder<> &B, Value *Leave);
  void recordReturn(ReturnInst &Return);
  void setBarrierSite(const CallBase &Call, bool Resizing);
  void lowerBuiltin(CallBase &Call, Builtin Kind);
  void lowerGridQueries();
  void refreshKnownActive(BasicBlock::iterator Where);
  void emitResumeDispatch();
  SwitchInst *resumeGuard(Loop &L, AllocaInst &Pending);
  void repairSSA();
  void eraseTransmitAnnotations();

  Function &F;
  Module &M;
  LLVMContext &Ctx;
  const TransmitRecord &Record;
  Argument *Context;
  IntegerType *I32;
  IntegerType *I64;
  GlobalVariable *Broadcast = nullptr;
  AllocaInst *RecordBuffer = nullptr;
  /// M as this workgroup last read it, in kernels whose only builtins are
  /// barriers (see run()); null in the others.
  AllocaInst *KnownActive = nullptr;
  BasicBlock *Continuation = nullptr;
  BasicBlock *LeaveExit = nullptr;
  /// The barrier call being lowered, as CK_STUCK_BARRIER and CK_STUCK_LINE
  /// record it.
  unsigned BarrierCalls = 0;
  uint32_t BarrierSite = 0;
  uint32_t BarrierLine = 0;
  SmallVector<std::pair<unsigned, BasicBlock *>, 4> ResumePoints;
};

KernelLowering::KernelLowering(Function &Kernel, const TransmitRecord &Record)
    : F(Kernel), M(*Kernel.getParent()), Ctx(Kernel.getContext()),
      Record(Record), Context(Kernel.getArg(Kernel.arg_size() - 1)),
      I32(Type::getInt32Ty(Ctx)), I64(Type::getInt64Ty(Ctx)) {}

Value *KernelLowering::contextWord(IRBuilder<> &B, Value *Index) {
  return B.CreateGEP(I32, Context, Index);
}

Value *KernelLowering::headerWord(IRBuilder<> &B, ck_context_word Word) {
  return contextWord(B, B.getInt64(Word));
}

Value *KernelLowering::slotWord(IRBuilder<> &B, Value *Group,
                                uint64_t ByteOffset) {
  Value *First = B.CreateMul(B.CreateZExt(Group, I64), B.getInt64(SlotWords));
  return contextWord(
      B, B.CreateAdd(First, B.getInt64(CK_HEADER_WORDS + ByteOffset / 4)));
}

static LoadInst *atomicLoad(IRBuilder<> &B, Value *Pointer) {
  LoadInst *Load = B.CreateAlignedLoad(B.getInt32Ty(), Pointer, Align(4));
  Load->setAtomic(SeqCst);
  return Load;
}

static void atomicStore(IRBuilder<> &B, Value *Value, llvm::Value *Pointer) {
  B.CreateAlignedStore(Value, Pointer, Align(4))->setAtomic(SeqCst);
}

Value *KernelLowering::load(IRBuilder<> &B, ck_context_word Word) {
  return atomicLoad(B, headerWord(B, Word));
}

Value *KernelLowering::add(IRBuilder<> &B, ck_context_word Word,
                           Value *Amount) {
  return B.CreateAtomicRMW(AtomicRMWInst::Add, headerWord(B, Word), Amount,
                           Align(4), SeqCst);
}

/// Tells the driver that this thread polls for another workgroup: a call to
/// CK_SPIN_WAIT_FUNCTION, an empty function that Clover replaces with the
/// driver's spin-wait hint (llvmpipe yields the CPU there).
void KernelLowering::spinWait(IRBuilder<> &B) {
  Function *Hint = M.getFunction(CK_SPIN_WAIT_FUNCTION);
  if (!Hint) {
    Hint = Function::Create(FunctionType::get(B.getVoidTy(), false),
                            GlobalValue::InternalLinkage, CK_SPIN_WAIT_FUNCTION,
                            M);
    Hint->setCallingConv(CallingConv::SPIR_FUNC);
    Hint->addFnAttr(Attribute::NoInline);
    ReturnInst::Create(Ctx, BasicBlock::Create(Ctx, "entry", Hint));
  }
  B.CreateCall(Hint)->setCallingConv(CallingConv::SPIR_FUNC);
}

/// Returns whether the exchange happened.
Value *KernelLowering::compareExchange(IRBuilder<> &B, ck_context_word Word,
                                       Value *Expected, Value *Desired) {
  Value *Pair = B.CreateAtomicCmpXchg(headerWord(B, Word), Expected, Desired,
                                      Align(4), SeqCst, SeqCst);
  return B.CreateExtractValue(Pair, 1);
}

Value *KernelLowering::callWorkItemQuery(IRBuilder<> &B, StringRef Name,
                                         unsigned Dim) {
  AttributeList Attrs = AttributeList::get(
      Ctx, AttributeList::FunctionIndex,
      {Attribute::Convergent, Attribute::NoUnwind, Attribute::ReadNone,
       Attribute::WillReturn});
  FunctionCallee Query =
      M.getOrInsertFunction(Name, Attrs, I64, I32);
  cast<Function>(Query.getCallee())->setCallingConv(CallingConv::SPIR_FUNC);
  CallInst *Call = B.CreateCall(Query, B.getInt32(Dim));
  Call->setCallingConv(CallingConv::SPIR_FUNC);
  Call->setAttributes(Attrs);
  return Call;
}

Value *KernelLowering::groupId(IRBuilder<> &B) {
  return B.CreateTrunc(callWorkItemQuery(B, "_Z12get_group_idj", 0), I32,
                       "ck.group");
}

void KernelLowering::workgroupBarrier(IRBuilder<> &B) {
  AttributeList Attrs = AttributeList::get(Ctx, AttributeList::FunctionIndex,
                                           {Attribute::Convergent});
  FunctionCallee Barrier = M.getOrInsertFunction(
      "_Z7barrierj", Attrs, Type::getVoidTy(Ctx), I32);
  cast<Function>(Barrier.getCallee())->setCallingConv(CallingConv::SPIR_FUNC);
  CallInst *Call = B.CreateCall(Barrier, B.getInt32(LocalAndGlobalMemFence));
  Call->setCallingConv(CallingConv::SPIR_FUNC);
  Call->setAttributes(Attrs);
}

/// One scalar or vector of a transmit variable: an integer, floating-point
/// or pointer member or array element, or a vector of them, reached through
/// typed indices. No casts of the variable: Mesa's nir_opt_deref turns a cast
/// of a struct variable to its first member's type into that member, and
/// word copies through such a cast moved only the first field.
struct TransmitLeaf {
  AllocaInst *Variable;
  SmallVector<Value *, 4> Indices; ///< GEP indices from the variable.
  Type *Ty;                        ///< Scalar or vector type.
  uint64_t RecordOffset;           ///< Byte offset in the transmit record.
  Align Alignment;                 ///< Of the member at Indices.
};

/// Appends the leaves of the \p T at \p Indices, \p Offset bytes into
/// \p Field's variable, in memory order.
static void collectLeaves(const DataLayout &DL, const TransmitField &Field,
                          Type *T, SmallVector<Value *, 4> &Indices,
                          uint64_t Offset,
                          SmallVectorImpl<TransmitLeaf> &Leaves) {
  IntegerType *I32 = Type::getInt32Ty(T->getContext());
  auto Visit = [&](unsigned Index, Type *Member, uint64_t MemberOffset) {
    Indices.push_back(ConstantInt::get(I32, Index));
    collectLeaves(DL, Field, Member, Indices, Offset + MemberOffset, Leaves);
    Indices.pop_back();
  };
  if (auto *Struct = dyn_cast<StructType>(T)) {
    const StructLayout *Layout = DL.getStructLayout(Struct);
    for (unsigned I = 0; I < Struct->getNumElements(); ++I)
      Visit(I, Struct->getElementType(I), Layout->getElementOffset(I));
  } else if (auto *Array = dyn_cast<ArrayType>(T)) {
    uint64_t Stride = DL.getTypeAllocSize(Array->getElementType());
    for (unsigned I = 0; I < Array->getNumElements(); ++I)
      Visit(I, Array->getElementType(), I * Stride);
  } else {
    Leaves.push_back({Field.Variable, Indices, T, Field.Offset + Offset,
                      commonAlignment(Field.Variable->getAlign(), Offset)});
  }
}

/// The leaves of every transmit variable.
static SmallVector<TransmitLeaf, 16>
collectLeaves(const DataLayout &DL, const TransmitRecord &Record) {
  SmallVector<TransmitLeaf, 16> Leaves;
  for (const TransmitField &Field : Record.Fields) {
    SmallVector<Value *, 4> Indices{
        ConstantInt::get(Type::getInt32Ty(Field.Variable->getContext()), 0)};
    collectLeaves(DL, Field, Field.Variable->getAllocatedType(), Indices, 0,
                  Leaves);
  }
  return Leaves;
}

/// Calls \p Visit(Word, Shift) for each record word that the \p Bytes at
/// record byte \p Offset overlap, Shift being the position of their first
/// bit relative to the word's first bit (negative if they start before it).
template <typename Fn>
static void forEachWord(uint64_t Offset, uint64_t Bytes, Fn Visit) {
  for (uint64_t Word = Offset / 4; Word * 4 < Offset + Bytes; ++Word)
    Visit(Word, int64_t(Offset * 8) - int64_t(Word * 32));
}

/// The scalars of \p Leaf in memory order, with their record offsets.
static SmallVector<std::pair<Type *, uint64_t>, 4>
leafScalars(const DataLayout &DL, const TransmitLeaf &Leaf) {
  auto *Vector = dyn_cast<FixedVectorType>(Leaf.Ty);
  if (!Vector)
    return {{Leaf.Ty, Leaf.RecordOffset}};
  SmallVector<std::pair<Type *, uint64_t>, 4> Lanes;
  uint64_t Stride = DL.getTypeStoreSize(Vector->getElementType());
  for (unsigned Lane = 0; Lane < Vector->getNumElements(); ++Lane)
    Lanes.push_back({Vector->getElementType(), Leaf.RecordOffset + Lane * Stride});
  return Lanes;
}

/// Packs every transmit variable into the record's words: each scalar is
/// loaded with its own type and shifted into the words it covers. Padding
/// is 0.
/// The member of a transmit variable that \p Leaf names.
static Value *leafAddress(IRBuilder<> &B, const TransmitLeaf &Leaf) {
  if (Leaf.Indices.size() == 1)
    return Leaf.Variable;
  return B.CreateInBoundsGEP(Leaf.Variable->getAllocatedType(), Leaf.Variable,
                             Leaf.Indices);
}

/// \p V shifted left by \p Shift bits, or right by -Shift.
static Value *shiftLeft(IRBuilder<> &B, Value *V, int64_t Shift) {
  if (Shift > 0)
    return B.CreateShl(V, Shift);
  if (Shift < 0)
    return B.CreateLShr(V, -Shift);
  return V;
}

/// \p A | \p B, where a null \p A stands for 0.
static Value *orInto(IRBuilder<> &B, Value *A, Value *Bits) {
  return A ? B.CreateOr(A, Bits) : Bits;
}

/// Packs every transmit variable into the record's words: each scalar is
/// loaded with its own type and shifted into the words it covers. Padding
/// is 0.
SmallVector<Value *, 16> KernelLowering::packTransmitRecord(IRBuilder<> &B) {
  const DataLayout &DL = M.getDataLayout();
  SmallVector<Value *, 16> Words(divideCeil(Record.Bytes, 4), nullptr);
  for (const TransmitLeaf &Leaf : collectLeaves(DL, Record)) {
    Value *Loaded =
        B.CreateAlignedLoad(Leaf.Ty, leafAddress(B, Leaf), Leaf.Alignment);
    for (const auto &Lane : enumerate(leafScalars(DL, Leaf))) {
      auto [Scalar, Offset] = Lane.value();
      Value *V = Leaf.Ty->isVectorTy()
                     ? B.CreateExtractElement(Loaded, Lane.index())
                     : Loaded;
      uint64_t Bits = DL.getTypeSizeInBits(Scalar);
      IntegerType *Int = B.getIntNTy(Bits);
      V = Scalar->isPointerTy() ? B.CreatePtrToInt(V, Int)
                                : B.CreateBitCast(V, Int);
      V = B.CreateZExt(V, B.getIntNTy(std::max<uint64_t>(Bits, 32)));
      forEachWord(Offset, DL.getTypeStoreSize(Scalar),
                  [&](uint64_t Word, int64_t Shift) {
                    Words[Word] = orInto(
                        B, Words[Word],
                        B.CreateTrunc(shiftLeft(B, V, Shift), I32));
                  });
    }
  }
  for (Value *&Word : Words)
    if (!Word)
      Word = B.getInt32(0);
  return Words;
}

/// Unpacks the record's \p Words into the transmit variables, the inverse
/// of packTransmitRecord.
void KernelLowering::unpackTransmitRecord(IRBuilder<> &B,
                                          ArrayRef<Value *> Words) {
  const DataLayout &DL = M.getDataLayout();
  for (const TransmitLeaf &Leaf : collectLeaves(DL, Record)) {
    Value *Unpacked = UndefValue::get(Leaf.Ty);
    for (const auto &Lane : enumerate(leafScalars(DL, Leaf))) {
      auto [Scalar, Offset] = Lane.value();
      uint64_t Bits = DL.getTypeSizeInBits(Scalar);
      IntegerType *Wide = B.getIntNTy(std::max<uint64_t>(Bits, 32));
      Value *V = nullptr;
      forEachWord(Offset, DL.getTypeStoreSize(Scalar),
                  [&](uint64_t Word, int64_t Shift) {
                    V = orInto(B, V,
                               shiftLeft(B, B.CreateZExt(Words[Word], Wide),
                                         -Shift));
                  });
      V = B.CreateTrunc(V, B.getIntNTy(Bits));
      V = Scalar->isPointerTy() ? B.CreateIntToPtr(V, Scalar)
                                : B.CreateBitCast(V, Scalar);
      Unpacked = Leaf.Ty->isVectorTy()
                     ? B.CreateInsertElement(Unpacked, V, Lane.index())
                     : V;
    }
    B.CreateAlignedStore(Unpacked, leafAddress(B, Leaf), Leaf.Alignment);
  }
}

BasicBlock *KernelLowering::newBlock(const Twine &Name) {
  return BasicBlock::Create(Ctx, "ck." + Name, &F, Continuation);
}

/// i1: whether this is local thread 0.
Value *KernelLowering::isThread0(IRBuilder<> &B) {
  Value *IsThread0 = nullptr;
  for (unsigned Dim = 0; Dim < 3; ++Dim) {
    Value *IsZero = B.CreateICmpEQ(
        callWorkItemQuery(B, "_Z12get_local_idj", Dim), B.getInt64(0));
    IsThread0 = IsThread0 ? B.CreateAnd(IsThread0, IsZero) : IsZero;
  }
  return IsThread0;
}

/// Runs \p Thread0 on local thread 0 only, between two workgroup barriers,
/// and returns the i32 it produced (if any) in every thread.
Value *KernelLowering::workgroupUniform(IRBuilder<> &B, EmitFn Thread0) {
  workgroupBarrier(B);
  Value *IsThread0 = isThread0(B);
  BasicBlock *Leader = newBlock("thread0");
  BasicBlock *Join = newBlock("uniform");
  B.CreateCondBr(IsThread0, Leader, Join);
  B.SetInsertPoint(Leader);
  Value *Result = Thread0(B);
  if (Result)
    B.CreateStore(Result, Broadcast);
  B.CreateBr(Join);
  B.SetInsertPoint(Join);
  workgroupBarrier(B);
  return Result ? B.CreateLoad(I32, Broadcast, "ck.broadcast") : nullptr;
}

/// Emits if/else; returns the phi of the branch values (if any).
Value *KernelLowering::ifElse(IRBuilder<> &B, Value *Condition, EmitFn Then,
                              EmitFn Else) {
  BasicBlock *ThenBB = newBlock("then");
  BasicBlock *ElseBB = newBlock("else");
  BasicBlock *Join = newBlock("endif");
  B.CreateCondBr(Condition, ThenBB, ElseBB);
  B.SetInsertPoint(ThenBB);
  Value *ThenValue = Then(B);
  BasicBlock *ThenEnd = B.GetInsertBlock();
  B.CreateBr(Join);
  B.SetInsertPoint(ElseBB);
  Value *ElseValue = Else(B);
  BasicBlock *ElseEnd = B.GetInsertBlock();
  B.CreateBr(Join);
  B.SetInsertPoint(Join);
  if (!ThenValue)
    return nullptr;
  PHINode *Phi = B.CreatePHI(ThenValue->getType(), 2);
  Phi->addIncoming(ThenValue, ThenEnd);
  Phi->addIncoming(ElseValue, ElseEnd);
  return Phi;
}

/// Under the random policy (CK_RANDOM_SEED is not 0) the launch's next draw
/// in [0, Bound], as ck_random_draw in ck/context.h; otherwise Bound. Only
/// slow paths call this: the scheduler offered something.
Value *KernelLowering::emitRandomChoice(IRBuilder<> &B, Value *Bound) {
  Value *Seed = load(B, CK_RANDOM_SEED);
  return ifElse(
      B, B.CreateICmpEQ(Seed, B.getInt32(0), "ck.not.random"),
      [&](IRBuilder<> &) { return Bound; },
      [&](IRBuilder<> &B) {
        Value *Draw = add(B, CK_RANDOM_DRAWS, B.getInt32(1));
        Value *X = B.CreateXor(Seed, B.CreateMul(Draw, B.getInt32(0x9e3779b9)));
        X = B.CreateXor(X, B.CreateLShr(X, 16));
        X = B.CreateMul(X, B.getInt32(0x85ebca6b));
        X = B.CreateXor(X, B.CreateLShr(X, 13));
        X = B.CreateMul(X, B.getInt32(0xc2b2ae35));
        X = B.CreateXor(X, B.CreateLShr(X, 16));
        return B.CreateURem(X, B.CreateAdd(Bound, B.getInt32(1)), "ck.random");
      });
}

/// offer_kill for thread 0: one atomic load when no kill is requested.
/// Returns i1 killed.
Value *KernelLowering::emitOfferKill(IRBuilder<> &B) {
  Value *NoRequest =
      B.CreateICmpEQ(load(B, CK_KILL_REQUESTS), B.getInt32(0), "ck.no.kill");
  return ifElse(
      B, NoRequest, [&](IRBuilder<> &B) -> Value * { return B.getFalse(); },
      [&](IRBuilder<> &B) {
        return emitKillSlowPath(B, /*FromOfferKill=*/true);
      });
}

/// The highest active workgroup (never workgroup 0) claims a kill request
/// and retires itself by decrementing M; if M moved meanwhile it gives the
/// request back. Returns i1 killed.
///
/// For offer_kill (\p FromOfferKill), under the random policy the last
/// workgroup first draws whether to accept at all, and any other workgroup
/// gives the driver a spin-wait hint: a kill is wanted that only the last
/// workgroup can grant, and when workgroups outnumber CPUs it may be waiting
/// for one. (The resize loop, the other caller, waits with its own hint.)
Value *KernelLowering::emitKillSlowPath(IRBuilder<> &B, bool FromOfferKill) {
  Value *Group = groupId(B);
  Value *Active = load(B, CK_ACTIVE_GROUPS);
  Value *IsNotFirst = B.CreateICmpNE(Group, B.getInt32(0));
  Value *IsLast = B.CreateAnd(
      IsNotFirst, B.CreateICmpEQ(B.CreateAdd(Group, B.getInt32(1)), Active),
      "ck.last");
  return ifElse(
      B, IsLast,
      [&](IRBuilder<> &B) -> Value * {
        Value *Accept =
            FromOfferKill ? emitRandomChoice(B, B.getInt32(1)) : nullptr;
        BasicBlock *Decided = B.GetInsertBlock();
        // Created after the choice's blocks, which dominate them.
        BasicBlock *Claim = newBlock("kill.claim");
        BasicBlock *TryClaim = newBlock("kill.try");
        BasicBlock *Retire = newBlock("kill.retire");
        BasicBlock *Killed = newBlock("kill.killed");
        BasicBlock *GiveBack = newBlock("kill.giveback");
        BasicBlock *Done = newBlock("kill.done");
        if (Accept)
          B.CreateCondBr(B.CreateICmpNE(Accept, B.getInt32(0), "ck.accept"),
                         Claim, Done);
        else
          B.CreateBr(Claim);

        B.SetInsertPoint(Claim);
        Value *Requests = load(B, CK_KILL_REQUESTS);
        B.CreateCondBr(B.CreateICmpEQ(Requests, B.getInt32(0)), Done,
                       TryClaim);

        B.SetInsertPoint(TryClaim);
        B.CreateCondBr(compareExchange(B, CK_KILL_REQUESTS, Requests,
                                       B.CreateSub(Requests, B.getInt32(1))),
                       Retire, Claim);

        B.SetInsertPoint(Retire);
        B.CreateCondBr(compareExchange(B, CK_ACTIVE_GROUPS, Active,
                                       B.CreateSub(Active, B.getInt32(1))),
                       Killed, GiveBack);

        B.SetInsertPoint(Killed);
        add(B, CK_KILLS, B.getInt32(1));
        B.CreateBr(Done);

        B.SetInsertPoint(GiveBack);
        add(B, CK_KILL_REQUESTS, B.getInt32(1));
        B.CreateBr(Done);

        B.SetInsertPoint(Done);
        PHINode *Result = B.CreatePHI(B.getInt1Ty(), 4, "ck.killed");
        if (Accept)
          Result->addIncoming(B.getFalse(), Decided);
        Result->addIncoming(B.getFalse(), Claim);
        Result->addIncoming(B.getTrue(), Killed);
        Result->addIncoming(B.getFalse(), GiveBack);
        return Result;
      },
      [&](IRBuilder<> &B) -> Value * {
        if (FromOfferKill)
          spinWait(B);
        return B.getFalse();
      });
}

/// request_fork for thread 0: one atomic load when nothing is offered.
/// Otherwise takes the offers, keeps k = min(offers, N - M) (under the
/// random policy a draw in [0, that]) and gives the rest back, reserves ids
/// [M, M + k) with an atomic add on M (the scheduler never offers more than
/// N - M) and saves the transmit variables. \p BeforePublish, if any, runs
/// next on every path. Then, if k > 0, the slot of each new id is written
/// (transmit record, resume id), its ready flag set and the doorbell rung.
void KernelLowering::emitFork(IRBuilder<> &B, unsigned ResumeId,
                              function_ref<void(IRBuilder<> &)> BeforePublish) {
  BasicBlock *Start = B.GetInsertBlock();
  BasicBlock *Take = newBlock("fork.take");
  BasicBlock *Reserved = newBlock("fork.reserved");
  Value *NoOffer =
      B.CreateICmpEQ(load(B, CK_FORK_OFFERS), B.getInt32(0), "ck.no.fork");
  B.CreateCondBr(NoOffer, Reserved, Take);

  B.SetInsertPoint(Take);
  Value *Offers = B.CreateAtomicRMW(AtomicRMWInst::Xchg,
                                    headerWord(B, CK_FORK_OFFERS),
                                    B.getInt32(0), Align(4), SeqCst);
  Value *Max = load(B, CK_MAX_GROUPS);
  Value *Active = load(B, CK_ACTIVE_GROUPS);
  Value *HasRoom = B.CreateICmpUGT(Max, Active);
  Value *Room =
      B.CreateSelect(HasRoom, B.CreateSub(Max, Active), B.getInt32(0));
  Value *Forks = emitRandomChoice(
      B, B.CreateSelect(B.CreateICmpULT(Offers, Room), Offers, Room));
  Forks->setName("ck.forks");
  // Created after the choice's blocks, which dominate them.
  BasicBlock *GiveBack = newBlock("fork.giveback");
  BasicBlock *Reserve = newBlock("fork.reserve");
  B.CreateCondBr(B.CreateICmpUGT(Offers, Forks), GiveBack, Reserve);

  B.SetInsertPoint(GiveBack);
  add(B, CK_FORK_OFFERS, B.CreateSub(Offers, Forks));
  B.CreateBr(Reserve);

  B.SetInsertPoint(Reserve);
  Value *Base = add(B, CK_ACTIVE_GROUPS, Forks);
  // Never write past slot N - 1, even if M went past N (a scheduler bug).
  Value *End = B.CreateAdd(Base, Forks);
  End = B.CreateSelect(B.CreateICmpULT(End, Max), End, Max);
  for (const auto &Word : enumerate(packTransmitRecord(B)))
    B.CreateStore(Word.value(),
                  B.CreateConstInBoundsGEP2_32(RecordBuffer->getAllocatedType(),
                                               RecordBuffer, 0, Word.index()));
  B.CreateBr(Reserved);

  B.SetInsertPoint(Reserved);
  auto Merge = [&](Value *Reserving, const Twine &Name) {
    PHINode *Phi = B.CreatePHI(I32, 2, Name);
    Phi->addIncoming(B.getInt32(0), Start);
    Phi->addIncoming(Reserving, Reserve);
    return Phi;
  };
  Value *K = Merge(Forks, "ck.k");
  Value *First = Merge(Base, "ck.first.new");
  Value *Last = Merge(End, "ck.end.new");
  if (BeforePublish)
    BeforePublish(B);
  // After BeforePublish's blocks, which may dominate them.
  BasicBlock *Next = newBlock("fork.next");
  BasicBlock *Publish = newBlock("fork.publish");
  BasicBlock *Count = newBlock("fork.count");
  BasicBlock *Done = newBlock("fork.done");
  BasicBlock *Publishing = B.GetInsertBlock();
  B.CreateCondBr(B.CreateICmpEQ(K, B.getInt32(0)), Done, Next);

  B.SetInsertPoint(Next);
  PHINode *Group = B.CreatePHI(I32, 2, "ck.new.group");
  Group->addIncoming(First, Publishing);
  B.CreateCondBr(B.CreateICmpULT(Group, Last), Publish, Count);

  B.SetInsertPoint(Publish);
  for (unsigned Word = 0; Word * 4 < Record.Bytes; ++Word) {
    Value *Value = B.CreateLoad(
        I32, B.CreateConstInBoundsGEP2_32(RecordBuffer->getAllocatedType(),
                                          RecordBuffer, 0, Word));
    atomicStore(B, Value, slotWord(B, Group, CK_SLOT_TRANSMIT + Word * 4));
  }
  atomicStore(B, B.getInt32(ResumeId),
              slotWord(B, Group, CK_SLOT_RESUME_POINT));
  // The slot is complete: let the scheduler start the work-group.
  atomicStore(B, B.getInt32(1), slotWord(B, Group, CK_SLOT_READY));
  add(B, CK_FORKS_PUBLISHED, B.getInt32(1));
  Group->addIncoming(B.CreateAdd(Group, B.getInt32(1)), Publish);
  B.CreateBr(Next);

  B.SetInsertPoint(Count);
  add(B, CK_FORKS, K);
  B.CreateBr(Done);

  B.SetInsertPoint(Done);
}

/// Arrives at a global barrier: an atomic add of 1 on CK_BARRIER_ARRIVED
/// (generation << 16 | count). Returns the barrier's generation and the
/// state that releases it (next generation, count 0).
std::pair<Value *, Value *> KernelLowering::emitArrive(IRBuilder<> &B) {
  Value *Ticket = add(B, CK_BARRIER_ARRIVED, B.getInt32(1));
  Value *Generation = B.CreateLShr(Ticket, CK_BARRIER_GENERATION_SHIFT,
                                   "ck.generation");
  Value *Released = B.CreateShl(B.CreateAdd(Generation, B.getInt32(1)),
                                CK_BARRIER_GENERATION_SHIFT, "ck.released");
  return {Generation, Released};
}

/// Whether the barrier word State belongs to a later generation than ours.
Value *KernelLowering::generationChanged(IRBuilder<> &B, Value *State,
                                         Value *Generation) {
  return B.CreateICmpNE(B.CreateLShr(State, CK_BARRIER_GENERATION_SHIFT),
                        Generation);
}

/// Whether the barrier word State counts all M active workgroups arrived.
Value *KernelLowering::allArrived(IRBuilder<> &B, Value *State) {
  Value *Arrived =
      B.CreateAnd(State, B.getInt32(CK_BARRIER_COUNT_MASK), "ck.arrived");
  return B.CreateICmpUGE(Arrived, load(B, CK_ACTIVE_GROUPS));
}

/// Whether the global barrier of generation \p Generation, at which this
/// workgroup waits, can never complete: a workgroup returned from the kernel
/// (it stays active, so every barrier needs it, and it can no longer
/// arrive), and the barrier was still not released when read after that
/// return. Read in this order, a return that followed the release (by a
/// workgroup that passed this barrier) is not mistaken for one before it.
Value *KernelLowering::barrierStuck(IRBuilder<> &B, Value *Generation) {
  Value *Returned =
      B.CreateICmpNE(load(B, CK_RETURNED_END), B.getInt32(0), "ck.returned");
  Value *Unreleased = B.CreateICmpEQ(
      B.CreateLShr(load(B, CK_BARRIER_ARRIVED), CK_BARRIER_GENERATION_SHIFT),
      Generation, "ck.unreleased");
  return B.CreateAnd(Returned, Unreleased, "ck.stuck");
}

/// Polls until \p Ready holds or \p Stuck does, with the spin-wait hint
/// between polls; returns i1 stuck.
Value *KernelLowering::spinUntilOrStuck(IRBuilder<> &B, const Twine &Name,
                                        EmitFn Ready, EmitFn Stuck) {
  BasicBlock *Poll = newBlock(Name);
  BasicBlock *Check = newBlock(Name + ".check");
  BasicBlock *Wait = newBlock(Name + ".spin");
  BasicBlock *Done = newBlock(Name + ".done");
  B.CreateBr(Poll);
  B.SetInsertPoint(Poll);
  B.CreateCondBr(Ready(B), Done, Check);
  B.SetInsertPoint(Check);
  B.CreateCondBr(Stuck(B), Done, Wait);
  B.SetInsertPoint(Wait);
  spinWait(B);
  B.CreateBr(Poll);
  B.SetInsertPoint(Done);
  PHINode *Result = B.CreatePHI(B.getInt1Ty(), 2, "ck.stuck");
  Result->addIncoming(B.getFalse(), Poll);
  Result->addIncoming(B.getTrue(), Check);
  return Result;
}

/// Records the barrier being lowered as the launch's stuck barrier, unless
/// another workgroup recorded one first.
void KernelLowering::recordStuck(IRBuilder<> &B) {
  ifElse(
      B,
      compareExchange(B, CK_STUCK_BARRIER, B.getInt32(0),
                      B.getInt32(BarrierSite)),
      [&](IRBuilder<> &B) -> Value * {
        atomicStore(B, B.getInt32(BarrierLine),
                    headerWord(B, CK_STUCK_LINE));
        return nullptr;
      },
      [](IRBuilder<> &) -> Value * { return nullptr; });
}

/// Arrive with an atomic add on CK_BARRIER_ARRIVED (generation << 16 |
/// count), which also tells the generation; poll until the generation
/// changes. Whoever sees all M active workgroups arrived (M can drop while
/// waiting: the top workgroup may be killed) releases everyone with a CAS
/// from the state it read to the next generation with count 0; a waiter
/// that read a state of an earlier generation fails its CAS. A waiter that
/// finds the barrier stuck (barrierStuck) records it and leaves. Returns
/// i32 1 if this workgroup must leave the kernel, else 0.
Value *KernelLowering::emitGlobalBarrierThread0(IRBuilder<> &B) {
  BasicBlock *Poll = newBlock("gbar.poll");
  BasicBlock *Check = newBlock("gbar.check");
  BasicBlock *Wait = newBlock("gbar.wait");
  BasicBlock *Spin = newBlock("gbar.spin");
  BasicBlock *Stuck = newBlock("gbar.stuck");
  BasicBlock *Release = newBlock("gbar.release");
  BasicBlock *Done = newBlock("gbar.done");
  auto [Generation, Released] = emitArrive(B);
  B.CreateBr(Poll);

  B.SetInsertPoint(Poll);
  Value *State = load(B, CK_BARRIER_ARRIVED);
  B.CreateCondBr(generationChanged(B, State, Generation), Done, Check);

  B.SetInsertPoint(Check);
  B.CreateCondBr(allArrived(B, State), Release, Wait);

  B.SetInsertPoint(Wait);
  B.CreateCondBr(barrierStuck(B, Generation), Stuck, Spin);

  B.SetInsertPoint(Spin);
  spinWait(B);
  B.CreateBr(Poll);

  B.SetInsertPoint(Stuck);
  recordStuck(B);
  BasicBlock *StuckEnd = B.GetInsertBlock();
  B.CreateBr(Done);

  B.SetInsertPoint(Release);
  B.CreateCondBr(compareExchange(B, CK_BARRIER_ARRIVED, State, Released), Done,
                 Poll);

  B.SetInsertPoint(Done);
  PHINode *Leave = B.CreatePHI(I32, 3, "ck.leave");
  Leave->addIncoming(B.getInt32(0), Poll);
  Leave->addIncoming(B.getInt32(0), Release);
  Leave->addIncoming(B.getInt32(1), StuckEnd);
  return Leave;
}

/// The first global barrier of a resizing barrier, for thread 0, released
/// by workgroup 0 alone (FSE'17 §4.2's master): the others arrive and wait
/// for the next generation. The master waits until all M have arrived, and
/// while they wait (M cannot change) reserves the ids of the workgroups it
/// forks, draws the kills W from the query (under the random policy), and
/// publishes F = M - W (CK_RESIZE_FIRST_DOOMED) and whether W > 0
/// (CK_RESIZE_DECISION). Then it releases everyone, and only then writes
/// the forked workgroups' slots, so that no new workgroup arrives at a
/// barrier before this one is released. Returns the decision, or
/// ResizeStuck if the barrier can never complete (barrierStuck; the master
/// alone releases it, so for the master a return is enough).
Value *KernelLowering::emitResizeGather(IRBuilder<> &B, unsigned ResumeId) {
  // Not a structured binding: the lambdas below capture them (C++20).
  const std::pair<Value *, Value *> Arrival = emitArrive(B);
  Value *Generation = Arrival.first, *Released = Arrival.second;
  auto LeaveIfStuck = [&](IRBuilder<> &B, Value *Stuck, EmitFn Decide) {
    return ifElse(
        B, Stuck,
        [&](IRBuilder<> &B) -> Value * {
          recordStuck(B);
          return B.getInt32(ResizeStuck);
        },
        Decide);
  };
  return ifElse(
      B, B.CreateICmpEQ(groupId(B), B.getInt32(0), "ck.master"),
      [&](IRBuilder<> &B) {
        Value *Stuck = spinUntilOrStuck(
            B, "resize.gather",
            [&](IRBuilder<> &B) {
              return allArrived(B, load(B, CK_BARRIER_ARRIVED));
            },
            [&](IRBuilder<> &B) {
              return B.CreateICmpNE(load(B, CK_RETURNED_END), B.getInt32(0));
            });
        return LeaveIfStuck(B, Stuck, [&](IRBuilder<> &B) {
          Value *Decision = nullptr;
          emitFork(B, ResumeId, [&](IRBuilder<> &B) {
            Value *Kills = emitRandomChoice(B, load(B, CK_KILL_REQUESTS));
            Kills->setName("ck.resize.kills");
            Value *Active = load(B, CK_ACTIVE_GROUPS);
            Value *First = B.CreateSelect(B.CreateICmpUGT(Active, Kills),
                                          B.CreateSub(Active, Kills),
                                          B.getInt32(0), "ck.first.doomed");
            atomicStore(B, First, headerWord(B, CK_RESIZE_FIRST_DOOMED));
            Decision = B.CreateZExt(B.CreateICmpNE(Kills, B.getInt32(0)), I32,
                                    "ck.decision");
            atomicStore(B, Decision, headerWord(B, CK_RESIZE_DECISION));
            atomicStore(B, Released, headerWord(B, CK_BARRIER_ARRIVED));
          });
          return Decision;
        });
      },
      [&](IRBuilder<> &B) {
        Value *Stuck = spinUntilOrStuck(
            B, "resize.wait",
            [&](IRBuilder<> &B) {
              return generationChanged(B, load(B, CK_BARRIER_ARRIVED),
                                       Generation);
            },
            [&](IRBuilder<> &B) { return barrierStuck(B, Generation); });
        return LeaveIfStuck(B, Stuck, [&](IRBuilder<> &B) {
          return load(B, CK_RESIZE_DECISION);
        });
      });
}

void KernelLowering::emitGlobalBarrier(IRBuilder<> &B) {
  emitExitIf(B, workgroupUniform(B, [&](IRBuilder<> &B) {
               return emitGlobalBarrierThread0(B);
             }));
}

/// After a resizing barrier, workgroups [F, M) (never workgroup 0) keep
/// offering to be killed until they are, until no kill is requested, or
/// until F is CK_RESIZE_NONE_DOOMED. One that stops un-killed sets it so
/// that the others stop too: once the top workgroup has stopped, no lower
/// one can be killed, and one still offering would spin as long as kills
/// are requested. Returns i1 killed.
Value *KernelLowering::emitResizeKills(IRBuilder<> &B) {
  Value *Group = groupId(B);
  Value *IsNotFirst = B.CreateICmpNE(Group, B.getInt32(0));
  Value *Doomed = B.CreateAnd(
      IsNotFirst, B.CreateICmpUGE(Group, load(B, CK_RESIZE_FIRST_DOOMED)),
      "ck.doomed");
  return ifElse(
      B, Doomed,
      [&](IRBuilder<> &B) -> Value * {
        BasicBlock *Offer = newBlock("resize.offer");
        BasicBlock *Wanted = newBlock("resize.wanted");
        BasicBlock *Slow = newBlock("resize.slow");
        BasicBlock *Stop = newBlock("resize.stop");
        BasicBlock *Done = newBlock("resize.done");
        B.CreateBr(Offer);
        B.SetInsertPoint(Offer);
        B.CreateCondBr(
            B.CreateICmpEQ(load(B, CK_KILL_REQUESTS), B.getInt32(0)), Stop,
            Wanted);
        B.SetInsertPoint(Wanted);
        B.CreateCondBr(B.CreateICmpEQ(load(B, CK_RESIZE_FIRST_DOOMED),
                                      B.getInt32(CK_RESIZE_NONE_DOOMED)),
                       Stop, Slow);
        B.SetInsertPoint(Slow);
        Value *Killed = emitKillSlowPath(B, /*FromOfferKill=*/false);
        BasicBlock *SlowEnd = B.GetInsertBlock();
        // After the slow path's blocks, which dominate it (SPIR-V order).
        BasicBlock *Wait = newBlock("resize.wait");
        B.CreateCondBr(Killed, Done, Wait);
        B.SetInsertPoint(Wait);
        spinWait(B);
        B.CreateBr(Offer);
        B.SetInsertPoint(Stop);
        atomicStore(B, B.getInt32(CK_RESIZE_NONE_DOOMED),
                    headerWord(B, CK_RESIZE_FIRST_DOOMED));
        B.CreateBr(Done);
        B.SetInsertPoint(Done);
        PHINode *Result = B.CreatePHI(B.getInt1Ty(), 2, "ck.killed");
        Result->addIncoming(B.getFalse(), Stop);
        Result->addIncoming(B.getTrue(), SlowEnd);
        return Result;
      },
      [&](IRBuilder<> &B) -> Value * { return B.getFalse(); });
}

/// The rest of a resizing barrier that kills, for thread 0: workgroups
/// [F, M) offer to be killed (emitResizeKills), and the others meet at a
/// global barrier, which completes once M has dropped to the survivors.
/// Returns i32 1 if this workgroup leaves the kernel (killed, or the
/// barrier is stuck), else 0.
Value *KernelLowering::emitKillAndMeet(IRBuilder<> &B) {
  return ifElse(
      B, emitResizeKills(B),
      [&](IRBuilder<> &B) -> Value * { return B.getInt32(1); },
      [&](IRBuilder<> &B) { return emitGlobalBarrierThread0(B); });
}

/// A return of the kernel function (not a kill): local thread 0 raises
/// CK_RETURNED_END to this workgroup's id + 1. The workgroup stays active,
/// so the scheduler stops asking for kills that only it could let through.
/// No barrier: work-items may return at different points.
void KernelLowering::recordReturn(ReturnInst &Return) {
  BasicBlock *Block = Return.getParent();
  BasicBlock *Exit = Block->splitBasicBlock(&Return, "ck.return");
  Block->getTerminator()->eraseFromParent();
  IRBuilder<> B(Block);
  B.SetCurrentDebugLocation(Return.getDebugLoc());
  BasicBlock *Record = BasicBlock::Create(Ctx, "ck.returned", &F, Exit);
  B.CreateCondBr(isThread0(B), Record, Exit);
  B.SetInsertPoint(Record);
  B.CreateAtomicRMW(AtomicRMWInst::UMax, headerWord(B, CK_RETURNED_END),
                    B.CreateAdd(groupId(B), B.getInt32(1)), Align(4), SeqCst);
  B.CreateBr(Exit);
}

/// Leaves the kernel, without recording a return, if \p Leave (i1, or i32
/// nonzero) holds: the workgroup was killed, or waited at a stuck barrier.
void KernelLowering::emitExitIf(IRBuilder<> &B, Value *Leave) {
  if (!LeaveExit) {
    LeaveExit = BasicBlock::Create(Ctx, "ck.exit", &F);
    ReturnInst::Create(Ctx, LeaveExit);
  }
  BasicBlock *Alive = newBlock("alive");
  if (!Leave->getType()->isIntegerTy(1))
    Leave = B.CreateICmpNE(Leave, B.getInt32(0));
  B.CreateCondBr(Leave, LeaveExit, Alive);
  B.SetInsertPoint(Alive);
}

/// Numbers the barrier call \p Call for CK_STUCK_BARRIER and takes its line.
void KernelLowering::setBarrierSite(const CallBase &Call, bool Resizing) {
  BarrierSite = (++BarrierCalls & CK_STUCK_INDEX_MASK) |
                (Resizing ? CK_STUCK_RESIZING : 0);
  BarrierLine = Call.getDebugLoc() ? Call.getDebugLoc().getLine() : 0;
}

void KernelLowering::lowerBuiltin(CallBase &Call, Builtin Kind) {
  BasicBlock *Before = Call.getParent();
  Continuation = Before->splitBasicBlock(std::next(Call.getIterator()),
                                         Before->getName() + ".ck.after");
  Before->getTerminator()->eraseFromParent();
  IRBuilder<> B(Before);
  B.SetCurrentDebugLocation(Call.getDebugLoc());
  auto BoolToI32 = [](IRBuilder<> &B, Value *V) {
    return B.CreateZExt(V, B.getInt32Ty());
  };

  switch (Kind) {
  case Builtin::OfferKill:
    emitExitIf(B, workgroupUniform(B, [&](IRBuilder<> &B) {
                 return BoolToI32(B, emitOfferKill(B));
               }));
    break;
  case Builtin::RequestFork: {
    unsigned ResumeId = ResumePoints.size() + 1;
    workgroupUniform(B, [&](IRBuilder<> &B) -> Value * {
      emitFork(B, ResumeId);
      return nullptr;
    });
    ResumePoints.push_back({ResumeId, Continuation});
    break;
  }
  case Builtin::GlobalBarrier:
    setBarrierSite(Call, /*Resizing=*/false);
    emitGlobalBarrier(B);
    break;
  case Builtin::ResizingGlobalBarrier: {
    // A global barrier released by workgroup 0, which forks and decides the
    // kills there (emitResizeGather). Only if it decided to kill: local
    // thread 0 runs the kill phase and meets the others at a second global
    // barrier (emitKillAndMeet), between one more pair of workgroup
    // barriers. Forked workgroups join there, after the first global
    // barrier; they read the decision like everyone else. The join point is
    // on the main path, so a fork point inside a loop stays inside it.
    setBarrierSite(Call, /*Resizing=*/true);
    unsigned ResumeId = ResumePoints.size() + 1;
    Value *Decision = workgroupUniform(
        B, [&](IRBuilder<> &B) { return emitResizeGather(B, ResumeId); });
    emitExitIf(B, B.CreateICmpEQ(Decision, B.getInt32(ResizeStuck), "ck.stuck"));
    BasicBlock *Join = newBlock("resize.join");
    B.CreateCondBr(B.CreateICmpNE(Decision, B.getInt32(0)), Join, Continuation);
    B.SetInsertPoint(Join);
    ResumePoints.push_back({ResumeId, Join});
    emitExitIf(B, workgroupUniform(B, [&](IRBuilder<> &B) {
                 return ifElse(
                     B,
                     B.CreateICmpNE(load(B, CK_RESIZE_DECISION), B.getInt32(0)),
                     [&](IRBuilder<> &B) { return emitKillAndMeet(B); },
                     [&](IRBuilder<> &B) -> Value * { return B.getInt32(0); });
               }));
    if (KnownActive)
      refreshKnownActive(Continuation->getFirstInsertionPt());
    break;
  }
  case Builtin::QueryKillCount:
    Call.replaceAllUsesWith(workgroupUniform(
        B, [&](IRBuilder<> &B) { return load(B, CK_KILL_REQUESTS); }));
    break;
  }
  B.CreateBr(Continuation);
  Call.eraseFromParent();
}

/// Reads M into KnownActive, for the grid queries that follow.
void KernelLowering::refreshKnownActive(BasicBlock::iterator Where) {
  IRBuilder<> B(Where->getParent(), Where);
  B.CreateStore(load(B, CK_ACTIVE_GROUPS), KnownActive);
}

/// get_num_groups(0) returns M and get_global_size(0) returns M times the
/// local size; other dimensions are unchanged.
void KernelLowering::lowerGridQueries() {
  SmallVector<CallBase *, 8> Queries;
  for (Instruction &I : instructions(F))
    if (auto *Call = dyn_cast<CallBase>(&I))
      if (Function *Callee = Call->getCalledFunction())
        if (Callee->getName() == "_Z14get_num_groupsj" ||
            Callee->getName() == "_Z15get_global_sizej")
          Queries.push_back(Call);
  for (CallBase *Query : Queries) {
    IRBuilder<> B(Query->getNextNode());
    B.SetCurrentDebugLocation(Query->getDebugLoc());
    Value *Dim = Query->getArgOperand(0);
    if (auto *Constant = dyn_cast<ConstantInt>(Dim))
      if (!Constant->isZero())
        continue;
    Value *Active = B.CreateZExt(KnownActive ? B.CreateLoad(I32, KnownActive)
                                             : load(B, CK_ACTIVE_GROUPS),
                                 I64, "ck.active");
    if (Query->getCalledFunction()->getName() == "_Z15get_global_sizej")
      Active = B.CreateMul(Active,
                           callWorkItemQuery(B, "_Z14get_local_sizej", 0));
    Value *Result =
        isa<ConstantInt>(Dim)
            ? Active
            : B.CreateSelect(B.CreateICmpEQ(Dim, B.getInt32(0)), Active, Query);
    Query->replaceUsesWithIf(Result,
                             [&](Use &U) { return U.getUser() != Result; });
    if (Query->use_empty())
      Query->eraseFromParent();
  }
}

/// Makes every edge into loop \p L go through a new header, the guard,
/// which continues to the old header unless \p Pending holds the resume id
/// of a fork point in the loop. Returns the guard's switch, to which the
/// caller adds one case per such fork point.
SwitchInst *KernelLowering::resumeGuard(Loop &L, AllocaInst &Pending) {
  BasicBlock *Header = L.getHeader();
  BasicBlock *Guard =
      BasicBlock::Create(Ctx, "ck.resume.guard", &F, Header);
  while (auto *Phi = dyn_cast<PHINode>(&Header->front()))
    Phi->moveBefore(*Guard, Guard->end());
  SmallVector<BasicBlock *, 4> Predecessors(predecessors(Header));
  for (BasicBlock *Predecessor : Predecessors)
    Predecessor->getTerminator()->replaceSuccessorWith(Header, Guard);
  IRBuilder<> B(Guard);
  if (DISubprogram *Scope = F.getSubprogram())
    B.SetCurrentDebugLocation(
        DILocation::get(Ctx, Scope->getScopeLine(), 0, Scope));
  return B.CreateSwitch(B.CreateLoad(I32, &Pending, "ck.pending"), Header);
}

/// At entry, a workgroup reads the resume id of its slot; a forked one
/// loads the transmit record into the transmit variables and goes to its
/// fork point. The arguments' spills stay before the dispatch, so that
/// forked workgroups see the kernel's arguments too.
///
/// A fork point inside loops is reached through the headers of the loops
/// that contain it, outermost first: each loop gets a guard header that
/// goes on towards the fork point while the id of a pending resume says so.
/// Jumping straight into a loop body would make the control flow
/// irreducible, which Mesa's structurizer (nir_lower_goto_ifs) turns into
/// different code from one run to the next, some of it wrong.
void KernelLowering::emitResumeDispatch() {
  BasicBlock &Entry = F.getEntryBlock();
  BasicBlock *Body =
      Entry.splitBasicBlock(afterArgumentSpills(Entry), "ck.body");

  // Loops are those of the kernel before any resume edge.
  DominatorTree DT(F);
  LoopInfo LI(DT);
  auto *Pending = new AllocaInst(I32, M.getDataLayout().getAllocaAddrSpace(),
                                 "ck.resume.pending", &*Entry.begin());
  DenseMap<Loop *, SwitchInst *> Guards;
  DenseMap<unsigned, BasicBlock *> FirstHop;
  for (auto &[Id, Target] : ResumePoints) {
    BasicBlock *Next = Target;
    for (Loop *L = LI.getLoopFor(Target); L; L = L->getParentLoop()) {
      SwitchInst *&Guard = Guards[L];
      if (!Guard)
        Guard = resumeGuard(*L, *Pending);
      Guard->addCase(ConstantInt::get(I32, Id), Next);
      Next = Guard->getParent();
    }
    FirstHop[Id] = Next;
    // Arrived: the resume is no longer pending.
    new StoreInst(ConstantInt::get(I32, 0), Pending,
                  &*Target->getFirstInsertionPt());
  }

  Entry.getTerminator()->eraseFromParent();
  IRBuilder<> B(&Entry);
  if (DISubprogram *Scope = F.getSubprogram())
    B.SetCurrentDebugLocation(
        DILocation::get(Ctx, Scope->getScopeLine(), 0, Scope));
  Value *Group = groupId(B);
  Value *ResumeId = atomicLoad(B, slotWord(B, Group, CK_SLOT_RESUME_POINT));
  B.CreateStore(ResumeId, Pending);
  SwitchInst *Dispatch = B.CreateSwitch(ResumeId, Body, ResumePoints.size());
  for (auto &[Id, Target] : ResumePoints) {
    BasicBlock *Restore = BasicBlock::Create(
        Ctx, "ck.resume." + Twine(Id), &F, Body);
    B.SetInsertPoint(Restore);
    SmallVector<Value *, 16> Words;
    for (unsigned Word = 0; Word * 4 < Record.Bytes; ++Word)
      Words.push_back(
          atomicLoad(B, slotWord(B, Group, CK_SLOT_TRANSMIT + Word * 4)));
    unpackTransmitRecord(B, Words);
    B.CreateBr(FirstHop[Id]);
    Dispatch->addCase(B.getInt32(Id), Restore);
  }

  // A resuming workgroup skips every definition on the way: phis on the new
  // edges take undef (repairSSA demotes what the skipped code defined).
  // One entry per edge, so as many as a predecessor has edges here.
  for (BasicBlock &Block : F)
    for (PHINode &Phi : Block.phis())
      for (BasicBlock *Predecessor : predecessors(&Block))
        if (count(Phi.blocks(), Predecessor) <
            count(predecessors(&Block), Predecessor))
          Phi.addIncoming(UndefValue::get(Phi.getType()), Predecessor);
}

/// The resume edges break dominance; demote what they broke to memory.
void KernelLowering::repairSSA() {
  DominatorTree DT(F);
  SmallVector<Instruction *, 16> Broken;
  for (Instruction &I : instructions(F))
    if (any_of(I.uses(), [&](const Use &U) { return !DT.dominates(&I, U); }))
      Broken.push_back(&I);
  for (Instruction *I : Broken) {
    if (auto *Phi = dyn_cast<PHINode>(I))
      DemotePHIToStack(Phi);
    else
      DemoteRegToStack(*I);
  }
}

/// The annotations have served their purpose; the SPIR-V translator would
/// turn them and their strings into invalid function-storage variables.
void KernelLowering::eraseTransmitAnnotations() {
  SmallVector<CallBase *, 4> Annotations;
  for (Instruction &I : instructions(F))
    if (auto *Call = dyn_cast<CallBase>(&I))
      if (isTransmitAnnotation(*Call))
        Annotations.push_back(Call);
  SmallPtrSet<GlobalVariable *, 4> Strings;
  for (CallBase *Call : Annotations) {
    for (Value *Operand : Call->args())
      if (auto *String = dyn_cast<GlobalVariable>(Operand->stripPointerCasts()))
        Strings.insert(String);
    Value *Variable = Call->getArgOperand(0);
    Call->eraseFromParent();
    RecursivelyDeleteTriviallyDeadInstructions(Variable);
  }
  for (GlobalVariable *String : Strings) {
    String->removeDeadConstantUsers();
    if (String->use_empty())
      String->eraseFromParent();
  }
}

void KernelLowering::run() {
  Broadcast = new GlobalVariable(
      M, I32, /*isConstant=*/false, GlobalValue::InternalLinkage,
      UndefValue::get(I32), F.getName() + ".ck.broadcast", nullptr,
      GlobalValue::NotThreadLocal, LocalAddressSpace);
  Broadcast->setAlignment(Align(4));
  if (Record.Bytes) {
    IRBuilder<> B(&F.getEntryBlock(), F.getEntryBlock().begin());
    RecordBuffer = B.CreateAlloca(
        ArrayType::get(I32, divideCeil(Record.Bytes, 4)), nullptr,
        "ck.transmit.record");
  }

  // The kernel's own returns, before the exit of the workgroups that leave
  // it (killed, or stuck at a barrier) exists.
  SmallVector<ReturnInst *, 2> Returns;
  for (BasicBlock &Block : F)
    if (auto *Return = dyn_cast<ReturnInst>(Block.getTerminator()))
      Returns.push_back(Return);

  SmallVector<std::pair<CallBase *, Builtin>, 8> Calls;
  for (Instruction &I : instructions(F))
    if (auto *Call = dyn_cast<CallBase>(&I))
      if (std::optional<Builtin> Kind = getCalledBuiltin(*Call))
        Calls.push_back({Call, *Kind});
  // Without offer_kill and request_fork, M changes only inside resizing
  // barriers, while every workgroup waits in them: a workgroup reads it at
  // entry and after each resizing barrier, and the grid queries read that
  // private copy, which the compiler can hoist out of loops (a loop striding
  // by get_global_size(0) otherwise loads M from global memory, in every
  // lane, at every step).
  if (none_of(Calls, [](const auto &Call) {
        return Call.second == Builtin::OfferKill ||
               Call.second == Builtin::RequestFork;
      })) {
    BasicBlock &Entry = F.getEntryBlock();
    KnownActive = IRBuilder<>(&Entry, Entry.begin())
                      .CreateAlloca(I32, nullptr, "ck.known.active");
    // After the argument spills, which the resume dispatch keeps before it.
    refreshKnownActive(afterArgumentSpills(Entry));
  }
  for (auto &[Call, Kind] : Calls)
    lowerBuiltin(*Call, Kind);
  for (ReturnInst *Return : Returns)
    recordReturn(*Return);
  lowerGridQueries();
  eraseTransmitAnnotations();
  if (!ResumePoints.empty()) {
    emitResumeDispatch();
    repairSSA();
  }
}

} // namespace

Function *addContextParameter(Function &Kernel) {
  LLVMContext &Ctx = Kernel.getContext();
  FunctionType *OldType = Kernel.getFunctionType();
  SmallVector<Type *, 8> Params(OldType->param_begin(), OldType->param_end());
  Params.push_back(Type::getInt32PtrTy(Ctx, GlobalAddressSpace));
  Function *NewKernel = Function::Create(
      FunctionType::get(OldType->getReturnType(), Params, false),
      Kernel.getLinkage(), Kernel.getAddressSpace());
  Kernel.getParent()->getFunctionList().insert(Kernel.getIterator(),
                                               NewKernel);
  NewKernel->copyAttributesFrom(&Kernel);
  NewKernel->getBasicBlockList().splice(NewKernel->begin(),
                                        Kernel.getBasicBlockList());
  for (auto [Old, New] : zip(Kernel.args(), NewKernel->args())) {
    Old.replaceAllUsesWith(&New);
    New.takeName(&Old);
  }
  NewKernel->getArg(Params.size() - 1)->setName(CK_CONTEXT_ARG_NAME);

  SmallVector<std::pair<unsigned, MDNode *>, 8> Metadata;
  Kernel.getAllMetadata(Metadata);
  SmallVector<StringRef, 16> KindNames;
  Ctx.getMDKindNames(KindNames);
  for (auto &[Kind, Node] : Metadata)
    NewKernel->setMetadata(Kind,
                           extendKernelArgInfo(Ctx, KindNames[Kind], Node));
  NewKernel->takeName(&Kernel);
  Kernel.eraseFromParent();
  return NewKernel;
}

void lowerKernel(Function &Kernel, const TransmitRecord &Record) {
  KernelLowering(Kernel, Record).run();
}

} // namespace ck
