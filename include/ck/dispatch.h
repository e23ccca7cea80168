/*
 * The scheduler's side of a cooperative launch on a driver that dispatches
 * all of its work-groups at once, where they discover which of them are
 * resident together (PIPE_COMPUTE_CAP_COOPERATIVE_DISPATCH: zink). No unit
 * thread of the scheduler runs such a launch: the policy decides at its
 * start, through words of its context (ck/context.h) that the driver writes
 * before the dispatch, and the kernel's side of the protocol does the rest.
 *
 * A compute unit here is a resident work-group's place on the device. A
 * unit that a work-group of the launch gives back (it returned, or was
 * killed) goes to the dispatch's next work-group, which finds the
 * discovery closed: where the policy offers free units to forks, that
 * work-group parks, offering itself, and runs the fork it is given
 * (CK_PARK_LATE). The driver runs no other work beside a cooperative
 * dispatch yet, so only the random policy asks for kills.
 *
 * Policies (CK_POLICY, as in ck/scheduler.h):
 *   default, cap:K  no kill requests (no other work waits for the units);
 *                   late work-groups park
 *   never           no kill requests, and late work-groups leave
 *   random:SEED     late work-groups park, and the kernel keeps a kill
 *                   requested for every work-group but 0 (CK_RANDOM_SEED)
 *                   and accepts or refuses each offer at random with the
 *                   launch's seed: the seed that the scheduler of
 *                   ck/scheduler.h gives its launch of the same rank
 * CK_STATS=1 prints each launch's statistics on stderr, in the scheduler's
 * format, when the driver ends it.
 */
#ifndef CK_DISPATCH_H
#define CK_DISPATCH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ck_dispatch_policy;

/* A policy configured from CK_POLICY and CK_STATS (an invalid CK_POLICY is
 * reported on stderr and replaced by the default policy); NULL if no memory
 * is left. Thread-safe: a driver keeps one per device. */
struct ck_dispatch_policy *ck_dispatch_policy_create(void);
void ck_dispatch_policy_destroy(struct ck_dispatch_policy *policy);

struct ck_dispatch_launch {
   uint64_t rank;       /* among the policy's launches, from 0 */
   uint32_t seed;       /* CK_RANDOM_SEED, to write before the dispatch; 0: none */
   uint32_t park_late;  /* CK_PARK_LATE, to write before the dispatch */
   /* Filled by ck_dispatch_end(): */
   uint32_t min_active; /* the fewer and the more of M when the discovery */
   uint32_t max_active; /* closed and M at the end */
   uint64_t kills;      /* the context's CK_KILLS and CK_FORKS */
   uint64_t forks;
};

/* Before the dispatch, whose context the frontend initialised
 * (ck_context_init_discovery()). */
void ck_dispatch_begin(struct ck_dispatch_policy *policy, struct ck_dispatch_launch *launch);

/* Once the dispatch completed, with its context's header words: the
 * statistics, printed under CK_STATS=1. */
void ck_dispatch_end(const struct ck_dispatch_policy *policy, struct ck_dispatch_launch *launch,
                     const uint32_t *context, uint32_t max_groups, uint64_t ran_ns);

#ifdef __cplusplus
}
#endif

#endif
