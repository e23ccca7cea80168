/*!
[config]
name: an ordinary program's build fails for recursion, with a message
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// OpenCL C has no recursion. No kernel here is cooperative, yet the build
// must fail with a message: Mesa's NIR inliner recursed without end on it
// and the process died (SIGSEGV in clBuildProgram).

// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+4]]: in function 'fib': error: 'fib' calls itself through the functions it calls; OpenCL C does not support recursion [recursion]
// CHECK: end of build log
// LOG: build log:
// LOG-NOT: cooperative-kernel builtin
int fib(global const int *t, int n)
{
   int acc = 0;
   for (int i = 0; i < n; ++i)
      acc += t[i & 7] * i + (acc >> 2);
   if (n < 2)
      return acc + n;
   return fib(t, n - 1) + fib(t, n - 2) + acc;
}

kernel void k(global const int *t, global int *out)
{
   out[get_global_id(0)] = fib(t, (int)get_global_id(0) & 7);
}
