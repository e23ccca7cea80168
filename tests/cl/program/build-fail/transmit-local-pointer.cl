/*!
[config]
name: cooperative kernels: build fails for transmit on a pointer to local memory
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.2-forbidden-pointers 10.8-fail-log 15-source-lines

// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+8]]:
// CHECK-DAG: [transmit]

kernel void k(global int *out)
{
   local int partial[4];
   // The pointer is private, but what it points to belongs to this
   // work-group: a new one cannot use it.
   transmit local int *p = partial;
   p[get_local_id(0) % 4] = 1;
   barrier(CLK_LOCAL_MEM_FENCE);
   request_fork();
   out[get_global_id(0)] = p[0];
}
