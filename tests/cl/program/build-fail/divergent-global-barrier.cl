/*!
[config]
name: cooperative kernels: build fails for global_barrier in control flow that depends on the local id
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.8-fail-log 10.8-wgu-barriers 15-source-lines

// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+7]]:
// CHECK-DAG: [workgroup-uniform control flow]

kernel void k(global int *out)
{
   out[get_global_id(0)] = 1;
   if (get_local_id(0) < get_local_size(0) / 2)
      global_barrier();
   out[get_global_id(0)] += 1;
}
