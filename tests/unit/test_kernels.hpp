// Simulated kernels and helpers shared by the scheduler tests.
#pragma once

#include "backoff.hpp"
#include "ck/scheduler.h"
#include "host_work_group.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace ck::test {

using namespace std::chrono_literals;

// A ck_run_fn for any object with run(group, unit).
template <typename Kernel>
void run_kernel(void *data, unsigned group, unsigned unit)
{
   static_cast<Kernel *>(data)->run(group, unit);
}

// Waits for a launch; past the deadline the test process aborts with a
// message rather than hang.
inline ck_launch_stats wait_or_die(ck_launch *launch, std::chrono::nanoseconds deadline = 20s)
{
   ck_launch_stats stats;
   if (!ck_launch_wait_for(launch, uint64_t(deadline.count()), &stats)) {
      std::fprintf(stderr, "FATAL: a launch did not complete within %.1f s\n",
                   std::chrono::duration<double>(deadline).count());
      std::abort();
   }
   return stats;
}

// Now on the clock of ck_launch_stats' start_ns and end_ns.
inline uint64_t steady_now_ns()
{
   return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

// Polls `condition` until it holds or the deadline passes; returns whether
// it holds.
inline bool eventually(const std::function<bool()> &condition, std::chrono::nanoseconds deadline = 10s)
{
   const auto end = std::chrono::steady_clock::now() + deadline;
   Backoff backoff;
   while (!condition()) {
      if (std::chrono::steady_clock::now() > end)
         return false;
      backoff.pause();
   }
   return true;
}

// The context's header, for failure messages.
inline std::string describe(host::Context &context)
{
   static const char *const names[] = {"M",         "N",           "kill requests", "fork offers",
                                       "barrier",   "unused",      "published",     "kills",
                                       "forks",     "first doomed", "random seed",  "draws",
                                       "decision"};
   std::string text;
   for (unsigned word = 0; word <= CK_RESIZE_DECISION; ++word)
      text += std::string(word ? ", " : "") + names[word] + " " +
              std::to_string(context.word(ck_context_word(word)).load());
   return text;
}

// Like eventually(), but past the deadline the test process aborts: the
// caller has kernels running that must not outlive the test.
inline void require_eventually(const std::function<bool()> &condition, const char *what,
                               host::Context *context = nullptr)
{
   if (eventually(condition))
      return;
   std::fprintf(stderr, "FATAL: not within 10 s: %s%s%s\n", what, context ? "; context: " : "",
                context ? describe(*context).c_str() : "");
   std::abort();
}

// An ordinary kernel: each work-group counts itself.
struct CountingKernel {
   explicit CountingKernel(unsigned groups) : runs(groups) {}
   void run(unsigned group, unsigned) { runs[group].fetch_add(1); }
   std::vector<std::atomic<unsigned>> runs;
};

// Checks what the scheduler must guarantee of every start of a cooperative
// work-group: its id is active, and each published fork starts once. (The
// same id may briefly run twice: a killed work-group still returning while
// its id, freed by the kill, is forked again.)
class GroupTracker {
public:
   void enter(host::WorkGroup &group)
   {
      if (group.id() >= group.num_groups())
         inactive_starts_.fetch_add(1);
      if (group.resume_point() != 0)
         forked_starts_.fetch_add(1);
   }
   unsigned violations() const { return inactive_starts_.load(); }
   unsigned forked_starts() const { return forked_starts_.load(); }

private:
   std::atomic<unsigned> inactive_starts_{0}, forked_starts_{0};
};

// Iterative relaxation over `cells` integers with a global barrier after
// each step and a resizing barrier (transmitting the step) every
// `resize_every` steps; cells are split over the M active work-groups.
struct Relaxation {
   static constexpr uint32_t resume_after_resize = 1;

   Relaxation(uint32_t max_groups, uint32_t cells, uint32_t steps, uint32_t resize_every)
      : context(max_groups), cells(cells), steps(steps),
        resize_every(resize_every), initial(cells), buffers{initial, initial}
   {
      for (uint32_t i = 0; i < cells; ++i)
         buffers[0][i] = initial[i] = i * 2654435761u;
   }

   static uint32_t step(const std::vector<uint32_t> &from, uint32_t i)
   {
      const uint32_t left = i > 0 ? from[i - 1] : 0;
      const uint32_t right = i + 1 < from.size() ? from[i + 1] : 0;
      return left + 2 * from[i] + right * 3 + i;
   }

   std::vector<uint32_t> expected() const
   {
      std::vector<uint32_t> from = initial, to(cells);
      for (uint32_t t = 0; t < steps; ++t) {
         for (uint32_t i = 0; i < cells; ++i)
            to[i] = step(from, i);
         std::swap(from, to);
      }
      return from;
   }

   const std::vector<uint32_t> &result() const { return buffers[steps % 2]; }

   void run(unsigned id, unsigned)
   {
      host::WorkGroup group(context, id);
      tracker.enter(group);
      uint32_t t = 0;
      if (group.resume_point() == resume_after_resize) {
         t = group.transmitted<uint32_t>();
         if (group.join_resizing_barrier())
            return;
      }
      while (t < steps) {
         const uint32_t active = group.num_groups();
         const std::vector<uint32_t> &from = buffers[t % 2];
         std::vector<uint32_t> &to = buffers[(t + 1) % 2];
         for (uint32_t i = id; i < cells; i += active)
            to[i] = step(from, i);
         ++t;
         if (t % resize_every == 0) {
            if (group.resizing_global_barrier(resume_after_resize, t))
               return;
         } else if (group.global_barrier()) {
            return;
         }
      }
   }

   host::Context context;
   GroupTracker tracker;
   const uint32_t cells, steps, resize_every;
   std::vector<uint32_t> initial;
   std::vector<uint32_t> buffers[2];
};

// Work stealing: offer_kill and request_fork at the top of the task loop,
// tasks taken from a global counter; every task taken must run exactly once.
// The kernel takes tasks until it has run `min_tasks` and seen `min_events`
// kills and forks (so that event counts do not depend on the machine's
// speed), or until it runs out of tasks.
struct WorkStealing {
   static constexpr uint32_t resume_after_fork = 1;

   WorkStealing(uint32_t max_groups, uint32_t min_tasks, uint32_t min_events = 0,
                uint32_t max_tasks = 0)
      : context(max_groups), done(std::max(min_tasks, max_tasks)), min_tasks(min_tasks),
        min_events(min_events)
   {
   }

   void run(unsigned id, unsigned)
   {
      host::WorkGroup group(context, id);
      tracker.enter(group);
      bool resumed = group.resume_point() == resume_after_fork;
      for (;;) {
         if (!resumed) {
            if (group.offer_kill())
               return;
            group.request_fork(resume_after_fork, id);
         }
         resumed = false;
         if (enough())
            return;
         const uint32_t task = next_task.fetch_add(1);
         if (task >= done.size())
            return;
         done[task].fetch_add(1);
         for (unsigned i = 0; i < 200; ++i)
            work_sink.fetch_add(1, std::memory_order_relaxed);
      }
   }

   bool enough()
   {
      return next_task.load() >= min_tasks &&
             context.word(CK_KILLS).load() + context.word(CK_FORKS).load() >= min_events;
   }

   // Every task taken ran once, the others never; at least min_tasks ran.
   bool every_task_done_once() const
   {
      const uint32_t taken = std::min<uint32_t>(next_task.load(), uint32_t(done.size()));
      for (uint32_t task = 0; task < done.size(); ++task)
         if (done[task].load() != (task < taken ? 1u : 0u))
            return false;
      return taken >= min_tasks;
   }

   host::Context context;
   GroupTracker tracker;
   std::atomic<uint32_t> next_task{0};
   std::vector<std::atomic<uint32_t>> done;
   const uint32_t min_tasks, min_events;
   std::atomic<uint64_t> work_sink{0};
};

// Ordinary work-groups that wait for a gate to open.
struct GatedKernel {
   void run(unsigned, unsigned)
   {
      entered.fetch_add(1);
      if (!eventually([&] { return open.load(); }, 20s)) {
         std::fprintf(stderr, "FATAL: gate never opened\n");
         std::abort();
      }
   }
   std::atomic<bool> open{false};
   std::atomic<unsigned> entered{0};
};

// A cooperative kernel that offers kills and requests forks until stopped,
// checking the transmit records of the work-groups it forks.
struct Spinner {
   static constexpr uint32_t resume_after_fork = 1;
   static constexpr uint32_t magic = 0xc0ffee42;
   struct Record {
      uint32_t magic, forker, sequence;
   };

   explicit Spinner(uint32_t max_groups) : context(max_groups) {}

   void run(unsigned id, unsigned)
   {
      host::WorkGroup group(context, id);
      tracker.enter(group);
      running.fetch_add(1);
      if (group.resume_point() == resume_after_fork) {
         const auto record = group.transmitted<Record>();
         // The record is the forker's, and the forker was active below the
         // new ids.
         if (record.magic != magic || record.forker >= id)
            bad_records.fetch_add(1);
         forked_starts.fetch_add(1);
      }
      Backoff backoff;
      uint32_t sequence = 0;
      while (!stop.load()) {
         if (offers_kills.load() && group.offer_kill()) {
            killed_ids_sum.fetch_add(id);
            break;
         }
         group.request_fork(resume_after_fork, Record{magic, id, sequence++});
         backoff.pause();
      }
      running.fetch_sub(1);
   }

   uint32_t active() { return context.word(CK_ACTIVE_GROUPS).load(); }

   host::Context context;
   GroupTracker tracker;
   std::atomic<bool> stop{false};
   std::atomic<bool> offers_kills{true}; // false: kill requests stay pending
   std::atomic<unsigned> running{0}, forked_starts{0}, bad_records{0};
   std::atomic<uint64_t> killed_ids_sum{0};
};

struct SchedulerDeleter {
   void operator()(ck_scheduler *scheduler) const { ck_scheduler_destroy(scheduler); }
};
using SchedulerPtr = std::unique_ptr<ck_scheduler, SchedulerDeleter>;

// Every launch's protocol log is checked (CK_CHECK=1).
inline SchedulerPtr make_scheduler(unsigned units, const char *policy,
                                   const char *trace_path = nullptr, unsigned short_launch_us = 0)
{
   const ck_scheduler_options options{units, policy, trace_path, nullptr, 0, 1, 0, short_launch_us};
   return SchedulerPtr(ck_scheduler_create_with_options(&options));
}

} // namespace ck::test
