/*!
[config]
name: cooperative kernels: a killed work-group leaves whole; the builtins' work-group barrier
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels

[test]
name: 8 work-groups of 16 (two SIMD chunks), 200 rounds of every builtin
kernel_name: leave_whole
dimensions: 1
global_size: 128 0 0
local_size: 16 0 0
arg_in:  0 buffer uint[128] repeat 0
arg_in:  1 buffer uint[8] repeat 0
arg_out: 1 buffer uint[8] 0 0 0 0 0 200 0 0
arg_in:  2 uint 200
!*/

// covers: 6-ndrange 10.3-leaves-whole 11-barrier 11-builtins-wg-barrier

/* Section 10.3: "A killed work-group leaves the kernel as a whole, as if
 * every work-item returned from the kernel function at the call." Every
 * work-item counts, in past[its global id], the rounds in which it got past
 * offer_kill. A work-group that joins later with the same id counts on in
 * the same slots, all its work-items from the same round, so the slots of
 * one work-group id stay equal unless some work-items of a killed
 * work-group ran on past the call (or some of a surviving one did not).
 *
 * Section 11: "The cooperative builtins include a work-group barrier."
 * One work-item writes local memory just before offer_kill, request_fork,
 * global_barrier, resizing_global_barrier and query_kill_count, and every
 * work-item reads it just after, with no
 * barrier() of its own between: only the builtins' barrier orders them. A
 * value written before barrier() is read the same way (work_group_barrier,
 * OpenCL C 2.0, exists on neither Mesa frontend: both have OpenCL C 1.x).
 *
 * errors[]:
 *   0  a work-item read another value than was written before offer_kill
 *   1  ... before request_fork (work-groups that were not just forked: local
 *      memory is undefined in those)
 *   2  ... before barrier
 *   3  ... before global_barrier
 *   4  slots of one work-group id with different counts
 *   5  the rounds of work-group 0 (never killed)
 *   6  ... before resizing_global_barrier (work-groups that were there
 *      before it: local memory is undefined in those that join)
 *   7  ... before query_kill_count */
#define N_GROUPS 8u
#define LOCAL_SIZE 16u
enum { E_KILL, E_FORK, E_BARRIER, E_GLOBAL_BARRIER, E_UNEQUAL, ROUNDS, E_RESIZING, E_QUERY };

kernel void leave_whole(global uint *past, global uint *errors, uint rounds)
{
   local uint before_kill, before_fork, before_barrier, before_global_barrier;
   local uint before_resizing, before_query;
   transmit uint r;
   transmit uint forker;
   r = 0;
   for (; r < rounds; ++r) {
      if (get_local_id(0) == 0)
         before_kill = r * 64 + get_group_id(0);
      offer_kill();
      if (before_kill != r * 64 + get_group_id(0))
         atomic_inc(&errors[E_KILL]);
      atomic_inc(&past[get_global_id(0)]);

      if (get_local_id(0) == 7)
         before_barrier = r ^ 0x5a5a;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (before_barrier != (r ^ 0x5a5a))
         atomic_inc(&errors[E_BARRIER]);

      if (get_local_id(0) == LOCAL_SIZE - 1)
         before_fork = ~r;
      forker = get_group_id(0);
      request_fork();
      if (forker == get_group_id(0) && before_fork != ~r)
         atomic_inc(&errors[E_FORK]);

      if (get_local_id(0) == 3)
         before_global_barrier = r + 1000 * get_group_id(0);
      global_barrier();
      if (before_global_barrier != r + 1000 * get_group_id(0))
         atomic_inc(&errors[E_GLOBAL_BARRIER]);

      if (get_local_id(0) == 9)
         before_resizing = r * 3 + get_group_id(0);
      forker = get_group_id(0);
      resizing_global_barrier();
      if (forker == get_group_id(0) && before_resizing != r * 3 + get_group_id(0))
         atomic_inc(&errors[E_RESIZING]);

      if (get_local_id(0) == 12)
         before_query = r + 7;
      query_kill_count();
      if (before_query != r + 7)
         atomic_inc(&errors[E_QUERY]);
   }
   global_barrier();
   if (get_group_id(0) == 0 && get_local_id(0) == 0) {
      uint unequal = 0;
      for (uint slot = 0; slot < N_GROUPS; ++slot)
         for (uint l = 1; l < LOCAL_SIZE; ++l)
            if (atomic_add(&past[slot * LOCAL_SIZE + l], 0) !=
                atomic_add(&past[slot * LOCAL_SIZE], 0))
               ++unequal;
      errors[E_UNEQUAL] = unequal;
      errors[ROUNDS] = atomic_add(&past[0], 0);
   }
}
