/*
 * The driver-level workgroup scheduler: it owns a device's compute units
 * (one worker thread each) and runs every work-group of every kernel on
 * them, cooperative or not.
 *
 * Ordinary kernels have priority: their work-groups take free units in FIFO
 * order, and when none is free the scheduler asks running cooperative
 * kernels for units by raising their kill requests (never more than M-1 of
 * a kernel). Units that no ordinary work wants go back to cooperative
 * kernels with M < N as fork offers: the unit is *parked* for the kernel and
 * waits, in scheduler code, for a work-group that request_fork publishes in
 * the kernel's context (ck/context.h). A parked unit is taken back only if
 * it can withdraw its offer first; once the kernel took the offer, the unit
 * serves the fork.
 *
 * Policies (CK_POLICY, or ck_scheduler_options.policy):
 *   default      as above
 *   never        no kill requests, no fork offers: a cooperative kernel keeps
 *                its initial units until it ends; ordinary work waits for
 *                free units
 *   random:SEED  every offer to kill or fork is accepted or refused at
 *                random: the scheduler requests every kill a kernel can
 *                make (M-1) and offers every idle unit to forks, and the
 *                kernel decides each offer with the launch's sequence of
 *                draws, a function of SEED and the launch's rank among the
 *                scheduler's cooperative launches (ck/context.h); ordinary
 *                work keeps its priority for free units and withdrawn
 *                parked units, but waits for kills the kernel accepts;
 *                no gather times are kept
 *   cap:K        the default policy with a unit cap of K (see below)
 * The unit cap (energy throttling) limits how many units are in use; it can
 * change while kernels run: lowering it gathers units back (kill requests,
 * withdrawn offers), raising it hands units back to cooperative kernels.
 * CK_CAP_FILE names a file holding a decimal cap, re-read every 50 ms.
 * CK_TRACE=path writes a Chrome trace-event JSON file when the scheduler is
 * destroyed: counter "active work-groups" per cooperative launch, complete
 * events for every launch (an ordinary launch whose work-groups started in
 * any order, ck_launch_hints::independent, says so) and for every gather.
 * CK_STATS=1 prints each cooperative launch's statistics (ck_launch_stats)
 * on stderr when it completes.
 * CK_CHECK=1 checks every cooperative launch against the FSE'17 semantics:
 * the launch gets a protocol log (ck/context.h) of its kills, forks,
 * barrier arrivals and releases, returns, starts and exits, and when it
 * completes the scheduler replays the log against the rules Kill, Fork,
 * Barrier and Resizing-Barrier. A step that no rule allows is a bug of the
 * implementation, not of the program: like a failed assertion, it is
 * reported on stderr with the events before it, and the process aborts.
 * (Two work-groups released together from different barrier calls, which
 * the program causes, are reported the same way.)
 */
#ifndef CK_SCHEDULER_H
#define CK_SCHEDULER_H

#include <stdint.h>

#include "ck/launch_stats.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ck_scheduler;
struct ck_launch;

/* Runs work-group `group` of a launch, start to exit, on compute unit
 * `unit` (in [0, units)), called on the unit's own thread; or on the
 * thread that waits for a short ordinary launch, with unit CK_CALLER_UNIT
 * (ck_launch_hints::caller_waits). */
typedef void (*ck_run_fn)(void *data, unsigned group, unsigned unit);

#define CK_CALLER_UNIT 0xffffffffu

struct ck_scheduler_options {
   unsigned units;         /* compute units (worker threads), at least 1 */
   const char *policy;     /* as CK_POLICY; NULL: the default policy */
   const char *trace_path; /* as CK_TRACE; NULL: no trace */
   const char *cap_file;   /* as CK_CAP_FILE; NULL: none */
   int print_stats;        /* as CK_STATS=1 */
   int check_protocol;     /* as CK_CHECK=1 */
   unsigned fail_launches; /* as CK_FAIL_LAUNCHES: that many cooperative
                              launches, the first ones, fail as if no memory
                              were left (tests a driver's error path) */
   unsigned short_launch_us; /* as CK_SHORT_LAUNCH_US (default 30): an
                              ordinary launch made with
                              ck_launch_hints::caller_waits that its kernel's
                              last launch says takes less, on one thread,
                              runs on its caller; 0: none does */
};

/* A scheduler configured from CK_POLICY, CK_TRACE, CK_CAP_FILE, CK_STATS,
 * CK_CHECK, CK_FAIL_LAUNCHES and CK_SHORT_LAUNCH_US; an invalid CK_POLICY is
 * reported on stderr and replaced by the default policy. */
struct ck_scheduler *ck_scheduler_create(unsigned units);
/* NULL if options->policy is not a valid policy or units is 0. */
struct ck_scheduler *ck_scheduler_create_with_options(const struct ck_scheduler_options *options);
/* Every launch must have been waited for. Writes the trace, if any. */
void ck_scheduler_destroy(struct ck_scheduler *scheduler);
unsigned ck_scheduler_units(const struct ck_scheduler *scheduler);

/* At most cap units in use (clamped to [1, units]); effective at once. */
void ck_scheduler_set_unit_cap(struct ck_scheduler *scheduler, unsigned cap);

/* How many work-groups of a cooperative launch can be active at once now
 * (CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT): the units under the current cap.
 * A launch of at most that many on an otherwise idle scheduler starts with
 * all of them active unless the cap is lowered before it starts. Reads the
 * cap file (if any) first, so that a cap just written there counts. */
unsigned ck_scheduler_max_active_groups(struct ck_scheduler *scheduler);

/* An ordinary kernel of `groups` work-groups (0 completes at once). */
struct ck_launch *ck_scheduler_launch(struct ck_scheduler *scheduler, ck_run_fn run, void *data,
                                      unsigned groups);
/* A cooperative kernel of at most max_groups work-groups. The scheduler
 * initialises `context` (ck_context_bytes(max_groups) bytes, 4-aligned) when
 * the launch starts, with M0 = min(max_groups, free units, cap), at least 1
 * (if no unit is free the launch waits for one), and works on it until the
 * launch completes: when every started work-group has returned and every
 * published fork has started. kernel_name (may be NULL; copied) names the
 * kernel in messages: a launch that ends early at a barrier that can never
 * complete (ck_launch_stats.stuck_barrier) is reported on stderr. Returns
 * NULL, and starts nothing, when max_groups is 0 or no memory is left. */
struct ck_launch *ck_scheduler_launch_cooperative(struct ck_scheduler *scheduler, ck_run_fn run,
                                                  void *data, uint32_t *context,
                                                  uint32_t max_groups, const char *kernel_name);

/* Queue hints (cl_khr_priority_hints, cl_khr_throttle_hints): a launch
 * made without them is a medium-priority launch without a throttle, and
 * the scheduler behaves as described above.
 *
 * Priority. Work waiting for units takes them only from cooperative
 * kernels of its own priority or lower (kill requests, withdrawn fork
 * offers), the lowest priority first: high-priority work takes units from
 * lower-priority kernels at their next kill points, a high-priority
 * kernel is not asked for units by lower-priority work, and low-priority
 * work waits for free units while only higher-priority kernels hold them.
 * Free units go to the waiting work of the highest priority (ordinary
 * before cooperative among equals, each in launch order), then to forks
 * of the running cooperative kernels of the highest priority (the neediest
 * among equals). Units over the unit cap are gathered from any priority.
 * (The random policy still asks every kernel for every kill it can make.)
 *
 * Throttle. The launches that share a queue key and a throttle hold at
 * most ck_throttle_units() units together (running work-groups and parked
 * offers): a cooperative launch starts with at most that many and is
 * offered no fork that would take its active work-groups (returned ones
 * included) beyond it; ordinary work-groups wait for room. The cap holds
 * under the unit cap and never counts for other queues. */
enum ck_priority {
   CK_PRIORITY_LOW = -1,
   CK_PRIORITY_MEDIUM = 0,
   CK_PRIORITY_HIGH = 1,
};

enum ck_throttle {
   CK_THROTTLE_NONE = 0, /* no cap */
   CK_THROTTLE_LOW,      /* a quarter of the units, at least one */
   CK_THROTTLE_MEDIUM,   /* half of the units, at least one */
   CK_THROTTLE_HIGH,     /* all units */
};

struct ck_launch_hints {
   const void *queue; /* launches with the same key share the throttle's
                         units (a driver passes its context); NULL: the
                         launch is a queue of its own */
   int priority;      /* enum ck_priority */
   int throttle;      /* enum ck_throttle */
   int independent;   /* nonzero: no work-group of this ordinary kernel can
                         wait for another (a driver knows it from the code:
                         no global or image atomics, no volatile or coherent
                         global accesses), so they may start in any order.
                         Each unit then takes its own share of the ids
                         first, the same share at every launch of that many
                         work-groups, and helps the others with theirs when
                         it is done: a launch finds in each unit's cache the
                         data that unit touched at the launch before. 0:
                         they start in id order (LOBE). Cooperative launches
                         ignore it. */
   int caller_waits;  /* nonzero: the thread that makes this ordinary launch
                         waits for it at once (ck_launch_wait() or
                         ck_launch_wait_for()), with nothing else to do. If
                         the last launch of the same `kernel` says that this
                         one takes less than CK_SHORT_LAUNCH_US (30 us by
                         default) on one thread, its work-groups cannot
                         wait for each other (`independent`: the caller
                         runs them one after the other), a unit is free
                         for it, and
                         no limit applies (no throttle, the unit cap at the
                         units, not a launch made after another; work of a
                         higher priority that comes to wait takes over),
                         the launch takes no unit: the
                         wait runs its work-groups on the caller, run(data,
                         group, CK_CALLER_UNIT), as a unit would. Engaging
                         units would cost more than it saves: handoffs
                         between threads, data moving between CPUs. Until
                         the caller waits, nothing runs such a launch. */
   const void *kernel; /* launches with the same non-NULL key run the same
                         code: the scheduler times an ordinary launch's
                         work-groups to foresee the next one's (caller_waits);
                         NULL: none */
};

/* The units a throttle leaves a queue on this scheduler. */
unsigned ck_throttle_units(const struct ck_scheduler *scheduler, enum ck_throttle throttle);

/* ck_scheduler_launch() and ck_scheduler_launch_cooperative() with hints;
 * NULL hints are the defaults. Also NULL, starting nothing, when a hint is
 * not one of its enum's values. */
struct ck_launch *ck_scheduler_launch_hinted(struct ck_scheduler *scheduler, ck_run_fn run,
                                             void *data, unsigned groups,
                                             const struct ck_launch_hints *hints);
struct ck_launch *ck_scheduler_launch_cooperative_hinted(struct ck_scheduler *scheduler,
                                                         ck_run_fn run, void *data,
                                                         uint32_t *context, uint32_t max_groups,
                                                         const char *kernel_name,
                                                         const struct ck_launch_hints *hints);

/* The same for a launch of an in-order queue: it starts no work-group
 * before `after` has completed (NULL: none; the launches above). `after` is
 * a launch of this scheduler that has not been waited for and that no other
 * launch was made after. The unit that completes `after` queues this launch,
 * so that a queue's launches follow each other on the units without a
 * handoff to the thread that made them. */
struct ck_launch *ck_scheduler_launch_after(struct ck_scheduler *scheduler, ck_run_fn run,
                                            void *data, unsigned groups,
                                            const struct ck_launch_hints *hints,
                                            struct ck_launch *after);
struct ck_launch *ck_scheduler_launch_cooperative_after(struct ck_scheduler *scheduler,
                                                        ck_run_fn run, void *data,
                                                        uint32_t *context, uint32_t max_groups,
                                                        const char *kernel_name,
                                                        const struct ck_launch_hints *hints,
                                                        struct ck_launch *after);

/* How long, in nanoseconds, the scheduler's waiters (ck_launch_wait() and
 * idle units) poll before they sleep: a small launch completes in
 * microseconds, and waking a sleeping thread takes longer. A driver's own
 * waiters on a launch (its fence) should poll as long. */
#define CK_WAIT_POLL_NS 50000

/* Blocks until the launch completes, fills *stats unless NULL (the
 * cooperative fields are 0 for an ordinary launch) and frees the launch.
 * A short launch made with ck_launch_hints::caller_waits runs here. */
void ck_launch_wait(struct ck_launch *launch, struct ck_launch_stats *stats);
/* The same with a deadline: returns 1 when done (launch freed), 0 when the
 * launch is still running after timeout_ns (launch still valid); a short
 * launch that runs here (caller_waits) runs to its end, deadline or not. */
int ck_launch_wait_for(struct ck_launch *launch, uint64_t timeout_ns, struct ck_launch_stats *stats);

/* Calls fn(data, stats) once, when the launch completes, with what
 * ck_launch_wait() would fill (stats is valid during the call only): on the
 * unit that completes it, or at once on the calling thread if the launch has
 * already completed; either way with the scheduler's lock held (fn must not
 * block, wait for a launch or call into the scheduler; signalling a fence is
 * what it is for). The launch must still be waited for, which then returns
 * without blocking. */
typedef void (*ck_complete_fn)(void *data, const struct ck_launch_stats *stats);
void ck_launch_on_complete(struct ck_launch *launch, ck_complete_fn fn, void *data);

#ifdef __cplusplus
}
#endif

#endif
