/*!
[config]
name: cooperative kernels: conditions on get_num_groups that may guard builtins
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
!*/

// covers: 10.1-size-constant 10.8-broadcast 10.8-wgu-active-count

// The forms that build (their failing counterparts:
// build-fail/active-count-offer-kill.cl): M broadcast by one work-item; M in
// a kernel whose only builtins are barriers, where it changes only inside
// resizing barriers; and M read where no builtin depends on it.
// CHECK: compute units: [[UNITS:[0-9]+]]
// CHECK: build: success
// CHECK: build log:
// CHECK: end of build log
// CHECK-DAG: kernel broadcast_last_offers: cooperative, [[UNITS]] active work-groups
// CHECK-DAG: kernel barriers_only: cooperative, [[UNITS]] active work-groups
// CHECK-DAG: kernel m_as_data: cooperative, [[UNITS]] active work-groups
// LOG: build log:
// LOG-NOT: {{warning|error}}
// LOG: end of build log

// The spec's idiom: the last active work-group offers to be killed.
kernel void broadcast_last_offers(global uint *out)
{
   local uint m;
   transmit uint i;
   for (i = 0; i < 4; ++i) {
      if (get_local_id(0) == 0)
         m = get_num_groups(0);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (query_kill_count() > 0 && get_group_id(0) + 1 == m)
         offer_kill();
      request_fork();
      out[get_global_id(0)] += i;
   }
}

kernel void barriers_only(global uint *out)
{
   for (uint i = get_global_id(0); i < 1024; i += get_global_size(0))
      out[i] = i;
   if (get_num_groups(0) > 1)
      resizing_global_barrier();
   if (get_global_size(0) > get_local_size(0))
      global_barrier();
}

kernel void m_as_data(global uint *out)
{
   offer_kill();
   out[get_global_id(0)] = get_num_groups(0) + get_num_groups(1);
   if (get_num_groups(1) == 1)
      request_fork();
}
