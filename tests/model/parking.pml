/*
 * Forks and kills in a launch that the driver dispatches whole (zink), as
 * the kernel's side runs them (src/protocol/kernel_side.c; ck/context.h,
 * "Parked late work-groups"), for spin. One dispatch of N work-groups on a
 * device that keeps at most SLOTS of them resident: the hardware starts a
 * work-group only in a free slot, and the slot comes free only when the
 * work-group leaves. Under the random policy with late work-groups parked:
 *
 *   discovery: a work-group that starts while the poll is open joins it;
 *              once one has joined, one of them closes the poll at any
 *              time, sets M to the count and posts M - 1 kill requests
 *              (discovery.pml checks the poll itself);
 *   late:      one that finds the poll closed offers itself (offers + 1)
 *              and waits: for a published fork, which it takes by
 *              clearing the slot's ready flag and runs; or for the launch
 *              to be over (returned, read before M, equals M), when it
 *              withdraws an offer (a CAS that lowers offers) and leaves;
 *   kernel:    ROUNDS rounds of offer_kill (the top work-group but 0
 *              claims a request, then CASes M down, or gives the request
 *              back; it may refuse, as a draw may) and request_fork (the
 *              offers taken, k of them kept, the rest given back, M + k
 *              reserved, then k more requests, then each slot published:
 *              the doorbell, then the ready flag); a forked work-group
 *              starts after the fork point of the round it was forked in;
 *              then it returns (returned + 1) and leaves.
 *
 * With DEMAND, the default policy with the driver's kill requests
 * (dispatch.cpp, ck_dispatch_demand): no random requests (the closer
 * posts none, request_fork adds none), offer_kill always accepts and
 * request_fork keeps all the offers it can, as the default policy's draws
 * do, and a kill adds 1 to kills (CK_KILLS) after its CAS on M. Beside
 * the kernel:
 *
 *   host:      HOST_STEPS steps, then it exits; each toggles park_late
 *              (CK_PARK_LATE, initially 1: 0 while other work waits) or,
 *              while it holds park_late at 0, reads kills, then M, and,
 *              if M > 0 and the room (M - 1 less the requests that it
 *              posted and no kill counted: posted - kills) is above 0,
 *              adds 1 up to the room requests in one add (posted + them);
 *   late:      one that finds park_late 0 leaves without offering; a
 *              parked one that reads it 0 withdraws an offer and leaves,
 *              as at the launch's end; with no offer to withdraw (a
 *              reserved fork took it, or request_fork holds the offers)
 *              it waits for an offer or a published fork, the fork first.
 *
 * Each step is one atomic access of the context, as in kernel_side.c.
 *
 * Checked: the requests never exceed M - 1 once M is set (the host's
 * posts too); M <= N; ids below M; at the end every published fork was
 * taken, no offer is left and M is the count of returns; valid end states
 * (every work-group leaves: a parked one that waited for a fork that
 * never comes, or for an end it never sees, would not); under weak
 * fairness no cycle without progress.
 *
 * Mutations (tests/model/check.sh shows that spin catches each):
 *   MUTATE_REQUESTS_FIRST  a fork's requests are posted before its add
 *                          on M: the requests exceed M - 1 in between
 *   MUTATE_LEAVE_UNOFFERED a parked work-group leaves once the launch is
 *                          over without withdrawing its offer
 *   MUTATE_CLAIM_BY_LOAD   a parked work-group takes a fork by reading
 *                          its ready flag, then clearing it: two take the
 *                          same one
 *   MUTATE_HOST_M_FIRST    (DEMAND) the host reads M before kills: a kill
 *                          between the reads frees room in the count but
 *                          not in M, and the requests reach M
 *   MUTATE_PARKED_LEAVE_ON_DEMAND
 *                          (DEMAND) a parked work-group that reads
 *                          park_late 0 leaves without withdrawing its
 *                          offer: an offer is left
 * (The order of the reads that judge the launch over does not matter: a
 * parked work-group that misjudges it cannot withdraw the offer that a
 * reserved fork took, and takes the fork instead.)
 */
#ifndef N
#define N 3
#endif
#ifndef SLOTS
#define SLOTS 2
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif
#ifndef HOST_STEPS
#define HOST_STEPS 3
#endif

byte slots = SLOTS;
bool open = true;    /* the discovery poll */
byte joined = 0;
byte M = 0;          /* CK_ACTIVE_GROUPS */
byte requests = 0;   /* CK_KILL_REQUESTS */
byte offers = 0;     /* CK_FORK_OFFERS */
byte published = 0;  /* CK_FORKS_PUBLISHED */
byte claimed = 0;    /* CK_FORKS_CLAIMED */
byte returned = 0;   /* CK_RETURNED */
bit ready[N];        /* the slots' ready flags */
byte fork_round[N];  /* the slots' transmitted round */
byte reserved = 0;   /* forks reserved, for the assertions */
bit live[N];         /* the ids that a work-group runs with, for the same */
#ifdef DEMAND
byte kills = 0;      /* CK_KILLS */
bit park_late = 1;   /* CK_PARK_LATE */
#endif

#define REQUESTS_BELOW_M assert(M == 0 || requests < M)

/* The kernel from round `round` on, for work-group `id`; leaves by
 * `killed` or after its return. */
inline kernel(id, round)
{
   do
   :: round < ROUNDS ->
      /* offer_kill */
      m_read = M;
      if
      :: id != 0 && id + 1 == m_read && requests > 0 ->
         if
         :: true -> /* the draw accepts */
            atomic {
               if
               :: requests > 0 -> requests--; got = 1
               :: else -> got = 0
               fi
            }
            if
            :: got ->
               atomic {
                  if
                  :: M == m_read -> M--; killed = 1; live[id] = 0; REQUESTS_BELOW_M
                  :: else -> skip
                  fi
               }
               if
#ifdef DEMAND
               :: killed -> kills++; goto leave
#else
               :: killed -> goto leave
#endif
               :: else -> requests++; REQUESTS_BELOW_M
               fi
            :: else -> skip
            fi
#ifndef DEMAND
         :: true -> skip /* the draw refuses */
#endif
         fi
      :: else -> skip
      fi;
      /* request_fork */
      if
      :: offers > 0 ->
         atomic { took = offers; offers = 0 };
         m_read = M;
         room = N - m_read;
         lim = (took < room -> took : room);
#ifdef DEMAND
         k = lim; /* the default policy's draw keeps all it can */
#else
         k = 0;
         do
         :: k < lim -> k++
         :: break
         od;
#endif
         if
         :: took > k -> offers = offers + took - k
         :: else -> skip
         fi;
#if defined(DEMAND)
         atomic { first = M; M = M + k; reserved = reserved + k };
         assert(M <= N);
#elif defined(MUTATE_REQUESTS_FIRST)
         requests = requests + k;
         REQUESTS_BELOW_M;
         atomic { first = M; M = M + k; reserved = reserved + k };
#else
         atomic { first = M; M = M + k; reserved = reserved + k };
         assert(M <= N);
         requests = requests + k;
         REQUESTS_BELOW_M;
#endif
         g = first;
         do
         :: g < first + k ->
            fork_round[g] = round;
            published++;
            ready[g] = 1;
            g++
         :: else -> break
         od
      :: else -> skip
      fi;
      round++
   :: else -> break
   od;
   atomic { live[id] = 0; returned++ }
}

proctype WorkGroup()
{
   byte id, round, m_read, took, room, lim, k, first, g, seen;
   bit got, killed, withdrew;

   atomic { slots > 0 -> slots-- } /* the hardware starts it */

   atomic {
      if
      :: open -> id = joined; joined++
      :: else -> goto late
      fi
   }
   /* a participant closes the poll, at any time, unless another did;
    * the closer sets M and posts the requests */
   do
   :: atomic { open -> open = false; seen = joined };
      M = seen;
#ifndef DEMAND
      requests = requests + seen - 1;
      REQUESTS_BELOW_M;
#endif
      break
   :: M > 0 -> break
   od;
   assert(id < M);
   atomic { assert(!live[id]); live[id] = 1 };
   round = 0;
   kernel(id, round);
   goto leave;

late:
#ifdef DEMAND
   /* while other work waits for units, it leaves at once */
   if
   :: park_late == 0 -> goto leave
   :: else -> skip
   fi;
#endif
   offers++;
   do
   :: published > claimed ->
#ifdef DEMAND
take:
#endif
      got = 0;
      g = 0;
      do
      :: g < N ->
#ifdef MUTATE_CLAIM_BY_LOAD
         if
         :: ready[g] -> ready[g] = 0; got = 1
         :: else -> skip
         fi;
#else
         atomic {
            if
            :: ready[g] -> ready[g] = 0; got = 1
            :: else -> skip
            fi
         }
#endif
         if
         :: got -> break
         :: else -> g++
         fi
      :: else -> break
      od;
      if
      :: got ->
         claimed++;
         id = g;
         assert(id < M);
         atomic { assert(!live[id]); live[id] = 1 };
         /* the rest of the round it was forked in, then the next ones */
         round = fork_round[id] + 1;
         kernel(id, round);
         goto leave
      :: else -> skip
      fi
   :: returned == M ->
      seen = returned;
      m_read = M;
      if
      :: seen == m_read ->
#ifdef MUTATE_LEAVE_UNOFFERED
         goto leave
#else
         atomic {
            if
            :: offers > 0 -> offers--; withdrew = 1
            :: else -> skip
            fi
         }
         if
         :: withdrew -> goto leave
         :: else -> skip
         fi
#endif
      :: else -> skip
      fi
#ifdef DEMAND
   :: park_late == 0 ->
#ifdef MUTATE_PARKED_LEAVE_ON_DEMAND
      goto leave
#else
      atomic {
         if
         :: offers > 0 -> offers--; withdrew = 1
         :: else -> skip
         fi
      }
      if
      :: withdrew -> goto leave
      :: else ->
         /* a reserved fork took its offer, or request_fork holds the
          * offers for a moment: it spins until it can take a fork or
          * withdraw an offer, and tries the fork first, as park() does
          * (else a lone parked one could retry the withdrawal forever
          * beside a published fork, a cycle that park() cannot take) */
         offers > 0 || published > claimed;
         if
         :: published > claimed -> goto take
         :: else -> skip
         fi
      fi
#endif
#endif
   od;

leave:
   atomic { slots++ }
}

#ifdef DEMAND
/* The driver thread beside the launch (dispatch.cpp, ck_dispatch_demand).
 * It alone writes park_late, and posts only while it holds it at 0. */
proctype Host()
{
   byte step, posted, kills_read, m_read, room, a;

   do
   :: step < HOST_STEPS ->
      if
      :: atomic { park_late = 1 - park_late; step++ }
      :: park_late == 0 ->
#ifdef MUTATE_HOST_M_FIRST
         atomic { m_read = M; step++ };
         atomic { kills_read = kills;
#else
         atomic { kills_read = kills; step++ };
         atomic { m_read = M;
#endif
            /* the room: M - 1 less the requests that it posted and no
             * kill counted yet (the local steps merged) */
            room = (m_read > 1 + posted - kills_read ->
                    m_read - 1 - (posted - kills_read) : 0);
            m_read = 0; kills_read = 0 };
         if
         :: room > 0 ->
            atomic {
               a = 1;
               do
               :: a < room -> a++
               :: break
               od;
               requests = requests + a;
               REQUESTS_BELOW_M;
               posted = posted + a;
               room = 0; a = 0
            }
         :: else -> skip
         fi
      fi
   :: else -> break
   od
}
#endif

init
{
   byte i;
   atomic {
      for (i : 1 .. N) {
         run WorkGroup()
      }
#ifdef DEMAND
      run Host()
#endif
   }
   _nr_pr == 1;
   assert(published == reserved);
   assert(claimed == published);
   assert(offers == 0);
   assert(returned == M)
}
