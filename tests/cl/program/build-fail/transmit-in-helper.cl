/*!
[config]
name: cooperative kernels: build fails for transmit in a function called by the kernel
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// CHECK-BUILD: failure
// CHECK-LOG: input.cl:15:
// CHECK-LOG: [transmit]

void helper(global int *out)
{
   transmit int level = 3;
   request_fork();
   out[get_global_id(0)] = level;
}

kernel void k(global int *out)
{
   helper(out);
}
