/*!
[config]
name: cooperative kernels: reads of private values undefined after a fork point build, with a warning
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
!*/

// covers: 6-cooperative-def 8-kcoop-value 10.4-undefined-warning

// A work-group that joins at a fork point has only the kernel's arguments
// and its transmit variables: `lid` (line 30, read on line 35) and `step`
// (line 42) are undefined there; `fresh` is set again before it is read
// (line 36). The build succeeds and the log warns at each undefined read.
// CHECK: compute units: [[UNITS:[0-9]+]]
// CHECK: build: success
// CHECK: build log:
// CHECK-DAG: :[[@LINE+18]]:11: warning: this read of a private variable can run in a work-group that joined at request_fork (line [[@LINE+16]])
// CHECK-DAG: :[[@LINE+24]]:38: warning: this read of a private variable can run in a work-group that joined at resizing_global_barrier (line [[@LINE+26]])
// CHECK-DAG: [undefined after fork]
// CHECK: end of build log
// CHECK-DAG: kernel cached_id: cooperative, [[UNITS]] active work-groups
// CHECK-DAG: kernel loop_counter: cooperative, [[UNITS]] active work-groups
// LOG: build log:
// LOG-NOT: :[[@LINE+12]]:
// LOG: end of build log

kernel void cached_id(global uint *out, uint rounds)
{
   transmit uint round;
   size_t lid = get_local_id(0);
   uint fresh = 0;
   for (round = 0; round < rounds; ++round) {
      request_fork();
      fresh = round * 2;
      out[lid] = rounds;
      out[0] += fresh;
   }
}

kernel void loop_counter(global uint *out, uint steps)
{
   for (uint step = 0; step < steps; ++step) {
      out[get_global_id(0)] += step;
      resizing_global_barrier();
   }
}
