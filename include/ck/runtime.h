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

/* The same for a driver that dispatches all max_groups work-groups at once:
 * M is 0 and the occupancy discovery poll is open (CK_DISCOVERY_POLL), so
 * that the work-groups resident together find each other and take the ids
 * [0, M); the others leave. CK_DISCOVERY_QUIET is 0 (the first to join
 * closes the poll at once) until the driver sets it. */
void ck_context_init_discovery(uint32_t *context, uint32_t max_groups);

/* The driver calls this each time a work-group of a cooperative kernel polls
 * the launch context for another work-group (the code the compiler
 * generates marks those loops with CK_SPIN_WAIT_FUNCTION). It yields the CPU
 * every few polls: every 256th while every compute unit has a CPU, every
 * other one once units outnumber CPUs (the work-group waited for may have
 * none). */
void ck_spin_wait_hint(void);

#ifdef __cplusplus
}
#endif

#endif
