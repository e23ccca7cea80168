/*!
[config]
name: cooperative kernels: build fails for transmit on a variable of a nested scope
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.2-root-scope 10.8-fail-log 15-source-lines

// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+6]]:
// CHECK-DAG: [transmit]

kernel void k(global int *out, int n)
{
   for (int i = 0; i < n; ++i) {
      transmit int level = i;
      resizing_global_barrier();
      out[get_global_id(0)] = level;
   }
}
