/*
 * Host API of the cl_ext_cooperative_kernels extension
 * (see docs/cl_ext_cooperative_kernels.md).
 */
#ifndef CL_EXT_COOPERATIVE_KERNELS_H
#define CL_EXT_COOPERATIVE_KERNELS_H

#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

#define cl_ext_cooperative_kernels 1
#define CL_EXT_COOPERATIVE_KERNELS_EXTENSION_NAME "cl_ext_cooperative_kernels"
/* The version that CL_DEVICE_EXTENSIONS_WITH_VERSION reports. */
#define CL_EXT_COOPERATIVE_KERNELS_EXTENSION_VERSION CL_MAKE_VERSION(1, 0, 0)

/* cl_kernel_work_group_info */
/* cl_bool: CL_TRUE if the kernel reaches a cooperative builtin. */
#define CL_KERNEL_COOPERATIVE_EXT 0x4F00
/* size_t: how many work-groups of the kernel can be active at once on the
 * device now, under the implementation's unit cap if any (a launch of at
 * most this many on an otherwise idle device starts with all of them
 * active, unless the cap is lowered before it starts); 0 for a kernel that
 * is not cooperative. The
 * query takes no input: on llvmpipe the value does not depend on the local
 * size or the local memory. */
#define CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT 0x4F01

/* cl_profiling_info: what the scheduler did during a cooperative launch,
 * queried with clGetEventProfilingInfo on the launch's event once it is
 * CL_COMPLETE (the queue needs CL_QUEUE_PROFILING_ENABLE). For an ordinary
 * launch every value is 0. */
/* cl_ulong: work-groups killed (offer_kill, resizing barriers). */
#define CL_PROFILING_COOPERATIVE_KILLS_EXT 0x4F10
/* cl_ulong: work-groups forked (request_fork, resizing barriers). */
#define CL_PROFILING_COOPERATIVE_FORKS_EXT 0x4F11
/* cl_ulong: the fewest / most work-groups active at once. */
#define CL_PROFILING_COOPERATIVE_MIN_ACTIVE_EXT 0x4F12
#define CL_PROFILING_COOPERATIVE_MAX_ACTIVE_EXT 0x4F13
/* cl_ulong[]: the time of each completed gather in nanoseconds, from the
 * moment the scheduler asked the kernel for units to the moment the last of
 * them was given back, in completion order; the size query (param_value
 * NULL) gives 8 bytes per gather recorded. */
#define CL_PROFILING_COOPERATIVE_GATHER_TIMES_EXT 0x4F14
/* cl_ulong[]: for each work-group forked onto a compute unit, nanoseconds
 * from the unit becoming free to the work-group starting on it. */
#define CL_PROFILING_COOPERATIVE_FORK_TIMES_EXT 0x4F15

/* Execution status (negative: an error) of a cooperative launch that ended
 * early because a global barrier could never complete: a work-group had
 * returned from the kernel, so it could not reach a barrier at which others
 * waited (or that others reached later). The waiting work-groups leave the
 * kernel; the implementation names the kernel and the barrier on stderr.
 * clWaitForEvents on the event returns
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST. */
#define CL_COOPERATIVE_BARRIER_STUCK_EXT (-1150)

#ifdef __cplusplus
}
#endif

#endif
