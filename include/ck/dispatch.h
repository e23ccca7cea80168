/*
 * The scheduler's side of a cooperative launch on a driver that dispatches
 * all of its work-groups at once, where they discover which of them are
 * resident together (PIPE_COMPUTE_CAP_COOPERATIVE_DISPATCH: zink). The
 * driver runs the dispatch; the policy works on the running launch through
 * its context (ck/context.h), which the driver maps coherently and hands to
 * ck_dispatch_poll() every so often until the dispatch completes.
 *
 * A compute unit here is a resident work-group's place on the device. Only
 * another dispatch could take one that a kill frees, and the driver runs
 * none beside a cooperative one yet; so no policy offers units to forks
 * (request_fork forks nothing, as the spec allows), and only the random
 * policy asks for kills.
 *
 * Policies (CK_POLICY, as in ck/scheduler.h):
 *   default, cap:K  no kill requests: no other work waits for the units
 *   never           none
 *   random:SEED     every kill a launch can make is requested all the
 *                   time (what M and CK_RETURNED_END allow), and the kernel
 *                   accepts or refuses each offer at random with the
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
   int poll;            /* nonzero: call ck_dispatch_poll() while it runs */
   uint32_t min_active; /* M from the discovery's count on, as the polls */
   uint32_t max_active; /* and ck_dispatch_end() saw it (0 until then) */
   uint64_t kills;      /* from the context, by ck_dispatch_end() */
   uint64_t forks;
};

/* Before the dispatch, whose context the frontend initialised
 * (ck_context_init_discovery()). */
void ck_dispatch_begin(struct ck_dispatch_policy *policy, struct ck_dispatch_launch *launch);

/* While the dispatch runs: posts the kill requests that the policy wants,
 * and samples M. `context` is the launch's context, mapped coherently. */
void ck_dispatch_poll(const struct ck_dispatch_policy *policy, struct ck_dispatch_launch *launch,
                      uint32_t *context);

/* Once the dispatch completed: the statistics, printed under CK_STATS=1. */
void ck_dispatch_end(const struct ck_dispatch_policy *policy, struct ck_dispatch_launch *launch,
                     const uint32_t *context, uint32_t max_groups, uint64_t ran_ns);

#ifdef __cplusplus
}
#endif

#endif
