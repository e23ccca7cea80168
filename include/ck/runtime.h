/*
 * Runtime side of cooperative kernels, called by the OpenCL frontend and the
 * driver: setting up and reading a launch's context (see ck/context.h).
 */
#ifndef CK_RUNTIME_H
#define CK_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fills a context of ck_context_bytes(max_groups) bytes for a launch of at
 * most max_groups work-groups, of which work-groups [0, active_groups) start
 * at the top of the kernel. The scheduler asks for nothing: no kill
 * requests, no fork offers. */
void ck_context_init(uint32_t *context, uint32_t max_groups, uint32_t active_groups);

#ifdef __cplusplus
}
#endif

#endif
