//===- Lowering.cpp - Lowering of the builtins in one cooperative kernel --===//
//
// Every builtin becomes calls to the kernel side of the protocol
// (src/protocol/kernel_side.h) on the per-launch context (ck/context.h),
// reached through the hidden last kernel parameter; linkKernelSide() then
// links those functions in and inlines them. Workgroup-uniform decisions
// are taken by local thread 0 between two workgroup barriers and broadcast
// through a workgroup-local variable. Fork points get resume ids;
// a forked workgroup enters the kernel, reads its resume id and transmit
// record from its slot and jumps to the fork point. SSA values whose
// definitions no longer dominate their uses are then demoted to memory.
//
//===----------------------------------------------------------------------===//

#include "CooperativeKernels.hpp"

#include "ck/context.h"
#include "kernel_side.h"

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
  KernelLowering(Function &Kernel, const TransmitRecord &Record,
                 GroupStart Start);
  void run();

private:
  using EmitFn = function_ref<Value *(IRBuilder<> &)>;

  // Context and OpenCL builtin access.
  Value *slotWord(IRBuilder<> &B, Value *Group, uint64_t ByteOffset);
  Value *callWorkItemQuery(IRBuilder<> &B, StringRef Name, unsigned Dim);
  Value *hardwareGroupId(IRBuilder<> &B, const Twine &Name);
  Value *groupId(IRBuilder<> &B);
  Value *isThread0(IRBuilder<> &B);
  void workgroupBarrier(IRBuilder<> &B);
  SmallVector<Value *, 16> packTransmitRecord(IRBuilder<> &B);
  void unpackTransmitRecord(IRBuilder<> &B, ArrayRef<Value *> Words);

  // Control-flow construction; blocks go before the current continuation.
  BasicBlock *newBlock(const Twine &Name);
  Value *workgroupUniform(IRBuilder<> &B, EmitFn Thread0);

  // The protocol's steps (src/protocol/kernel_side.h), run by local thread 0.
  Value *callProtocol(IRBuilder<> &B, StringRef Name, Type *Result,
                      ArrayRef<Value *> Args, const Twine &ResultName = "");
  void emitPublish(IRBuilder<> &B, unsigned ResumeId, Value *First,
                   Value *Count);
  std::array<Value *, 2> barrierSite(IRBuilder<> &B);

  // Whole builtins, run by every thread.
  void emitExitIf(IRBuilder<> &B, Value *Leave);
  void recordReturn(ReturnInst &Return);
  void setBarrierSite(const CallBase &Call, bool Resizing);
  void lowerBuiltin(CallBase &Call, Builtin Kind);
  void lowerGridQueries();
  void lowerIdQueries();
  void refreshKnownActive(BasicBlock::iterator Where);
  void emitDiscovery();
  void emitResumeDispatch();
  SwitchInst *resumeGuard(Loop &L, AllocaInst &Pending);
  void repairSSA();
  void eraseTransmitAnnotations();

  Function &F;
  Module &M;
  LLVMContext &Ctx;
  const TransmitRecord &Record;
  const GroupStart Start;
  Argument *Context;
  IntegerType *I32;
  IntegerType *I64;
  GlobalVariable *Broadcast = nullptr;
  /// The ids that __ck_fork_reserve and __ck_resize_gather reserve.
  AllocaInst *ForkFirst = nullptr;
  AllocaInst *ForkCount = nullptr;
  /// M as this workgroup last read it, in kernels whose only builtins are
  /// barriers (see run()); null in the others.
  AllocaInst *KnownActive = nullptr;
  /// With GroupStart::Dispatched, the work-group's id in the launch, which
  /// emitDiscovery() sets at entry, and __ck_discover's result.
  AllocaInst *LaunchId = nullptr;
  AllocaInst *Ticket = nullptr;
  BasicBlock *Continuation = nullptr;
  BasicBlock *LeaveExit = nullptr;
  /// The barrier call being lowered, as CK_STUCK_BARRIER and CK_STUCK_LINE
  /// record it.
  unsigned BarrierCalls = 0;
  uint32_t BarrierSite = 0;
  uint32_t BarrierLine = 0;
  SmallVector<std::pair<unsigned, BasicBlock *>, 4> ResumePoints;
};

KernelLowering::KernelLowering(Function &Kernel, const TransmitRecord &Record,
                               GroupStart Start)
    : F(Kernel), M(*Kernel.getParent()), Ctx(Kernel.getContext()),
      Record(Record), Start(Start),
      Context(Kernel.getArg(Kernel.arg_size() - 1)),
      I32(Type::getInt32Ty(Ctx)), I64(Type::getInt64Ty(Ctx)) {}

Value *KernelLowering::slotWord(IRBuilder<> &B, Value *Group,
                                uint64_t ByteOffset) {
  Value *First = B.CreateMul(B.CreateZExt(Group, I64), B.getInt64(SlotWords));
  return B.CreateGEP(
      I32, Context,
      B.CreateAdd(First, B.getInt64(CK_HEADER_WORDS + ByteOffset / 4)));
}

static LoadInst *atomicLoad(IRBuilder<> &B, Value *Pointer) {
  LoadInst *Load = B.CreateAlignedLoad(B.getInt32Ty(), Pointer, Align(4));
  Load->setAtomic(AtomicOrdering::SequentiallyConsistent);
  return Load;
}

static void atomicStore(IRBuilder<> &B, Value *Value, llvm::Value *Pointer) {
  B.CreateAlignedStore(Value, Pointer, Align(4))
      ->setAtomic(AtomicOrdering::SequentiallyConsistent);
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

/// The work-group id the driver started the work-group with.
Value *KernelLowering::hardwareGroupId(IRBuilder<> &B, const Twine &Name) {
  return B.CreateTrunc(callWorkItemQuery(B, "_Z12get_group_idj", 0), I32,
                       Name);
}

/// The work-group's id in the launch: the hardware's, or with
/// GroupStart::Dispatched the one emitDiscovery() set.
Value *KernelLowering::groupId(IRBuilder<> &B) {
  if (LaunchId)
    return B.CreateLoad(I32, LaunchId, "ck.group");
  return hardwareGroupId(B, "ck.group");
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

/// Calls \p Name, a function of the kernel-side protocol
/// (src/protocol/kernel_side.h), which linkKernelSide() links in and
/// inlines once the kernel is lowered.
Value *KernelLowering::callProtocol(IRBuilder<> &B, StringRef Name,
                                    Type *Result, ArrayRef<Value *> Args,
                                    const Twine &ResultName) {
  SmallVector<Type *, 6> Params;
  for (Value *Arg : Args)
    Params.push_back(Arg->getType());
  FunctionCallee Callee =
      M.getOrInsertFunction(Name, FunctionType::get(Result, Params, false));
  cast<Function>(Callee.getCallee())->setCallingConv(CallingConv::SPIR_FUNC);
  CallInst *Call = B.CreateCall(Callee, Args);
  Call->setCallingConv(CallingConv::SPIR_FUNC);
  if (!Result->isVoidTy())
    Call->setName(ResultName);
  return Call;
}

/// Publishes the \p Count workgroups reserved from \p First, if any: saves
/// the transmit variables into the first one's slot, word by word at fixed
/// offsets (a private array indexed in a loop would make the kernel use
/// scratch memory), and lets __ck_fork_publish copy it and start them.
void KernelLowering::emitPublish(IRBuilder<> &B, unsigned ResumeId,
                                 Value *First, Value *Count) {
  BasicBlock *Publish = newBlock("fork.publish");
  BasicBlock *Done = newBlock("fork.done");
  B.CreateCondBr(B.CreateICmpEQ(Count, B.getInt32(0), "ck.no.fork"), Done,
                 Publish);
  B.SetInsertPoint(Publish);
  SmallVector<Value *, 16> Words;
  if (Record.Bytes)
    Words = packTransmitRecord(B);
  for (const auto &Word : enumerate(Words))
    atomicStore(B, Word.value(),
                slotWord(B, First, CK_SLOT_TRANSMIT + 4 * Word.index()));
  callProtocol(B, "__ck_fork_publish", B.getVoidTy(),
               {Context, First, Count, B.getInt32(ResumeId),
                B.getInt32(Words.size())});
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
}

/// The barrier call being lowered, as its protocol functions take it.
std::array<Value *, 2> KernelLowering::barrierSite(IRBuilder<> &B) {
  return {B.getInt32(BarrierSite), B.getInt32(BarrierLine)};
}

/// A return of the kernel function (not a kill): local thread 0 records it
/// (__ck_record_return). No barrier: work-items may return at different
/// points.
void KernelLowering::recordReturn(ReturnInst &Return) {
  BasicBlock *Block = Return.getParent();
  BasicBlock *Exit = Block->splitBasicBlock(&Return, "ck.return");
  Block->getTerminator()->eraseFromParent();
  IRBuilder<> B(Block);
  B.SetCurrentDebugLocation(Return.getDebugLoc());
  BasicBlock *Record = BasicBlock::Create(Ctx, "ck.returned", &F, Exit);
  B.CreateCondBr(isThread0(B), Record, Exit);
  B.SetInsertPoint(Record);
  callProtocol(B, "__ck_record_return", B.getVoidTy(), {Context, groupId(B)});
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

  switch (Kind) {
  case Builtin::OfferKill:
    emitExitIf(B, workgroupUniform(B, [&](IRBuilder<> &B) {
                 return callProtocol(B, "__ck_offer_kill", I32,
                                     {Context, groupId(B)});
               }));
    break;
  case Builtin::RequestFork: {
    unsigned ResumeId = ResumePoints.size() + 1;
    workgroupUniform(B, [&](IRBuilder<> &B) -> Value * {
      Value *Count = callProtocol(B, "__ck_fork_reserve", I32,
                                  {Context, ForkFirst}, "ck.forks");
      Value *First = B.CreateLoad(I32, ForkFirst, "ck.first.new");
      emitPublish(B, ResumeId, First, Count);
      return nullptr;
    });
    ResumePoints.push_back({ResumeId, Continuation});
    break;
  }
  case Builtin::GlobalBarrier:
    setBarrierSite(Call, /*Resizing=*/false);
    emitExitIf(B, workgroupUniform(B, [&](IRBuilder<> &B) {
                 auto [Site, Line] = barrierSite(B);
                 return callProtocol(B, "__ck_global_barrier", I32,
                                     {Context, groupId(B), Site, Line});
               }));
    break;
  case Builtin::ResizingGlobalBarrier: {
    // A global barrier released by workgroup 0, which forks and decides the
    // kills there (__ck_resize_gather); it publishes the forks after the
    // release. Only if it decided to kill: the kill phase and a second
    // global barrier (__ck_resize_join), between one more pair of workgroup
    // barriers. Forked workgroups join there, after the first global
    // barrier; they read the decision like everyone else. The join point is
    // on the main path, so a fork point inside a loop stays inside it.
    setBarrierSite(Call, /*Resizing=*/true);
    unsigned ResumeId = ResumePoints.size() + 1;
    Value *Decision = workgroupUniform(B, [&](IRBuilder<> &B) {
      auto [Site, Line] = barrierSite(B);
      Value *Decision = callProtocol(
          B, "__ck_resize_gather", I32,
          {Context, groupId(B), Site, Line, ForkFirst, ForkCount},
          "ck.decision");
      Value *First = B.CreateLoad(I32, ForkFirst, "ck.first.new");
      Value *Count = B.CreateLoad(I32, ForkCount, "ck.forks");
      emitPublish(B, ResumeId, First, Count);
      return Decision;
    });
    emitExitIf(B, B.CreateICmpEQ(Decision, B.getInt32(CK_RESIZE_STUCK),
                                 "ck.stuck"));
    BasicBlock *Join = newBlock("resize.join");
    B.CreateCondBr(B.CreateICmpNE(Decision, B.getInt32(0)), Join, Continuation);
    B.SetInsertPoint(Join);
    ResumePoints.push_back({ResumeId, Join});
    emitExitIf(B, workgroupUniform(B, [&](IRBuilder<> &B) {
                 auto [Site, Line] = barrierSite(B);
                 return callProtocol(B, "__ck_resize_join", I32,
                                     {Context, groupId(B), Site, Line});
               }));
    if (KnownActive)
      refreshKnownActive(Continuation->getFirstInsertionPt());
    break;
  }
  case Builtin::QueryKillCount:
    Call.replaceAllUsesWith(workgroupUniform(B, [&](IRBuilder<> &B) {
      return callProtocol(B, "__ck_query_kill_count", I32, {Context});
    }));
    break;
  }
  B.CreateBr(Continuation);
  Call.eraseFromParent();
}


/// Reads M into KnownActive, for the grid queries that follow.
void KernelLowering::refreshKnownActive(BasicBlock::iterator Where) {
  IRBuilder<> B(Where->getParent(), Where);
  B.CreateStore(callProtocol(B, "__ck_active_groups", I32, {Context}),
                KnownActive);
}

/// Whether \p I calls get_num_groups or get_global_size.
static bool isGridQuery(const Instruction &I) {
  const auto *Call = dyn_cast<CallBase>(&I);
  const Function *Callee = Call ? Call->getCalledFunction() : nullptr;
  return Callee && (Callee->getName() == "_Z14get_num_groupsj" ||
                    Callee->getName() == "_Z15get_global_sizej");
}

/// Gives \p Query's users \p DimZero where it asks for dimension 0: in place
/// of it if its dimension \p Dim is constant (0) or absent, otherwise
/// through a select on \p Dim.
static void replaceDimensionZero(IRBuilder<> &B, CallBase &Query, Value *Dim,
                                 Value *DimZero) {
  Value *Result =
      !Dim || isa<ConstantInt>(Dim)
          ? DimZero
          : B.CreateSelect(B.CreateICmpEQ(Dim, B.getInt32(0)), DimZero, &Query);
  Query.replaceUsesWithIf(Result,
                          [&](Use &U) { return U.getUser() != Result; });
  if (Query.use_empty())
    Query.eraseFromParent();
}

/// get_num_groups(0) returns M and get_global_size(0) returns M times the
/// local size; other dimensions are unchanged.
void KernelLowering::lowerGridQueries() {
  SmallVector<CallBase *, 8> Queries;
  for (Instruction &I : instructions(F))
    if (isGridQuery(I))
      Queries.push_back(cast<CallBase>(&I));
  for (CallBase *Query : Queries) {
    IRBuilder<> B(Query->getNextNode());
    B.SetCurrentDebugLocation(Query->getDebugLoc());
    Value *Dim = Query->getArgOperand(0);
    if (auto *Constant = dyn_cast<ConstantInt>(Dim))
      if (!Constant->isZero())
        continue;
    Value *Active = B.CreateZExt(
        KnownActive ? B.CreateLoad(I32, KnownActive)
                    : callProtocol(B, "__ck_active_groups", I32, {Context}),
        I64, "ck.active");
    if (Query->getCalledFunction()->getName() == "_Z15get_global_sizej")
      Active = B.CreateMul(Active,
                           callWorkItemQuery(B, "_Z14get_local_sizej", 0));
    replaceDimensionZero(B, *Query, Dim, Active);
  }
}

/// With GroupStart::Dispatched, the program's get_group_id(0),
/// get_global_id(0) and get_global_linear_id() count in the work-group's id
/// in the launch, not the hardware's (a cooperative launch is 1-D); other
/// dimensions are unchanged.
void KernelLowering::lowerIdQueries() {
  SmallVector<CallBase *, 8> Queries;
  for (Instruction &I : instructions(F)) {
    const auto *Call = dyn_cast<CallBase>(&I);
    const Function *Callee = Call ? Call->getCalledFunction() : nullptr;
    if (Callee && (Callee->getName() == "_Z12get_group_idj" ||
                   Callee->getName() == "_Z13get_global_idj" ||
                   Callee->getName() == "_Z20get_global_linear_idv"))
      Queries.push_back(cast<CallBase>(&I));
  }
  for (CallBase *Query : Queries) {
    StringRef Name = Query->getCalledFunction()->getName();
    Value *Dim = Query->arg_empty() ? nullptr : Query->getArgOperand(0);
    if (auto *Constant = dyn_cast_or_null<ConstantInt>(Dim))
      if (!Constant->isZero())
        continue;
    IRBuilder<> B(Query->getNextNode());
    B.SetCurrentDebugLocation(Query->getDebugLoc());
    Value *Id = B.CreateZExt(B.CreateLoad(I32, LaunchId), I64, "ck.launch.id");
    if (Name != "_Z12get_group_idj") {
      Id = B.CreateAdd(
          B.CreateMul(Id, callWorkItemQuery(B, "_Z14get_local_sizej", 0)),
          callWorkItemQuery(B, "_Z12get_local_idj", 0));
      if (Name == "_Z13get_global_idj")
        Id = B.CreateAdd(Id,
                         callWorkItemQuery(B, "_Z17get_global_offsetj", 0));
    }
    replaceDimensionZero(B, *Query, Dim, Id);
  }
}

/// With GroupStart::Dispatched, the top of the kernel, before anything else
/// (the resume dispatch included): local thread 0 calls __ck_discover with
/// the hardware's work-group id and broadcasts its answer; the work-group
/// leaves if it came after the poll closed, and otherwise goes on with its
/// id in the launch. Every thread first reads CK_DISCOVERY_POLL: where it is
/// 0 the id is the hardware's, and no barrier is spent.
void KernelLowering::emitDiscovery() {
  BasicBlock &Entry = F.getEntryBlock();
  BasicBlock *Started =
      Entry.splitBasicBlock(afterArgumentSpills(Entry), "ck.started");
  Entry.getTerminator()->eraseFromParent();
  Continuation = Started;
  IRBuilder<> B(&Entry);
  if (DISubprogram *Scope = F.getSubprogram())
    B.SetCurrentDebugLocation(
        DILocation::get(Ctx, Scope->getScopeLine(), 0, Scope));
  Value *Hardware = hardwareGroupId(B, "ck.hardware.group");
  B.CreateStore(Hardware, LaunchId);
  // How many work-groups the driver dispatched (lowerGridQueries() made
  // only the kernel's own get_num_groups M), so that the poll closes once
  // all of them joined
  Value *Dispatched =
      B.CreateTrunc(callWorkItemQuery(B, "_Z14get_num_groupsj", 0), I32,
                    "ck.dispatched");
  Value *Poll = atomicLoad(
      B, B.CreateGEP(I32, Context, B.getInt64(CK_DISCOVERY_POLL)));
  BasicBlock *Discover = newBlock("discover");
  B.CreateCondBr(B.CreateICmpEQ(Poll, B.getInt32(0), "ck.no.poll"), Started,
                 Discover);
  B.SetInsertPoint(Discover);
  // One broadcast word: the ticket + 1, or 0 to leave.
  Value *Answer = workgroupUniform(B, [&](IRBuilder<> &B) {
    Value *Joined = callProtocol(B, "__ck_discover", I32,
                                 {Context, Hardware, Dispatched, Ticket},
                                 "ck.joined");
    return B.CreateSelect(
        B.CreateICmpNE(Joined, B.getInt32(0)),
        B.CreateAdd(B.CreateLoad(I32, Ticket), B.getInt32(1)), B.getInt32(0));
  });
  emitExitIf(B, B.CreateICmpEQ(Answer, B.getInt32(0), "ck.not.resident"));
  B.CreateStore(B.CreateSub(Answer, B.getInt32(1)), LaunchId);
  B.CreateBr(Started);
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
  // The kernel's own returns, before the exit of the workgroups that leave
  // it (killed, or stuck at a barrier) exists.
  SmallVector<ReturnInst *, 2> Returns;
  for (BasicBlock &Block : F)
    if (auto *Return = dyn_cast<ReturnInst>(Block.getTerminator()))
      Returns.push_back(Return);

  if (Start == GroupStart::Dispatched) {
    IRBuilder<> B(&F.getEntryBlock(), F.getEntryBlock().begin());
    LaunchId = B.CreateAlloca(I32, nullptr, "ck.launch.group");
    Ticket = B.CreateAlloca(I32, nullptr, "ck.ticket");
  }
  SmallVector<std::pair<CallBase *, Builtin>, 8> Calls;
  for (Instruction &I : instructions(F))
    if (auto *Call = dyn_cast<CallBase>(&I))
      if (std::optional<Builtin> Kind = getCalledBuiltin(*Call))
        Calls.push_back({Call, *Kind});
  if (any_of(Calls, [](const auto &Call) {
        return Call.second == Builtin::RequestFork ||
               Call.second == Builtin::ResizingGlobalBarrier;
      })) {
    IRBuilder<> B(&F.getEntryBlock(), F.getEntryBlock().begin());
    ForkFirst = B.CreateAlloca(I32, nullptr, "ck.fork.first");
    ForkCount = B.CreateAlloca(I32, nullptr, "ck.fork.count");
  }
  // Without offer_kill and request_fork, M changes only inside resizing
  // barriers, while every workgroup waits in them: a workgroup reads it at
  // entry and after each resizing barrier, and the grid queries read that
  // private copy, which the compiler can hoist out of loops (a loop striding
  // by get_global_size(0) otherwise loads M from global memory, in every
  // lane, at every step).
  if (any_of(instructions(F), isGridQuery) &&
      none_of(Calls, [](const auto &Call) {
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
  if (LaunchId)
    lowerIdQueries();
  eraseTransmitAnnotations();
  if (!ResumePoints.empty()) {
    emitResumeDispatch();
    repairSSA();
  }
  if (LaunchId)
    emitDiscovery();
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

void lowerKernel(Function &Kernel, const TransmitRecord &Record,
                 GroupStart Start) {
  KernelLowering(Kernel, Record, Start).run();
}

} // namespace ck
