/*!
[config]
name: cooperative kernels: build fails for global_barrier reached only by work-group 0
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.8-fail-log 10.8-kcu-global-barrier 15-source-lines

// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+6]]:
// CHECK-DAG: [kernel-uniform control flow]

kernel void k(global int *out)
{
   if (get_group_id(0) == 0)
      global_barrier();
   out[get_global_id(0)] = 1;
}
