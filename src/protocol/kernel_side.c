/*
 * The kernel side of the cooperative-kernel protocol (kernel_side.h). The
 * scheduler's side is src/runtime/scheduler.cpp; tests/model/protocol.pml
 * models both and spin checks it.
 *
 * Rules this code keeps:
 *  - Every access to the context is one seq_cst atomic of atomics.h, and
 *    each statement makes at most one, so that their order is the order in
 *    the source (C leaves the order of operands unspecified).
 *  - Only the work-group that holds the top id, M - 1, and never work-group
 *    0, can be killed: a kill is a claim of a request and a CAS of M from
 *    the M it read.
 *  - Forked work-groups get the ids [M, M + k), reserved by an atomic add on
 *    M; the scheduler starts one only once its slot is published.
 *  - CK_BARRIER_ARRIVED holds a barrier's generation and arrival count in
 *    one word, so that a release CAS from a stale state fails.
 *  - A work-group tags CK_BARRIER_SITE with its barrier call before it
 *    arrives, so every work-group counted at a barrier waits at the same
 *    call; one at another call leaves instead, and the launch is stuck.
 *  - A launch that the scheduler checks (CK_CHECK=1) has a protocol log:
 *    each step that a rule of the FSE'17 semantics covers is logged under
 *    the log's lock, taken before the step's effect on the context and
 *    freed after its entry, so that the log is in the order of the effects.
 *  - Every loop leaves through one exit: a kernel reaches Mesa as SPIR-V
 *    without structured control flow, and Mesa's structurizer turns loops
 *    that exit to several places into slower code around them.
 */
#include "kernel_side.h"

#include "ck/context.h"

static CK_GLOBAL ck_word *
header_word(CK_GLOBAL ck_word *ctx, enum ck_context_word word)
{
   return ctx + word;
}

static ck_word
load(CK_GLOBAL ck_word *ctx, enum ck_context_word word)
{
   return __ck_atomic_load(header_word(ctx, word));
}

static void
store(CK_GLOBAL ck_word *ctx, enum ck_context_word word, ck_word value)
{
   __ck_atomic_store(header_word(ctx, word), value);
}

static ck_word
add(CK_GLOBAL ck_word *ctx, enum ck_context_word word, ck_word amount)
{
   return __ck_atomic_add(header_word(ctx, word), amount);
}

static ck_word
compare_exchange(CK_GLOBAL ck_word *ctx, enum ck_context_word word, ck_word expected,
                 ck_word desired)
{
   return __ck_atomic_compare_exchange(header_word(ctx, word), expected, desired);
}

/* Word `byte_offset / 4` of work-group `group`'s slot. */
static CK_GLOBAL ck_word *
slot_word(CK_GLOBAL ck_word *ctx, ck_word group, ck_word byte_offset)
{
   return ctx + CK_HEADER_WORDS + (unsigned long)group * (CK_SLOT_BYTES / 4) + byte_offset / 4;
}

/* Under the random policy (CK_RANDOM_SEED is not 0) the launch's next draw
 * in [0, bound]; otherwise bound. Only slow paths call this: the scheduler
 * offered something. */
static ck_word
random_choice(CK_GLOBAL ck_word *ctx, ck_word bound)
{
   const ck_word seed = load(ctx, CK_RANDOM_SEED);
   if (seed == 0)
      return bound;
   const ck_word draw = add(ctx, CK_RANDOM_DRAWS, 1);
   return ck_random_draw(seed, draw) % (bound + 1);
}

/* The protocol log (ck/context.h): off unless the scheduler checks the
 * launch. A logged step takes the lock CK_LOG_STATE around its effect and
 * its entry; each function reads whether to log once. The logged variants
 * are separate functions, each holding the lock's wait loop, so that
 * llvmpipe skips them when nothing logs. */
static int
logging(CK_GLOBAL ck_word *ctx)
{
   return load(ctx, CK_LOG_STATE) != CK_LOG_OFF;
}

static void
log_lock(CK_GLOBAL ck_word *ctx)
{
   while (!compare_exchange(ctx, CK_LOG_STATE, CK_LOG_FREE, CK_LOG_HELD))
      __ck_spin_wait();
}

static void
log_unlock(CK_GLOBAL ck_word *ctx)
{
   store(ctx, CK_LOG_STATE, CK_LOG_FREE);
}

/* Appends an entry; the lock is held. An entry past the capacity is only
 * counted. */
static void
log_append(CK_GLOBAL ck_word *ctx, ck_word event, ck_word a, ck_word b, ck_word c)
{
   const unsigned long low = load(ctx, CK_LOG_ADDRESS_LOW);
   const unsigned long high = load(ctx, CK_LOG_ADDRESS_HIGH);
   CK_GLOBAL ck_word *log = (CK_GLOBAL ck_word *)(high << 32 | low);
   const ck_word index = __ck_atomic_add(log + CK_LOG_COUNT, 1);
   const ck_word capacity = __ck_atomic_load(log + CK_LOG_CAPACITY);
   if (index < capacity) {
      CK_GLOBAL ck_word *entry = log + CK_LOG_ENTRIES + (unsigned long)index * CK_LOG_ENTRY_WORDS;
      __ck_atomic_store(entry, event);
      __ck_atomic_store(entry + 1, a);
      __ck_atomic_store(entry + 2, b);
      __ck_atomic_store(entry + 3, c);
   }
}

/* Logs a step that has no effect of its own on the context to order. */
static void
log_event(CK_GLOBAL ck_word *ctx, ck_word event, ck_word a, ck_word b, ck_word c)
{
   log_lock(ctx);
   log_append(ctx, event, a, b, c);
   log_unlock(ctx);
}

/* The CAS of M from `active` that kills `group`, the top work-group. */
static ck_word
retire_logged(CK_GLOBAL ck_word *ctx, ck_word group, ck_word active)
{
   log_lock(ctx);
   const ck_word killed = compare_exchange(ctx, CK_ACTIVE_GROUPS, active, active - 1);
   if (killed)
      log_append(ctx, CK_EVENT_KILL, group, active, 0);
   log_unlock(ctx);
   return killed;
}

static ck_word
retire(CK_GLOBAL ck_word *ctx, ck_word group, ck_word active)
{
   if (logging(ctx))
      return retire_logged(ctx, group, active);
   return compare_exchange(ctx, CK_ACTIVE_GROUPS, active, active - 1);
}

/* The top active work-group (never work-group 0) claims a kill request and
 * retires itself by a CAS of M; if M moved meanwhile it gives the request
 * back. 1 if killed.
 *
 * From offer_kill (`from_offer_kill`), under the random policy the top
 * work-group first draws whether to accept at all, and any other
 * work-group spin-waits once: a kill is wanted that only the top one can
 * grant, and when work-groups outnumber CPUs it may be waiting for one.
 * (The kill phase, the other caller, waits in its own loop.) */
static ck_word
kill_slow_path(CK_GLOBAL ck_word *ctx, ck_word group, int from_offer_kill)
{
   const ck_word active = load(ctx, CK_ACTIVE_GROUPS);
   if (group == 0 || group + 1 != active) {
      if (from_offer_kill)
         __ck_spin_wait();
      return 0;
   }
   if (from_offer_kill && random_choice(ctx, 1) == 0)
      return 0;
   int claimed = 0;
   for (;;) {
      const ck_word requests = load(ctx, CK_KILL_REQUESTS);
      if (requests == 0)
         break;
      if (compare_exchange(ctx, CK_KILL_REQUESTS, requests, requests - 1)) {
         claimed = 1;
         break;
      }
   }
   if (!claimed)
      return 0;
   if (!retire(ctx, group, active)) {
      add(ctx, CK_KILL_REQUESTS, 1);
      return 0;
   }
   add(ctx, CK_KILLS, 1);
   return 1;
}

/* Where the driver dispatches the launch whole (CK_DISCOVERY_POLL), no
 * scheduler beside the kernel posts the random policy's kill requests: the
 * kernel keeps one posted for every work-group but 0, adding `count` as M
 * grows by that many. It adds after M does, and a kill claims its request
 * before its CAS on M, so the requests never exceed M - 1 (what
 * query_kill_count() promises). */
static void
request_random_kills(CK_GLOBAL ck_word *ctx, ck_word count)
{
   if (count != 0 && load(ctx, CK_DISCOVERY_POLL) != 0 && load(ctx, CK_RANDOM_SEED) != 0)
      add(ctx, CK_KILL_REQUESTS, count);
}

/* Takes a published fork that no parked work-group took yet: the first
 * ready slot whose flag it exchanges; 1 with its id. */
static ck_word
claim_fork(CK_GLOBAL ck_word *ctx, CK_PRIVATE ck_word *id)
{
   if (load(ctx, CK_FORKS_PUBLISHED) <= load(ctx, CK_FORKS_CLAIMED))
      return 0;
   const ck_word max_groups = load(ctx, CK_MAX_GROUPS);
   ck_word claimed = 0;
   for (ck_word group = 0; group < max_groups && !claimed; ++group) {
      CK_GLOBAL ck_word *ready = slot_word(ctx, group, CK_SLOT_READY);
      if (__ck_atomic_load(ready) != 0 && __ck_atomic_exchange(ready, 0) != 0) {
         *id = group;
         claimed = 1;
      }
   }
   if (claimed)
      add(ctx, CK_FORKS_CLAIMED, 1);
   return claimed;
}

/* Whether no fork can come any more: every active work-group returned
 * (CK_RETURNED equals M), or a barrier was found stuck, after which the
 * work-groups leave. A parked work-group that judges it wrongly from
 * reads of two moments cannot withdraw the offer that a reserved fork took
 * (tests/model/parking.pml). */
static int
launch_over(CK_GLOBAL ck_word *ctx)
{
   const ck_word returned = load(ctx, CK_RETURNED);
   const ck_word active = load(ctx, CK_ACTIVE_GROUPS);
   const ck_word stuck = load(ctx, CK_STUCK_BARRIER);
   return returned == active || stuck != 0;
}

/* A work-group that found the discovery poll closed (ck/context.h, parked
 * late work-groups): 1 with the id of the fork it takes, 0 to leave. The
 * driver clears CK_PARK_LATE while other work waits for units: a parked
 * work-group then withdraws its offer and leaves as at the launch's end,
 * unless a reserved fork took it, which it then takes. */
static ck_word
park(CK_GLOBAL ck_word *ctx, CK_PRIVATE ck_word *id)
{
   if (load(ctx, CK_PARK_LATE) == 0)
      return 0;
   add(ctx, CK_FORK_OFFERS, 1);
   ck_word state = 0; /* 1: took a fork, 2: withdrew */
   while (state == 0) {
      if (claim_fork(ctx, id)) {
         state = 1;
      } else if (launch_over(ctx) || load(ctx, CK_PARK_LATE) == 0) {
         const ck_word offers = load(ctx, CK_FORK_OFFERS);
         if (offers != 0 && compare_exchange(ctx, CK_FORK_OFFERS, offers, offers - 1))
            state = 2;
         else
            __ck_spin_wait();
      } else {
         __ck_spin_wait();
      }
   }
   return state == 1;
}

/* One atomic load where the driver's scheduler starts the work-groups. Each
 * loop has one exit; the CAS loops run again only when another work-group's
 * CAS won, which changes the poll (joins and one close, at most N + 1
 * times), and the quiet loop at most CK_DISCOVERY_QUIET times after each
 * join. */
ck_word
__ck_discover(CK_GLOBAL ck_word *ctx, ck_word group, ck_word dispatched,
              CK_PRIVATE ck_word *id)
{
   ck_word poll = load(ctx, CK_DISCOVERY_POLL);
   if (poll == 0) {
      *id = group;
      return 1;
   }
   ck_word joined = 0;
   while ((poll & CK_POLL_OPEN) && !joined) {
      joined = compare_exchange(ctx, CK_DISCOVERY_POLL, poll, poll + 1);
      if (joined)
         *id = poll & CK_POLL_COUNT_MASK;
      else
         poll = load(ctx, CK_DISCOVERY_POLL);
   }
   if (!joined)
      return park(ctx, id);
   /* Resident with every work-group that joined before it. Before it closes
    * the poll, the work-groups starting beside it (a GPU's first wave, the
    * other compute threads of a CPU) get time to join: it waits until the
    * poll has not changed for the CK_DISCOVERY_QUIET polls that the driver
    * chose, or until all `dispatched` work-groups joined, when no other can.
    * A delay only: whenever the poll closes, those that joined were
    * resident together. */
   const ck_word quiet_polls = load(ctx, CK_DISCOVERY_QUIET);
   poll = load(ctx, CK_DISCOVERY_POLL);
   ck_word quiet = 0;
   while ((poll & CK_POLL_OPEN) && (poll & CK_POLL_COUNT_MASK) < dispatched &&
          quiet < quiet_polls) {
      const ck_word now = load(ctx, CK_DISCOVERY_POLL);
      quiet = now == poll ? quiet + 1 : 0;
      poll = now;
   }
   while (poll & CK_POLL_OPEN) {
      if (compare_exchange(ctx, CK_DISCOVERY_POLL, poll, poll & ~CK_POLL_OPEN))
         poll &= ~CK_POLL_OPEN;
      else
         poll = load(ctx, CK_DISCOVERY_POLL);
   }
   /* The count is final; whoever comes first sets M (a CAS from 0, as M
    * only drops once set: a kill's decrement stays), and under the random
    * policy posts the kill requests of every work-group but 0. */
   const ck_word count = poll & CK_POLL_COUNT_MASK;
   if (compare_exchange(ctx, CK_ACTIVE_GROUPS, 0, count))
      request_random_kills(ctx, count - 1);
   return 1;
}

/* One atomic load when no kill is requested. */
ck_word
__ck_offer_kill(CK_GLOBAL ck_word *ctx, ck_word group)
{
   if (load(ctx, CK_KILL_REQUESTS) == 0)
      return 0;
   return kill_slow_path(ctx, group, 1);
}

/* The add on M that reserves `forks` ids; returns the first. */
static ck_word
reserve_logged(CK_GLOBAL ck_word *ctx, ck_word forks)
{
   log_lock(ctx);
   const ck_word first = add(ctx, CK_ACTIVE_GROUPS, forks);
   if (forks != 0)
      log_append(ctx, CK_EVENT_FORK, first, forks, 0);
   log_unlock(ctx);
   return first;
}

static ck_word
reserve(CK_GLOBAL ck_word *ctx, ck_word forks)
{
   if (logging(ctx))
      return reserve_logged(ctx, forks);
   return add(ctx, CK_ACTIVE_GROUPS, forks);
}

/* One atomic load when nothing is offered. Otherwise takes the offers,
 * keeps k = min(offers, N - M) (under the random policy a draw in [0, that])
 * and gives the rest back, then reserves [M, M + k) with an atomic add on M
 * (the scheduler never offers more than N - M). */
ck_word
__ck_fork_reserve(CK_GLOBAL ck_word *ctx, CK_PRIVATE ck_word *first)
{
   *first = 0;
   if (load(ctx, CK_FORK_OFFERS) == 0)
      return 0;
   const ck_word offers = __ck_atomic_exchange(header_word(ctx, CK_FORK_OFFERS), 0);
   const ck_word max_groups = load(ctx, CK_MAX_GROUPS);
   const ck_word active = load(ctx, CK_ACTIVE_GROUPS);
   const ck_word room = max_groups > active ? max_groups - active : 0;
   const ck_word forks = random_choice(ctx, offers < room ? offers : room);
   if (offers > forks)
      add(ctx, CK_FORK_OFFERS, offers - forks);
   *first = reserve(ctx, forks);
   request_random_kills(ctx, forks);
   return forks;
}

/* Each slot is complete (transmit record, resume point) before its ready
 * flag is set. The doorbell CK_FORKS_PUBLISHED rings before the flag: a
 * parked unit claims only a ready slot, so it never starts more forks than
 * were published. Never writes past slot N - 1, even if M went past N (a
 * scheduler bug). */
void
__ck_fork_publish(CK_GLOBAL ck_word *ctx, ck_word first, ck_word count,
                  ck_word resume_point, ck_word record_words)
{
   const ck_word max_groups = load(ctx, CK_MAX_GROUPS);
   const ck_word end = first + count < max_groups ? first + count : max_groups;
   for (ck_word group = first; group < end; ++group) {
      for (ck_word word = 0; group != first && word < record_words; ++word) {
         const ck_word value =
            __ck_atomic_load(slot_word(ctx, first, CK_SLOT_TRANSMIT + 4 * word));
         __ck_atomic_store(slot_word(ctx, group, CK_SLOT_TRANSMIT + 4 * word), value);
      }
      __ck_atomic_store(slot_word(ctx, group, CK_SLOT_RESUME_POINT), resume_point);
      add(ctx, CK_FORKS_PUBLISHED, 1);
      __ck_atomic_store(slot_word(ctx, group, CK_SLOT_READY), 1);
   }
   add(ctx, CK_FORKS, count);
}

/* Tags CK_BARRIER_SITE with `tag`, the barrier call's (ck/context.h):
 * returns 0 if the work-groups at the barrier wait at this call, or none
 * has arrived yet, else the tag of the call they wait at. One load when
 * another work-group tagged the barrier first, a CAS too for the first.
 * No release can clear the word meanwhile: this work-group has not
 * arrived. */
static ck_word
tag_site(CK_GLOBAL ck_word *ctx, ck_word tag)
{
   ck_word other = 0;
   for (;;) {
      const ck_word word = load(ctx, CK_BARRIER_SITE);
      const ck_word held = word & CK_SITE_TAG_MASK;
      if (held == tag)
         break;
      if (held != 0) {
         other = held;
         break;
      }
      if (compare_exchange(ctx, CK_BARRIER_SITE, word, word | tag))
         break;
   }
   return other;
}

/* arrive()'s result for a work-group that met the tag `other`. */
#define CK_ARRIVE_MISMATCH 0x80000000u

static ck_word
arrive_logged(CK_GLOBAL ck_word *ctx, ck_word group, ck_word site)
{
   log_lock(ctx);
   const ck_word other = tag_site(ctx, ck_site_tag(site));
   ck_word arrived = CK_ARRIVE_MISMATCH | other;
   if (other == 0) {
      arrived = add(ctx, CK_BARRIER_ARRIVED, 1) >> CK_BARRIER_GENERATION_SHIFT;
      log_append(ctx, CK_EVENT_ARRIVE, group, arrived, site);
   } else {
      log_append(ctx, CK_EVENT_MISMATCH, group, site, ck_site_of_tag(other));
   }
   log_unlock(ctx);
   return arrived;
}

/* Arrives at a global barrier at call `site`: tags the barrier with the
 * call, then counts itself (an atomic add of 1 on CK_BARRIER_ARRIVED);
 * returns the barrier's generation. If the work-groups there wait at
 * another call, does not arrive and returns CK_ARRIVE_MISMATCH | its tag
 * (a generation is below 2^16). */
static ck_word
arrive(CK_GLOBAL ck_word *ctx, int logged, ck_word group, ck_word site)
{
   if (logged)
      return arrive_logged(ctx, group, site);
   const ck_word other = tag_site(ctx, ck_site_tag(site));
   if (other != 0)
      return CK_ARRIVE_MISMATCH | other;
   return add(ctx, CK_BARRIER_ARRIVED, 1) >> CK_BARRIER_GENERATION_SHIFT;
}

/* The state that releases the barrier of `generation`: the next generation
 * (modulo 2^16), count 0. */
static ck_word
released(ck_word generation)
{
   return (generation + 1) << CK_BARRIER_GENERATION_SHIFT;
}

/* CK_BARRIER_SITE once the barrier of `generation` is released: no tag,
 * the next generation's parity. */
static ck_word
untagged(ck_word generation)
{
   return (generation + 1) & 1 ? CK_SITE_PARITY : 0;
}

/* Clears the tag of the barrier of `generation` at call `site`, before its
 * release: a CAS, which fails for a waiter whose release comes too late
 * (the word then holds the other parity). */
static void
clear_site(CK_GLOBAL ck_word *ctx, ck_word generation, ck_word site)
{
   const ck_word parity = generation & 1 ? CK_SITE_PARITY : 0;
   compare_exchange(ctx, CK_BARRIER_SITE, parity | ck_site_tag(site), untagged(generation));
}

static ck_word
release_logged(CK_GLOBAL ck_word *ctx, ck_word state, ck_word generation, ck_word site)
{
   log_lock(ctx);
   clear_site(ctx, generation, site);
   const ck_word done = compare_exchange(ctx, CK_BARRIER_ARRIVED, state, released(generation));
   if (done)
      log_append(ctx, CK_EVENT_RELEASE, generation, state & CK_BARRIER_COUNT_MASK, 0);
   log_unlock(ctx);
   return done;
}

/* Releases the barrier of `generation` by a CAS from `state`, the state
 * that counted every active work-group arrived, after clearing its tag. */
static ck_word
release(CK_GLOBAL ck_word *ctx, int logged, ck_word state, ck_word generation, ck_word site)
{
   if (logged)
      return release_logged(ctx, state, generation, site);
   clear_site(ctx, generation, site);
   return compare_exchange(ctx, CK_BARRIER_ARRIVED, state, released(generation));
}

static int
generation_changed(ck_word state, ck_word generation)
{
   return state >> CK_BARRIER_GENERATION_SHIFT != generation;
}

/* Whether barrier state `state` counts all M active work-groups arrived (M
 * read after the state: it can drop while they wait, when the top
 * work-group is killed). */
static int
all_arrived(CK_GLOBAL ck_word *ctx, ck_word state)
{
   const ck_word active = load(ctx, CK_ACTIVE_GROUPS);
   return (state & CK_BARRIER_COUNT_MASK) >= active;
}

/* Whether the launch can no longer complete a barrier: a work-group
 * returned from the kernel (it stays active, so every barrier needs it,
 * and it can no longer arrive), or a stuck barrier was recorded (a
 * work-group reached another barrier call, did not arrive, and left). */
static int
launch_stuck(CK_GLOBAL ck_word *ctx)
{
   const ck_word returned = load(ctx, CK_RETURNED_END);
   const ck_word recorded = load(ctx, CK_STUCK_BARRIER);
   return returned != 0 || recorded != 0;
}

/* Whether the barrier of `generation`, at which this work-group waits, can
 * never complete: the launch is stuck (launch_stuck), and the barrier was
 * still not released when read after that. Read in this order, a return
 * or a mismatch that followed the release (by a work-group that passed
 * this barrier) is not mistaken for one before it. */
static int
barrier_stuck(CK_GLOBAL ck_word *ctx, ck_word generation)
{
   if (!launch_stuck(ctx))
      return 0;
   return !generation_changed(load(ctx, CK_BARRIER_ARRIVED), generation);
}

/* Records the barrier call `site` as the launch's stuck barrier, unless
 * another work-group recorded one first; a work-group at the call that a
 * mismatch names (CK_MISMATCH_SITE) records that call's line. `arrived` is
 * arrive()'s result: a work-group that met work-groups waiting at another
 * call records theirs first, so that each of them that sees the stuck
 * barrier recorded sees it too. (In the side of the branch that records a
 * stuck barrier, which llvmpipe runs masked at every barrier: a branch of
 * its own for the mismatch would be run so too.) */
static void
record_stuck(CK_GLOBAL ck_word *ctx, ck_word site, ck_word line, ck_word arrived)
{
   if (arrived & CK_ARRIVE_MISMATCH)
      compare_exchange(ctx, CK_MISMATCH_SITE, 0, ck_site_of_tag(arrived & CK_SITE_TAG_MASK));
   if (compare_exchange(ctx, CK_STUCK_BARRIER, 0, site))
      store(ctx, CK_STUCK_LINE, line);
   else if (load(ctx, CK_MISMATCH_SITE) == site)
      store(ctx, CK_MISMATCH_LINE, line);
}

/* Polls until the generation changes. Whoever sees all M active
 * work-groups arrived releases everyone with a CAS from the state it read;
 * a waiter that read a state of an earlier generation fails its CAS. 1 if
 * the barrier can never complete. */
static int
wait_for_release(CK_GLOBAL ck_word *ctx, int logged, ck_word generation, ck_word site)
{
   int stuck = 0;
   for (;;) {
      const ck_word state = load(ctx, CK_BARRIER_ARRIVED);
      if (generation_changed(state, generation))
         break;
      if (all_arrived(ctx, state)) {
         if (release(ctx, logged, state, generation, site))
            break;
      } else if (barrier_stuck(ctx, generation)) {
         stuck = 1;
         break;
      } else {
         __ck_spin_wait();
      }
   }
   return stuck;
}

/* Arrive, then wait for the release. A work-group that reached another
 * barrier call than the others leaves at once, as from a stuck barrier. */
ck_word
__ck_global_barrier(CK_GLOBAL ck_word *ctx, ck_word group, ck_word site, ck_word line)
{
   const int logged = logging(ctx);
   const ck_word arrived = arrive(ctx, logged, group, site);
   const int mismatched = (arrived & CK_ARRIVE_MISMATCH) != 0;
   int stuck = 1;
   if (!mismatched)
      stuck = wait_for_release(ctx, logged, arrived, site);
   if (stuck)
      record_stuck(ctx, site, line, arrived);
   if (logged && !mismatched)
      log_event(ctx, stuck ? CK_EVENT_STUCK : CK_EVENT_PASS, group, arrived, 0);
   return stuck;
}

/* A work-group other than 0 waits for the release, then reads the
 * decision. */
static ck_word
resize_gather_others(CK_GLOBAL ck_word *ctx, int logged, ck_word group, ck_word arrived,
                     ck_word site, ck_word line)
{
   const int mismatched = (arrived & CK_ARRIVE_MISMATCH) != 0;
   const ck_word generation = arrived;
   int stuck = mismatched;
   if (!mismatched) {
      while (!generation_changed(load(ctx, CK_BARRIER_ARRIVED), generation)) {
         if (barrier_stuck(ctx, generation)) {
            stuck = 1;
            break;
         }
         __ck_spin_wait();
      }
   }
   if (logged && !mismatched)
      log_event(ctx, stuck ? CK_EVENT_STUCK : CK_EVENT_PASS, group, generation, 0);
   if (stuck) {
      record_stuck(ctx, site, line, arrived);
      return CK_RESIZE_STUCK;
   }
   return load(ctx, CK_RESIZE_DECISION);
}

/* Work-group 0 (FSE'17 4.2's master) alone releases the first barrier of a
 * resizing barrier: it waits until all M have arrived, and while they wait
 * (M cannot change) reserves the forks, draws the kills W from the query
 * (under the random policy) and publishes F = M - W
 * (CK_RESIZE_FIRST_DOOMED) and whether W > 0 (CK_RESIZE_DECISION). Then it
 * releases everyone; its caller writes the forked work-groups' slots only
 * after that, so that no new work-group arrives at the barrier being
 * released. For the master a stuck launch (a return from the kernel, or a
 * recorded mismatch) is enough to make the barrier stuck: no one else
 * releases it. */
static ck_word
resize_gather_master(CK_GLOBAL ck_word *ctx, int logged, ck_word arrived, ck_word site,
                     ck_word line, CK_PRIVATE ck_word *first, CK_PRIVATE ck_word *forks)
{
   const int mismatched = (arrived & CK_ARRIVE_MISMATCH) != 0;
   const ck_word generation = arrived;
   int stuck = mismatched;
   ck_word state = 0;
   if (!mismatched) {
      state = load(ctx, CK_BARRIER_ARRIVED);
      while (!all_arrived(ctx, state)) {
         if (launch_stuck(ctx)) {
            stuck = 1;
            break;
         }
         __ck_spin_wait();
         state = load(ctx, CK_BARRIER_ARRIVED);
      }
   }
   if (stuck) {
      if (logged && !mismatched)
         log_event(ctx, CK_EVENT_STUCK, 0, generation, 0);
      record_stuck(ctx, site, line, arrived);
      return CK_RESIZE_STUCK;
   }
   /* Logged as released now: M cannot change while everyone waits here,
    * and no one passes before the release below. */
   if (logged)
      log_event(ctx, CK_EVENT_RELEASE, generation, state & CK_BARRIER_COUNT_MASK, 0);
   *forks = __ck_fork_reserve(ctx, first);
   const ck_word kills = random_choice(ctx, load(ctx, CK_KILL_REQUESTS));
   const ck_word active = load(ctx, CK_ACTIVE_GROUPS);
   store(ctx, CK_RESIZE_FIRST_DOOMED, active > kills ? active - kills : 0);
   const ck_word decision = kills != 0;
   store(ctx, CK_RESIZE_DECISION, decision);
   /* Every work-group here waits at this call (a mismatched one would not
    * have arrived), so no other can release this generation, and a plain
    * store releases it. */
   store(ctx, CK_BARRIER_SITE, untagged(generation));
   store(ctx, CK_BARRIER_ARRIVED, released(generation));
   if (logged)
      log_event(ctx, CK_EVENT_PASS, 0, generation, 0);
   return decision;
}

/* The master's path and the others' are the two sides of one branch, each
 * holding its wait loop: llvmpipe runs both sides of a branch, masked,
 * unless a side holds a loop, so the master's work after its wait would
 * otherwise cost every other work-group's SIMD chunk at every barrier. */
ck_word
__ck_resize_gather(CK_GLOBAL ck_word *ctx, ck_word group, ck_word site, ck_word line,
                   CK_PRIVATE ck_word *first, CK_PRIVATE ck_word *forks)
{
   const int logged = logging(ctx);
   const ck_word arrived = arrive(ctx, logged, group, site);
   *first = 0;
   *forks = 0;
   if (group == 0)
      return resize_gather_master(ctx, logged, arrived, site, line, first, forks);
   return resize_gather_others(ctx, logged, group, arrived, site, line);
}

/* A doomed work-group that stops un-killed sets F to CK_RESIZE_NONE_DOOMED,
 * which stops the others: once the top one has stopped, no lower one can
 * be killed, and one still offering would spin as long as kills are
 * requested. F, not M - W, decides who is doomed: a work-group that read M
 * after the top ones were killed would count itself doomed wrongly. */
ck_word
__ck_resize_kills(CK_GLOBAL ck_word *ctx, ck_word group)
{
   if (group == 0 || group < load(ctx, CK_RESIZE_FIRST_DOOMED))
      return 0;
   ck_word killed = 0;
   while (load(ctx, CK_KILL_REQUESTS) != 0 &&
          load(ctx, CK_RESIZE_FIRST_DOOMED) != CK_RESIZE_NONE_DOOMED) {
      killed = kill_slow_path(ctx, group, 0);
      if (killed)
         break;
      __ck_spin_wait();
   }
   if (!killed)
      store(ctx, CK_RESIZE_FIRST_DOOMED, CK_RESIZE_NONE_DOOMED);
   return killed;
}

/* The second global barrier completes only once M has dropped to the
 * survivors, so that get_num_groups() right after the resizing barrier never
 * counts doomed work-groups, whose share of the work would be lost. */
ck_word
__ck_resize_join(CK_GLOBAL ck_word *ctx, ck_word group, ck_word site, ck_word line)
{
   if (load(ctx, CK_RESIZE_DECISION) == 0)
      return 0;
   if (__ck_resize_kills(ctx, group))
      return 1;
   return __ck_global_barrier(ctx, group, site, line);
}

ck_word
__ck_query_kill_count(CK_GLOBAL ck_word *ctx)
{
   return load(ctx, CK_KILL_REQUESTS);
}

ck_word
__ck_active_groups(CK_GLOBAL ck_word *ctx)
{
   return load(ctx, CK_ACTIVE_GROUPS);
}

/* CK_RETURNED_END becomes at least group + 1: the work-group stays active,
 * so the scheduler stops asking for kills that only it could let through,
 * and barriers that wait for it can tell that they never complete. */
static void
record_return_logged(CK_GLOBAL ck_word *ctx, ck_word group)
{
   log_lock(ctx);
   __ck_atomic_max(header_word(ctx, CK_RETURNED_END), group + 1);
   log_append(ctx, CK_EVENT_RETURN, group, 0, 0);
   log_unlock(ctx);
}

void
__ck_record_return(CK_GLOBAL ck_word *ctx, ck_word group)
{
   if (logging(ctx))
      record_return_logged(ctx, group);
   else
      __ck_atomic_max(header_word(ctx, CK_RETURNED_END), group + 1);
   add(ctx, CK_RETURNED, 1);
}
