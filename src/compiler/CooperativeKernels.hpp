//===- CooperativeKernels.hpp - Lowering of cooperative-kernel builtins ---===//
//
// Shared declarations of the ck-lower pass. The entry point is
// lowerCooperativeKernels(); Diagnostics.cpp checks the rules that make a
// kernel lowerable and Lowering.cpp rewrites one kernel at a time.
//
//===----------------------------------------------------------------------===//

#ifndef CK_COMPILER_COOPERATIVE_KERNELS_HPP
#define CK_COMPILER_COOPERATIVE_KERNELS_HPP

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <optional>
#include <string>

namespace llvm {
class AllocaInst;
class CallBase;
class Function;
class Instruction;
class Module;
} // namespace llvm

namespace ck {

enum class Builtin {
  OfferKill,
  RequestFork,
  GlobalBarrier,
  ResizingGlobalBarrier,
  QueryKillCount,
};

/// The builtin that \p F declares, if any.
std::optional<Builtin> getBuiltin(const llvm::Function &F);
/// The builtin that \p Call calls directly, if any.
std::optional<Builtin> getCalledBuiltin(const llvm::CallBase &Call);
llvm::StringRef getBuiltinName(Builtin B);

/// Whether \p Call is an llvm.var.annotation that marks a `transmit` variable.
bool isTransmitAnnotation(const llvm::CallBase &Call);

/// Where a kernel declares a `transmit` variable, by the scope of the
/// variable's debug info. Frontends compile with variable debug info
/// (-debug-info-kind=limited): clang gives each compound statement but the
/// function body its own DILexicalBlock. Older frontends give line tables
/// only, and then the scope is unknown.
enum class TransmitScope { Root, NestedBlock, Unknown };

/// The `transmit` annotations of the kernels' own bodies (not inlined from a
/// helper), with the scope of each annotated variable.
using TransmitScopes = llvm::DenseMap<const llvm::CallBase *, TransmitScope>;

/// Collects errors and warnings, one line each, in the format of
/// include/ck/compiler.h.
class DiagnosticLog {
public:
  /// A warning at \p At's DebugLoc, or in \p At's function.
  void warning(const llvm::Instruction &At, const llvm::Twine &Message,
               llvm::StringRef Rule);
  /// Reports at \p At's DebugLoc, or in \p At's function when it has none.
  void error(const llvm::Instruction &At, const llvm::Twine &Message,
             llvm::StringRef Rule);
  void error(const llvm::Function &In, const llvm::Twine &Message,
             llvm::StringRef Rule);
  void error(llvm::StringRef File, uint64_t Line, const llvm::Twine &Message,
             llvm::StringRef Rule);
  bool hasErrors() const { return Errors; }
  const std::string &str() const { return Text; }

private:
  void report(const llvm::Instruction &At, llvm::StringRef Severity,
              const llvm::Twine &Message, llvm::StringRef Rule);
  void report(const llvm::Function &In, llvm::StringRef Severity,
              const llvm::Twine &Message, llvm::StringRef Rule);
  void append(const std::string &Line);

  std::string Text;
  bool Errors = false;
};

/// A `transmit` variable and its byte offset in the transmit record.
struct TransmitField {
  llvm::AllocaInst *Variable;
  uint64_t Offset;
};

/// The transmit record of a kernel: its fields in declaration order.
struct TransmitRecord {
  llvm::SmallVector<TransmitField, 4> Fields;
  uint64_t Bytes = 0;
};

/// Reports builtins reached in control flow that is not workgroup-uniform
/// (or, for global barriers, not kernel-uniform) in the inlined \p Kernel.
void checkUniformControlFlow(llvm::Function &Kernel, DiagnosticLog &Log);

/// Lays out the transmit record of the inlined \p Kernel, reporting the
/// variables that cannot be transmitted. \p OwnAnnotations holds the
/// transmit annotations that the kernels' own bodies held before inlining.
TransmitRecord layOutTransmitRecord(llvm::Function &Kernel,
                                    const TransmitScopes &OwnAnnotations,
                                    DiagnosticLog &Log);

/// Warns at reads of private variables (not `transmit`) that a workgroup
/// joining the inlined \p Kernel at a fork point can reach before writing
/// them (ForkedReads.cpp).
void warnReadsUndefinedAfterForks(llvm::Function &Kernel,
                                  const TransmitRecord &Record,
                                  DiagnosticLog &Log);

/// Rewrites \p Kernel into a function with the hidden context parameter as
/// its last parameter and returns it; \p Kernel is erased.
llvm::Function *addContextParameter(llvm::Function &Kernel);

/// How the driver starts a cooperative kernel's work-groups (ck_group_start
/// of ck/compiler.h).
enum class GroupStart {
  /// Its scheduler starts each one with its id in the launch (llvmpipe).
  Scheduled,
  /// It dispatches all of them at once and the hardware places them: each
  /// first finds whether it is resident with the others and takes its id
  /// in the launch (occupancy discovery, ck/context.h), and the program's
  /// work-group and global ids count in that id (zink).
  Dispatched,
};

/// Lowers every builtin in \p Kernel, which already has the context
/// parameter, all its callees inlined and passed the diagnostics.
void lowerKernel(llvm::Function &Kernel, const TransmitRecord &Record,
                 GroupStart Start);

/// Lowers every cooperative kernel of \p M for a driver that starts their
/// work-groups as \p Start says. Returns false and fills \p Log when the
/// module breaks a rule; sets \p Changed when \p M was modified.
bool lowerCooperativeKernels(llvm::Module &M, GroupStart Start,
                             std::string &Log, bool &Changed);

/// Links the kernel side of the protocol (src/protocol/kernel_side.c) into
/// \p M and inlines every call that lowerKernel() left to it (KernelSide.cpp).
/// Returns false with \p Error set if that fails (a bug of this project,
/// not of the module).
bool linkKernelSide(llvm::Module &M, std::string &Error);

} // namespace ck

#endif
