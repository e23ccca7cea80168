/*!
[config]
name: cooperative kernels: build fails for builtins under conditions on get_num_groups or get_global_size in a kernel that kills or forks
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.1-m-not-uniform 10.8-fail-log 10.8-wgu-active-count

// In a kernel that calls offer_kill or request_fork, each work-item reads
// M when it calls get_num_groups(0), and another work-group's kill may fall
// between two work-items' calls: the fuzzer found "the last active
// work-group offers" splitting a work-group at its offer_kill about once in
// a thousand launches (tests/fuzz/known/ck-check-exit-without-kill.cl).
// Every builtin below depends on M, directly or through a private variable;
// the message names the cause and the broadcast that fixes it.
// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+16]]:{{[0-9]+}}: error: 'offer_kill' is reached in control flow that depends on get_num_groups(0) or get_global_size(0), which change whenever another workgroup is killed or forked, so the threads of a workgroup may disagree; let one thread read it and broadcast it through local memory [workgroup-uniform control flow]
// CHECK-DAG: input.cl:[[@LINE+18]]:{{[0-9]+}}: error: 'request_fork' is reached in control flow that depends on get_num_groups(0)
// CHECK-DAG: input.cl:[[@LINE+20]]:{{[0-9]+}}: error: 'query_kill_count' is reached in control flow that depends on get_num_groups(0)
// CHECK-DAG: input.cl:[[@LINE+28]]:{{[0-9]+}}: error: 'global_barrier' is reached in control flow that depends on get_num_groups(0)
// CHECK-DAG: input.cl:[[@LINE+29]]:{{[0-9]+}}: error: 'offer_kill' is reached in control flow that depends on get_num_groups(0)
// LOG: build log:
// LOG-COUNT-5: [workgroup-uniform control flow]
// LOG-NOT: error
// LOG: end of build log

kernel void last_offers(global uint *out, uint d)
{
   request_fork();
   for (uint i = 0; i < 4; ++i) {
      out[get_global_id(0)] += i;
      if (query_kill_count() > 0 && get_group_id(0) + 1 == get_num_groups(0))
         offer_kill();
      const uint size = get_global_size(0);
      if (size > 64)
         request_fork();
      uint wanted = 0;
      if (get_num_groups(d) > 2)
         wanted = query_kill_count();
      out[0] = wanted;
   }
}

kernel void barrier_on_m(global uint *out)
{
   offer_kill();
   if (get_num_groups(0) > 1)
      global_barrier();
   if (get_global_size(0) / get_local_size(0) == get_group_id(0) + 1)
      offer_kill();
}
