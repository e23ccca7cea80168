//===- CooperativeKernels.cpp - Module driver of the ck-lower pass --------===//
//
// Finds the cooperative kernels (kernels that transitively call a builtin),
// reports the module-level errors (recursion, builtins no kernel reaches),
// inlines every callee into each cooperative kernel, runs the per-kernel
// diagnostics and, when the module is clean, lowers each kernel.
//
//===----------------------------------------------------------------------===//

#include "CooperativeKernels.hpp"

#include "llvm/ADT/SCCIterator.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Analysis/CallGraph.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

namespace ck {

std::optional<Builtin> getBuiltin(const Function &F) {
  if (!F.isDeclaration())
    return std::nullopt;
  return StringSwitch<std::optional<Builtin>>(F.getName())
      .Case("offer_kill", Builtin::OfferKill)
      .Case("request_fork", Builtin::RequestFork)
      .Case("global_barrier", Builtin::GlobalBarrier)
      .Case("resizing_global_barrier", Builtin::ResizingGlobalBarrier)
      .Case("query_kill_count", Builtin::QueryKillCount)
      .Default(std::nullopt);
}

std::optional<Builtin> getCalledBuiltin(const CallBase &Call) {
  if (const Function *Callee = Call.getCalledFunction())
    return getBuiltin(*Callee);
  return std::nullopt;
}

StringRef getBuiltinName(Builtin B) {
  switch (B) {
  case Builtin::OfferKill:
    return "offer_kill";
  case Builtin::RequestFork:
    return "request_fork";
  case Builtin::GlobalBarrier:
    return "global_barrier";
  case Builtin::ResizingGlobalBarrier:
    return "resizing_global_barrier";
  case Builtin::QueryKillCount:
    return "query_kill_count";
  }
  llvm_unreachable("unknown builtin");
}

/// The C string that \p Pointer points to, if it is a constant one.
static StringRef cStringOf(const Value *Pointer) {
  const auto *String = dyn_cast<GlobalVariable>(Pointer->stripPointerCasts());
  if (!String || !String->hasInitializer())
    return {};
  const auto *Data = dyn_cast<ConstantDataSequential>(String->getInitializer());
  return Data && Data->isCString() ? Data->getAsCString() : StringRef();
}

static constexpr char TransmitAnnotation[] = "cl_ext_cooperative_kernels.transmit";

bool isTransmitAnnotation(const CallBase &Call) {
  const auto *Intrinsic = dyn_cast<IntrinsicInst>(&Call);
  return Intrinsic && Intrinsic->getIntrinsicID() == Intrinsic::var_annotation &&
         cStringOf(Intrinsic->getArgOperand(1)) == TransmitAnnotation;
}

void DiagnosticLog::error(const Instruction &At, const Twine &Message,
                          StringRef Rule) {
  Errors = true;
  report(At, "error", Message, Rule);
}

void DiagnosticLog::warning(const Instruction &At, const Twine &Message,
                            StringRef Rule) {
  report(At, "warning", Message, Rule);
}

void DiagnosticLog::error(const Function &In, const Twine &Message,
                          StringRef Rule) {
  Errors = true;
  report(In, "error", Message, Rule);
}

void DiagnosticLog::error(StringRef File, uint64_t Line, const Twine &Message,
                          StringRef Rule) {
  Errors = true;
  append((File + ":" + Twine(Line) + ": error: " + Message + " [" + Rule +
          "]\n")
             .str());
}

void DiagnosticLog::report(const Instruction &At, StringRef Severity,
                           const Twine &Message, StringRef Rule) {
  const DILocation *Loc = At.getDebugLoc().get();
  if (!Loc) {
    report(*At.getFunction(), Severity, Message, Rule);
    return;
  }
  append((Loc->getFilename() + ":" + Twine(Loc->getLine()) + ":" +
          Twine(Loc->getColumn()) + ": " + Severity + ": " + Message + " [" +
          Rule + "]\n")
             .str());
}

void DiagnosticLog::report(const Function &In, StringRef Severity,
                           const Twine &Message, StringRef Rule) {
  const Twine Where = "in function '" + In.getName() + "': " + Severity + ": ";
  if (const DISubprogram *Subprogram = In.getSubprogram())
    append((Subprogram->getFilename() + ":" + Twine(Subprogram->getLine()) +
            ": " + Where + Message + " [" + Rule + "]\n")
               .str());
  else
    append((Where + Message + " [" + Rule + "]\n").str());
}

void DiagnosticLog::append(const std::string &Line) {
  // The same problem can be found along several paths: report it once.
  if (Text.find(Line) == std::string::npos)
    Text += Line;
}

namespace {

bool isKernel(const Function &F) {
  return F.getCallingConv() == CallingConv::SPIR_KERNEL && !F.isDeclaration();
}

bool callsBuiltinDirectly(const Function &F) {
  for (const Instruction &I : instructions(F))
    if (const auto *Call = dyn_cast<CallBase>(&I))
      if (getCalledBuiltin(*Call))
        return true;
  return false;
}

/// Call-graph facts about the defined functions of a module.
struct CallGraphFacts {
  SmallPtrSet<const Function *, 16> ReachBuiltin;
  SmallPtrSet<const Function *, 16> ReachRecursion;
  SmallPtrSet<const Function *, 16> ReachableFromKernel;
};

/// Reports recursion that a kernel reaches in any program (OpenCL C has
/// none, and NIR's inliner would recurse without end on it), and in a
/// cooperative one the call chains that reach a builtin.
CallGraphFacts analyzeCallGraph(Module &M, DiagnosticLog &Log) {
  CallGraphFacts Facts;
  CallGraph Graph(M);
  SmallVector<const Function *, 16> Worklist;
  for (const Function &F : M)
    if (isKernel(F) && Facts.ReachableFromKernel.insert(&F).second)
      Worklist.push_back(&F);
  while (!Worklist.empty()) {
    const Function *F = Worklist.pop_back_val();
    for (const CallGraphNode::CallRecord &Callee : *Graph[F]) {
      const Function *G = Callee.second->getFunction();
      if (G && !G->isDeclaration() && Facts.ReachableFromKernel.insert(G).second)
        Worklist.push_back(G);
    }
  }

  // Callees come before their callers in scc_iterator order.
  for (auto SCC = scc_begin(&Graph); !SCC.isAtEnd(); ++SCC) {
    bool ReachesBuiltin = false, ReachesRecursion = SCC.hasCycle();
    for (CallGraphNode *Node : *SCC) {
      const Function *F = Node->getFunction();
      if (!F || F->isDeclaration())
        continue;
      ReachesBuiltin |= callsBuiltinDirectly(*F);
      for (const CallGraphNode::CallRecord &Callee : *Node) {
        const Function *G = Callee.second->getFunction();
        ReachesBuiltin |= G && Facts.ReachBuiltin.count(G);
        ReachesRecursion |= G && Facts.ReachRecursion.count(G);
      }
    }
    for (CallGraphNode *Node : *SCC) {
      const Function *F = Node->getFunction();
      if (!F || F->isDeclaration())
        continue;
      if (ReachesBuiltin)
        Facts.ReachBuiltin.insert(F);
      if (ReachesRecursion)
        Facts.ReachRecursion.insert(F);
      if (!SCC.hasCycle())
        continue;
      if (ReachesBuiltin)
        Log.error(*F,
                  "recursive call chain reaches a cooperative-kernel builtin",
                  "recursion");
      else if (Facts.ReachableFromKernel.count(F))
        Log.error(*F,
                  "'" + F->getName() +
                      "' calls itself through the functions it calls; "
                      "OpenCL C does not support recursion",
                  "recursion");
    }
  }
  return Facts;
}

void reportBuiltinsNoKernelReaches(Module &M, const CallGraphFacts &Facts,
                                   DiagnosticLog &Log) {
  for (Function &F : M) {
    if (F.isDeclaration() || Facts.ReachableFromKernel.count(&F))
      continue;
    for (Instruction &I : instructions(F))
      if (auto *Call = dyn_cast<CallBase>(&I))
        if (std::optional<Builtin> B = getCalledBuiltin(*Call))
          Log.error(I,
                    "'" + getBuiltinName(*B) + "' is called in function '" +
                        F.getName() + "', which no kernel calls",
                    "unreachable builtin");
  }
}

/// Inlines every call to a defined function into \p Kernel until none is
/// left; the caller has ruled recursion out. A call that cannot be inlined
/// is an error: the builtins in its callee would stay un-lowered.
void inlineAllCallees(Function &Kernel, DiagnosticLog &Log) {
  SmallPtrSet<const CallBase *, 4> Failed;
  for (bool Inlined = true; Inlined;) {
    Inlined = false;
    SmallVector<CallBase *, 16> Calls;
    for (Instruction &I : instructions(Kernel))
      if (auto *Call = dyn_cast<CallBase>(&I))
        if (Function *Callee = Call->getCalledFunction())
          if (!Callee->isDeclaration() && !Failed.count(Call))
            Calls.push_back(Call);
    for (CallBase *Call : Calls) {
      const StringRef Callee = Call->getCalledFunction()->getName();
      InlineFunctionInfo Info;
      const InlineResult Result = InlineFunction(*Call, Info);
      if (Result.isSuccess()) {
        Inlined = true;
        continue;
      }
      Failed.insert(Call);
      Log.error(*Call,
                "the call to '" + Callee + "' cannot be inlined into kernel '" +
                    Kernel.getName() + "' (" + Result.getFailureReason() +
                    "); a cooperative kernel's callees must all be inlined",
                "inlining");
    }
  }
}

/// Erases the helpers that reach a builtin and that inlining left without
/// callers, then the builtin declarations nothing calls any more.
void eraseDeadBuiltinUsers(Module &M, const CallGraphFacts &Facts) {
  for (bool Erased = true; Erased;) {
    Erased = false;
    for (Function &F : make_early_inc_range(M))
      if (!isKernel(F) && !F.isDeclaration() && F.use_empty() &&
          Facts.ReachBuiltin.count(&F)) {
        F.eraseFromParent();
        Erased = true;
      }
  }
  for (Function &F : make_early_inc_range(M))
    if (getBuiltin(F) && F.use_empty())
      F.eraseFromParent();
}

} // namespace

namespace {

/// `transmit` on a variable in local or global memory (a work-group-local
/// array, a program-scope variable) shows up in llvm.global.annotations:
/// such variables are not per-work-item state that a fork could copy.
void reportTransmitOutsidePrivateMemory(const Module &M, DiagnosticLog &Log) {
  const GlobalVariable *Annotations = M.getNamedGlobal("llvm.global.annotations");
  if (!Annotations || !Annotations->hasInitializer())
    return;
  const auto *Entries = dyn_cast<ConstantArray>(Annotations->getInitializer());
  if (!Entries)
    return;
  for (const Use &Entry : Entries->operands()) {
    const auto *Fields = dyn_cast<ConstantStruct>(Entry.get());
    if (!Fields || Fields->getNumOperands() < 4 ||
        cStringOf(Fields->getOperand(1)) != TransmitAnnotation)
      continue;
    const auto *Line = dyn_cast<ConstantInt>(Fields->getOperand(3));
    const auto *Variable =
        dyn_cast<GlobalVariable>(Fields->getOperand(0)->stripPointerCasts());
    Log.error(cStringOf(Fields->getOperand(2)), Line ? Line->getZExtValue() : 0,
              "'transmit' variable '" +
                  (Variable ? Variable->getName() : StringRef("?")) +
                  "' is in local or global memory; only private variables "
                  "of the kernel's root scope can be transmitted",
              "transmit");
  }
}

/// The scopes of the `transmit` variables that the kernels of \p M declare
/// in their own bodies.
TransmitScopes findTransmitScopes(Module &M) {
  TransmitScopes Scopes;
  for (Function &F : M) {
    if (!isKernel(F))
      continue;
    for (Instruction &I : instructions(F)) {
      auto *Call = dyn_cast<CallBase>(&I);
      if (!Call || !isTransmitAnnotation(*Call))
        continue;
      TinyPtrVector<DbgDeclareInst *> Declares =
          FindDbgDeclareUses(getUnderlyingObject(Call->getArgOperand(0)));
      Scopes[Call] =
          Declares.empty() ? TransmitScope::Unknown
          : Declares.front()->getVariable()->getScope() == F.getSubprogram()
              ? TransmitScope::Root
              : TransmitScope::NestedBlock;
    }
  }
  return Scopes;
}

/// Erases the debug info of variables, which the frontends ask for only so
/// that findTransmitScopes() sees scopes: the passes after it see the line
/// tables alone, as with older frontends.
void eraseVariableDebugInfo(Module &M) {
  for (Function &F : M)
    for (Instruction &I : make_early_inc_range(instructions(F)))
      if (isa<DbgVariableIntrinsic>(I))
        I.eraseFromParent();
}

} // namespace

bool lowerCooperativeKernels(Module &M, GroupStart Start, std::string &LogText,
                             bool &Changed) {
  Changed = false;
  DiagnosticLog Log;
  if (none_of(M, [](const Function &F) { return getBuiltin(F).has_value(); })) {
    // An ordinary program, left as it is: only recursion fails its build.
    analyzeCallGraph(M, Log);
    LogText = Log.str();
    return !Log.hasErrors();
  }

  const TransmitScopes OwnAnnotations = findTransmitScopes(M);
  eraseVariableDebugInfo(M);

  CallGraphFacts Facts = analyzeCallGraph(M, Log);
  reportBuiltinsNoKernelReaches(M, Facts, Log);
  reportTransmitOutsidePrivateMemory(M, Log);

  struct CooperativeKernel {
    Function *Kernel;
    TransmitRecord Record;
  };
  SmallVector<CooperativeKernel, 4> Kernels;
  for (Function &F : M) {
    if (!isKernel(F) || !Facts.ReachBuiltin.count(&F) ||
        Facts.ReachRecursion.count(&F))
      continue;
    if (!F.use_empty()) {
      Log.error(F, "a cooperative kernel cannot be called from other code",
                "hidden argument");
      continue;
    }
    inlineAllCallees(F, Log);
    Changed = true;
    checkUniformControlFlow(F, Log);
    Kernels.push_back({&F, layOutTransmitRecord(F, OwnAnnotations, Log)});
    warnReadsUndefinedAfterForks(F, Kernels.back().Record, Log);
  }
  LogText = Log.str();
  if (Log.hasErrors())
    return false;

  for (CooperativeKernel &K : Kernels)
    lowerKernel(*addContextParameter(*K.Kernel), K.Record, Start);
  eraseDeadBuiltinUsers(M, Facts);
  return true;
}

} // namespace ck
