/*!
[config]
name: cooperative kernels: build fails for a builtin in a function that no kernel calls
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// CHECK-BUILD: failure
// CHECK-LOG: input.cl:15:
// CHECK-LOG: [unreachable builtin]

void orphan(void)
{
   request_fork();
}

kernel void k(global int *out)
{
   out[get_global_id(0)] = 1;
}
