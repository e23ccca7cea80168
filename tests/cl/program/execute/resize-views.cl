/*!
[config]
name: cooperative kernels: every work-group sees the same M between resizing barriers
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels

[test]
name: 8 work-groups of 8, 100 rounds, resizing barrier in a nested helper
kernel_name: views
dimensions: 1
global_size: 64 0 0
local_size: 8 0 0
arg_in:  0 buffer uint[800] repeat 0
arg_in:  1 buffer uint[5] repeat 0
arg_out: 1 buffer uint[5] 0 0 0 0 100
arg_in:  2 uint 100
!*/

// covers: 6-ndrange 10.1-global-size 10.1-size-change-points 10.1-size-constant
// covers: 10.2-resize-copies-wg0 10.5-no-early-leave 10.6-barrier 10.6-join-after 10.6-resize

/* Each round, after a resizing barrier reached through two helpers, every
 * active work-group records the M it sees (get_num_groups(0)); after a
 * global barrier work-group 0 checks the records. errors[]:
 *   0  a work-group whose id is not below M
 *   1  get_global_size(0) != M * get_local_size(0)
 *   2  an active work-group that saw another M, or none recorded
 *   3  a record from a work-group at or above M
 *   4  rounds completed by work-group 0 (transmitted to forked ones)
 * The number of work-groups the scheduler grants, and under CK_POLICY=
 * random:SEED the resizing at every barrier, change nothing of this. */
#define MAX_GROUPS 8

void resize(void)
{
   resizing_global_barrier();
}

void end_round(void)
{
   resize();
}

kernel void views(global uint *seen, global uint *errors, uint rounds)
{
   transmit uint round = 0;
   while (round < rounds) {
      end_round();
      const uint m = get_num_groups(0);
      const uint group = get_group_id(0);
      global uint *record = seen + round * MAX_GROUPS;
      if (get_local_id(0) == 0) {
         if (group >= m)
            atomic_inc(&errors[0]);
         if (get_global_size(0) != m * get_local_size(0))
            atomic_inc(&errors[1]);
         if (group < MAX_GROUPS)
            atomic_xchg(&record[group], m);
      }
      global_barrier();
      if (get_num_groups(0) != m && get_local_id(0) == 0)
         atomic_inc(&errors[2]);
      if (group == 0 && get_local_id(0) == 0) {
         for (uint g = 0; g < MAX_GROUPS; ++g) {
            const uint saw = atomic_or(&record[g], 0);
            if (g < m && saw != m)
               atomic_inc(&errors[2]);
            if (g >= m && saw != 0)
               atomic_inc(&errors[3]);
         }
         errors[4] = round + 1;
      }
      round++;
   }
}
