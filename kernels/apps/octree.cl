// Octree partitioning by work stealing (Cederman and Tsigas; the FSE'17
// "octree" application) as a cooperative kernel.
//
// A task is an octree cell and the range of point indices in it: uint4
// (code, start, count, 0). The cell code is a 1 followed by three bits per
// level (the octant taken at each level, x | y << 1 | z << 2), so the root is
// 1 and the depth is (31 - clz(code)) / 3. A task with more than `threshold`
// points, above `max_depth`, buckets its points into the eight children (from
// idx_a into idx_b at even depths, the other way at odd ones: the ranges of
// the tasks in flight are disjoint), writes the cell code of each child that
// is a leaf (at most `threshold` points, or at `max_depth`) for each of its
// points, and pushes the other non-empty children as new tasks. Only a root
// that is a leaf is written as a task of its own.
//
// Every work-group owns the queue at its group id, locked by a spin lock;
// its own thread 0 pops from the tail, and when the queue is empty steals
// from the head of the others, over every queue that the launch has
// (`queues`, the N work-groups asked for, not get_num_groups(): killed
// work-groups leave their tasks there, and forked ones take their queue
// back). counters[0] counts the tasks pushed and not yet finished; the kernel
// ends when it reaches 0. Nothing is transmitted: a forked work-group starts
// the main loop afresh, and a work-group only offers to be killed between
// tasks, holding no lock.
//
// counters: [0] outstanding tasks, [1] queue overflows (a push that found
// the queue full: the result is then wrong), [2] set once no task is left,
// [3] leaves, [4] points in leaves.

#define CK_OUTSTANDING 0
#define CK_OVERFLOWS 1
#define CK_FINISHED 2
#define OCTREE_LEAVES 3
#define OCTREE_LEAF_POINTS 4

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

inline uint cell_depth(uint code)
{
   return (31u - clz(code)) / 3u;
}

// 2^-e as a float, exactly (0 <= e < 126).
inline float pow2_neg(uint e)
{
   return as_float((127u - e) << 23);
}

// The octant of p in the cell with the given code and depth, split at its
// centre. Cell coordinates are integers below 2^depth and centres are exact.
inline uint octant(float4 p, uint code, uint depth)
{
   uint cx = 0, cy = 0, cz = 0;
   for (uint level = depth; level > 0; --level) {
      uint k = (code >> (3u * (level - 1u))) & 7u;
      cx = cx * 2u + (k & 1u);
      cy = cy * 2u + ((k >> 1) & 1u);
      cz = cz * 2u + (k >> 2);
   }
   float scale = pow2_neg(depth + 1u);
   return (p.x >= (float)(2u * cx + 1u) * scale ? 1u : 0u) |
          (p.y >= (float)(2u * cy + 1u) * scale ? 2u : 0u) |
          (p.z >= (float)(2u * cz + 1u) * scale ? 4u : 0u);
}

kernel void octree(volatile global uint *lock, volatile global uint *head,
                   volatile global uint *tail, volatile global uint4 *tasks, uint queues,
                   uint capacity, volatile global uint *counters,
                   global const float4 *points, global uint *idx_a, global uint *idx_b,
                   global uint *leaf_of, uint threshold, uint max_depth CK_SYNC_PARAM)
{
   local uint4 shared_task;
   local uint shared_found, shared_finished;
   local uint bucket_count[8], bucket_start[8], bucket_next[8];
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

      const uint code = task.x, start = task.y, count = task.z;
      const uint depth = cell_depth(code);
      global const uint *src = (depth & 1u) ? idx_b : idx_a;
      global uint *dst = (depth & 1u) ? idx_a : idx_b;
      if (count > threshold && depth < max_depth) {
         for (uint k = lid; k < 8u; k += lsize)
            bucket_count[k] = 0;
         barrier(CLK_LOCAL_MEM_FENCE);
         for (uint i = lid; i < count; i += lsize)
            atomic_inc(&bucket_count[octant(points[src[start + i]], code, depth)]);
         barrier(CLK_LOCAL_MEM_FENCE);
         if (lid == 0) {
            uint offset = start;
            for (uint k = 0; k < 8u; ++k) {
               bucket_start[k] = offset;
               bucket_next[k] = offset;
               offset += bucket_count[k];
            }
         }
         barrier(CLK_LOCAL_MEM_FENCE);
         for (uint i = lid; i < count; i += lsize) {
            uint p = src[start + i];
            dst[atomic_inc(&bucket_next[octant(points[p], code, depth)])] = p;
         }
         // The children's points are in place before any of them is pushed.
         barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
         // Children that are leaves are finished here rather than queued:
         // they are most of the tree, and each would be a whole iteration
         // of the main loop for at most `threshold` points.
         const uint leaf_limit = depth + 1u < max_depth ? threshold : 0xffffffffu;
         for (uint k = 0; k < 8u; ++k)
            if (bucket_count[k] <= leaf_limit)
               for (uint i = lid; i < bucket_count[k]; i += lsize)
                  leaf_of[dst[bucket_start[k] + i]] = code * 8u + k;
         if (lid == 0) {
            uint children = 0, leaves = 0, leaf_points = 0;
            for (uint k = 0; k < 8u; ++k) {
               if (bucket_count[k] > leaf_limit) {
                  children++;
               } else if (bucket_count[k] != 0u) {
                  leaves++;
                  leaf_points += bucket_count[k];
               }
            }
            atomic_add(&counters[OCTREE_LEAVES], leaves);
            atomic_add(&counters[OCTREE_LEAF_POINTS], leaf_points);
            atomic_add(&counters[CK_OUTSTANDING], children);
            const uint q = get_group_id(0);
            queue_lock(&lock[q]);
            uint t = tail[q];
            const uint h = head[q];
            for (uint k = 0; k < 8u; ++k) {
               if (bucket_count[k] <= leaf_limit)
                  continue;
               if (t - h >= capacity) {
                  atomic_inc(&counters[CK_OVERFLOWS]);
                  atomic_dec(&counters[CK_OUTSTANDING]);
                  continue;
               }
               tasks[q * capacity + t % capacity] =
                  (uint4)(code * 8u + k, bucket_start[k], bucket_count[k], 0u);
               t++;
            }
            tail[q] = t;
            queue_unlock(&lock[q]);
         }
      } else {
         for (uint i = lid; i < count; i += lsize)
            leaf_of[src[start + i]] = code;
         if (lid == 0) {
            atomic_inc(&counters[OCTREE_LEAVES]);
            atomic_add(&counters[OCTREE_LEAF_POINTS], count);
         }
      }
      barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
      if (lid == 0)
         atomic_dec(&counters[CK_OUTSTANDING]); // after its children were counted
   }
}
