/*!
[config]
name: cooperative kernels: transmit declared in the root scope after a loop
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels

[test]
name: 4 work-groups of 16, 100 resizing barriers; level = 1 + ... + 10 reaches the joining work-groups
kernel_name: level_after_loop
dimensions: 1
global_size: 64 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[64] 55 56 57 58 59 60 61 62 63 64 65 66 \
                           67 68 69 70 71 72 73 74 75 76 77 78 \
                           79 80 81 82 83 84 85 86 87 88 89 90 \
                           91 92 93 94 95 96 97 98 99 100 101 102 \
                           103 104 105 106 107 108 109 110 111 112 113 114 \
                           115 116 117 118
arg_in:  1 uint 10
!*/

// covers: 10.2-root-scope 10.2-resize-copies-wg0

/* Found by the fuzzer (tests/fuzz): `level` is declared in the kernel's
 * root scope, after a loop. The check once asked for every `transmit`
 * declaration to come before any control flow and rejected this kernel.
 * The work-groups that join at a resizing barrier have not run the first
 * loop: they know `level` only from the transmit record, and they write
 * their share of `out` after the barrier where they joined. */
kernel void level_after_loop(global uint *out, uint n)
{
   uint sum = 0;
   for (uint i = 1; i <= n; ++i)
      sum += i;
   transmit uint level;
   level = sum;
   transmit uint round;
   for (round = 0; round < 100u; ++round) {
      resizing_global_barrier();
      for (uint i = get_global_id(0); i < 64; i += get_global_size(0))
         out[i] = level + i;
   }
}
