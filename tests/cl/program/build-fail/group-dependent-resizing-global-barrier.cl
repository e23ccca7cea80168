/*!
[config]
name: cooperative kernels: build fails for resizing_global_barrier reached only by some work-groups
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.8-fail-log 10.8-kcu-resizing-barrier 15-source-lines

// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+10]]:
// CHECK-DAG: [kernel-uniform control flow]

kernel void k(global int *out, int n)
{
   transmit int step;
   for (step = 0; step < n; ++step) {
      out[get_global_id(0)] += step;
      // The same in every work-item of a work-group, not across work-groups.
      if (get_group_id(0) % 2 == 0)
         resizing_global_barrier();
   }
}
