/*!
[config]
name: cooperative kernels: build fails for mutual recursion that reaches a builtin
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.8-fail-log 10.8-recursion 15-source-lines

// ping and pong call each other; the builtin is in pong only.
// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+6]]:
// CHECK-DAG: input.cl:[[@LINE+10]]:
// CHECK-DAG: [recursion]

int pong(int n);

int ping(int n)
{
   return n > 0 ? pong(n - 1) + 1 : 0;
}

int pong(int n)
{
   offer_kill();
   return n > 0 ? ping(n - 1) + 1 : 0;
}

kernel void k(global int *out)
{
   out[get_global_id(0)] = ping(3);
}
