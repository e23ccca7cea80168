/*!
[config]
name: cooperative kernels: build fails for transmit on an array of pointers to private memory
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.2-forbidden-pointers 10.8-fail-log 15-source-lines

// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+10]]:
// CHECK-DAG: [transmit]

kernel void k(global int *out)
{
   int a = 1, b = 2;
   // Each element points into this work-item's private memory: a new
   // work-group cannot use it. (An array of global pointers may be
   // transmitted; the element type is what counts, not that it is an
   // array.)
   transmit int *ps[2];
   ps[0] = &a;
   ps[1] = &b;
   request_fork();
   out[get_global_id(0)] = *ps[0] + *ps[1];
}
