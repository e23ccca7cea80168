// A C++ simulation of the kernel side of cooperative kernels: the protocol
// that the compiler generates on the launch context (ck/context.h; see
// src/compiler/Lowering.cpp), for
// work-groups of one thread each, so that the scheduler can be tested
// without a device. Waits back off like the driver's waits do.
#pragma once

#include "backoff.hpp"
#include "ck/context.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

namespace ck::sim {

// A launch context buffer of ck_context_bytes(max_groups) bytes.
class Context {
public:
   explicit Context(uint32_t max_groups) : words_(ck_context_bytes(max_groups) / 4) {}

   uint32_t *data() { return words_.data(); }

   std::atomic_ref<uint32_t> word(ck_context_word word) { return std::atomic_ref(words_[word]); }

   std::atomic_ref<uint32_t> slot_word(uint32_t group, unsigned byte_offset)
   {
      return std::atomic_ref(words_[CK_HEADER_WORDS + (group * CK_SLOT_BYTES + byte_offset) / 4]);
   }

private:
   std::vector<uint32_t> words_;
};

// One work-group of a cooperative kernel.
class WorkGroup {
public:
   WorkGroup(Context &context, uint32_t id) : context_(context), id_(id) {}
   WorkGroup(const WorkGroup &) = delete;
   WorkGroup &operator=(const WorkGroup &) = delete;
   // A work-group that was not killed returns from the kernel function:
   // it raises CK_RETURNED_END, as the compiled kernel's returns do.
   ~WorkGroup()
   {
      if (killed_)
         return;
      auto returned_end = context_.word(CK_RETURNED_END);
      uint32_t end = returned_end.load();
      while (end < id_ + 1 && !returned_end.compare_exchange_weak(end, id_ + 1))
         ;
   }

   uint32_t id() const { return id_; }
   // get_num_groups(0): M.
   uint32_t num_groups() { return context_.word(CK_ACTIVE_GROUPS).load(); }
   // 0 for a work-group that starts at the top of the kernel, else the
   // resume id of the fork point where it joins.
   uint32_t resume_point() { return context_.slot_word(id_, CK_SLOT_RESUME_POINT).load(); }

   template <typename Record>
   Record transmitted()
   {
      static_assert(std::is_trivially_copyable_v<Record> && sizeof(Record) % 4 == 0 &&
                    sizeof(Record) <= CK_TRANSMIT_MAX_BYTES);
      uint32_t words[sizeof(Record) / 4];
      for (unsigned i = 0; i < sizeof(Record) / 4; ++i)
         words[i] = context_.slot_word(id_, CK_SLOT_TRANSMIT + 4 * i).load();
      Record record;
      std::memcpy(&record, words, sizeof(Record));
      return record;
   }

   // True: the scheduler killed this work-group, which must return now.
   bool offer_kill()
   {
      if (context_.word(CK_KILL_REQUESTS).load() == 0)
         return false;
      return kill_slow_path(/*may_refuse=*/true);
   }

   // Returns k, the number of work-groups forked; they start at resume_id
   // with `transmit` as their record.
   template <typename Record>
   uint32_t request_fork(uint32_t resume_id, const Record &transmit)
   {
      const Forks forks = reserve_forks();
      publish_forks(forks, resume_id, transmit);
      return forks.count;
   }

   // Deviation from the protocol as first specified, which counted arrivals
   // in CK_BARRIER_ARRIVED and released by CAS(arrived -> 0) then bumping a
   // separate generation word (header word 5): a waiter delayed between
   // reading `arrived` and its CAS could succeed against the *next*
   // barrier's count when forks had raised M in between (ABA), releasing
   // that barrier early (wrong results in about 1 of 50 relaxation runs).
   // Here the generation lives in the high bits of the same word
   // (CK_BARRIER_GENERATION_SHIFT), so a stale CAS fails; word 5 is unused.
   void global_barrier()
   {
      auto barrier = context_.word(CK_BARRIER_ARRIVED);
      const uint32_t generation = barrier.fetch_add(1) >> CK_BARRIER_GENERATION_SHIFT;
      Backoff backoff;
      for (;;) {
         uint32_t state = barrier.load();
         if (state >> CK_BARRIER_GENERATION_SHIFT != generation)
            return;
         // M can drop while we wait: the top work-group may be killed.
         const uint32_t arrived = state & CK_BARRIER_COUNT_MASK;
         if (arrived >= context_.word(CK_ACTIVE_GROUPS).load() &&
             barrier.compare_exchange_strong(state, (generation + 1) << CK_BARRIER_GENERATION_SHIFT))
            return;
         backoff.pause();
      }
   }

   // True: killed. Work-groups forked here start at resume_id and call
   // join_resizing_barrier().
   //
   // Deviation from the protocol as first specified (a global barrier, fork
   // and publish W, a global barrier, kills, a third global barrier): three
   // global barriers where the kernel resizes nothing at all made every
   // resizing barrier cost three (the applications ran 1.3x slower than
   // their persistent-thread versions). Work-group 0 now releases the first
   // barrier itself, once it has reserved the forks and published F and
   // whether anything is to be killed; only then do the kill phase and a
   // second barrier run. Forks are published after the release, so that no
   // new work-group arrives at the barrier being released.
   template <typename Record>
   bool resizing_global_barrier(uint32_t resume_id, const Record &transmit)
   {
      auto barrier = context_.word(CK_BARRIER_ARRIVED);
      const uint32_t generation = barrier.fetch_add(1) >> CK_BARRIER_GENERATION_SHIFT;
      Backoff backoff;
      if (id_ == 0) {
         // M can drop while we wait: the top work-group may be killed.
         while ((barrier.load() & CK_BARRIER_COUNT_MASK) <
                context_.word(CK_ACTIVE_GROUPS).load())
            backoff.pause();
         const Forks forks = reserve_forks();
         const uint32_t kills = random_choice(context_.word(CK_KILL_REQUESTS).load());
         const uint32_t active = context_.word(CK_ACTIVE_GROUPS).load();
         context_.word(CK_RESIZE_FIRST_DOOMED).store(active > kills ? active - kills : 0);
         context_.word(CK_RESIZE_DECISION).store(kills != 0);
         barrier.store((generation + 1) << CK_BARRIER_GENERATION_SHIFT);
         publish_forks(forks, resume_id, transmit);
      } else {
         while (barrier.load() >> CK_BARRIER_GENERATION_SHIFT == generation)
            backoff.pause();
      }
      return join_resizing_barrier();
   }

   // The rest of a resizing barrier, from where forked work-groups join it:
   // if work-group 0 decided on kills, the kill phase and a global barrier
   // that completes only once M has dropped to the survivors (so that
   // get_num_groups() right after the barrier never counts doomed
   // work-groups, whose share of the work would be lost).
   bool join_resizing_barrier()
   {
      if (context_.word(CK_RESIZE_DECISION).load() == 0)
         return false;
      if (resize_kills())
         return true;
      global_barrier();
      return false;
   }

   // Work-groups [F, M), never work-group 0, offer to be killed until
   // they are, no kill is requested any more, or F is CK_RESIZE_NONE_DOOMED.
   //
   // Deviation from the protocol as first specified (offer while kills are
   // requested): when the top work-group stopped un-killed because
   // CK_KILL_REQUESTS dropped to 0 and new requests arrived before a lower
   // doomed work-group saw the 0, that one spun forever: only the top
   // work-group can be killed, and it waits at the next barrier. Here a
   // work-group that stops un-killed sets F to CK_RESIZE_NONE_DOOMED, which
   // stops the others.
   //
   // Deviation from the protocol as first specified (W published, [M - W,
   // M) doomed): a work-group that read M after the top ones were killed
   // counted itself doomed, and when one above it had not (it had read M
   // earlier) it waited forever to become the top one. F is fixed while M
   // is stable.
   bool resize_kills()
   {
      if (id_ == 0 || id_ < context_.word(CK_RESIZE_FIRST_DOOMED).load())
         return false;
      Backoff backoff;
      while (context_.word(CK_KILL_REQUESTS).load() != 0 &&
             context_.word(CK_RESIZE_FIRST_DOOMED).load() != CK_RESIZE_NONE_DOOMED) {
         if (kill_slow_path(/*may_refuse=*/false))
            return true;
         backoff.pause();
      }
      context_.word(CK_RESIZE_FIRST_DOOMED).store(CK_RESIZE_NONE_DOOMED);
      return false;
   }

private:
   struct Forks {
      uint32_t first = 0, count = 0;
   };

   // Takes the fork offers, keeps k of them and reserves ids [M, M + k).
   Forks reserve_forks()
   {
      if (context_.word(CK_FORK_OFFERS).load() == 0)
         return {};
      const uint32_t offers = context_.word(CK_FORK_OFFERS).exchange(0);
      const uint32_t max_groups = context_.word(CK_MAX_GROUPS).load();
      const uint32_t active = context_.word(CK_ACTIVE_GROUPS).load();
      const uint32_t count =
         random_choice(std::min(offers, max_groups > active ? max_groups - active : 0));
      if (offers > count)
         context_.word(CK_FORK_OFFERS).fetch_add(offers - count);
      const uint32_t first = context_.word(CK_ACTIVE_GROUPS).fetch_add(count);
      if (first + count > max_groups) {
         std::fprintf(stderr, "simulated kernel: forks took M to %u, past N = %u\n",
                      first + count, max_groups);
         std::abort();
      }
      return {first, count};
   }

   // Writes the reserved work-groups' slots: the scheduler starts them.
   template <typename Record>
   void publish_forks(const Forks &forks, uint32_t resume_id, const Record &transmit)
   {
      static_assert(std::is_trivially_copyable_v<Record> && sizeof(Record) % 4 == 0 &&
                    sizeof(Record) <= CK_TRANSMIT_MAX_BYTES);
      if (forks.count == 0)
         return;
      uint32_t words[sizeof(Record) / 4];
      std::memcpy(words, &transmit, sizeof(Record));
      for (uint32_t group = forks.first; group < forks.first + forks.count; ++group) {
         for (unsigned i = 0; i < sizeof(Record) / 4; ++i)
            context_.slot_word(group, CK_SLOT_TRANSMIT + 4 * i)
               .store(words[i], std::memory_order_relaxed);
         context_.slot_word(group, CK_SLOT_RESUME_POINT).store(resume_id, std::memory_order_relaxed);
         context_.slot_word(group, CK_SLOT_READY).store(1, std::memory_order_release);
         context_.word(CK_FORKS_PUBLISHED).fetch_add(1);
      }
      context_.word(CK_FORKS).fetch_add(forks.count);
   }

   // Under the random policy the launch's next draw in [0, bound]
   // (ck/context.h), otherwise bound.
   uint32_t random_choice(uint32_t bound)
   {
      const uint32_t seed = context_.word(CK_RANDOM_SEED).load();
      if (seed == 0)
         return bound;
      return ck_random_draw(seed, context_.word(CK_RANDOM_DRAWS).fetch_add(1)) % (bound + 1);
   }

   bool kill_slow_path(bool may_refuse)
   {
      uint32_t active = context_.word(CK_ACTIVE_GROUPS).load();
      if (id_ == 0 || id_ + 1 != active)
         return false;
      if (may_refuse && random_choice(1) == 0)
         return false;
      uint32_t requests = context_.word(CK_KILL_REQUESTS).load();
      do
         if (requests == 0)
            return false;
      while (!context_.word(CK_KILL_REQUESTS).compare_exchange_weak(requests, requests - 1));
      if (!context_.word(CK_ACTIVE_GROUPS).compare_exchange_strong(active, active - 1)) {
         context_.word(CK_KILL_REQUESTS).fetch_add(1);
         return false;
      }
      context_.word(CK_KILLS).fetch_add(1);
      killed_ = true;
      return true;
   }

   Context &context_;
   uint32_t id_;
   bool killed_ = false;
};

} // namespace ck::sim
