//===- OpenCLCHeader.cpp - The extension's OpenCL C declarations ----------===//

#include "ck/compiler.h"

// Builtins are plain (unmangled) functions so that the pass finds them by
// name; they are convergent like barrier(), so clang never moves them into
// or out of control flow.
static const char OpenCLCHeader[] = R"CLC(
#define cl_ext_cooperative_kernels 1
#define transmit __attribute__((annotate("cl_ext_cooperative_kernels.transmit")))
void __attribute__((convergent)) offer_kill(void);
void __attribute__((convergent)) request_fork(void);
void __attribute__((convergent)) global_barrier(void);
void __attribute__((convergent)) resizing_global_barrier(void);
uint __attribute__((convergent)) query_kill_count(void);
)CLC";

const char *ck_opencl_c_header(void) { return OpenCLCHeader; }
