/*!
[config]
name: cooperative kernels: build fails for transmit on a pointer to private memory
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// CHECK-BUILD: failure
// CHECK-LOG: input.cl:16:
// CHECK-LOG: [transmit]

kernel void k(global int *out)
{
   int x = 1;
   transmit int *p = &x;
   request_fork();
   out[get_global_id(0)] = *p;
}
