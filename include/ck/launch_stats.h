/*
 * What a backend of the scheduler records of a cooperative launch: the
 * scheduler (ck/scheduler.h) on drivers whose compute units are its
 * threads, the dispatch policy (ck/dispatch.h) on drivers that dispatch
 * every work-group at once. Drivers turn it into gallium's report of the
 * launch (util_cooperative_stats_from_ck()), and CK_STATS=1 prints it.
 */
#ifndef CK_LAUNCH_STATS_H
#define CK_LAUNCH_STATS_H

#include <stdint.h>

#define CK_STATS_GATHER_TIMES 1024
#define CK_STATS_FORK_TIMES 1024

struct ck_launch_stats {
   uint64_t kills;        /* work-groups killed (the context's CK_KILLS) */
   uint64_t forks;        /* work-groups forked (the context's CK_FORKS) */
   uint32_t min_active;   /* M, sampled at every scheduler event of the launch */
   uint32_t max_active;
   uint32_t gathers;      /* completed gathers: the scheduler asked for units
                             and the last of them was surrendered */
   uint64_t gather_ns_total;
   uint64_t gather_ns_max;
   uint64_t gather_ns[CK_STATS_GATHER_TIMES]; /* the first gathers' times */
   uint32_t forks_timed;  /* forks started on parked units */
   uint64_t fork_ns[CK_STATS_FORK_TIMES]; /* the first ones' latencies: from
                             the unit becoming free to the forked work-group
                             starting on it */
   uint64_t queued_ns;    /* from the launch call to its first work-group */
   uint64_t run_ns;       /* from its first work-group to completion */
   uint64_t start_ns;     /* when its first work-group started and when it */
   uint64_t end_ns;       /* completed, on CLOCK_MONOTONIC (os_time_get_nano) */
   uint32_t stuck_barrier; /* 0, or the global barrier (CK_STUCK_BARRIER of
                             ck/context.h) that could never complete: a
                             work-group had returned from the kernel; the
                             work-groups that waited there left the kernel,
                             so the launch ended early, with an error */
   uint32_t stuck_line;   /* its source line (CK_STUCK_LINE), 0 if unknown */
};

#endif
