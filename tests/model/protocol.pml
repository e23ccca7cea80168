/*
 * The protocol between cooperative kernels and the work-group scheduler,
 * for spin: the launch context's words (include/ck/context.h), the code the
 * kernel side does for each builtin, run by a work-group's local thread 0
 * (src/protocol/kernel_side.c), and the scheduler's decisions
 * (src/runtime/scheduler.cpp). Each context access of the real code is one
 * atomic step here; local computation between them is folded into them.
 *
 * Configuration (spin -D...):
 *   N, UNITS, ROUNDS   work-groups requested, compute units, kernel rounds
 *   KERNEL_STEAL       each round: offer_kill(); request_fork();
 *                      global_barrier() (the FSE'17 applications' shape)
 *   KERNEL_RESIZE      each round: resizing_global_barrier(), then every
 *                      work-group reads get_num_groups(0)
 *   KERNEL_MIXED       each round every work-group picks, on its own (as
 *                      by a data-dependent condition), one of two barrier
 *                      calls: two global_barrier calls, or with MIX_RESIZE
 *                      a global_barrier call and a resizing_global_barrier
 *                      call; the rounds where they agree must pass, those
 *                      where they do not must end the launch as a stuck
 *                      barrier, with no work-group passing
 *   POLICY_NEVER       no kill requests, no fork offers
 *   POLICY_DEFAULT     the scheduler may post kill requests, offer idle
 *                      units and ask parked units back whenever its rules
 *                      allow, and ordinary work may take idle units, each a
 *                      bounded number of times (DEMAND): every interleaving
 *                      of the real scheduler's decisions is among these
 *   POLICY_RANDOM      every kill the rules allow is requested and every
 *                      idle unit offered; the kernel accepts each at random
 *                      (every draw is explored)
 * The unit cap is a bound on the units in use, which takes units back
 * through the same kill requests and withdrawals: POLICY_DEFAULT covers it.
 *
 * Checked: the assertions below (only work-group M-1 is killed, never
 * work-group 0; a running work-group's id is below M; forks take the ids
 * M..M+k-1 of unused slots; no barrier is released before every active
 * work-group arrived; after a resizing barrier every work-group sees the
 * same M; no barrier is found stuck in a kernel whose work-groups all reach
 * every barrier, and a mismatch of barrier calls is found only where
 * work-groups wait at the other call; every work-group that a barrier
 * releases waits at the same call; the scheduler's invariants of
 * scheduler.cpp), valid end
 * states (no deadlock: the launch completes, every unit idle, none parked),
 * and, with -DLIVENESS, no cycle without progress under weak fairness.
 *
 * Mutations (tests/model/check.sh shows that spin catches each):
 *   MUTATE_STALE_RELEASE  a waiter that saw everyone arrived releases the
 *                         barrier with a CAS on the generation alone, read
 *                         after the count, as an earlier version did (the
 *                         generation had a word of its own): a waiter that
 *                         slept there releases the next barrier early
 *   MUTATE_STALE_M        get_num_groups(0) after a resizing barrier reads
 *                         M before the kill phase has finished, as an
 *                         earlier version did
 *   MUTATE_PUBLISH_BEFORE_RELEASE
 *                         work-group 0 publishes the work-groups a resizing
 *                         barrier forks before it releases the barrier: a
 *                         new one can arrive at the next barrier while the
 *                         release resets the count
 *   MUTATE_READY_BEFORE_DOORBELL
 *                         the kernel marks a fork's slot ready before it
 *                         counts the fork as published: a unit can claim
 *                         it first, and forks_started passes published
 *   MUTATE_NO_IDENTITY    arrivals do not tag the barrier with their call,
 *                         as before barrier identity: work-groups at two
 *                         calls release each other
 *   MUTATE_CLEAR_BY_STORE the releaser clears the barrier's tag with a
 *                         plain store instead of a CAS that checks the
 *                         generation's parity: a waiter whose release lost
 *                         erases the next barrier's tag, and a work-group
 *                         at another call passes with the others
 *   MUTATE_NO_CLEAR       the tag is never cleared: a later barrier at
 *                         another call is taken for a mismatch
 *   MUTATE_UNLOCKED_WITHDRAWAL
 *                         a parked unit takes a wanted withdrawal without
 *                         the lock and, finding its offer gone to a fork,
 *                         gives it back after another unit trimmed the
 *                         wanted withdrawals to the units still parked, as
 *                         an earlier scheduler did: withdrawals_wanted then
 *                         exceeds parked, a withdrawal no unit can make
 * The doomed work-groups' way out of the kill phase (a request withdrawn
 * after F was fixed) is unreachable here: the scheduler never withdraws a
 * request that an active work-group can still meet, and in a resizing
 * barrier every one can.
 */
/* covers: 10.1-active-ids 10.1-fairness 10.1-leave-only-killed 10.1-m-bounds */
/* covers: 10.1-size-change-points 10.1-size-constant 10.3-kill-top-only 10.3-never-wg0 */
/* covers: 10.4-k-range 10.5-no-early-leave 10.6-resize 10.7-eventually-killed 15-m-cached */
/* covers: 15-resize-master */

#ifndef N
#define N 3
#endif
#ifndef UNITS
#define UNITS 2
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif
#ifndef DEMAND
#define DEMAND 2
#endif
#if N > 4
#error "the monitor below checks at most 4 work-groups"
#endif

#define NONE_DOOMED 255

/* The launch completed: every work-group left, no unit parked. */
#define completed (finished && parked == 0)

/* The context (ck/context.h). BAR_GEN and BAR_COUNT are one word,
 * CK_BARRIER_ARRIVED: always changed together. */
byte M;              /* CK_ACTIVE_GROUPS */
byte REQUESTS;       /* CK_KILL_REQUESTS */
byte OFFERS;         /* CK_FORK_OFFERS */
byte BAR_GEN;        /* CK_BARRIER_ARRIVED >> 16 */
byte BAR_COUNT;      /* CK_BARRIER_ARRIVED & 0xffff */
byte FIRST_DOOMED;   /* CK_RESIZE_FIRST_DOOMED */
byte DECISION;       /* CK_RESIZE_DECISION */
byte PUBLISHED;      /* CK_FORKS_PUBLISHED */
byte KILLS;          /* CK_KILLS */
byte RETURNED_END;   /* CK_RETURNED_END */
byte STUCK;          /* CK_STUCK_BARRIER != 0 */
bit SITE_PAR;        /* CK_BARRIER_SITE & CK_SITE_PARITY */
byte SITE_TAG;       /* CK_BARRIER_SITE's tag: the barrier call, 0 if none
                        (changed together with SITE_PAR) */
byte MISMATCH;       /* CK_MISMATCH_SITE */
bit ready[N];        /* slot g: CK_SLOT_READY */
byte slot_round[N];  /* slot g: the transmit record (the round) */

/* The scheduler's state for the launch (guarded by its mutex: each
 * scheduler step is atomic). */
byte parked, running, forks_started, withdrawals_wanted, kills_asked;
byte kills_surrendered;
bit started, finished;
byte busy;           /* units taken by ordinary work */
byte budget = DEMAND;

/* Units: the task the scheduler gave each one. */
mtype = { IDLE, GROUP, PARK, BUSY };
mtype task[UNITS];
byte task_group[UNITS];

/* What the checks observe about each work-group id. */
mtype = { UNUSED, RESERVED, ALIVE, LEFT };
mtype wg[N];
byte waits_at[N];    /* 1 + the generation of the barrier it waits at, 0 */
byte waits_call[N];  /* the barrier call it waits at */
byte at_call[N];     /* the barrier call it last reached (from its first look
                        at the tag), and */
byte at_gen[N];      /* the generation then current */
byte seen_m[ROUNDS]; /* the M read after resizing barrier r (0: none yet) */

#define killable() (M > (RETURNED_END > 1 -> RETURNED_END : 1) -> \
                    M - (RETURNED_END > 1 -> RETURNED_END : 1) : 0)

/* Every id below M has arrived at the barrier of generation gen, at the
 * same barrier call. */
inline assert_all_arrived(gen)
{
   i = 0;
   do
   :: i < M -> assert(waits_at[i] == gen + 1 && waits_call[i] == waits_call[0]); i++
   :: else -> break
   od
}

/* The barrier calls of the kernels (site 1: a global_barrier call, 2:
 * another, 3: a resizing_global_barrier call). */
#define CALL_GLOBAL 1
#define CALL_GLOBAL_2 2
#define CALL_RESIZING 3

/* Work-group g has reached call c of the current barrier (it waits there,
 * or is about to arrive, or left it). */
#define waits_at_call(g, c) (g < N && at_call[g] == c && at_gen[g] == BAR_GEN)

/* The scheduler's invariants (check_invariants() in scheduler.cpp). */
#define invariants_hold (M >= 1 && M <= N && M + OFFERS <= N && \
                         forks_started <= PUBLISHED && \
                         OFFERS + PUBLISHED - forks_started <= parked && \
                         (finished || withdrawals_wanted <= parked) && \
                         (finished || REQUESTS <= kills_asked))

/* ---- The kernel side: local thread 0 of work-group `id`. ---- */

/* random_choice: a draw in [0, bound] under the random policy. */
inline choose(result, bound)
{
#ifdef POLICY_RANDOM
   result = 0;
   do
   :: result < bound -> result++
   :: break
   od
#else
   result = bound
#endif
}

/* emitKillSlowPath: the last active work-group claims a request and
 * retires itself by decrementing M; if M moved, gives the request back. */
inline kill_slow_path(from_offer_kill)
{
   m_read = M;
   if
   :: id != 0 && id + 1 == m_read ->
      accept = 1;
      if
      :: from_offer_kill -> choose(accept, 1)
      :: else
      fi;
      if
      :: accept ->
         do
         :: requests = REQUESTS;
            if
            :: requests == 0 -> break
            :: else ->
               atomic {
                  if
                  :: REQUESTS == requests -> REQUESTS--; claimed = 1
                  :: else -> claimed = 0
                  fi
               };
               if
               :: claimed ->
                  atomic {
                     if
                     :: M == m_read ->
                        assert(id == M - 1 && id != 0);
                        M--; wg[id] = LEFT; killed = 1
                     :: else
                     fi
                  };
                  if
                  :: killed -> KILLS++
                  :: else -> REQUESTS++
                  fi;
                  break
               :: else
               fi
            fi
         od
      :: else
      fi
   :: else
   fi
}

inline offer_kill()
{
   if
   :: REQUESTS == 0
   :: else -> kill_slow_path(1)
   fi
}

/* emitFork up to the reservation: take the offers, keep k of them, give
 * the rest back, reserve ids [M, M + k). */
inline fork_reserve()
{
   k = 0;
   if
   :: OFFERS == 0
   :: else ->
      atomic { offers = OFFERS; OFFERS = 0 };
      m_read = M;
      bound = (N > m_read -> N - m_read : 0);
      bound = (offers < bound -> offers : bound);
      choose(k, bound);
      if
      :: offers > k -> OFFERS = OFFERS + offers - k
      :: else
      fi;
      atomic {
         base = M; M = M + k;
         assert(M <= N);
         i = base;
         do
         :: i < M -> assert(wg[i] == UNUSED || wg[i] == LEFT); wg[i] = RESERVED; i++
         :: else -> break
         od
      }
   fi
}

/* emitFork after the reservation: publish each new work-group's slot. */
inline fork_publish(round)
{
   i = base;
   do
   :: k > 0 && i < base + k ->
      slot_round[i] = round;
#ifdef MUTATE_READY_BEFORE_DOORBELL
      ready[i] = 1;
      PUBLISHED++;
#else
      /* The doorbell first: a unit claims only a ready slot, so no more
       * forks start than were published. */
      PUBLISHED++;
      ready[i] = 1;
#endif
      i++
   :: else -> break
   od
}

/* arrive: tag_site (a load of CK_BARRIER_SITE; if untagged, a CAS that
 * tags it with the call), then one atomic add on the barrier word; or, if
 * the barrier holds another call's tag, record_mismatch and no arrival.
 *
 * Barrier identity (CK_BARRIER_SITE: tag_site, clear_site, the mismatch)
 * is modelled in the mixed kernel only. In the others every work-group
 * reaches the same call, so the tag is that call or none, no mismatch can
 * be found, and its steps touch no other word: they would only multiply
 * the interleavings (3.5 times the states of the steal kernel, N = 4 on 2
 * units) without changing what the rest of the protocol can do. */
inline arrive()
{
#if defined(KERNEL_MIXED) && !defined(MUTATE_NO_IDENTITY)
   mismatched = 0;
   do
   :: atomic { s_par = SITE_PAR; s_tag = SITE_TAG; at_call[id] = call; at_gen[id] = BAR_GEN };
      if
      :: s_tag == call -> break
      :: s_tag != 0 && s_tag != call -> mismatched = 1; break
      :: s_tag == 0 ->
         atomic {
            if
            :: SITE_PAR == s_par && SITE_TAG == 0 -> SITE_TAG = call; tagged = 1
            :: else -> tagged = 0
            fi
         };
         if
         :: tagged -> break
         :: else
         fi
      fi
   od;
   if
   :: mismatched ->
      /* Found only where work-groups have reached the other call of this
       * barrier. */
      assert(waits_at_call(0, s_tag) || waits_at_call(1, s_tag) ||
             waits_at_call(2, s_tag) || waits_at_call(3, s_tag));
      atomic {
         if
         :: MISMATCH == 0 -> MISMATCH = s_tag
         :: else
         fi
      };
      STUCK = 1;
      stuck = 1
   :: else ->
      atomic { gen = BAR_GEN; BAR_COUNT++; waits_at[id] = gen + 1; waits_call[id] = call }
   fi
#else
   atomic { gen = BAR_GEN; BAR_COUNT++; waits_at[id] = gen + 1; waits_call[id] = call }
#endif
}

/* barrierStuck, as the waiting loops test it: the launch is stuck (a
 * return, or a recorded stuck barrier), then the generation unchanged. In
 * the kernels modelled here no work-group returns before the others pass
 * its last barrier: it holds only after a mismatch. */
inline check_stuck()
{
#ifdef KERNEL_MIXED
   r_returned = RETURNED_END;
   r_stuck = STUCK;
#define launch_stuck (r_returned != 0 || r_stuck != 0)
#else
   /* The two loads folded into the step below with the generation's, as
    * the model did before barrier identity: in these kernels the check
    * must never hold, and reading at once gives it every chance. */
#define launch_stuck (RETURNED_END != 0 || STUCK != 0)
#endif
   if
   :: launch_stuck && BAR_GEN == gen ->
      assert(MISMATCH != 0);
      STUCK = 1;
      stuck = 1
   :: else
   fi
}

/* clear_site before a release of generation gen at `call`. */
inline clear_site()
{
#if !defined(KERNEL_MIXED) || defined(MUTATE_NO_CLEAR)
   skip
#elif defined(MUTATE_CLEAR_BY_STORE)
   atomic { SITE_PAR = (gen + 1) % 2; SITE_TAG = 0 }
#else
   atomic {
      if
      :: SITE_PAR == gen % 2 && SITE_TAG == call -> SITE_PAR = (gen + 1) % 2; SITE_TAG = 0
      :: else
      fi
   }
#endif
}

/* __ck_global_barrier at `call`. */
inline global_barrier()
{
   arrive();
   do
#ifdef KERNEL_MIXED
   :: stuck -> break
   :: else ->
#else
   ::
#endif
      atomic { state_gen = BAR_GEN; state_count = BAR_COUNT };
      if
      :: state_gen != gen -> break
      :: else ->
         if
         :: state_count >= M ->
#ifdef KERNEL_MIXED
            clear_site();
#endif
#ifdef MUTATE_STALE_RELEASE
            old_gen = BAR_GEN;
            atomic {
               if
               :: BAR_GEN == old_gen ->
                  assert_all_arrived(old_gen);
                  BAR_GEN++; BAR_COUNT = 0
               :: else
               fi
            }
#else
            atomic {
               if
               :: BAR_GEN == state_gen && BAR_COUNT == state_count ->
                  assert_all_arrived(gen);
                  BAR_GEN++; BAR_COUNT = 0
               :: else
               fi
            }
#endif
         :: else -> check_stuck()
         fi
      fi
   od;
   waits_at[id] = 0
}

/* emitResizeKills and emitKillAndMeet, after a decision to kill. */
inline kill_and_meet()
{
   doomed = (id != 0 && id >= FIRST_DOOMED);
   if
   :: doomed ->
      do
      :: REQUESTS == 0 -> FIRST_DOOMED = NONE_DOOMED; break
      :: FIRST_DOOMED == NONE_DOOMED -> break
      :: else ->
         kill_slow_path(0);
         if
         :: killed -> break
         :: else
         fi
      od
   :: else
   fi;
   if
   :: !killed -> global_barrier()
   :: else
   fi
}

#define left_kernel (killed || stuck)

/* resizing_global_barrier: emitResizeGather, then the kill phase. */
inline resizing_global_barrier(round)
{
   arrive();
   decision = 0;
#ifdef KERNEL_MIXED
   if
   :: stuck /* mismatched: did not arrive */
   :: else ->
#endif
   if
   :: id == 0 ->
      do
      :: BAR_COUNT >= M -> break
      :: else ->
#ifdef KERNEL_MIXED
         r_returned = RETURNED_END;
         r_stuck = STUCK;
#endif
         if
         :: launch_stuck ->
            assert(MISMATCH != 0); STUCK = 1; stuck = 1; break
         :: else
         fi
      od;
#ifdef KERNEL_MIXED
      if
      :: stuck
      :: else ->
#endif
      assert_all_arrived(gen);
      fork_reserve();
      choose(kills, REQUESTS);
      m_read = M;
      FIRST_DOOMED = (m_read > kills -> m_read - kills : 0);
      DECISION = (kills != 0 -> 1 : 0);
      decision = DECISION;
#if defined(KERNEL_MIXED) && !defined(MUTATE_NO_CLEAR)
      atomic { SITE_PAR = (gen + 1) % 2; SITE_TAG = 0 };
#endif
#ifdef MUTATE_PUBLISH_BEFORE_RELEASE
      fork_publish(round);
      atomic { BAR_GEN++; BAR_COUNT = 0 }
#else
      atomic { BAR_GEN++; BAR_COUNT = 0 };
      fork_publish(round)
#endif
#ifdef KERNEL_MIXED
      fi
#endif
   :: else ->
      do
      :: BAR_GEN != gen -> break
      :: else ->
         check_stuck();
#ifdef KERNEL_MIXED
         if
         :: stuck -> break
         :: else
         fi
#endif
      od;
#ifdef KERNEL_MIXED
      if
      :: !stuck -> decision = DECISION
      :: else
      fi
#else
      decision = DECISION
#endif
   fi;
#ifdef KERNEL_MIXED
   fi;
#endif
   waits_at[id] = 0;
#ifdef MUTATE_STALE_M
   atomic {
      if
      :: seen_m[round] == 0 -> seen_m[round] = M
      :: else -> assert(seen_m[round] == M)
      fi
   };
#endif
   if
   :: decision -> kill_and_meet()
   :: else
   fi
}

/* A work-group's run, from `round` (0, or the round a fork transmitted),
 * entering at the fork point if `resumed`. */
inline run_group(start, resumed)
{
   round = start;
   killed = 0;
   stuck = 0;
#ifdef KERNEL_STEAL
   call = CALL_GLOBAL;
   if
   :: resumed -> goto at_fork_point
   :: else
   fi;
   do
   :: round < ROUNDS ->
      offer_kill();
      if
      :: killed -> break
      :: else
      fi;
      fork_reserve();
      fork_publish(round);
at_fork_point:
      global_barrier();
      round++
   :: else -> break
   od;
#endif
#ifdef KERNEL_MIXED
   if
   :: resumed -> goto at_mixed_join
   :: else
   fi;
   do
   :: round < ROUNDS ->
      /* The work-group's own choice of call (data-dependent). */
      if
      :: call = CALL_GLOBAL
#ifdef MIX_RESIZE
      :: call = CALL_RESIZING
#else
      :: call = CALL_GLOBAL_2
#endif
      fi;
      if
      :: call == CALL_RESIZING ->
         resizing_global_barrier(round);
         if
         :: false ->
at_mixed_join:
            /* Forked by a resizing barrier that kills: joins its kill phase. */
            call = CALL_RESIZING;
            decision = DECISION;
            if
            :: decision -> kill_and_meet()
            :: else
            fi
         :: else
         fi
      :: else -> global_barrier()
      fi;
      if
      :: left_kernel -> break
      :: else
      fi;
      round++
   :: else -> break
   od;
#endif
#ifdef KERNEL_RESIZE
   call = CALL_RESIZING;
   if
   :: resumed -> goto at_join
   :: else
   fi;
   do
   :: round < ROUNDS ->
      resizing_global_barrier(round);
      if
      :: false ->
at_join:
         /* A work-group forked by a resizing barrier that kills joins its
          * kill phase. */
         decision = DECISION;
         if
         :: decision -> kill_and_meet()
         :: else
         fi
      :: else
      fi;
      if
      :: left_kernel -> break
      :: else
      fi;
at_continuation:
      /* get_num_groups(0) after the barrier: the same for everyone. */
#ifndef MUTATE_STALE_M
      atomic {
         if
         :: seen_m[round] == 0 -> seen_m[round] = M
         :: else -> assert(seen_m[round] == M)
         fi
      };
#endif
      round++
   :: else -> break
   od;
#endif
   if
   :: !left_kernel ->
      /* recordReturn */
      atomic { RETURNED_END = (RETURNED_END > id + 1 -> RETURNED_END : id + 1); wg[id] = LEFT }
   :: stuck -> wg[id] = LEFT  /* left at a stuck barrier: no return */
   :: else
   fi
}

/* ---- The scheduler. ---- */

/* note_return and finish_if_done, with the lock held, when a work-group
 * of unit u has left the kernel. */
inline note_return()
{
   running--;
   if
   :: KILLS > kills_surrendered ->
      kills_surrendered++;
      if
      :: kills_asked > 0 -> kills_asked--
      :: else
      fi
   :: else
   fi;
   if
   :: !finished && REQUESTS > killable() ->
      /* withdraw_unmeetable_kills */
      i = REQUESTS - killable();
      REQUESTS = REQUESTS - i;
      kills_asked = kills_asked - i
   :: else
   fi;
   if
   :: running == 0 && PUBLISHED == forks_started ->
      finished = 1; withdrawals_wanted = 0; kills_asked = 0
   :: else
   fi;
   assert(finished || invariants_hold)
}

proctype unit(byte u)
{
   byte id, round, start, i, m_read, requests, accept, offers, bound, k, base;
   byte gen, state_gen, state_count, kills, decision, old_gen;
   byte call, s_tag, r_returned, r_stuck;
   bit claimed, killed, doomed, resumed, s_par, tagged, mismatched, stuck;
end_idle:
   do
   :: task[u] == GROUP ->
      id = task_group[u];
      resumed = 0; start = 0;
      if
      :: wg[id] == RESERVED -> resumed = 1; start = slot_round[id]
      :: else
      fi;
      wg[id] = ALIVE;
      run_group(start, resumed);
progress_left:
      atomic { note_return(); task[u] = IDLE }
   :: task[u] == PARK ->
      /* serve_parked: claim a published fork without the lock (the
       * exchange of its ready flag), then start it under the lock; or
       * leave under the lock. */
      do
      :: atomic {
            PUBLISHED > forks_started ->
            i = (M < N -> M : N);
            do
            :: i > 0 && ready[i - 1] -> ready[i - 1] = 0; break
            :: i > 0 && !ready[i - 1] -> i--
            :: i == 0 -> break
            od
         };
         if
         :: i > 0 ->
            atomic {
               parked--; running++; forks_started++;
               task[u] = GROUP; task_group[u] = i - 1;
               withdrawals_wanted = (withdrawals_wanted < parked -> withdrawals_wanted : parked);
               assert(invariants_hold)
            };
            break
         :: else
         fi
#ifdef MUTATE_UNLOCKED_WITHDRAWAL
      :: atomic { !finished && withdrawals_wanted > 0 -> withdrawals_wanted-- };
         if
         :: atomic {
               OFFERS > 0 -> OFFERS--; parked--; task[u] = IDLE;
               assert(finished || invariants_hold)
            };
            break
         :: atomic { OFFERS == 0 -> withdrawals_wanted++; assert(finished || invariants_hold) }
         fi
      :: atomic {
            finished && OFFERS > 0 -> OFFERS--; parked--; task[u] = IDLE
         };
         break
#else
      :: atomic {
            (finished || withdrawals_wanted > 0) && OFFERS > 0 ->
            OFFERS--;
            if
            :: !finished -> withdrawals_wanted--
            :: else
            fi;
            parked--; task[u] = IDLE;
            assert(finished || invariants_hold)
         };
         break
#endif
      od
   od
}

/* The scheduler's decisions other than note_return and serve_parked. */
proctype scheduler()
{
   byte i, g, idle_units;
   /* start_cooperative: M0 = min(N, free units). */
   atomic {
      M = (N < UNITS -> N : UNITS);
      i = 0;
      do
      :: i < M -> task[i] = GROUP; task_group[i] = i; i++
      :: else -> break
      od;
      running = M;
      started = 1
   };
end_scheduler:
   do
   :: timeout ->
      /* Nothing can move: the launch must have completed, every unit idle
       * (valid end states check that). */
      assert(completed);
      break
#ifdef POLICY_DEFAULT
   :: atomic {
         /* post_kill_requests, within kill_room() */
         !finished && budget > 0 && kills_asked < killable() ->
         REQUESTS++; kills_asked++; budget--
      }
   :: atomic {
         /* balance(): ask a parked unit back */
         !finished && budget > 0 && withdrawals_wanted < parked ->
         withdrawals_wanted++; budget--
      }
   :: atomic {
         /* ordinary work takes an idle unit for a while */
         budget > 0 && busy == 0 ->
         i = 0;
         do
         :: i < UNITS && task[i] != IDLE -> i++
         :: else -> break
         od;
         if
         :: i < UNITS -> busy = i + 1; task[i] = BUSY; budget--
         :: else
         fi
      }
   :: atomic { busy > 0 -> task[busy - 1] = IDLE; busy = 0 }
#endif
#ifdef POLICY_RANDOM
   :: atomic {
         /* request_every_kill */
         !finished && kills_asked < killable() ->
         REQUESTS = REQUESTS + killable() - kills_asked; kills_asked = killable()
      }
#endif
#ifndef POLICY_NEVER
   :: atomic {
         /* offer_idle_units: only while M + parked < N */
         !finished && running > 0 && M + parked < N ->
         i = 0;
         do
         :: i < UNITS && task[i] != IDLE -> i++
         :: else -> break
         od;
         if
         :: i < UNITS ->
            parked++; OFFERS++; task[i] = PARK;
            assert(invariants_hold)
         :: else
         fi
      }
#endif
   od
}

/* Checked in every reachable state: a running work-group's id is below
 * M, and the scheduler's invariants. */
#define alive_below_m(g) (g >= N || wg[g] != ALIVE || g < M)
active proctype monitor()
{
   assert(!started || (alive_below_m(0) && alive_below_m(1) && alive_below_m(2) &&
                       alive_below_m(3) && invariants_hold))
}

init
{
   byte u;
   atomic {
      u = 0;
      do
      :: u < N -> wg[u] = UNUSED; u++
      :: else -> break
      od;
      u = 0;
      do
      :: u < UNITS -> task[u] = IDLE; run unit(u); u++
      :: else -> break
      od;
      run scheduler()
   }
}
