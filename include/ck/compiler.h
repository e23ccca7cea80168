/*
 * C ABI of the cooperative-kernel compiler pass, for Mesa's clc (rusticl).
 *
 * ck_lower_module() lowers the cooperative-kernel builtins (offer_kill,
 * request_fork, global_barrier, resizing_global_barrier, query_kill_count
 * and `transmit`) in a module that clang produced for the SPIR target at -O0.
 * Compile with variable debug info (-debug-info-kind=limited): the scopes of
 * the variables tell whether a `transmit` variable is in the kernel's root
 * scope, and the pass erases them. With line tables only, a `transmit`
 * declaration must come before any control flow.
 * Every kernel that reaches a builtin gains a last, hidden parameter named
 * CK_CONTEXT_ARG_NAME (see ck/context.h); kernels that reach no builtin are
 * left untouched.
 */
#ifndef CK_COMPILER_H
#define CK_COMPILER_H

#include <llvm-c/Types.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Returns 0 on success and nonzero on failure; the module is then in an
 * unspecified state. When log is not NULL, sets *log to NULL or to a
 * malloc'd message for the build log, with one line per problem:
 * "FILE:LINE:COL: SEVERITY: MESSAGE [RULE]" or
 * "in function 'NAME': SEVERITY: MESSAGE [RULE]", where SEVERITY is "error"
 * (the module breaks a rule) or "warning" (a success may carry warnings).
 * Free the log with ck_free_log().
 */
int ck_lower_module(LLVMModuleRef module, char **log);

/* How the driver starts a cooperative kernel's work-groups. */
enum ck_group_start {
   /* Its work-group scheduler starts each with its id in the launch
    * (llvmpipe); what ck_lower_module() lowers for. */
   CK_GROUPS_SCHEDULED = 0,
   /* It dispatches all of them at once and the hardware places them (zink):
    * each work-group first finds whether it is resident with the others
    * (occupancy discovery: the launch's context comes from
    * ck_context_init_discovery(), ck/runtime.h), leaves if not, and takes
    * its id in the launch, in which get_group_id(0), get_global_id(0) and
    * get_global_linear_id() then count. */
   CK_GROUPS_DISPATCHED = 1,
};

/* ck_lower_module() for a driver that starts work-groups as `start` says. */
int ck_lower_module_for(LLVMModuleRef module, enum ck_group_start start, char **log);

void ck_free_log(char *log);

/*
 * The OpenCL C declarations of the extension (the cl_ext_cooperative_kernels
 * macro, the builtins and `transmit`), for the frontend to include in every
 * program it compiles, under the name CK_OPENCL_C_HEADER_NAME.
 */
#define CK_OPENCL_C_HEADER_NAME "/cl_ext_cooperative_kernels/builtins.h"
const char *ck_opencl_c_header(void);

/*
 * For llvmpipe, not the frontends: moves the code between the suspend
 * points of every large coroutine of the module (a compute shader's SIMD
 * chunk with barriers) into functions of its own, and returns how many it
 * made. Call it before LLVM's coroutine passes: their CoroSplit takes time
 * that grows with the square of a coroutine's blocks.
 */
unsigned ck_outline_suspend_free_regions(LLVMModuleRef module);

#ifdef __cplusplus
}
#endif

#endif
