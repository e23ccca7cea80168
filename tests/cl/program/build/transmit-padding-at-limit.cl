/*!
[config]
name: cooperative kernels: transmit variables whose alignment padding brings them to 248 bytes or keeps them under
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
!*/

// covers: 10.2-248-bytes

// Padding counts, and only the padding there is: each record below fits,
// two of them exactly (one more byte fails: build-fail/transmit-over-limit.cl,
// build-fail/transmit-padding-over-limit.cl, build-fail/transmit-struct-padding-over-limit.cl).
// CHECK: compute units: [[UNITS:[0-9]+]]
// CHECK: build: success
// CHECK: build log:
// CHECK: end of build log
// CHECK-DAG: kernel spec_reverse_order: cooperative, [[UNITS]] active work-groups
// CHECK-DAG: kernel padded_scalars: cooperative, [[UNITS]] active work-groups
// CHECK-DAG: kernel padded_struct: cooperative, [[UNITS]] active work-groups
// LOG: build log:
// LOG-NOT: {{warning|error}}
// LOG: end of build log

typedef struct {
   char tag;
   long values[30];
} padded;

// The spec's example in the order that needs no padding: 128 + 1 = 129 bytes.
kernel void spec_reverse_order(global long *out)
{
   transmit long16 v;
   transmit char c;
   v = (long16)(2);
   c = 1;
   resizing_global_barrier();
   out[get_global_id(0)] = c + v.s0;
}

// 1 byte, 7 of padding to align values to 8, 240 bytes: 248.
kernel void padded_scalars(global long *out)
{
   transmit char tag;
   transmit long values[30];
   tag = 1;
   for (int i = 0; i < 30; ++i)
      values[i] = i;
   resizing_global_barrier();
   out[get_global_id(0)] = tag + values[get_global_id(0) % 30];
}

// The same as one structure: 241 bytes of fields, 248 with the padding.
kernel void padded_struct(global long *out)
{
   transmit padded r;
   r.tag = 1;
   for (int i = 0; i < 30; ++i)
      r.values[i] = i;
   resizing_global_barrier();
   out[get_global_id(0)] = r.tag + r.values[get_global_id(0) % 30];
}
