/*!
[config]
name: cooperative kernels: no warning where joining work-groups define what they read
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
!*/

// covers: 6-cooperative-def 8-kcoop-value 10.4-undefined-warning

// Transmitted loop counters, arguments, and values computed again after
// the fork point: nothing a joining work-group reads is undefined.
// CHECK: compute units: [[UNITS:[0-9]+]]
// CHECK: build: success
// CHECK: build log:
// CHECK: end of build log
// CHECK-DAG: kernel relax: cooperative, [[UNITS]] active work-groups
// CHECK-DAG: kernel tasks: cooperative, [[UNITS]] active work-groups
// LOG: build log:
// LOG-NOT: warning
// LOG: end of build log

kernel void relax(global float *cells, uint steps)
{
   transmit uint step;
   for (step = 0; step < steps; ++step) {
      const size_t gid = get_global_id(0);
      float value = cells[gid];
      cells[gid] = value * 0.5f + (float)step;
      resizing_global_barrier();
   }
}

kernel void tasks(global volatile uint *next, global uint *done, uint count)
{
   local uint task;
   for (;;) {
      request_fork();
      offer_kill();
      if (get_local_id(0) == 0)
         task = atomic_inc(next);
      barrier(CLK_LOCAL_MEM_FENCE);
      const uint mine = task;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (mine >= count)
         break;
      if (get_local_id(0) == 0)
         done[mine] = 1;
   }
}
