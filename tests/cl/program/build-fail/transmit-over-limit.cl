/*!
[config]
name: cooperative kernels: build fails for transmit variables of 249 bytes, one over the limit of 248
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.2-248-bytes 10.8-fail-log 15-source-lines

// 4 + 244 = 248 bytes fit; the last byte, on line 25, does not.
// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+11]]:
// CHECK-DAG: [transmit]
// LOG: build log:
// LOG-NOT: input.cl:[[@LINE+6]]:
// LOG-NOT: input.cl:[[@LINE+6]]:
// LOG: end of build log

kernel void k(global uchar *out, int n)
{
   transmit int level;
   transmit uchar bytes[244];
   transmit uchar last;
   for (int i = 0; i < 244; ++i)
      bytes[i] = (uchar)i;
   last = 1;
   for (level = 0; level < n; ++level)
      resizing_global_barrier();
   out[get_global_id(0)] = bytes[get_global_id(0) % 244] + last;
}
