/*
 * Portable cooperative kernels: include this in OpenCL C sources that use the
 * cl_ext_cooperative_kernels builtins. On an implementation with the
 * extension it adds nothing. Elsewhere it defines the builtins away as the
 * FSE'17 backwards-compatibility rule says: `transmit`, `offer_kill` and
 * `request_fork` vanish, `query_kill_count()` is 0 (nothing asks for
 * work-groups back), `resizing_global_barrier` becomes `global_barrier`,
 * and `global_barrier` is an occupancy-bound barrier, correct only when the
 * host launches no more work-groups than the device runs at once (which is
 * how such kernels run today). Defining CK_DEFINE_AWAY (-DCK_DEFINE_AWAY)
 * picks this fallback even where the extension exists, to compare the two.
 *
 * The occupancy-bound barrier needs two zeroed words of global memory. Write
 * CK_SYNC_PARAM at the end of the kernel's parameter list: it expands to
 * nothing with the extension, and to one extra `volatile global uint *`
 * parameter without it, which the host then passes as the last argument.
 *
 * Defining CK_RESIZING_WITHOUT_QUERY builds resizing_global_barrier the way
 * FSE'17 §4.2 first describes it, without the query: once every work-group
 * has arrived at a global barrier (so that none is still working with the
 * old number of work-groups), every work-group offers to be killed once, the
 * survivors meet at a second global barrier, work-group 0 may fork, and new
 * work-groups join at a third. The scheduler can then gather only the
 * work-groups that happen to be last when they offer, which is what the
 * query-based barrier improves on.
 */
#ifndef COOPERATIVE_KERNELS_CL_H
#define COOPERATIVE_KERNELS_CL_H

#if defined(cl_ext_cooperative_kernels) && !defined(CK_DEFINE_AWAY)

#define CK_SYNC_PARAM

#ifdef CK_RESIZING_WITHOUT_QUERY
/* A macro, not a function: a kernel that never uses it must not hold a
 * function that calls builtins without any kernel calling it. */
#define resizing_global_barrier()                                             \
   do {                                                                       \
      global_barrier();                                                       \
      offer_kill();                                                           \
      global_barrier();                                                       \
      if (get_group_id(0) == 0)                                               \
         request_fork();                                                      \
      global_barrier();                                                       \
   } while (0)
#endif

#else

#define CK_SYNC_PARAM , volatile global uint *ck_sync
#undef transmit
#define transmit
#define offer_kill() ((void)0)
#define request_fork() ((void)0)
#define query_kill_count() 0u
#define resizing_global_barrier() global_barrier()
#define global_barrier() ck_occupancy_bound_barrier(ck_sync)

void ck_occupancy_bound_barrier(volatile global uint *sync)
{
   barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
   if (get_local_id(0) == 0) {
      uint generation = atomic_add(&sync[1], 0);
      if (atomic_inc(&sync[0]) == get_num_groups(0) - 1) {
         atomic_xchg(&sync[0], 0);
         atomic_inc(&sync[1]);
      } else {
         while (atomic_add(&sync[1], 0) == generation)
            ;
      }
   }
   barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
}

#endif
#endif
