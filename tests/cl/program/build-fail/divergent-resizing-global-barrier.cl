/*!
[config]
name: cooperative kernels: build fails for resizing_global_barrier in control flow that depends on the local id
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.8-fail-log 10.8-wgu-barriers 15-source-lines

// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+9]]:
// CHECK-DAG: [workgroup-uniform control flow]

kernel void k(global int *out, int n)
{
   transmit int step;
   for (step = 0; step < n; ++step) {
      out[get_global_id(0)] += step;
      if (get_local_id(0) != 0)
         resizing_global_barrier();
   }
}
