/*!
[config]
name: cooperative kernels: every builtin, in helpers, loops and several kernels
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels
!*/

// covers: 6-cooperative-def 8-kcoop-value 9-declarations 9-macro

// CHECK: compute units: [[UNITS:[0-9]+]]
// CHECK: build: success
// CHECK: build log:
// CHECK: end of build log
// CHECK-DAG: kernel work_stealing: cooperative, [[UNITS]] active work-groups
// CHECK-DAG: kernel levels: cooperative, [[UNITS]] active work-groups
// CHECK-DAG: kernel query_barrier: cooperative, [[UNITS]] active work-groups
// CHECK-DAG: kernel plain: not cooperative, 0 active work-groups

#ifndef cl_ext_cooperative_kernels
#error "cl_ext_cooperative_kernels is not defined"
#endif

typedef struct {
   int first;
   float second;
} pair;

// Kill and fork points in a helper, called from a loop.
uint next_task(volatile global uint *queue, local uint *slot)
{
   offer_kill();
   request_fork();
   if (get_local_id(0) == 0)
      *slot = atomic_inc(queue);
   barrier(CLK_LOCAL_MEM_FENCE);
   uint t = *slot;
   barrier(CLK_LOCAL_MEM_FENCE);
   return t;
}

kernel void work_stealing(volatile global uint *queue, global uint *done, uint tasks)
{
   local uint slot;
   for (uint t = next_task(queue, &slot); t < tasks; t = next_task(queue, &slot)) {
      done[t] = get_group_id(0);
      // More fork points, in nested control flow.
      if (t % 2 == 0) {
         for (int k = 0; k < 2; ++k)
            request_fork();
      }
   }
}

// Level-by-level processing with transmitted state of several types.
kernel void levels(global int *data, global float4 *out, int n)
{
   transmit int level = 0;
   transmit float4 scale = (float4)(1.0f, 2.0f, 3.0f, 4.0f);
   transmit global int *in = data;
   // (Fields are assigned one by one: Mesa 22.3 crashes in nir_lower_memcpy
   // on a struct initialiser, with or without this extension.)
   transmit pair p;
   p.first = 1;
   p.second = 2.0f;
   while (level < n) {
      for (int i = get_global_id(0); i < n; i += get_global_size(0))
         in[i] += level + p.first;
      level++;
      scale *= 0.5f;
      resizing_global_barrier();
   }
   out[get_global_id(0)] = scale * (float)get_num_groups(0) * p.second;
}

// The query of FSE'17 section 4.2 and a plain global barrier.
kernel void query_barrier(global uint *out)
{
   uint wanted = query_kill_count();
   global_barrier();
   out[get_global_id(0)] = wanted + get_num_groups(0);
}

// A kernel that uses no builtin stays an ordinary kernel.
kernel void plain(global int *out)
{
   out[get_global_id(0)] = get_num_groups(0);
}
