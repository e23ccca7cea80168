/*!
[config]
name: cooperative kernels: reads of private values undefined after a fork point build, with a warning
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
!*/

// A work-group that joins at a fork point has only the kernel's arguments
// and its transmit variables: `lid` (line 23, read on line 28) and `step`
// (line 35) are undefined there; `fresh` is set again before it is read
// (line 29). The build succeeds and the log warns at each undefined read.
// CHECK-BUILD: success
// CHECK-COOPERATIVE: cached_id
// CHECK-COOPERATIVE: loop_counter
// CHECK-LOG: :28:11: warning: this read of a private variable can run in a work-group that joined at request_fork (line 26)
// CHECK-LOG: :35:38: warning: this read of a private variable can run in a work-group that joined at resizing_global_barrier (line 37)
// CHECK-LOG: [undefined after fork]
// CHECK-LOG-NOT: :29:

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
