/*!
[config]
name: cooperative kernels: get_num_groups and get_global_size around offer_kill and request_fork
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels

[test]
name: 8 work-groups of 8, 300 turns of an offer to be killed and a fork
kernel_name: kill_fork_views
dimensions: 1
global_size: 64 0 0
local_size: 8 0 0
arg_in:  0 buffer uint[16] repeat 0
arg_in:  1 buffer uint[8] repeat 0
arg_out: 1 buffer uint[8] 0 0 0 0 0 0 0 1
arg_in:  2 uint 300
!*/

// covers: 6-ndrange 10.1-active-ids 10.1-global-size 10.1-size-change-points
// covers: 10.4-workitem-functions

/* The active work-groups take turns under a lock in global memory; only the
 * holder calls offer_kill and request_fork, so M changes only within a turn
 * and the kernel knows at every turn which M the spec allows: the M the
 * previous turn left (MODEL_M), whichever work-group killed or forked.
 * A turn: the holder checks M; if it is the last active work-group (and not
 * work-group 0) it offers to be killed; if it survives, M must not have
 * changed; it forks, and waits until every forked work-group has checked in
 * with the M and ids it sees at its start. A holder killed at its offer_kill
 * never frees the lock: the first work-group that sees M at or below the
 * holder's id takes its turn over, and M must then be exactly that id.
 * errors[]:
 *   0  an active work-group whose id is not below get_num_groups(0), or
 *      get_num_groups(0) above N (at its start, while it waits, at its turn)
 *   1  at the start of a turn, get_num_groups(0) is not the M the previous
 *      turn left (after other work-groups' kills and forks)
 *   2  get_global_size(0) != M * get_local_size(0) at a turn
 *   3  M is not h after work-group h was killed at its offer_kill
 *   4  M or the global size changed at the work-group's own offer_kill that
 *      it survived
 *   5  the forker's M after request_fork is below M or above N, or differs
 *      from what its forked work-groups saw
 *   6  a forked work-group's id is outside [M, M'), or at its start
 *      get_num_groups(0) != M', get_global_size(0) != M' * local size, or
 *      get_global_id(0), get_local_size(0) are not its own
 *   7  1 once every turn was taken (work-group 0, which is never killed)
 * Under CK_POLICY=random:SEED every turn's kill and fork are drawn, and the
 * profile requires each launch to kill and fork. */
#define N_GROUPS 8u
#define LOCAL_SIZE 8u
enum { LOCK, MODEL_M, JOINED, SEEN };
enum { E_ID, E_TURN_M, E_GLOBAL_SIZE, E_KILLED_M, E_SURVIVED, E_FORK, E_JOINED, DONE };

void count(global uint *errors, uint which)
{
   atomic_inc(&errors[which]);
}

/* Local work-item 0: an active work-group's id is below M, and M <= N. */
void check_active(global uint *errors)
{
   const uint m = get_num_groups(0);
   if (get_group_id(0) >= m || m > N_GROUPS)
      count(errors, E_ID);
}

/* Local work-item 0 takes a turn: sets *got to 1, or to 0 once `turns`
 * turns were taken. The lock word holds the turns taken (bits 8 and up) and
 * the holder's id + 1 (0: free); the count keeps a later holder's word from
 * reading as an earlier one's. (The answer goes straight to local memory:
 * the build's uniformity check counts a private variable that only work-item
 * 0 writes as id-dependent, even when it is broadcast.) The turns go
 * round: a work-group waits for M - 1 turns of others after its own (*last:
 * the turns taken once it took its last one; ~0 before its first), so that
 * the last active work-group gets its turns too. Of M distinct last turns
 * the oldest is at least M - 1 turns old, so some work-group may go. */
void take_turn(global uint *state, global uint *errors, uint turns, local uint *got,
               local uint *last)
{
   const uint me = get_group_id(0) + 1;
   for (;;) {
      const uint word = atomic_or(&state[LOCK], 0);
      const uint taken = word >> 8, holder = word & 0xffu;
      check_active(errors);
      if (holder == 0) {
         if (taken >= turns) {
            *got = 0;
            return;
         }
         if ((*last == ~0u || taken + 1 >= *last + get_num_groups(0)) &&
             atomic_cmpxchg(&state[LOCK], word, ((taken + 1) << 8) | me) == word) {
            *got = 1;
            *last = taken + 1;
            return;
         }
      } else if (get_num_groups(0) < holder) {
         /* Work-group holder - 1 is no longer active: it was killed at its
            offer_kill, as the last active work-group. */
         if (atomic_cmpxchg(&state[LOCK], word, ((taken + 1) << 8) | me) == word) {
            if (get_num_groups(0) != holder - 1)
               count(errors, E_KILLED_M);
            atomic_xchg(&state[MODEL_M], holder - 1);
            *got = 1;
            *last = taken + 1;
            return;
         }
      }
   }
}

kernel void kill_fork_views(global uint *state, global uint *errors, uint turns)
{
   transmit uint forker;
   transmit uint m_before;
   local uint got_turn, last_turn, turn_m;
   forker = get_group_id(0);
   m_before = 0;
   if (get_local_id(0) == 0) {
      last_turn = ~0u;
      check_active(errors);
   }
   for (;;) {
      /* M as local work-item 0 read it after taking the turn, broadcast:
         read by each work-item, M could differ between them, so the
         build rejects offer_kill under a condition on get_num_groups(0). */
      if (get_local_id(0) == 0) {
         take_turn(state, errors, turns, &got_turn, &last_turn);
         turn_m = get_num_groups(0);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      const uint turn = got_turn;
      const uint m = turn_m;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (turn == 0)
         break;
      const uint g = get_group_id(0);
      if (get_local_id(0) == 0) {
         const uint model = atomic_or(&state[MODEL_M], 0);
         if (model != 0 && model != m)
            count(errors, E_TURN_M);
         if (g >= m || m > N_GROUPS)
            count(errors, E_ID);
         if (get_global_size(0) != m * get_local_size(0))
            count(errors, E_GLOBAL_SIZE);
      }
      if (g != 0 && g + 1 == m) {
         offer_kill();
         if (get_local_id(0) == 0 &&
             (get_num_groups(0) != m || get_global_size(0) != m * get_local_size(0)))
            count(errors, E_SURVIVED);
      }
      if (get_local_id(0) == 0) {
         atomic_xchg(&state[JOINED], 0);
         for (uint s = 0; s < N_GROUPS; ++s)
            atomic_xchg(&state[SEEN + s], 0);
      }
      forker = g;
      m_before = m;
      request_fork();
      if (get_group_id(0) != forker) {
         /* A forked work-group, at its start. */
         const uint id = get_group_id(0);
         const uint m_now = get_num_groups(0);
         if (id < m_before || id >= m_now || m_now > N_GROUPS ||
             get_global_size(0) != m_now * get_local_size(0) ||
             get_local_size(0) != LOCAL_SIZE ||
             get_global_id(0) != id * LOCAL_SIZE + get_local_id(0))
            count(errors, E_JOINED);
         barrier(CLK_GLOBAL_MEM_FENCE);
         if (get_local_id(0) == 0 && id < N_GROUPS) {
            last_turn = ~0u;
            atomic_xchg(&state[SEEN + id], m_now);
            atomic_inc(&state[JOINED]);
         }
         continue;
      }
      const uint m_after = get_num_groups(0);
      if (get_local_id(0) == 0) {
         if (m_after < m_before || m_after > N_GROUPS)
            count(errors, E_FORK);
         while (m_after > m_before && atomic_or(&state[JOINED], 0) < m_after - m_before)
            ;
         for (uint s = 0; s < N_GROUPS; ++s) {
            const uint saw = atomic_or(&state[SEEN + s], 0);
            if (saw != (s >= m_before && s < m_after ? m_after : 0))
               count(errors, E_FORK);
         }
         if (get_num_groups(0) != m_after)
            count(errors, E_FORK);
         atomic_xchg(&state[MODEL_M], m_after);
         atomic_and(&state[LOCK], ~0xffu);
      }
      barrier(CLK_GLOBAL_MEM_FENCE);
   }
   if (get_group_id(0) == 0 && get_local_id(0) == 0)
      errors[DONE] = (atomic_or(&state[LOCK], 0) >> 8) >= turns;
}
