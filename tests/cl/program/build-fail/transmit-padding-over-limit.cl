/*!
[config]
name: cooperative kernels: build fails where alignment padding takes transmit variables over 248 bytes
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.2-248-bytes 10.8-fail-log 15-source-lines

// The spec's example: 1 + 128 = 129 bytes of values, but v is aligned to
// 128, so the record needs 1 + 127 + 128 = 256 bytes; v, on line 25, does
// not fit (the reverse order, 129 bytes, does: build/transmit-padding-at-limit.cl).
// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+9]]:
// CHECK-DAG: the transmit record needs 256 bytes; at most 248 fit in a workgroup slot [transmit]
// LOG: build log:
// LOG-NOT: input.cl:[[@LINE+5]]:
// LOG: end of build log

kernel void k(global long *out)
{
   transmit char c;
   transmit long16 v;
   c = 1;
   v = (long16)(2);
   resizing_global_barrier();
   out[get_global_id(0)] = c + v.s0;
}
