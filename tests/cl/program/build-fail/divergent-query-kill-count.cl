/*!
[config]
name: cooperative kernels: build fails for query_kill_count in control flow that depends on the local id
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.8-fail-log 10.8-wgu-query-kill-count 15-source-lines

// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+8]]:
// CHECK-DAG: [workgroup-uniform control flow]

kernel void k(global uint *out)
{
   // query_kill_count is a work-group function, like offer_kill.
   uint wanted = 0;
   if (get_local_id(0) == 0)
      wanted = query_kill_count();
   out[get_global_id(0)] = wanted;
}
