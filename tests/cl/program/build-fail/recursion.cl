/*!
[config]
name: cooperative kernels: build fails for recursion that reaches a builtin
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.8-fail-log 10.8-recursion 15-source-lines

// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+3]]:
// CHECK-DAG: [recursion]

int depth(int n)
{
   offer_kill();
   return n > 0 ? depth(n - 1) + 1 : 0;
}

kernel void k(global int *out)
{
   out[get_global_id(0)] = depth(3);
}
