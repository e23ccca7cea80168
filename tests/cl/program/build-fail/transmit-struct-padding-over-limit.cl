/*!
[config]
name: cooperative kernels: build fails for a transmit structure whose fields fit in 248 bytes but whose padding does not
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
expect_build_fail: true
!*/

// covers: 10.2-248-bytes 10.8-fail-log 15-source-lines

// The fields take 1 + 240 + 1 = 242 bytes; values is aligned to 8 and the
// structure's size to its alignment, so it takes 1 + 7 + 240 + 1 + 7 = 256
// bytes and the record, on line 27, does not fit.
// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+11]]:
// CHECK-DAG: the transmit record needs 256 bytes; at most 248 fit in a workgroup slot [transmit]

typedef struct {
   char tag;
   long values[30];
   char end;
} record;

kernel void k(global long *out)
{
   transmit record r;
   r.tag = 1;
   r.end = 2;
   for (int i = 0; i < 30; ++i)
      r.values[i] = i;
   resizing_global_barrier();
   out[get_global_id(0)] = r.tag + r.values[get_global_id(0) % 30] + r.end;
}
