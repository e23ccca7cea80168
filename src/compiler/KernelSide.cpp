//===- KernelSide.cpp - Linking the kernel side of the protocol -----------===//
//
// Lowering.cpp leaves calls to the functions of src/protocol/kernel_side.h.
// linkKernelSide() links their definitions into the module (kernel_side.c,
// compiled to OpenCL C bitcode at build time and embedded here), gives the
// atomics layer (src/protocol/atomics.h) its bodies, one seq_cst atomic
// instruction each, and inlines every call: the module that reaches the
// SPIR-V translator calls nothing that it did not call before, except the
// spin-wait hint, an empty function that the frontend replaces.
//
//===----------------------------------------------------------------------===//

#include "CooperativeKernels.hpp"

#include "ck/context.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

#include <cstddef>

using namespace llvm;

namespace ck {

extern const unsigned char KernelSideBitcode[];
extern const std::size_t KernelSideBitcodeSize;

namespace {

constexpr StringLiteral ProtocolPrefix = "__ck_";
constexpr AtomicOrdering SeqCst = AtomicOrdering::SequentiallyConsistent;

/// A function of the protocol, of its helpers or of its atomics layer:
/// inlined, then gone.
bool isProtocolFunction(const Function &F) {
  return F.getName().startswith(ProtocolPrefix) &&
         F.getName() != CK_SPIN_WAIT_FUNCTION;
}

std::unique_ptr<Module> loadKernelSide(LLVMContext &Ctx, std::string &Error) {
  MemoryBufferRef Buffer(
      StringRef(reinterpret_cast<const char *>(KernelSideBitcode),
                KernelSideBitcodeSize),
      "kernel_side.bc");
  Expected<std::unique_ptr<Module>> Library = parseBitcodeFile(Buffer, Ctx);
  if (!Library) {
    Error = toString(Library.takeError());
    return nullptr;
  }
  return std::move(*Library);
}

/// Gives the atomics layer's declaration \p Name, if the module uses it, a
/// body made by \p Emit from its arguments.
void defineAtomic(
    Module &M, StringRef Name,
    function_ref<Value *(IRBuilder<> &, Value *Word, ArrayRef<Argument *>)>
        Emit) {
  Function *F = M.getFunction(Name);
  if (!F || !F->isDeclaration())
    return;
  F->setLinkage(GlobalValue::InternalLinkage);
  IRBuilder<> B(BasicBlock::Create(M.getContext(), "entry", F));
  SmallVector<Argument *, 2> Operands;
  for (Argument &Arg : drop_begin(F->args()))
    Operands.push_back(&Arg);
  Value *Result = Emit(B, F->getArg(0), Operands);
  if (F->getReturnType()->isVoidTy())
    B.CreateRetVoid();
  else
    B.CreateRet(Result);
}

void defineAtomicsLayer(Module &M) {
  auto RMW = [](AtomicRMWInst::BinOp Op) {
    return [Op](IRBuilder<> &B, Value *Word, ArrayRef<Argument *> Operands) {
      return B.CreateAtomicRMW(Op, Word, Operands[0], Align(4), SeqCst);
    };
  };
  defineAtomic(M, "__ck_atomic_load",
               [](IRBuilder<> &B, Value *Word, ArrayRef<Argument *>) {
                 LoadInst *Load =
                     B.CreateAlignedLoad(B.getInt32Ty(), Word, Align(4));
                 Load->setAtomic(SeqCst);
                 return Load;
               });
  defineAtomic(
      M, "__ck_atomic_store",
      [](IRBuilder<> &B, Value *Word,
         ArrayRef<Argument *> Operands) -> Value * {
        B.CreateAlignedStore(Operands[0], Word, Align(4))->setAtomic(SeqCst);
        return nullptr;
      });
  defineAtomic(M, "__ck_atomic_add", RMW(AtomicRMWInst::Add));
  defineAtomic(M, "__ck_atomic_exchange", RMW(AtomicRMWInst::Xchg));
  defineAtomic(M, "__ck_atomic_max", RMW(AtomicRMWInst::UMax));
  defineAtomic(M, "__ck_atomic_compare_exchange",
               [](IRBuilder<> &B, Value *Word, ArrayRef<Argument *> Operands) {
                 Value *Pair = B.CreateAtomicCmpXchg(
                     Word, Operands[0], Operands[1], Align(4), SeqCst, SeqCst);
                 return B.CreateZExt(B.CreateExtractValue(Pair, 1),
                                     B.getInt32Ty());
               });
}

/// The spin-wait hint that the protocol calls between polls: an empty
/// function, never inlined, which rusticl replaces with the
/// driver's hint (llvmpipe yields the CPU there).
void defineSpinWait(Module &M) {
  Function *Hint = M.getFunction(CK_SPIN_WAIT_FUNCTION);
  if (!Hint || !Hint->isDeclaration())
    return;
  Hint->setLinkage(GlobalValue::InternalLinkage);
  Hint->setCallingConv(CallingConv::SPIR_FUNC);
  Hint->addFnAttr(Attribute::NoInline);
  ReturnInst::Create(M.getContext(),
                     BasicBlock::Create(M.getContext(), "entry", Hint));
}

/// Puts the blocks of every protocol function in reverse post-order, so that
/// once inlined each comes after its dominators, as SPIR-V requires (the
/// optimised library does not keep that order).
void orderBlocksForSPIRV(Module &M) {
  for (Function &F : M) {
    if (!isProtocolFunction(F) || F.isDeclaration())
      continue;
    BasicBlock *Previous = nullptr;
    for (BasicBlock *Block : ReversePostOrderTraversal<Function *>(&F)) {
      if (Previous)
        Block->moveAfter(Previous);
      Previous = Block;
    }
  }
}

/// The allocas that calls of protocol functions take as out-parameters
/// (where __ck_fork_reserve and __ck_resize_gather write the forks).
SmallPtrSet<AllocaInst *, 8> outParameters(Module &M) {
  SmallPtrSet<AllocaInst *, 8> Allocas;
  for (Function &F : M)
    if (isProtocolFunction(F))
      for (User *U : F.users())
        if (auto *Call = dyn_cast<CallBase>(U))
          for (Value *Arg : Call->args())
            if (auto *Alloca = dyn_cast<AllocaInst>(Arg))
              Allocas.insert(Alloca);
  return Allocas;
}

/// Promotes the out-parameters, now that the calls are inlined, to SSA
/// values: the kernel then keeps no private variable of the protocol's.
void promoteOutParameters(const SmallPtrSetImpl<AllocaInst *> &Allocas) {
  DenseMap<Function *, std::vector<AllocaInst *>> ByFunction;
  for (AllocaInst *Alloca : Allocas)
    if (isAllocaPromotable(Alloca))
      ByFunction[Alloca->getFunction()].push_back(Alloca);
  for (auto &[F, FunctionAllocas] : ByFunction) {
    DominatorTree DT(*F);
    PromoteMemToReg(FunctionAllocas, DT);
  }
}

/// Inlines every call of a protocol function into the functions that are
/// not part of the protocol, until none is left.
bool inlineProtocol(Module &M, std::string &Error) {
  for (;;) {
    SmallVector<CallBase *, 32> Calls;
    for (Function &F : M) {
      if (isProtocolFunction(F))
        continue;
      for (Instruction &I : instructions(F))
        if (auto *Call = dyn_cast<CallBase>(&I))
          if (Function *Callee = Call->getCalledFunction())
            if (isProtocolFunction(*Callee))
              Calls.push_back(Call);
    }
    if (Calls.empty())
      return true;
    for (CallBase *Call : Calls) {
      Function *Callee = Call->getCalledFunction();
      if (Callee->isDeclaration()) {
        Error = ("the kernel-side protocol has no function '" +
                 Callee->getName() + "'")
                    .str();
        return false;
      }
      InlineFunctionInfo Info;
      InlineResult Result = InlineFunction(*Call, Info);
      if (!Result.isSuccess()) {
        Error = ("cannot inline '" + Callee->getName() +
                 "': " + Result.getFailureReason())
                    .str();
        return false;
      }
    }
  }
}

} // namespace

bool linkKernelSide(Module &M, std::string &Error) {
  if (none_of(M, [](const Function &F) {
        return isProtocolFunction(F) && !F.use_empty();
      }))
    return true;
  std::unique_ptr<Module> Library = loadKernelSide(M.getContext(), Error);
  if (!Library)
    return false;
  // Its helpers join the protocol's names, which kernels cannot use.
  for (Function &F : *Library)
    if (!F.isDeclaration() && !F.getName().startswith(ProtocolPrefix))
      F.setName(ProtocolPrefix + F.getName());
  Library->setTargetTriple(M.getTargetTriple());
  Library->setDataLayout(M.getDataLayout());
  // Its OpenCL version and compiler identity are the module's business.
  for (NamedMDNode &Node : make_early_inc_range(Library->named_metadata()))
    Library->eraseNamedMetadata(&Node);
  if (Linker::linkModules(M, std::move(Library),
                          Linker::Flags::LinkOnlyNeeded)) {
    Error = "cannot link the kernel-side protocol";
    return false;
  }
  defineAtomicsLayer(M);
  defineSpinWait(M);
  orderBlocksForSPIRV(M);
  const SmallPtrSet<AllocaInst *, 8> OutParameters = outParameters(M);
  if (!inlineProtocol(M, Error))
    return false;
  promoteOutParameters(OutParameters);
  // Now called by nothing but each other.
  SmallVector<Function *, 16> Linked;
  for (Function &F : M)
    if (isProtocolFunction(F)) {
      F.dropAllReferences();
      Linked.push_back(&F);
    }
  for (Function *F : Linked)
    F->eraseFromParent();
  return true;
}

} // namespace ck
