/*!
[config]
name: cooperative kernels: build fails for transmit in a plain nested block
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.2-root-scope 10.8-fail-log 15-source-lines

/* Found by the fuzzer (tests/fuzz): a nested block that no control flow
 * enters is still not the root scope; the check once looked only for
 * control flow before the declaration and accepted this kernel. */

// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK: input.cl:[[@LINE+6]]:{{[0-9]+}}: error: 'transmit' variable is declared in a nested scope (a block or a for loop's init); declare it in the kernel's root scope, its outermost block [transmit]

kernel void k(global uint *out, uint n)
{
   out[0] = n;
   {
      transmit uint level;
      level = n;
      resizing_global_barrier();
      out[get_global_id(0)] = level;
   }
}
