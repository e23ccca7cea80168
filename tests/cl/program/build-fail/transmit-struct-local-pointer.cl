/*!
[config]
name: cooperative kernels: build fails for transmit on a struct holding a pointer to local memory
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.2-forbidden-pointers 10.8-fail-log 15-source-lines

// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+13]]:
// CHECK-DAG: [transmit]

typedef struct {
   int count;
   local int *value;
} holder;

kernel void k(global int *out)
{
   local int partial[4];
   // The struct's other member is copyable; its pointer refers to this
   // work-group's local memory, which a new work-group does not share.
   transmit holder h;
   h.count = 2;
   h.value = partial;
   partial[get_local_id(0) % 4] = 1;
   barrier(CLK_LOCAL_MEM_FENCE);
   request_fork();
   out[get_global_id(0)] = h.count + h.value[0];
}
