/*!
[config]
name: cooperative kernels: build fails for offer_kill under work-item 0's broadcast read without a barrier
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.8-broadcast-barrier 10.8-fail-log 15-source-lines

// Work-item 0 computes the decision under a branch and writes it to local
// memory, as execute/broadcast-decision.cl does, but no barrier separates
// the write from the group's read: the others may read before it writes,
// so the decision depends on the local id (spec, Rules checked at build
// time).
// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+13]]:
// CHECK-DAG: [workgroup-uniform control flow]

kernel void k(global uint *flags, global int *out)
{
   local uint decision;
   if (get_local_id(0) == 0) {
      uint r = 2;
      if (atomic_or(&flags[0], 0) > 3)
         r = 1;
      decision = r;
   }
   if (decision == 1)
      offer_kill();
   out[get_global_id(0)] = 1;
}
