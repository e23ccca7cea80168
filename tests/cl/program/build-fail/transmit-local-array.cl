/*!
[config]
name: cooperative kernels: build fails for transmit on a local array
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.2-forbidden-pointers 10.8-fail-log 15-source-lines

// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+6]]:
// CHECK-DAG: [transmit]

kernel void k(global int *out)
{
   // Local memory belongs to the work-group: a new one cannot inherit it.
   transmit local int partial[4];
   partial[get_local_id(0) % 4] = 1;
   request_fork();
   out[get_global_id(0)] = partial[0];
}
