/*!
[config]
name: cooperative kernels: build fails for offer_kill in control flow that depends on the local id
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.3-wg-function 10.8-fail-log 10.8-wgu-offer-kill 15-source-lines

// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+6]]:
// CHECK-DAG: [workgroup-uniform control flow]

kernel void k(global int *out)
{
   if (get_local_id(0) < 4)
      offer_kill();
   out[get_global_id(0)] = 1;
}
