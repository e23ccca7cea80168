/*!
[config]
name: cooperative kernels: build fails for request_fork in a helper, under a local-id condition in the caller
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.4-wg-function 10.8-fail-log 10.8-wgu-request-fork 15-source-lines

// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+5]]:
// CHECK-DAG: [workgroup-uniform control flow]

void fork_here(void)
{
   request_fork();
}

kernel void k(global int *out)
{
   for (int i = 0; i < 4; ++i) {
      if (get_global_id(0) % 2 == 0)
         fork_here();
   }
   out[get_global_id(0)] = 1;
}
