/*!
[config]
name: mem_fence between a message and its flag: a fence other work-groups see
clc_version_min: 10

[test]
name: each work-item publishes a value, then its flag
kernel_name: publish
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer int[32] 0 3 6 9 12 15 18 21 24 27 30 33 36 39 42 45 48 51 54 57 60 63 66 69 72 75 78 81 84 87 90 93
arg_out: 1 buffer int[32] repeat 1
!*/

/* OpenCL 1.x programs order a flag after its data for another work-group
 * with mem_fence(), whose scope SPIR-V calls work-group: run-program-test.sh
 * --fences cross-thread checks that the IR keeps a fence of the machine. */
kernel void publish(global int *data, global volatile int *flag)
{
   const size_t g = get_global_id(0);
   data[g] = (int)g * 3;
   mem_fence(CLK_GLOBAL_MEM_FENCE);
   flag[g] = 1;
}
