/*
 * The per-launch context of a cooperative kernel: the contract between the
 * code that the compiler plugin generates inside the kernel and the
 * workgroup scheduler in the driver.
 *
 * Memory order: every access to the context, on both sides, is a
 * sequentially consistent atomic (the kernel side, src/protocol/kernel_side.c,
 * goes through the seq_cst operations of src/protocol/atomics.h; the
 * scheduler's std::atomic_ref accesses default to seq_cst).
 * The one exception is the scheduler's relaxed look at a slot's ready flag,
 * which it confirms with a seq_cst exchange before it reads the slot.
 *
 * The context is one global-memory buffer per launch. The kernel reaches it
 * through a hidden kernel argument named CK_CONTEXT_ARG_NAME (a
 * `global uint *`) and touches it only with 32-bit atomic operations; the
 * driver's scheduler touches it with C11 atomics on the same memory.
 *
 * Layout: a header of CK_HEADER_WORDS 32-bit words, then one slot of
 * CK_SLOT_BYTES per workgroup id in [0, N). Slot g describes how workgroup g
 * starts: CK_SLOT_RESUME_POINT is 0 for a workgroup that starts at the top
 * of the kernel and the resume id of a fork point for one that joins there;
 * the transmit record (the values of thread 0's `transmit` variables in the
 * workgroup that forked it) follows at CK_SLOT_TRANSMIT.
 */
#ifndef CK_CONTEXT_H
#define CK_CONTEXT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Name of the hidden kernel parameter that carries the context. */
#define CK_CONTEXT_ARG_NAME "__ck_context"

/* The generated code calls this function (void, no arguments, an empty
 * body) in every loop that polls the context for another workgroup; the
 * frontend turns each call into the driver's spin-wait hint, so that a
 * driver whose workgroups share CPUs yields there. */
#define CK_SPIN_WAIT_FUNCTION "__ck_spin_wait"

/* Header words (index into the context as an array of 32-bit words). */
enum ck_context_word {
   CK_ACTIVE_GROUPS = 0,     /* M: workgroups now active, ids [0, M) */
   CK_MAX_GROUPS = 1,        /* N: workgroups requested at launch */
   CK_KILL_REQUESTS = 2,     /* workgroups the scheduler wants back (the
                                query); a request stays posted until a
                                kill meets it, or until no active
                                work-group above CK_RETURNED_END is left
                                to meet it */
   CK_FORK_OFFERS = 3,       /* compute units the scheduler offers to forks */
   CK_BARRIER_ARRIVED = 4,   /* global barrier state: generation << 16 |
                                workgroups arrived at the current barrier
                                (see CK_BARRIER_GENERATION_SHIFT) */
   CK_LOG_STATE = 5,         /* the protocol log of a checked launch: one
                                of enum ck_log_state (see below) */
   CK_FORKS_PUBLISHED = 6,   /* workgroups whose slot is written, ready to start */
   CK_KILLS = 7,             /* workgroups killed so far (statistics) */
   CK_FORKS = 8,             /* workgroups forked so far (statistics) */
   CK_RESIZE_FIRST_DOOMED = 9, /* F: a resizing barrier that kills W
                                workgroups asks it of [F, M), F = M - W,
                                written by workgroup 0 while M is stable
                                (a workgroup that compared its id with the
                                M it read, which drops as the top ones are
                                killed, could doom itself wrongly); a
                                doomed workgroup that stops offering
                                un-killed sets it to CK_RESIZE_NONE_DOOMED,
                                which stops the others too */
   CK_RANDOM_SEED = 10,      /* 0, or the launch's seed under the random
                                policy: the kernel then decides every offer
                                made to it at random (see below) */
   CK_RANDOM_DRAWS = 11,     /* random decisions taken so far */
   CK_RESIZE_DECISION = 12,  /* 1 if the current resizing barrier kills
                                work-groups [F, M) (its kill phase and
                                second global barrier run), else 0; written
                                by work-group 0 before it releases the
                                barrier, read by work-groups forked there */
   CK_RETURNED_END = 13,     /* 1 + the highest id of a work-group that
                                returned from the kernel function (0 if
                                none): it stays active (M counts it) but
                                can never be killed, so kills stop above
                                it; local thread 0 raises it (atomic max)
                                as the work-group returns */
   CK_STUCK_BARRIER = 14,    /* 0, or the global barrier that was found
                                unable to complete (CK_STUCK_SITE): a
                                work-group returned from the kernel while
                                others wait there, or wait there after it
                                returned, or work-groups reached different
                                barrier calls (CK_MISMATCH_SITE); every
                                work-group that then waits at a barrier
                                leaves the kernel instead, and the launch
                                ends with an error */
   CK_BARRIER_SITE = 15,     /* the barrier call that the work-groups at the
                                current global barrier wait at: its tag
                                (ck_site_tag() below), 0 while none has
                                arrived, with the generation's parity in
                                CK_SITE_PARITY (see below); in the
                                cache line of CK_BARRIER_ARRIVED */
   CK_LOG_ADDRESS_LOW = 16,  /* the protocol log's address, when */
   CK_LOG_ADDRESS_HIGH = 17, /* CK_LOG_STATE is not CK_LOG_OFF */
   CK_STUCK_LINE = 18,       /* the source line of that barrier call, 0 if
                                the kernel has no debug information */
   CK_MISMATCH_SITE = 19,    /* 0, or the barrier call (as CK_STUCK_BARRIER)
                                that work-groups waited at while another
                                reached a different one (CK_STUCK_BARRIER
                                then names the latter) */
   CK_MISMATCH_LINE = 20,    /* the source line of that call, 0 if unknown */
   CK_DISCOVERY_POLL = 21,   /* 0 where the driver's scheduler starts each
                                work-group with its id (llvmpipe). Where
                                the driver dispatches all N work-groups at
                                once and the hardware places them (zink),
                                the occupancy discovery poll (see below),
                                and M is 0 until the poll closes */
   CK_DISCOVERY_QUIET = 22,  /* with the poll: how many polls a work-group
                                that joined waits for another join before
                                it closes the poll (unless every work-group
                                dispatched joined), set by the driver: the
                                work-groups that start beside it (a GPU's
                                first wave, a CPU's other compute threads)
                                have that long to join */
   CK_RETURNED = 23,         /* work-groups that returned from the kernel
                                function (they stay active): the launch is
                                over once every active work-group returned */
   CK_PARK_LATE = 24,        /* with the discovery poll: 1 if a work-group
                                that finds the poll closed offers itself to
                                forks and waits for one (the policy offers
                                free units to forks; see below), 0 if it
                                leaves, set by the driver, which clears it
                                while other work waits for units */
   CK_FORKS_CLAIMED = 25,    /* published forks that a parked late
                                work-group took (with CK_PARK_LATE) */
   CK_HEADER_WORDS = 26
};

/* Occupancy discovery (OOPSLA'16 §3), in CK_DISCOVERY_POLL: the
 * CK_POLL_DISCOVER bit, the CK_POLL_OPEN bit while the poll is open, and
 * the number of work-groups that joined it. A work-group of the dispatch
 * joins while the poll is open, with a CAS that counts it and makes the
 * count it replaced its id; once the poll has not changed for
 * CK_DISCOVERY_QUIET polls it closes it (a CAS that clears CK_POLL_OPEN,
 * unless another did) and sets M to the final count with a CAS from 0;
 * under the random policy (CK_RANDOM_SEED not 0) the work-group whose CAS
 * set M also posts M - 1 kill requests. A work-group that finds the poll
 * closed leaves before it touches anything else, unless CK_PARK_LATE asks
 * it to park. Those that joined had all started before any
 * closed it, so they are resident together, and their ids are [0, M).
 * tests/model/discovery.pml checks this with spin.
 *
 * Parked late work-groups (CK_PARK_LATE). A work-group of the dispatch that
 * starts after the poll closed runs on a unit that a work-group of the
 * launch gave back (it returned or was killed): a free unit, which the
 * scheduler of ck/scheduler.h would offer to forks. It offers itself
 * (CK_FORK_OFFERS + 1) and polls, as the scheduler's parked units do:
 * while CK_FORKS_PUBLISHED exceeds CK_FORKS_CLAIMED it looks for a ready
 * slot, takes it with an exchange of the slot's ready flag and runs as that
 * fork (CK_FORKS_CLAIMED + 1); once the launch is over (CK_RETURNED equals
 * M) or stuck (CK_STUCK_BARRIER), it withdraws an offer
 * with a CAS that lowers CK_FORK_OFFERS, and leaves. Parked work-groups are
 * the standing offers plus the reserved forks not yet claimed: the kernel
 * reserves forks only against offers it took, and a parked work-group
 * leaves only by withdrawing a standing offer, so every reserved fork finds
 * one. A reserved fork counts in M until it returns, so a launch is over
 * only when none is unclaimed, and every parked work-group then finds an
 * offer to withdraw. While the driver keeps CK_PARK_LATE cleared (other
 * work waits for units, ck/dispatch.h), late work-groups leave at once and
 * parked ones withdraw an offer and leave, or take the fork that took it.
 * Under the random policy the kernel also keeps the kill requests
 * (CK_RANDOM_SEED): M - 1 at the discovery's close, and a fork's count
 * after its add on M. Under the default policy the driver posts them while
 * other work waits (ck/dispatch.h). tests/model/parking.pml checks both
 * with spin. */
#define CK_POLL_DISCOVER 0x80000000u
#define CK_POLL_OPEN 0x40000000u
#define CK_POLL_COUNT_MASK 0x3fffffffu

/* CK_STUCK_BARRIER's value: the barrier call's 1-based index among the
 * kernel's global_barrier and resizing_global_barrier calls, in program
 * order after inlining, with CK_STUCK_RESIZING set for a resizing barrier.
 * The first work-group to find a barrier stuck writes it (a CAS from 0),
 * then CK_STUCK_LINE. */
#define CK_STUCK_RESIZING 0x80000000u
#define CK_STUCK_INDEX_MASK 0x7fffffffu

/* Barrier identity. Each arrival at a global barrier (global_barrier, both
 * global barriers of resizing_global_barrier) first tags CK_BARRIER_SITE
 * with its call, before it counts itself in CK_BARRIER_ARRIVED: it loads
 * the word, passes if the tag is its own, CASes its tag in if there is
 * none, and otherwise has met a work-group at another barrier call (a
 * mismatch). A mismatched work-group does not arrive: it records the
 * mismatch (CK_MISMATCH_SITE, then CK_STUCK_BARRIER and CK_STUCK_LINE) and
 * leaves the kernel, and the others find the barrier stuck, so the launch
 * ends as for a stuck barrier and nobody passes. Whoever releases a
 * barrier of generation g first CASes the word from (its tag, parity of g)
 * to (no tag, parity of g + 1): a waiter whose release CAS loses, and which
 * clears late, then fails, rather than erase the tag of the next barrier
 * (a generation's parity is enough: the next barrier cannot be released
 * while that waiter has not arrived at it). The tag holds the call's index
 * modulo 2^30 and CK_SITE_RESIZING for a resizing barrier. */
#define CK_SITE_PARITY 0x80000000u
#define CK_SITE_RESIZING 0x40000000u
#define CK_SITE_INDEX_MASK 0x3fffffffu
#define CK_SITE_TAG_MASK (CK_SITE_RESIZING | CK_SITE_INDEX_MASK)

/* The tag of barrier call `site` (as CK_STUCK_BARRIER), and back. */
static inline unsigned int
ck_site_tag(unsigned int site)
{
   return (site & CK_SITE_INDEX_MASK) | (site & CK_STUCK_RESIZING ? CK_SITE_RESIZING : 0u);
}

static inline unsigned int
ck_site_of_tag(unsigned int tag)
{
   return (tag & CK_SITE_INDEX_MASK) | (tag & CK_SITE_RESIZING ? CK_STUCK_RESIZING : 0u);
}

#define CK_RESIZE_NONE_DOOMED 0xffffffffu

/* CK_BARRIER_ARRIVED holds the generation of the current global barrier in
 * its high 16 bits and the number of workgroups arrived at it in its low 16
 * bits (so N must stay below 2^16). A workgroup arrives with an atomic add of
 * 1, which also tells it the generation; it waits until the generation
 * changes. Whoever sees at least M arrived releases the barrier with a CAS
 * from the state it read to (generation + 1) << 16: count 0, next generation
 * (modulo 2^16). */
#define CK_BARRIER_GENERATION_SHIFT 16
#define CK_BARRIER_COUNT_MASK ((1u << CK_BARRIER_GENERATION_SHIFT) - 1)

/* The most work-groups a cooperative launch may ask for: the barrier
 * counts arrivals in CK_BARRIER_COUNT_MASK. */
#define CK_MAX_GROUPS_LIMIT CK_BARRIER_COUNT_MASK

/* The random policy (CK_POLICY=random:SEED). The scheduler keeps kill
 * requests posted for every work-group but 0 (where the driver dispatches,
 * the kernel keeps them: see parked late work-groups above) and
 * offers every idle unit to forks, and gives each launch a nonzero
 * CK_RANDOM_SEED. The kernel then
 * decides each offer itself, at random:
 *   offer_kill by the last active work-group: killed if the draw is odd;
 *   request_fork with `offered` units and room for `room` more work-groups:
 *     forks draw % (min(offered, room) + 1);
 *   resizing_global_barrier with `requested` kills: kills
 *     draw % (requested + 1) from the top (after forking as above).
 * Draw i of a launch is ck_random_draw(seed, i), with i taken from
 * CK_RANDOM_DRAWS by an atomic add: the sequence of decisions is a function
 * of the seed alone; which work-group takes which draw depends on timing. */
static inline unsigned int
ck_random_draw(unsigned int seed, unsigned int draw)
{
   /* MurmurHash3's 32-bit finaliser of seed ^ draw * 2^32 / phi. */
   unsigned int x = seed ^ (draw * 0x9e3779b9u);
   x ^= x >> 16;
   x *= 0x85ebca6bu;
   x ^= x >> 13;
   x *= 0xc2b2ae35u;
   x ^= x >> 16;
   return x;
}

/* The protocol log. When the scheduler checks a launch (CK_CHECK=1), it
 * gives the launch a log in host memory, which llvmpipe's global address
 * space reaches, and the kernel side and the scheduler append to it every
 * step that the FSE'17 semantics gives a rule: kills, forks, barrier
 * arrivals and releases, returns, starts and exits. CK_LOG_STATE is a lock:
 * a logged step holds it from its effect on the context (the CAS or add
 * that kills, forks, arrives or releases) to its entry, so the log's order
 * is the order of the effects. Without a log a step pays one load of
 * CK_LOG_STATE. When the launch completes, the scheduler replays the log
 * against the rules (src/runtime/protocol_check.cpp). */
enum ck_log_state {
   CK_LOG_OFF = 0,
   CK_LOG_FREE = 1,
   CK_LOG_HELD = 2
};

/* The log: CK_LOG_CAPACITY and CK_LOG_COUNT (entries appended, which may
 * pass the capacity: those past it are lost and the check fails), then
 * entries of CK_LOG_ENTRY_WORDS words: the event, then its operands. */
#define CK_LOG_CAPACITY 0
#define CK_LOG_COUNT 1
#define CK_LOG_ENTRIES 2
#define CK_LOG_ENTRY_WORDS 4

enum ck_log_event {
   CK_EVENT_START = 1,   /* group: the scheduler starts it */
   CK_EVENT_EXIT = 2,    /* group: it left the kernel (returned, was killed
                            or left at a stuck barrier) */
   CK_EVENT_KILL = 3,    /* group, M: the CAS of M to M - 1 that kills it */
   CK_EVENT_FORK = 4,    /* first, count: the add that reserves
                            [first, first + count) */
   CK_EVENT_ARRIVE = 5,  /* group, generation, barrier call (as
                            CK_STUCK_BARRIER) */
   CK_EVENT_RELEASE = 6, /* generation, M as the releaser read it */
   CK_EVENT_PASS = 7,    /* group, generation: it saw the release */
   CK_EVENT_STUCK = 8,   /* group, generation: it found the barrier stuck */
   CK_EVENT_RETURN = 9,  /* group: it returned from the kernel function */
   CK_EVENT_MISMATCH = 10 /* group, its barrier call, the call that the
                             work-groups arrived at wait at (as
                             CK_STUCK_BARRIER): it reached a different
                             barrier call, did not arrive, and leaves */
};

/* Per-workgroup slots. */
#define CK_SLOT_BYTES 256
#define CK_SLOT_RESUME_POINT 0 /* byte offset of the resume id (uint) */
#define CK_SLOT_READY 4        /* byte offset of the ready flag (uint): the
                                  forker sets it to 1 after it wrote the
                                  slot; the scheduler clears it when it
                                  starts the work-group */
#define CK_SLOT_TRANSMIT 8     /* byte offset of the transmit record */
#define CK_TRANSMIT_MAX_BYTES (CK_SLOT_BYTES - CK_SLOT_TRANSMIT)

/* Bytes of context needed for a launch of max_groups workgroups. */
static inline unsigned long
ck_context_bytes(unsigned long max_groups)
{
   return CK_HEADER_WORDS * 4ul + max_groups * CK_SLOT_BYTES;
}

#ifdef __cplusplus
}
#endif

#endif
