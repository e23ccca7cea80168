/*
 * Occupancy discovery (OOPSLA'16 §3) as the zink backend will run it at
 * the top of a cooperative kernel (docs/zink-backend.md, invariant 1), for
 * spin. One dispatch of N work-groups on a device that keeps at most SLOTS
 * of them resident: the hardware starts a work-group only in a free slot,
 * and the slot comes free only when the work-group leaves. Local thread 0
 * of each does:
 *
 *   poll phase:    while the poll word is open, join with a CAS that adds
 *                  one to its count (the ticket is the count it replaced);
 *                  a work-group that finds the poll closed never joined
 *                  and leaves at once;
 *   closing phase: close the poll with a CAS that clears its open bit,
 *                  unless someone already did; the count is then final;
 *   M:             CAS CK_ACTIVE_GROUPS from 0 to the final count (every
 *                  participant writes the same value, and a CAS from 0
 *                  cannot undo a later kill's decrement);
 *   kernel:        a global barrier of the M participants, then leave.
 *
 * Each step is one atomic access of the context, as in kernel_side.c.
 *
 * Checked: tickets are dense and below M; M <= SLOTS (the participants
 * were resident together); the poll closes only after a participant
 * joined; the barrier releases nobody before all M arrived; valid end
 * states (every work-group leaves: a participant that is not resident
 * with the others would leave the barrier waiting for ever).
 *
 * Mutations (tests/model/check.sh shows that spin catches each):
 *   MUTATE_NO_CLOSE    participants never close the poll and write M from
 *                      the count they read after joining: a work-group
 *                      that starts after another left joins too
 *   MUTATE_CLOSE_FIRST the closing phase runs before the poll phase: the
 *                      poll can close with no participant
 */
#ifndef N
#define N 3
#endif
#ifndef SLOTS
#define SLOTS 2
#endif

#define OPEN 128 /* the poll word's open bit; the count is below it */

byte poll = OPEN;
byte M = 0;
byte slots = SLOTS;
byte arrived = 0;
byte joined = 0; /* participants so far, for the assertions only */

proctype WorkGroup()
{
   byte seen, ticket;

   atomic { slots > 0 -> slots-- } /* the hardware starts it */

#ifdef MUTATE_CLOSE_FIRST
   do
   :: seen = poll;
      if
      :: (seen & OPEN) == 0 -> break
      :: else ->
         atomic {
            if
            :: poll == seen -> poll = seen & ~OPEN; break
            :: else -> skip
            fi
         }
      fi
   od;
#endif

   /* poll phase */
   do
   :: seen = poll;
      if
      :: (seen & OPEN) == 0 ->
         /* a non-participant: a participant closed the poll */
         assert((seen & ~OPEN) >= 1);
         goto leave
      :: else ->
         atomic {
            if
            :: poll == seen -> poll = seen + 1; ticket = seen & ~OPEN; joined++; break
            :: else -> skip
            fi
         }
      fi
   od;

#ifndef MUTATE_NO_CLOSE
   /* closing phase */
   do
   :: seen = poll;
      if
      :: (seen & OPEN) == 0 -> break
      :: else ->
         atomic {
            if
            :: poll == seen -> poll = seen & ~OPEN; break
            :: else -> skip
            fi
         }
      fi
   od;
#endif

   seen = poll & ~OPEN; /* the final count */
   atomic {
      if
      :: M == 0 -> M = seen
      :: else -> skip
      fi
   }
   assert(M >= 1 && M <= SLOTS);
   assert(ticket < M);

   /* the kernel: one global barrier of the M participants */
   atomic { arrived++; assert(arrived <= M) }
   arrived >= M;
   assert(joined == M);

leave:
   atomic { slots++ }
}

init
{
   byte i;
   atomic {
      for (i : 1 .. N) {
         run WorkGroup()
      }
   }
}
