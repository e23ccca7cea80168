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
 * (CK_PARK_LATE). While the launch runs, the driver tells the policy how
 * many work-groups of other launches wait for units (ck_dispatch_demand());
 * under the default policy the launch then gives units back through kills
 * and its late work-groups leave instead of parking.
 *
 * Policies (CK_POLICY, as in ck/scheduler.h):
 *   default, cap:K  late work-groups park, except while other launches wait;
 *                   then the launch is asked for kills down to the units
 *                   that the waiting work-groups leave it (at least one)
 *   never           no kill requests, and late work-groups leave
 *   random:SEED     late work-groups park, and the kernel keeps a kill
 *                   requested for every work-group but 0 (CK_RANDOM_SEED)
 *                   and accepts or refuses each offer at random with the
 *                   launch's seed: the seed that the scheduler of
 *                   ck/scheduler.h gives its launch of the same rank
 * CK_STATS=1 prints each launch's statistics on stderr, in the scheduler's
 * format, when the driver ends it. CK_TRACE=path writes the scheduler's
 * trace (ck/scheduler.h) of the launches, when the policy is destroyed or
 * the process exits: each launch from its start to its end, its gathers,
 * and its active work-groups: the discovery's count at the start, M at each
 * call of ck_dispatch_demand() that saw it change, 0 at the end.
 */
#ifndef CK_DISPATCH_H
#define CK_DISPATCH_H

#include <stdint.h>

#include "ck/launch_stats.h"

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
   uint64_t rank;         /* among the policy's launches, from 0 */
   const char *kernel_name; /* as given to ck_dispatch_begin() */
   uint32_t seed;         /* CK_RANDOM_SEED, to write before the dispatch; 0: none */
   uint32_t park_late;    /* CK_PARK_LATE, to write before the dispatch */
   /* Kept by ck_dispatch_demand(): */
   uint32_t kills_posted; /* the requests it posted and did not take back */
   uint64_t gather_start_ns; /* when the gather under way began; 0: none */
   uint32_t traced_active; /* M as CK_TRACE last recorded it */
   /* What the launch did, in the scheduler's terms (ck/launch_stats.h): its
    * gathers as ck_dispatch_demand() saw them, the rest filled by
    * ck_dispatch_end(). No fork is timed, and the launch is not queued. */
   struct ck_launch_stats stats;
};

/* Before the dispatch, whose context the frontend initialised
 * (ck_context_init_discovery()). kernel_name (may be NULL) names the launch
 * in the trace; it must stay valid until ck_dispatch_end(). */
void ck_dispatch_begin(struct ck_dispatch_policy *policy, struct ck_dispatch_launch *launch,
                       const char *kernel_name);

/* While the dispatch runs, each time the driver looked at what else waits:
 * `waiting_groups` work-groups of other launches wait for the device's
 * units. `context` is the launch's context, live: the driver maps it where
 * the device's memory is the host's, and the policy reaches it with the
 * same sequentially consistent atomics as the kernel. Under the default
 * policy, while work waits, the launch keeps CK_PARK_LATE cleared and is
 * asked for kills: the requests stay within the work-groups it can give
 * back (above work-group 0 and the highest that returned), and are posted
 * until it would keep no more than the units it discovered less the
 * waiting work-groups, at least one. A posted request stands, as under the
 * scheduler (FSE'17 4.2), except one that no active work-group can meet
 * any more. A gather runs from the call that posts the first requests to
 * the first call that finds every one met or taken back: its time is good
 * to the interval between calls. */
void ck_dispatch_demand(const struct ck_dispatch_policy *policy, struct ck_dispatch_launch *launch,
                        uint32_t *context, uint32_t waiting_groups);

/* Once the dispatch completed, with its context's header words and when it
 * started and ended (os_time_get_nano's clock): the statistics, printed
 * under CK_STATS=1. A gather whose requests were all met ends here, if no
 * call of ck_dispatch_demand() saw it end. */
void ck_dispatch_end(const struct ck_dispatch_policy *policy, struct ck_dispatch_launch *launch,
                     const uint32_t *context, uint32_t max_groups, uint64_t start_ns,
                     uint64_t end_ns);

#ifdef __cplusplus
}
#endif

#endif
