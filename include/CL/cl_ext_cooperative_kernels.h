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

/* cl_kernel_work_group_info */
/* cl_bool: CL_TRUE if the kernel reaches a cooperative builtin. */
#define CL_KERNEL_COOPERATIVE_EXT 0x4F00
/* size_t: how many work-groups of the kernel, with the local size passed as
 * the input value (or the one the kernel requires), can be active at once;
 * 0 for a kernel that is not cooperative. */
#define CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT 0x4F01

#ifdef __cplusplus
}
#endif

#endif
