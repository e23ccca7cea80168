/*
 * zink's batch ids on two queues (0055, zink_cooperative_queue.c), for
 * spin. Ids come from one counter, in the order of one submitting thread;
 * each batch goes to the main queue or to the cooperative queue, and each
 * queue ends its batches in its own order, signalling its timeline
 * semaphore with the id of each (sem[q]). The two queues end theirs in no
 * order between them.
 *
 *   last_finished  every batch at or below it finished (zink's one
 *                  answer to "has X finished" before 0055)
 *   main_finished  the main queue's last finished batch, kept while a
 *                  cooperative batch is tracked
 *   tracked        the cooperative batches not yet passed by
 *                  last_finished, in id order, each with "finished"
 *
 * With none tracked, a check reads last_finished and an update raises it
 * (a compare-and-swap loop: it never lowers it); otherwise both take the
 * lock (d_step here). OBSERVERS threads each pick an id that exists and
 * wait for it as zink_coop_timeline_wait() does: check it; if it has not
 * finished, wait on the timeline that the tracked batches name for it, in
 * slices (a slice ends here when nothing else can move: spin's timeout),
 * checking again between them; once the wait succeeds, update with it.
 *
 * Checked: a check that says finished is right; a wait on a timeline
 * ends only once its batch finished; every batch at or below
 * last_finished finished; a wait whose slice ended with nothing else able
 * to move finds its batch finished at the next check, so no wait goes on
 * forever; valid end states.
 *
 * Mutations (tests/model/check.sh shows that spin catches each):
 *   MUTATE_NO_CLAMP     an update raises last_finished to main_finished
 *                       past a cooperative batch in flight
 *   MUTATE_MAIN_TIMELINE every wait waits on the main queue's timeline
 *   MUTATE_LOWERING     an update with none tracked writes what it read
 *                       before, raised, as zink's own update does: it can
 *                       lower last_finished below a batch no longer
 *                       tracked, whose wait then never ends
 */

#ifndef N
#define N 4
#endif
#ifndef OBSERVERS
#define OBSERVERS 2
#endif

#define MAIN 0
#define COOP 1

bool allocated[N + 1];
bool finished[N + 1];
byte sem[2];
byte last_finished;
byte main_finished;
byte tracked;
byte reg_id[N];
bool reg_done[N];
byte next_id = 1;
chan fifo[2] = [N] of { byte };

/* every batch at or below last_finished finished */
inline assert_watermark()
{
   k = 1;
   do
   :: k <= last_finished -> assert(finished[k]); k++
   :: else -> break
   od;
   k = 0
}

/* idx: x's entry, or tracked where x is not tracked */
inline find(x, idx)
{
   idx = 0;
   do
   :: idx < tracked && reg_id[idx] != x -> idx++
   :: else -> break
   od
}

/* zink_coop_update_finished's advance_last_finished(), under the lock */
inline advance()
{
   f = last_finished;
   blocked = false;
   i = 0;
   do
   :: i < tracked ->
      if
      :: reg_id[i] <= f -> skip
      :: else ->
         if
         :: reg_id[i] - 1 > f ->
            if
            :: reg_id[i] - 1 > main_finished ->
               if
               :: main_finished > f -> f = main_finished
               :: else -> skip
               fi;
               blocked = true;
               break
            :: else -> f = reg_id[i] - 1
            fi
         :: else -> skip
         fi;
         if
         :: !reg_done[i] ->
#ifdef MUTATE_NO_CLAMP
            f = (main_finished > f -> main_finished : f);
#endif
            blocked = true;
            break
         :: else -> f = reg_id[i]
         fi
      fi;
      i++
   :: else -> break
   od;
   if
   :: !blocked && main_finished > f -> f = main_finished
   :: else -> skip
   fi;
   last_finished = (f > last_finished -> f : last_finished);
   f = last_finished;
   assert_watermark();
   j = 0;
   i = 0;
   do
   :: i < tracked ->
      if
      :: reg_id[i] > f ->
         reg_id[j] = reg_id[i];
         reg_done[j] = reg_done[i];
         j++
      :: else -> skip
      fi;
      i++
   :: else -> break
   od;
   tracked = j
}

proctype submitter()
{
   byte id;
   do
   :: next_id <= N ->
      if
      :: d_step { id = next_id; next_id++; allocated[id] = true };
         fifo[MAIN]!id
      :: d_step {
            /* zink_coop_batch_register() */
            if
            :: tracked == 0 -> main_finished = last_finished
            :: else -> skip
            fi;
            id = next_id;
            next_id++;
            allocated[id] = true;
            reg_id[tracked] = id;
            reg_done[tracked] = false;
            tracked++
         };
         fifo[COOP]!id
      fi
   :: else -> break
   od
}

proctype queue(byte q)
{
   byte id;
end:
   do
   :: fifo[q]?id -> d_step { finished[id] = true; sem[q] = id }
   od
}

/* zink_coop_check_finished() */
inline check(x, r)
{
   t = tracked;
   if
   :: x <= last_finished -> r = true
   :: else ->
      if
      :: t == 0 -> r = false
      :: else -> d_step {
            r = (x <= last_finished);
            if
            :: !r ->
               find(x, i);
               if
               :: i < tracked -> r = reg_done[i]
               :: else -> r = (x <= main_finished)
               fi
            :: else -> skip
            fi
         }
      fi
   fi
}

proctype observer()
{
   byte x, q, i, j, k, f, t, retries;
   bool r, blocked;
   byte rounds = 0;
   do
   :: rounds < 2 ->
      rounds++;
      /* an id that exists */
      x = 1;
      do
      :: x < N -> x++
      :: break
      od;
      allocated[x];
      /* zink_coop_timeline_wait() */
      retries = 0;
      do
      :: check(x, r);
         if
         :: r -> assert(finished[x]); break
         :: else -> skip
         fi;
         /* batch_timeline() */
         t = tracked;
#ifdef MUTATE_MAIN_TIMELINE
         q = MAIN;
#else
         if
         :: t == 0 -> q = MAIN
         :: else -> d_step { find(x, i); q = (i < tracked -> COOP : MAIN) }
         fi;
#endif
         if
         :: sem[q] >= x ->
            assert(finished[x]);
            /* zink_coop_update_finished() */
            t = tracked;
            if
            :: t == 0 ->
#ifdef MUTATE_LOWERING
               f = last_finished;
               d_step { last_finished = (x > f -> x : f); assert_watermark() }
#else
               d_step {
                  last_finished = (x > last_finished -> x : last_finished);
                  assert_watermark()
               }
#endif
            :: else -> d_step {
                  find(x, i);
                  if
                  :: i < tracked -> reg_done[i] = true
                  :: else ->
                     if
                     :: x > main_finished -> main_finished = x
                     :: else -> skip
                     fi
                  fi;
                  advance()
               }
            fi;
            break
         :: timeout ->
            /* the slice ended with nothing else able to move: the next
             * check must answer, or this wait never ends */
            retries++;
            assert(retries < 2)
         fi
      od
   :: else -> break
   od
}

init
{
   byte o;
   atomic {
      run submitter();
      run queue(MAIN);
      run queue(COOP);
      o = 0;
      do
      :: o < OBSERVERS -> run observer(); o++
      :: else -> break
      od
   }
}
