/*!
[config]
name: cooperative kernels: build fails for a builtin in a function that no kernel calls
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.8-fail-log 10.8-unreachable 15-source-lines

// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+5]]:
// CHECK-DAG: [unreachable builtin]

void orphan(void)
{
   request_fork();
}

kernel void k(global int *out)
{
   out[get_global_id(0)] = 1;
}
