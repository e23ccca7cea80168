// Game-tree search by work stealing (the FSE'17 "game" application, after
// Cederman and Tsigas's four-in-a-row search) as a cooperative kernel: the
// exhaustive negamax value of a Connect Four position (7 columns, 6 rows)
// searched to a fixed depth, with the number of leaves and the sum of their
// values as checks.
//
// Positions are bitboards as in Pascal Pons's solver: bit 7 * column + row,
// `mask` the occupied cells, `cur` the stones of the player to move. A node
// is a leaf when the player who just moved has four in a row (value
// -GAME_WIN for the player to move), when the board is full (0), or at depth
// `max_depth` (a heuristic: the weights of the cells of the player to move
// minus the opponent's, each weight the number of lines of four through the
// cell, given as four bit planes). Any other node is worth the maximum over
// its children of minus the child's value.
//
// A task is a tree node (uint4 (node, depth, 0, 0); the position and the
// links live in the node pool). Thread 0 expands a task above depth `split`:
// it scores its leaf children at once, takes pool nodes for the others and
// pushes them as tasks. A task at depth `split` is searched by the whole
// work-group: work-item i (strided) takes grandchild (i / 7, i % 7) and
// searches below it sequentially. A finished node passes minus its value to
// its parent's best (atomic_max) and decrements the parent's pending count;
// the one that takes it to zero finishes the parent, up to the root, whose
// value lands in counters[GAME_ROOT_VALUE].
//
// The queues, the locks and the termination count are those of octree.cl
// (each work-group serves the queue at its group id, steals from every queue
// of the launch, offers to be killed only between tasks, transmits nothing).
//
// counters: [0] outstanding tasks, [1] queue overflows, [2] set once no
// task is left, [3] leaves, [4] sum of leaf values (mod 2^32), [5] root
// value, [6] pool nodes taken, [7] pool overflows.

#define CK_OUTSTANDING 0
#define CK_OVERFLOWS 1
#define CK_FINISHED 2
#define GAME_LEAVES 3
#define GAME_LEAF_SUM 4
#define GAME_ROOT_VALUE 5
#define GAME_POOL_USED 6
#define GAME_POOL_OVERFLOWS 7

#define GAME_WIDTH 7
#define GAME_HEIGHT 6
#define GAME_CELLS 42
#define GAME_WIN 1000
#define GAME_NONE (-1000000)
#define GAME_MAX_SEARCH 16 // plies a work-item searches below a grandchild

inline void queue_lock(volatile global uint *lock)
{
   while (atomic_cmpxchg(lock, 0u, 1u) != 0u)
      ;
   mem_fence(CLK_GLOBAL_MEM_FENCE);
}

inline void queue_unlock(volatile global uint *lock)
{
   mem_fence(CLK_GLOBAL_MEM_FENCE);
   atomic_xchg(lock, 0u);
}

// Thread 0 only: pops the newest task of queue q, or steals the oldest task
// of another queue. Returns 0 when every queue was empty.
inline uint pop_or_steal(volatile global uint *lock, volatile global uint *head,
                         volatile global uint *tail, volatile global uint4 *tasks, uint queues,
                         uint capacity, uint q, uint4 *task)
{
   uint found = 0;
   queue_lock(&lock[q]);
   uint h = head[q], t = tail[q];
   if (t != h) {
      t--;
      *task = tasks[q * capacity + t % capacity];
      tail[q] = t;
      found = 1;
   }
   queue_unlock(&lock[q]);
   for (uint i = 1; i < queues && !found; ++i) {
      uint v = (q + i) % queues;
      if (atomic_add(&head[v], 0u) == atomic_add(&tail[v], 0u))
         continue; // empty: not worth the lock
      queue_lock(&lock[v]);
      h = head[v];
      t = tail[v];
      if (t != h) {
         *task = tasks[v * capacity + h % capacity];
         head[v] = h + 1;
         found = 1;
      }
      queue_unlock(&lock[v]);
   }
   return found;
}

// popcount() is OpenCL C 1.2; Clover compiles OpenCL C 1.1 by default.
inline int bit_count(ulong x)
{
   x = x - ((x >> 1) & 0x5555555555555555ul);
   x = (x & 0x3333333333333333ul) + ((x >> 2) & 0x3333333333333333ul);
   x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0ful;
   return (int)((x * 0x0101010101010101ul) >> 56);
}

inline bool can_play(ulong mask, uint column)
{
   return (mask & (1ul << (column * 7u + (GAME_HEIGHT - 1u)))) == 0ul;
}

// Plays `column`: afterwards *cur holds the stones of the next player to move.
inline void play(ulong *cur, ulong *mask, uint column)
{
   *cur ^= *mask;
   *mask |= *mask + (1ul << (column * 7u));
}

inline bool four_in_a_row(ulong stones)
{
   ulong m = stones & (stones >> 7);
   if (m & (m >> 14))
      return true;
   m = stones & (stones >> 6);
   if (m & (m >> 12))
      return true;
   m = stones & (stones >> 8);
   if (m & (m >> 16))
      return true;
   m = stones & (stones >> 1);
   return (m & (m >> 2)) != 0ul;
}

inline int heuristic(ulong cur, ulong opp, ulong4 planes)
{
   return (int)(bit_count(cur & planes.x) - bit_count(opp & planes.x)) +
          2 * (int)(bit_count(cur & planes.y) - bit_count(opp & planes.y)) +
          4 * (int)(bit_count(cur & planes.z) - bit_count(opp & planes.z)) +
          8 * (int)(bit_count(cur & planes.w) - bit_count(opp & planes.w));
}

// Whether the node reached with `plies_left` plies of search left is a leaf,
// and then its value in *value.
inline bool leaf_value(ulong cur, ulong mask, uint plies_left, ulong4 planes, int *value)
{
   if (four_in_a_row(cur ^ mask)) {
      *value = -GAME_WIN;
      return true;
   }
   if (bit_count(mask) == GAME_CELLS) {
      *value = 0;
      return true;
   }
   if (plies_left == 0u) {
      *value = heuristic(cur, cur ^ mask, planes);
      return true;
   }
   return false;
}

// Sequential negamax of the node (cur, mask), searched `plies_left` plies
// deep, counting its leaves and their values.
int search(ulong cur, ulong mask, uint plies_left, ulong4 planes, uint *leaves, uint *sum)
{
   int value;
   if (leaf_value(cur, mask, plies_left, planes, &value)) {
      *leaves += 1u;
      *sum += (uint)value;
      return value;
   }
   ulong stack_cur[GAME_MAX_SEARCH], stack_mask[GAME_MAX_SEARCH];
   int stack_best[GAME_MAX_SEARCH];
   uint stack_column[GAME_MAX_SEARCH];
   uint sp = 0;
   stack_cur[0] = cur;
   stack_mask[0] = mask;
   stack_best[0] = GAME_NONE;
   stack_column[0] = 0;
   for (;;) {
      const uint column = stack_column[sp];
      if (column == GAME_WIDTH) {
         value = stack_best[sp];
         if (sp == 0u)
            return value;
         sp--;
         stack_best[sp] = max(stack_best[sp], -value);
         continue;
      }
      stack_column[sp] = column + 1u;
      ulong c = stack_cur[sp], m = stack_mask[sp];
      if (!can_play(m, column))
         continue;
      play(&c, &m, column);
      if (leaf_value(c, m, plies_left - sp - 1u, planes, &value)) {
         *leaves += 1u;
         *sum += (uint)value;
         stack_best[sp] = max(stack_best[sp], -value);
         continue;
      }
      sp++;
      stack_cur[sp] = c;
      stack_mask[sp] = m;
      stack_best[sp] = GAME_NONE;
      stack_column[sp] = 0;
   }
}

kernel void game(volatile global uint *lock, volatile global uint *head,
                 volatile global uint *tail, volatile global uint4 *tasks, uint queues,
                 uint capacity, volatile global uint *counters, global ulong *node_cur,
                 global ulong *node_mask, global uint *node_parent,
                 volatile global uint *node_pending, volatile global int *node_best,
                 uint pool_size, uint split, uint max_depth, ulong4 planes CK_SYNC_PARAM)
{
   local uint4 shared_task;
   local uint shared_found, shared_finished;
   local int child_value[GAME_WIDTH], grandchild_value[GAME_WIDTH * GAME_WIDTH];
   local uint child_kind[GAME_WIDTH]; // 0: no move, 1: leaf, 2: searched below
   local uint grandchild_valid[GAME_WIDTH * GAME_WIDTH];
   local uint group_leaves, group_sum;
   for (;;) {
      offer_kill();
      request_fork();
      // Ids are read after the fork point: a forked work-group starts here
      // with every variable undefined, and serves its own queue. Whether
      // the kernel is finished comes to the work-group straight from an
      // atomic on global memory (not through thread 0's private variables),
      // so the compiler sees that the loop around offer_kill and
      // request_fork exits uniformly.
      const uint lid = get_local_id(0), lsize = get_local_size(0);
      if (lid == 0) {
         uint4 task = (uint4)(0u, 0u, 0u, 0u);
         uint found = pop_or_steal(lock, head, tail, tasks, queues, capacity, get_group_id(0),
                                   &task);
         if (!found && atomic_add(&counters[CK_OUTSTANDING], 0u) == 0u)
            atomic_xchg(&counters[CK_FINISHED], 1u); // no task left, none can come
         shared_task = task;
         shared_found = found;
         group_leaves = 0;
         group_sum = 0;
         shared_finished = atomic_or(&counters[CK_FINISHED], 0u);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      const uint finished = shared_finished;
      const uint found = shared_found;
      const uint4 task = shared_task;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (finished)
         break;
      if (!found)
         continue;

      const uint node = task.x, depth = task.y;
      const ulong cur = node_cur[node], mask = node_mask[node];
      // The node's value once known (thread 0), GAME_NONE while children
      // are still pending.
      int done_value = GAME_NONE;
      if (depth < split) {
         if (lid == 0) {
            int best = GAME_NONE;
            uint open = 0, leaves = 0, sum = 0;
            ulong open_cur[GAME_WIDTH], open_mask[GAME_WIDTH];
            for (uint column = 0; column < GAME_WIDTH; ++column) {
               if (!can_play(mask, column))
                  continue;
               ulong c = cur, m = mask;
               play(&c, &m, column);
               int value;
               if (leaf_value(c, m, max_depth - depth - 1u, planes, &value)) {
                  leaves++;
                  sum += (uint)value;
                  best = max(best, -value);
               } else {
                  open_cur[open] = c;
                  open_mask[open] = m;
                  open++;
               }
            }
            atomic_add(&counters[GAME_LEAVES], leaves);
            atomic_add(&counters[GAME_LEAF_SUM], sum);
            uint first = atomic_add(&counters[GAME_POOL_USED], open);
            if (first + open > pool_size) {
               atomic_inc(&counters[GAME_POOL_OVERFLOWS]);
               open = 0;
            }
            if (open == 0u) {
               done_value = best;
            } else {
               // The node's best and pending count are in place before any
               // child can finish.
               atomic_xchg(&node_best[node], best);
               atomic_xchg(&node_pending[node], open);
               for (uint i = 0; i < open; ++i) {
                  node_cur[first + i] = open_cur[i];
                  node_mask[first + i] = open_mask[i];
                  node_parent[first + i] = node;
               }
               atomic_add(&counters[CK_OUTSTANDING], open);
               const uint q = get_group_id(0);
               queue_lock(&lock[q]);
               uint t = tail[q];
               const uint h = head[q];
               for (uint i = 0; i < open; ++i) {
                  if (t - h >= capacity) {
                     atomic_inc(&counters[CK_OVERFLOWS]);
                     atomic_dec(&counters[CK_OUTSTANDING]);
                     continue;
                  }
                  tasks[q * capacity + t % capacity] = (uint4)(first + i, depth + 1u, 0u, 0u);
                  t++;
               }
               tail[q] = t;
               queue_unlock(&lock[q]);
            }
         }
      } else {
         // The whole work-group searches below the node's grandchildren.
         uint leaves = 0, sum = 0;
         for (uint i = lid; i < GAME_WIDTH * GAME_WIDTH; i += lsize) {
            const uint column = i / GAME_WIDTH, reply = i % GAME_WIDTH;
            uint valid = 0;
            int value = 0;
            if (can_play(mask, column)) {
               ulong c = cur, m = mask;
               play(&c, &m, column);
               if (leaf_value(c, m, max_depth - depth - 1u, planes, &value)) {
                  if (reply == 0u) {
                     child_kind[column] = 1;
                     child_value[column] = value;
                     leaves++;
                     sum += (uint)value;
                  }
               } else {
                  if (reply == 0u)
                     child_kind[column] = 2;
                  if (can_play(m, reply)) {
                     play(&c, &m, reply);
                     value = search(c, m, max_depth - depth - 2u, planes, &leaves, &sum);
                     valid = 1;
                  }
               }
            } else if (reply == 0u) {
               child_kind[column] = 0;
            }
            grandchild_valid[i] = valid;
            grandchild_value[i] = value;
         }
         if (leaves != 0u) {
            atomic_add(&group_leaves, leaves);
            atomic_add(&group_sum, sum);
         }
         barrier(CLK_LOCAL_MEM_FENCE);
         if (lid == 0) {
            atomic_add(&counters[GAME_LEAVES], group_leaves);
            atomic_add(&counters[GAME_LEAF_SUM], group_sum);
            int best = GAME_NONE;
            for (uint column = 0; column < GAME_WIDTH; ++column) {
               int value = GAME_NONE;
               if (child_kind[column] == 1u) {
                  value = child_value[column];
               } else if (child_kind[column] == 2u) {
                  for (uint reply = 0; reply < GAME_WIDTH; ++reply)
                     if (grandchild_valid[column * GAME_WIDTH + reply])
                        value = max(value, -grandchild_value[column * GAME_WIDTH + reply]);
               } else {
                  continue;
               }
               best = max(best, -value);
            }
            done_value = best;
         }
      }
      // Thread 0 finishes the node and every ancestor it completes.
      if (lid == 0) {
         uint n = node;
         int value = done_value;
         while (value != GAME_NONE) {
            if (n == 0u) {
               atomic_xchg((volatile global int *)&counters[GAME_ROOT_VALUE], value);
               break;
            }
            const uint parent = node_parent[n];
            atomic_max(&node_best[parent], -value);
            mem_fence(CLK_GLOBAL_MEM_FENCE); // the best before the count that reveals it
            if (atomic_dec(&node_pending[parent]) != 1u)
               break;
            n = parent;
            value = atomic_add(&node_best[parent], 0);
         }
         atomic_dec(&counters[CK_OUTSTANDING]); // after its children were counted
      }
      barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
   }
}
