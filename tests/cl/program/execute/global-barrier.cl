/*!
[config]
name: cooperative kernels: global_barrier orders rounds across work-groups
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels

[test]
name: 4 work-groups of 8, 500 rounds of a ring shift
kernel_name: ring_rounds
dimensions: 1
global_size: 32 0 0
local_size: 8 0 0
arg_in:  0 buffer uint[32] 0 1 2 3 4 5 6 7 8 9 10 11 \
                           12 13 14 15 16 17 18 19 20 21 22 23 \
                           24 25 26 27 28 29 30 31
arg_out: 0 buffer uint[32] 520 521 522 523 524 525 526 527 528 529 530 531 \
                           500 501 502 503 504 505 506 507 508 509 510 511 \
                           512 513 514 515 516 517 518 519
arg_in:  1 buffer uint[32] repeat 0
arg_in:  2 uint 500
arg_in:  3 uint 32

[test]
name: 2 work-groups of 16, 1001 rounds of a ring shift
kernel_name: ring_rounds
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_in:  0 buffer uint[32] 0 1 2 3 4 5 6 7 8 9 10 11 \
                           12 13 14 15 16 17 18 19 20 21 22 23 \
                           24 25 26 27 28 29 30 31
arg_in:  1 buffer uint[32] repeat 0
arg_out: 1 buffer uint[32] 1010 1011 1012 1013 1014 1015 1016 1017 1018 1019 1020 1021 \
                           1022 1023 1024 1025 1026 1027 1028 1029 1030 1031 1032 1001 \
                           1002 1003 1004 1005 1006 1007 1008 1009
arg_in:  2 uint 1001
arg_in:  3 uint 32
!*/

// covers: 6-ndrange 10.1-fairness 10.1-global-size 10.5-memory-order 10.5-no-early-leave

/* Each round every element takes its right neighbour's value from the
 * previous round plus one, in the other buffer. Elements of different
 * work-groups depend on each other every round, so without a working
 * global barrier the result is wrong. The work-items share the len
 * elements among the get_global_size(0) of them that are active, so the
 * result is the same whatever number of work-groups the scheduler grants
 * (one under CK_POLICY=cap:1). */
kernel void ring_rounds(global uint *a, global uint *b, uint rounds, uint len)
{
   for (uint r = 0; r < rounds; ++r) {
      global uint *src = (r & 1) ? b : a;
      global uint *dst = (r & 1) ? a : b;
      for (uint i = get_global_id(0); i < len; i += get_global_size(0))
         dst[i] = src[(i + 1) % len] + 1;
      global_barrier();
   }
}
