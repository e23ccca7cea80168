/*!
[config]
name: Atomics on local memory, the work-items of a work-group contending
clc_version_min: 10

[test]
name: a histogram, several work-items per bucket
kernel_name: histogram
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[16] 2 3 4 2 1 1 2 1  4 3 2 1 2 2 1 1
arg_in:  1 buffer uint[32] 3 10 6 2 9 5 1 8 4 0 7 3 10 6 2 9 \
                           5 1 8 4 0 7 3 10 6 2 9 5 1 8 4 0

[test]
name: add, min, max, or, and, xor, signed and unsigned
kernel_name: reductions
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer int[16] 5 -5 5 2047 -2048 252645135 0 30 \
                          -7 -5 5 2047 -2048 50529027 0 30
arg_in:  1 buffer uint[32] 3 10 6 2 9 5 1 8 4 0 7 3 10 6 2 9 \
                           5 1 8 4 0 7 3 10 6 2 9 5 1 8 4 0

[test]
name: compare-and-swap has one winner, exchanges lose no value
kernel_name: exchanges
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[6] 1 1 220  1 1 220

[test]
name: additions in a loop that runs one work-item at a time
kernel_name: loop_additions
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[8] 96 96 78 80  72 70 68 72
arg_in:  1 buffer uint[32] 3 10 6 2 9 5 1 8 4 0 7 3 10 6 2 9 \
                           5 1 8 4 0 7 3 10 6 2 9 5 1 8 4 0
!*/

// The machine code (tests/cl/run-program-test.sh --asm). llvmpipe runs all
// the work-items of a work-group on one thread, and nothing else reads or
// writes its local memory: an atomic there is a load and a store (kept
// where the program has them), not a locked instruction (0043). These
// kernels have no other atomic.
//
// CPU-CHECKS: sse2
// SSE2-NOT: {{[[:space:]]}}lock{{[[:space:]]}}

kernel void histogram(global uint *counts, global const uint *values)
{
   local uint buckets[8];
   const uint lid = get_local_id(0);
   if (lid < 8)
      buckets[lid] = 0;
   barrier(CLK_LOCAL_MEM_FENCE);
   atomic_inc(&buckets[values[get_global_id(0)] % 8]);
   barrier(CLK_LOCAL_MEM_FENCE);
   if (lid < 8)
      counts[get_group_id(0) * 8 + lid] = buckets[lid];
}

kernel void reductions(global int *out, global const uint *values)
{
   local int sum, smallest, largest;
   local uint bits_or, bits_and, bits_xor, usmallest, ulargest;
   const uint lid = get_local_id(0), value = values[get_global_id(0)];
   if (lid == 0) {
      sum = 0;
      smallest = INT_MAX;
      largest = INT_MIN;
      bits_or = 0;
      bits_and = 0xffffffffu;
      bits_xor = 0;
      usmallest = 0xffffffffu;
      ulargest = 0;
   }
   barrier(CLK_LOCAL_MEM_FENCE);
   const int centred = (int)value - 5;
   atomic_add(&sum, centred);
   atomic_min(&smallest, centred);
   atomic_max(&largest, centred);
   atomic_or(&bits_or, 1u << value);
   atomic_and(&bits_and, ~(1u << value));
   atomic_xor(&bits_xor, value * 0x01010101u);
   atomic_min(&usmallest, value * 3u);
   atomic_max(&ulargest, value * 3u);
   barrier(CLK_LOCAL_MEM_FENCE);
   if (lid == 0) {
      global int *group_out = out + get_group_id(0) * 8;
      group_out[0] = sum;
      group_out[1] = smallest;
      group_out[2] = largest;
      group_out[3] = (int)bits_or;
      group_out[4] = (int)bits_and;
      group_out[5] = (int)bits_xor;
      group_out[6] = (int)usmallest;
      group_out[7] = (int)ulargest;
   }
}

// One work-item's compare-and-swap of 0 wins; every value that went into
// `value` (100, then each work-item's id) comes out once, through an
// exchange or as the last one: 100 + 0 + ... + 15 = 220.
kernel void exchanges(global uint *out)
{
   local uint slot, winners, value, returned;
   const uint lid = get_local_id(0);
   if (lid == 0) {
      slot = 0;
      winners = 0;
      value = 100;
      returned = 0;
   }
   barrier(CLK_LOCAL_MEM_FENCE);
   if (atomic_cmpxchg(&slot, 0u, lid + 1) == 0u)
      atomic_inc(&winners);
   atomic_add(&returned, atomic_xchg(&value, lid));
   barrier(CLK_LOCAL_MEM_FENCE);
   if (lid == 0) {
      global uint *group_out = out + get_group_id(0) * 3;
      group_out[0] = winners;
      group_out[1] = slot >= 1 && slot <= 16;
      group_out[2] = returned + value;
   }
}

// Work-item i adds j + 1 to sums[j % 4] for j < counts[i]: a loop whose
// trip count differs between work-items, which llvmpipe runs one
// work-item at a time (0029).
kernel void loop_additions(global uint *out, global const uint *counts)
{
   local uint sums[4];
   const uint lid = get_local_id(0);
   if (lid < 4)
      sums[lid] = 0;
   barrier(CLK_LOCAL_MEM_FENCE);
   const uint count = counts[get_global_id(0)];
   for (uint j = 0; j < count; ++j)
      atomic_add(&sums[j % 4], j + 1);
   barrier(CLK_LOCAL_MEM_FENCE);
   if (lid < 4)
      out[get_group_id(0) * 4 + lid] = sums[lid];
}
