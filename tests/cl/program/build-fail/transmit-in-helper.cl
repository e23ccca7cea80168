/*!
[config]
name: cooperative kernels: build fails for transmit in a function called by the kernel
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.2-root-scope 10.8-fail-log 15-source-lines

// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+5]]:
// CHECK-DAG: [transmit]

void helper(global int *out)
{
   transmit int level = 3;
   request_fork();
   out[get_global_id(0)] = level;
}

kernel void k(global int *out)
{
   helper(out);
}
