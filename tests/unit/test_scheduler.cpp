// Unit tests of the workgroup scheduler (ck/scheduler.h) with kernels on
// host threads that run the kernel side of the protocol (host_work_group.hpp).
// covers: 8-maxactive-all-start 8-maxactive-value 8-prof-fork-times 8-prof-forks
// covers: 8-prof-gather-times 8-prof-kills 8-prof-min-active 10.1-active-ids
// covers: 10.1-returned-blocks-kills 10.1-returned-stays-active 10.1-stuck-detected
// covers: 10.3-kill-top-only 10.4-fork-ids 10.7-eventually-killed 10.7-promise 10.7-value
// covers: 10.7-withdrawn-at-returned 12-stuck-stderr 15-ck-env 15-ck-policy 15-random
// covers: 12-driver-grid 15-returned-end 15-stuck-record

#include <nlohmann/json.hpp>
#include "policy.hpp"
#include "test_kernels.hpp"
#include "trace_file.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <algorithm>
#include <climits>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace ck::test {
namespace {

// Each work-group notes M at its start and exits.
struct ActiveRecorder {
   explicit ActiveRecorder(uint32_t max_groups) : context(max_groups), seen_active(max_groups) {}
   void run(unsigned id, unsigned)
   {
      host::WorkGroup group(context, id);
      seen_active[id].store(group.num_groups());
      if (context.word(CK_KILL_REQUESTS).load() != 0)
         kill_requests_seen.fetch_add(1);
   }
   host::Context context;
   std::vector<std::atomic<uint32_t>> seen_active;
   std::atomic<unsigned> kill_requests_seen{0};
};

TEST(Policy, Parses)
{
   EXPECT_EQ(parse_policy("default")->kind, Policy::Kind::Default);
   EXPECT_EQ(parse_policy("never")->kind, Policy::Kind::Never);
   const auto random = parse_policy("random:12345");
   ASSERT_TRUE(random);
   EXPECT_EQ(random->kind, Policy::Kind::Random);
   EXPECT_EQ(random->seed, 12345u);
   const auto cap = parse_policy("cap:3");
   ASSERT_TRUE(cap);
   EXPECT_EQ(cap->kind, Policy::Kind::Default);
   EXPECT_EQ(cap->unit_cap, 3u);
   for (const char *invalid : {"", "Default", "random", "random:", "random:x", "random:1x",
                               "cap:", "cap:0", "cap:-1", "never:1", "sometimes"})
      EXPECT_FALSE(parse_policy(invalid)) << invalid;
}

TEST(Policy, InvalidOptionsGiveNoScheduler)
{
   EXPECT_EQ(make_scheduler(2, "random:"), nullptr);
   EXPECT_EQ(make_scheduler(0, "default"), nullptr);
   EXPECT_NE(make_scheduler(2, "cap:1"), nullptr);
}

TEST(Policy, EnvironmentConfiguresTheScheduler)
{
   setenv("CK_POLICY", "bogus", 1);
   ck_scheduler *scheduler = ck_scheduler_create(3); // warns, uses the default
   unsetenv("CK_POLICY");
   ASSERT_NE(scheduler, nullptr);
   EXPECT_EQ(ck_scheduler_units(scheduler), 3u);
   CountingKernel kernel(5);
   wait_or_die(ck_scheduler_launch(scheduler, run_kernel<CountingKernel>, &kernel, 5));
   ck_scheduler_destroy(scheduler);
}

TEST(Ordinary, EveryGroupRunsOnce)
{
   auto scheduler = make_scheduler(3, "default");
   CountingKernel kernel(1000);
   const ck_launch_stats stats =
      wait_or_die(ck_scheduler_launch(scheduler.get(), run_kernel<CountingKernel>, &kernel, 1000));
   for (const auto &runs : kernel.runs)
      ASSERT_EQ(runs.load(), 1u);
   EXPECT_EQ(stats.kills, 0u);
   wait_or_die(ck_scheduler_launch(scheduler.get(), run_kernel<CountingKernel>, &kernel, 0));
}

TEST(Ordinary, LaunchesFromManyHostThreads)
{
   auto scheduler = make_scheduler(4, "default");
   std::vector<std::thread> hosts;
   std::atomic<unsigned> failures{0};
   for (int host = 0; host < 8; ++host)
      hosts.emplace_back([&] {
         for (int launch = 0; launch < 50; ++launch) {
            CountingKernel kernel(7);
            wait_or_die(ck_scheduler_launch(scheduler.get(), run_kernel<CountingKernel>, &kernel, 7));
            for (const auto &runs : kernel.runs)
               if (runs.load() != 1)
                  failures.fetch_add(1);
         }
      });
   for (auto &host : hosts)
      host.join();
   EXPECT_EQ(failures.load(), 0u);
}

// Units claim an ordinary launch's work-groups in id order, each the next
// one as it finishes the last (LOBE): when a work-group starts, every lower
// one has started but for those claimed by the other units an instant
// before. Batches of consecutive work-groups per unit would break it.
struct StartOrderKernel {
   explicit StartOrderKernel(unsigned units) : units(units) {}
   void run(unsigned group, unsigned)
   {
      const unsigned started_before = started.fetch_add(1);
      if (group > started_before + units - 1)
         out_of_order.fetch_add(1);
      for (unsigned i = 0; i < 50; ++i)
         sink.fetch_add(1, std::memory_order_relaxed);
   }
   const unsigned units;
   std::atomic<unsigned> started{0}, out_of_order{0};
   std::atomic<uint64_t> sink{0};
};

TEST(Ordinary, WorkGroupsStartInIdOrder)
{
   for (unsigned units : {2u, 3u}) {
      auto scheduler = make_scheduler(units, "default");
      StartOrderKernel kernel(units);
      wait_or_die(
         ck_scheduler_launch(scheduler.get(), run_kernel<StartOrderKernel>, &kernel, 20000));
      EXPECT_EQ(kernel.started.load(), 20000u);
      EXPECT_EQ(kernel.out_of_order.load(), 0u) << units << " units";
   }
}

// An independent launch (ck_launch_hints::independent) runs every
// work-group once whatever the units, the groups and the unit cap: units
// whose share is done claim from the others' (from their backs), and
// shares of units that never come are claimed by those that do.
TEST(Ordinary, IndependentLaunchesRunEveryGroupOnce)
{
   const ck_launch_hints independent{nullptr, CK_PRIORITY_MEDIUM, CK_THROTTLE_NONE, 1, 0, nullptr};
   for (unsigned units : {1u, 2u, 3u, 4u})
      for (unsigned cap : {units, 1u})
         for (unsigned groups : {0u, 1u, 2u, 3u, 7u, 1000u}) {
            auto scheduler = make_scheduler(units, "default");
            ck_scheduler_set_unit_cap(scheduler.get(), cap);
            CountingKernel kernel(groups);
            wait_or_die(ck_scheduler_launch_hinted(scheduler.get(), run_kernel<CountingKernel>,
                                                   &kernel, groups, &independent));
            for (unsigned group = 0; group < groups; ++group)
               ASSERT_EQ(kernel.runs[group].load(), 1u)
                  << "group " << group << " of " << groups << ", " << units << " units, cap " << cap;
         }
}

// Independent launches keep no count of claims (the scheduler sums what
// their shares have left): launches queued behind one another, units moving
// on as the shares empty, still run each work-group once and complete.
TEST(Ordinary, QueuedIndependentLaunchesRunEveryGroupOnce)
{
   const ck_launch_hints independent{nullptr, CK_PRIORITY_MEDIUM, CK_THROTTLE_NONE, 1, 0, nullptr};
   const unsigned sizes[] = {1000, 1, 5, 64, 3, 2000};
   for (unsigned units : {2u, 3u}) {
      auto scheduler = make_scheduler(units, "default");
      std::vector<std::unique_ptr<CountingKernel>> kernels;
      std::vector<ck_launch *> launches;
      for (unsigned groups : sizes) {
         kernels.push_back(std::make_unique<CountingKernel>(groups));
         launches.push_back(ck_scheduler_launch_hinted(scheduler.get(), run_kernel<CountingKernel>,
                                                       kernels.back().get(), groups, &independent));
      }
      for (ck_launch *launch : launches)
         wait_or_die(launch);
      for (size_t k = 0; k < kernels.size(); ++k)
         for (unsigned group = 0; group < sizes[k]; ++group)
            ASSERT_EQ(kernels[k]->runs[group].load(), 1u)
               << "launch " << k << ", group " << group << ", " << units << " units";
   }
}

// Notes the work-group each unit ran first; no work-group returns before
// every unit has started one (or 10 s have passed since the launch), so that no unit can
// run out of its own share before the others start.
struct FirstGroupPerUnit {
   explicit FirstGroupPerUnit(unsigned units) : units(units), first(units)
   {
      for (auto &group : first)
         group.store(UINT_MAX);
   }
   void run(unsigned group, unsigned unit)
   {
      unsigned none = UINT_MAX;
      if (first[unit].compare_exchange_strong(none, group))
         started_units.fetch_add(1);
      while (started_units.load() < units && std::chrono::steady_clock::now() < deadline)
         std::this_thread::yield();
   }
   const unsigned units;
   const std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::now() + 10s;
   std::vector<std::atomic<unsigned>> first;
   std::atomic<unsigned> started_units{0};
};

// Each unit starts an independent launch at the front of its own share of
// the ids, [u * groups / units, (u + 1) * groups / units), at every launch:
// the same unit meets the same data again.
TEST(Ordinary, IndependentLaunchesStartEachUnitOnItsShare)
{
   const ck_launch_hints independent{nullptr, CK_PRIORITY_MEDIUM, CK_THROTTLE_NONE, 1, 0, nullptr};
   for (unsigned units : {2u, 3u}) {
      auto scheduler = make_scheduler(units, "default");
      for (int launch = 0; launch < 3; ++launch) {
         FirstGroupPerUnit kernel(units);
         wait_or_die(ck_scheduler_launch_hinted(scheduler.get(), run_kernel<FirstGroupPerUnit>,
                                                &kernel, 1000, &independent));
         ASSERT_EQ(kernel.started_units.load(), units);
         for (unsigned unit = 0; unit < units; ++unit)
            EXPECT_EQ(kernel.first[unit].load(), 1000 * unit / units)
               << "unit " << unit << " of " << units << ", launch " << launch;
      }
   }
}

// Notes when each work-group started; each one sleeps `each`.
struct TimedGroups {
   TimedGroups(unsigned groups, std::chrono::microseconds each) : each(each), started_ns(groups) {}
   void run(unsigned group, unsigned)
   {
      started_ns[group].store(steady_now_ns());
      std::this_thread::sleep_for(each);
   }
   unsigned started_between(uint64_t begin_ns, uint64_t end_ns) const
   {
      unsigned started = 0;
      for (const auto &ns : started_ns)
         started += ns.load() > begin_ns && ns.load() < end_ns;
      return started;
   }
   const std::chrono::microseconds each;
   std::vector<std::atomic<uint64_t>> started_ns;
};

// Units claim several work-groups of an independent launch at once only as
// far as they run in a few microseconds: behind 1 ms work-groups, a
// higher-priority launch waits for the ones running when it came (and at
// most one more per unit, claimed as it came), not for a batch of them.
TEST(Ordinary, HigherPriorityWorkWaitsNoBatchOfLongWorkGroups)
{
   const ck_launch_hints independent{nullptr, CK_PRIORITY_MEDIUM, CK_THROTTLE_NONE, 1, 0, nullptr},
      high{nullptr, CK_PRIORITY_HIGH, CK_THROTTLE_NONE, 0, 0, nullptr};
   const unsigned units = 2, groups = 400;
   auto scheduler = make_scheduler(units, "default");
   TimedGroups slow(groups, 1ms);
   ck_launch *slow_launch = ck_scheduler_launch_hinted(scheduler.get(), run_kernel<TimedGroups>,
                                                       &slow, groups, &independent);
   require_eventually([&] { return slow.started_between(0, UINT64_MAX) >= 20; },
                      "the slow launch runs");
   CountingKernel urgent_work(1);
   const uint64_t submitted_ns = steady_now_ns();
   ck_launch *urgent = ck_scheduler_launch_hinted(scheduler.get(), run_kernel<CountingKernel>,
                                                  &urgent_work, 1, &high);
   const uint64_t urgent_start_ns = wait_or_die(urgent).start_ns;
   wait_or_die(slow_launch);
   EXPECT_LE(slow.started_between(submitted_ns, urgent_start_ns), units);
}

// Notes where each work-group ran (its unit and thread) and how often;
// each one takes `each`, spinning.
struct WhereGroupsRan {
   explicit WhereGroupsRan(unsigned groups, std::chrono::microseconds each = 0us)
      : each(each), runs(groups), units(groups), threads(groups)
   {
   }
   void run(unsigned group, unsigned unit)
   {
      started.fetch_add(1);
      runs[group].fetch_add(1);
      units[group] = unit;
      threads[group] = std::this_thread::get_id();
      const auto end = std::chrono::steady_clock::now() + each;
      while (std::chrono::steady_clock::now() < end)
         ;
   }
   // How many work-groups ran once on the caller's thread as CK_CALLER_UNIT;
   // -1 if any ran other than once.
   int on_caller(std::thread::id caller) const
   {
      int count = 0;
      for (std::size_t group = 0; group < runs.size(); ++group) {
         if (runs[group].load() != 1)
            return -1;
         if (units[group] == CK_CALLER_UNIT) {
            EXPECT_EQ(threads[group], caller) << "group " << group;
            ++count;
         }
      }
      return count;
   }
   const std::chrono::microseconds each;
   std::vector<std::atomic<unsigned>> runs;
   std::vector<unsigned> units; // written by the work-group, read after the wait
   std::vector<std::thread::id> threads;
   std::atomic<unsigned> started{0};
};

// Launches `groups` work-groups of `kernel` with `hints` and waits; returns
// how many ran on the calling thread.
int launch_and_count_on_caller(ck_scheduler *scheduler, unsigned groups,
                               const ck_launch_hints &hints, std::chrono::microseconds each = 0us)
{
   WhereGroupsRan kernel(groups, each);
   wait_or_die(ck_scheduler_launch_hinted(scheduler, run_kernel<WhereGroupsRan>, &kernel, groups,
                                          &hints));
   return kernel.on_caller(std::this_thread::get_id());
}

// Two kernels' keys.
char kernel_a, kernel_b;

ck_launch_hints caller_waits(const void *kernel, int independent = 1, int throttle = 0)
{
   return ck_launch_hints{nullptr, CK_PRIORITY_MEDIUM, throttle, independent, 1, kernel};
}

// A scheduler under which every launch of a known kernel is short.
SchedulerPtr make_scheduler_all_short(unsigned units)
{
   return make_scheduler(units, "default", nullptr, 1000000);
}

// A launch whose caller waits for it (ck_launch_hints::caller_waits) runs
// on units while nothing is known of its kernel, and every work-group on
// the caller, as CK_CALLER_UNIT, once the kernel's last launch says that
// it is short.
TEST(CallerWaits, ShortLaunchesOfAKnownKernelRunOnTheCaller)
{
   auto scheduler = make_scheduler_all_short(2);
   EXPECT_EQ(launch_and_count_on_caller(scheduler.get(), 4, caller_waits(&kernel_a)), 0)
      << "first launch";
   for (int launch = 0; launch < 3; ++launch)
      EXPECT_EQ(launch_and_count_on_caller(scheduler.get(), 4, caller_waits(&kernel_a)), 4)
         << "launch " << launch;
   // Another kernel is not known yet.
   EXPECT_EQ(launch_and_count_on_caller(scheduler.get(), 4, caller_waits(&kernel_b)), 0);
}

// Work-group 0 waits (up to 5 s) until work-group 1 has started: on one
// thread, one after the other, it would wait in vain.
struct FirstWaitsForSecond {
   void run(unsigned group, unsigned)
   {
      if (group == 1) {
         second_started.store(true);
         return;
      }
      const auto deadline = std::chrono::steady_clock::now() + 5s;
      while (!second_started.load())
         if (std::chrono::steady_clock::now() > deadline) {
            waited_in_vain.store(true);
            return;
         }
   }
   std::atomic<bool> second_started{false}, waited_in_vain{false};
};

// Work-groups that may wait for each other (no ck_launch_hints::independent)
// never run on the caller, which would run them one after the other.
TEST(CallerWaits, WorkGroupsThatMayWaitForEachOtherRunOnUnits)
{
   auto scheduler = make_scheduler_all_short(2);
   const ck_launch_hints may_wait = caller_waits(&kernel_a, 0);
   for (int launch = 0; launch < 3; ++launch) {
      FirstWaitsForSecond kernel;
      wait_or_die(ck_scheduler_launch_hinted(scheduler.get(), run_kernel<FirstWaitsForSecond>,
                                             &kernel, 2, &may_wait));
      EXPECT_FALSE(kernel.waited_in_vain.load()) << "launch " << launch;
   }
   EXPECT_EQ(launch_and_count_on_caller(scheduler.get(), 4, may_wait), 0);
}

// With the default 30 us (CK_SHORT_LAUNCH_US), a kernel whose launch took
// longer (4 work-groups of 20 us each) runs on units; with 0 (none is
// short), so does every launch.
TEST(CallerWaits, LongLaunchesRunOnUnits)
{
   auto scheduler = make_scheduler(2, "default", nullptr, 30);
   for (int launch = 0; launch < 3; ++launch)
      EXPECT_EQ(launch_and_count_on_caller(scheduler.get(), 4, caller_waits(&kernel_a), 20us), 0);
   auto none_short = make_scheduler(2, "default", nullptr, 0);
   for (int launch = 0; launch < 3; ++launch)
      EXPECT_EQ(launch_and_count_on_caller(none_short.get(), 1, caller_waits(&kernel_a)), 0);
}

// A short launch made without the hint, or without a kernel key, runs on
// units.
TEST(CallerWaits, LaunchesWithoutTheHintOrAKeyRunOnUnits)
{
   auto scheduler = make_scheduler_all_short(2);
   ck_launch_hints unhinted = caller_waits(&kernel_a);
   unhinted.caller_waits = 0;
   const ck_launch_hints no_key = caller_waits(nullptr);
   for (int launch = 0; launch < 3; ++launch) {
      EXPECT_EQ(launch_and_count_on_caller(scheduler.get(), 4, unhinted), 0);
      EXPECT_EQ(launch_and_count_on_caller(scheduler.get(), 4, no_key), 0);
   }
}

// The caller stands for a unit only where no limit applies: a throttled
// launch, and any launch while the unit cap is below the units, run on
// units even when they are short.
TEST(CallerWaits, LimitsKeepShortLaunchesOnUnits)
{
   auto scheduler = make_scheduler_all_short(2);
   ASSERT_EQ(launch_and_count_on_caller(scheduler.get(), 4, caller_waits(&kernel_a)), 0);
   ASSERT_EQ(launch_and_count_on_caller(scheduler.get(), 4, caller_waits(&kernel_a)), 4);
   EXPECT_EQ(launch_and_count_on_caller(scheduler.get(), 4,
                                        caller_waits(&kernel_a, 1, CK_THROTTLE_LOW)),
             0);
   ck_scheduler_set_unit_cap(scheduler.get(), 1);
   EXPECT_EQ(launch_and_count_on_caller(scheduler.get(), 4, caller_waits(&kernel_a)), 0);
   ck_scheduler_set_unit_cap(scheduler.get(), 2);
   EXPECT_EQ(launch_and_count_on_caller(scheduler.get(), 4, caller_waits(&kernel_a)), 4);
}

// CK_SHORT_LAUNCH_US sets what is short for ck_scheduler_create().
TEST(CallerWaits, ShortLaunchFromTheEnvironment)
{
   for (const char *value : {"0", "1000000"}) {
      ASSERT_EQ(setenv("CK_SHORT_LAUNCH_US", value, 1), 0);
      SchedulerPtr scheduler(ck_scheduler_create(2));
      ASSERT_EQ(unsetenv("CK_SHORT_LAUNCH_US"), 0);
      launch_and_count_on_caller(scheduler.get(), 4, caller_waits(&kernel_a));
      EXPECT_EQ(launch_and_count_on_caller(scheduler.get(), 4, caller_waits(&kernel_a)),
                std::string(value) == "0" ? 0 : 4)
         << "CK_SHORT_LAUNCH_US=" << value;
   }
}

// Work-groups that take about 20 us each.
struct TwentyMicroseconds {
   void run(unsigned, unsigned)
   {
      const auto end = std::chrono::steady_clock::now() + 20us;
      while (std::chrono::steady_clock::now() < end)
         ;
   }
};

// Notes where each work-group ran; work-group 0 waits until released (or
// 10 s have passed).
struct GatedFirstGroup : WhereGroupsRan {
   using WhereGroupsRan::WhereGroupsRan;
   void run(unsigned group, unsigned unit)
   {
      WhereGroupsRan::run(group, unit);
      const auto deadline = std::chrono::steady_clock::now() + 10s;
      while (group == 0 && !release.load() && std::chrono::steady_clock::now() < deadline)
         ;
   }
   std::atomic<bool> release{false};
};

// A short launch runs on its caller only in place of a free unit: while
// the only unit runs other work, of any priority (held in its first
// work-group until the short launch is done), it waits for the unit.
TEST(CallerWaits, ShortLaunchesWaitForUnitsWhileEveryUnitIsBusy)
{
   for (const int other_priority : {CK_PRIORITY_LOW, CK_PRIORITY_HIGH}) {
      auto scheduler = make_scheduler_all_short(1);
      ASSERT_EQ(launch_and_count_on_caller(scheduler.get(), 4, caller_waits(&kernel_a)), 0);
      GatedFirstGroup other(2);
      const ck_launch_hints other_hints{nullptr, other_priority, CK_THROTTLE_NONE, 0, 0, nullptr};
      ck_launch *busy = ck_scheduler_launch_hinted(scheduler.get(), run_kernel<GatedFirstGroup>,
                                                   &other, 2, &other_hints);
      require_eventually([&] { return other.started.load() > 0; }, "the unit is busy");
      // Where the short launch runs is decided when it is made; it then
      // waits for the unit, which the gate holds until then.
      WhereGroupsRan short_launch(4);
      const ck_launch_hints hints = caller_waits(&kernel_a);
      std::atomic<bool> made{false};
      std::thread::id caller;
      std::thread waiter([&] {
         caller = std::this_thread::get_id();
         ck_launch *launch = ck_scheduler_launch_hinted(
            scheduler.get(), run_kernel<WhereGroupsRan>, &short_launch, 4, &hints);
         made.store(true);
         wait_or_die(launch);
      });
      require_eventually([&] { return made.load(); }, "the short launch is made");
      other.release.store(true);
      waiter.join();
      wait_or_die(busy);
      EXPECT_EQ(short_launch.on_caller(caller), 0) << "beside work of priority " << other_priority;
   }
}

// The caller of a short launch leaves its work-groups to the units when
// work of a higher priority comes to wait for them (held in its first
// work-group while that work comes, it runs no other), and keeps them when
// the work that comes has a lower priority.
TEST(CallerWaits, ACallerLeavesItsLaunchOnlyToHigherPriorityWork)
{
   for (const int other_priority : {CK_PRIORITY_HIGH, CK_PRIORITY_LOW}) {
      auto scheduler = make_scheduler_all_short(1);
      ASSERT_EQ(launch_and_count_on_caller(scheduler.get(), 4, caller_waits(&kernel_a)), 0);
      GatedFirstGroup short_launch(500);
      std::thread::id caller;
      const ck_launch_hints hints = caller_waits(&kernel_a);
      std::thread waiter([&] {
         caller = std::this_thread::get_id();
         wait_or_die(ck_scheduler_launch_hinted(scheduler.get(), run_kernel<GatedFirstGroup>,
                                                &short_launch, 500, &hints));
      });
      require_eventually([&] { return short_launch.started.load() > 0; }, "the caller runs");
      // One launch takes the free unit and holds it, the next waits for it
      // as long as the test says.
      const ck_launch_hints other{nullptr, other_priority, CK_THROTTLE_NONE, 0, 0, nullptr};
      GatedFirstGroup first(1);
      TwentyMicroseconds second;
      ck_launch *running = ck_scheduler_launch_hinted(
         scheduler.get(), run_kernel<GatedFirstGroup>, &first, 1, &other);
      ck_launch *waiting = ck_scheduler_launch_hinted(
         scheduler.get(), run_kernel<TwentyMicroseconds>, &second, 100, &other);
      short_launch.release.store(true);
      if (other_priority == CK_PRIORITY_LOW)
         require_eventually([&] { return short_launch.started.load() == 500; },
                            "the caller runs every work-group");
      else
         std::this_thread::sleep_for(20ms); // time a caller that did not leave would use
      first.release.store(true);
      waiter.join();
      wait_or_die(running);
      wait_or_die(waiting);
      EXPECT_EQ(short_launch.on_caller(caller), other_priority == CK_PRIORITY_HIGH ? 1 : 500)
         << "beside work of priority " << other_priority;
   }
}

// Thousands of short launches back to back, from two threads at once:
// every work-group runs once, and every launch is gone from the
// scheduler's queue before its waiter frees it (AddressSanitizer).
TEST(CallerWaits, ManyShortLaunchesFromTwoThreads)
{
   auto scheduler = make_scheduler_all_short(2);
   std::atomic<int> wrong{0}, on_callers{0};
   auto launches = [&](const void *kernel, int independent) {
      for (int launch = 0; launch < 2000; ++launch) {
         const int on_caller = launch_and_count_on_caller(scheduler.get(), 1 + launch % 5,
                                                          caller_waits(kernel, independent));
         if (on_caller < 0)
            wrong.fetch_add(1);
         on_callers.fetch_add(on_caller > 0);
      }
   };
   std::thread other(launches, &kernel_b, 1);
   launches(&kernel_a, 1);
   other.join();
   EXPECT_EQ(wrong.load(), 0) << "launches with a work-group that ran other than once";
   EXPECT_GT(on_callers.load(), 3000) << "launches that ran on their caller, of 4,000";
}

// Work-groups that take about 20 us each, counting how many started.
struct SlowGroups {
   void run(unsigned, unsigned)
   {
      started.fetch_add(1);
      const auto end = std::chrono::steady_clock::now() + 20us;
      while (std::chrono::steady_clock::now() < end)
         ;
   }
   std::atomic<unsigned> started{0};
};

// Records how many of another launch's work-groups had started when it ran.
struct Witness {
   void run(unsigned, unsigned) { seen = other->started.load(); }
   const SlowGroups *other;
   std::atomic<unsigned> seen{0};
};

// A unit goes on claiming its ordinary launch's work-groups without the
// scheduler's lock, but only while nothing of a higher priority waits: a
// high-priority launch gets the unit after a work-group or two once it has
// been submitted, not after the low-priority launch's 10,000. (Counted
// from when the submission returns: under ThreadSanitizer the submission
// itself can take a few of the 20 us work-groups.)
TEST(Ordinary, WaitingHigherPriorityWorkTakesTheUnitBetweenWorkGroups)
{
   auto scheduler = make_scheduler(1, "default");
   const ck_launch_hints low{nullptr, CK_PRIORITY_LOW, CK_THROTTLE_NONE, 0, 0, nullptr},
      high{nullptr, CK_PRIORITY_HIGH, CK_THROTTLE_NONE, 0, 0, nullptr};
   SlowGroups slow;
   ck_launch *slow_launch =
      ck_scheduler_launch_hinted(scheduler.get(), run_kernel<SlowGroups>, &slow, 10000, &low);
   require_eventually([&] { return slow.started.load() >= 10; }, "the low-priority launch runs");
   Witness witness{&slow};
   ck_launch *high_launch =
      ck_scheduler_launch_hinted(scheduler.get(), run_kernel<Witness>, &witness, 1, &high);
   const unsigned started_at_submission = slow.started.load();
   wait_or_die(high_launch);
   wait_or_die(slow_launch);
   EXPECT_LE(witness.seen.load(), started_at_submission + 2);
   EXPECT_EQ(slow.started.load(), 10000u);
}

// A chain of launches of one in-order queue (ck_scheduler_launch_after()):
// each work-group checks, as it starts, that every work-group of the
// launches before its own has finished, and lingers so that an overlap
// would be seen.
struct InOrderChain {
   explicit InOrderChain(const std::vector<unsigned> &groups) : finished_before(groups.size() + 1)
   {
      for (std::size_t launch = 0; launch < groups.size(); ++launch)
         finished_before[launch + 1] = finished_before[launch] + groups[launch];
   }
   struct Stage {
      InOrderChain *chain;
      std::size_t launch;
      void run(unsigned, unsigned)
      {
         if (chain->finished.load() < chain->finished_before[launch])
            chain->early_starts.fetch_add(1);
         for (unsigned i = 0; i < 500; ++i)
            chain->sink.fetch_add(1, std::memory_order_relaxed);
         chain->finished.fetch_add(1);
      }
   };
   std::vector<unsigned> finished_before; // work-groups of the launches before each
   std::atomic<unsigned> finished{0}, early_starts{0};
   std::atomic<uint64_t> sink{0};
};

TEST(InOrder, LaunchesStartOnlyWhenTheOneBeforeCompleted)
{
   auto scheduler = make_scheduler(3, "default");
   std::vector<unsigned> groups;
   for (unsigned launch = 0; launch < 300; ++launch)
      groups.push_back(launch % 11 == 5 ? 0 : 1 + launch % 7); // some without work-groups
   InOrderChain chain(groups);
   std::vector<InOrderChain::Stage> stages;
   for (std::size_t launch = 0; launch < groups.size(); ++launch)
      stages.push_back({&chain, launch});
   std::vector<ck_launch *> launches;
   ck_launch *last = nullptr;
   for (std::size_t launch = 0; launch < groups.size(); ++launch) {
      last = ck_scheduler_launch_after(scheduler.get(), run_kernel<InOrderChain::Stage>,
                                       &stages[launch], groups[launch], nullptr, last);
      ASSERT_NE(last, nullptr);
      launches.push_back(last);
   }
   for (ck_launch *launch : launches)
      wait_or_die(launch);
   EXPECT_EQ(chain.finished.load(), chain.finished_before.back());
   EXPECT_EQ(chain.early_starts.load(), 0u);
}

// A cooperative launch in the chain, resized at random: the ordinary launch
// after it sees its final result, and one made after a launch that has
// already completed starts at once.
TEST(InOrder, CooperativeLaunchesKeepTheOrder)
{
   auto scheduler = make_scheduler(3, "random:7");
   GatedKernel gate;
   ck_launch *gated = ck_scheduler_launch(scheduler.get(), run_kernel<GatedKernel>, &gate, 2);
   Relaxation relaxation(6, 96, 400, 2);
   ck_launch *cooperative = ck_scheduler_launch_cooperative_after(
      scheduler.get(), run_kernel<Relaxation>, &relaxation, relaxation.context.data(), 6, nullptr,
      nullptr, gated);
   ASSERT_NE(cooperative, nullptr);
   struct Reader {
      const Relaxation *relaxation;
      std::vector<uint32_t> seen;
      std::atomic<bool> ran{false};
      void run(unsigned, unsigned)
      {
         seen = relaxation->result();
         ran.store(true);
      }
   } reader{&relaxation, {}};
   ck_launch *after = ck_scheduler_launch_after(scheduler.get(), run_kernel<Reader>, &reader, 1,
                                                nullptr, cooperative);
   EXPECT_EQ(relaxation.context.word(CK_ACTIVE_GROUPS).load(), 0u)
      << "the cooperative launch started before the one before it completed";
   gate.open.store(true);
   wait_or_die(gated);
   wait_or_die(cooperative);
   require_eventually([&] { return reader.ran.load(); }, "the launch after ran");
   EXPECT_TRUE(reader.seen == relaxation.expected());
   EXPECT_EQ(relaxation.tracker.violations(), 0u);

   CountingKernel counting(4);
   ck_launch *late = ck_scheduler_launch_after(scheduler.get(), run_kernel<CountingKernel>,
                                               &counting, 4, nullptr, after);
   require_eventually([&] { return counting.runs[3].load() == 1; },
                      "a launch after a completed one started");
   wait_or_die(after);
   wait_or_die(late);
}

TEST(Cooperative, StartsWithMinOfMaxGroupsAndFreeUnits)
{
   for (const char *policy : {"never", "default"}) {
      auto scheduler = make_scheduler(4, policy);
      for (const uint32_t max_groups : {1u, 2u, 4u, 9u}) {
         ActiveRecorder kernel(max_groups);
         const ck_launch_stats stats = wait_or_die(ck_scheduler_launch_cooperative(
            scheduler.get(), run_kernel<ActiveRecorder>, &kernel, kernel.context.data(), max_groups, nullptr));
         const uint32_t initial = std::min(max_groups, 4u);
         EXPECT_EQ(stats.min_active, initial) << policy;
         EXPECT_EQ(stats.max_active, initial) << policy;
         for (uint32_t id = 0; id < max_groups; ++id)
            EXPECT_EQ(kernel.seen_active[id].load(), id < initial ? initial : 0) << policy;
         // The fast path: nothing asked.
         EXPECT_EQ(kernel.kill_requests_seen.load(), 0u);
         EXPECT_EQ(kernel.context.word(CK_KILL_REQUESTS).load(), 0u);
         EXPECT_EQ(kernel.context.word(CK_FORK_OFFERS).load(), 0u) << "offers left behind";
      }
   }
}

TEST(Cooperative, WaitsForAFreeUnit)
{
   auto scheduler = make_scheduler(2, "never");
   GatedKernel gated;
   ck_launch *ordinary = ck_scheduler_launch(scheduler.get(), run_kernel<GatedKernel>, &gated, 2);
   require_eventually([&] { return gated.entered.load() == 2; }, "ordinary work-groups entered");
   ActiveRecorder kernel(3);
   ck_launch *cooperative = ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<ActiveRecorder>, &kernel, kernel.context.data(), 3, nullptr);
   // No unit can free before the gate opens: the scheduler's start stamp
   // (taken when it hands the first unit over) must come after this one.
   const uint64_t gate_opened_ns = steady_now_ns();
   gated.open.store(true);
   wait_or_die(ordinary);
   const ck_launch_stats stats = wait_or_die(cooperative);
   EXPECT_GE(stats.start_ns, gate_opened_ns) << "started without a free unit";
   EXPECT_GE(stats.min_active, 1u);
   EXPECT_GE(kernel.seen_active[0].load(), 1u);
}

// What a driver's fence needs: one call at completion, with the statistics
// that the wait returns, also when registered after the launch completed.
TEST(Cooperative, CompletionCallbackFiresOnceAtCompletion)
{
   struct Completion {
      std::atomic<int> calls{0};
      std::atomic<bool> gate_open_at_call{false};
      std::atomic<bool> *gate = nullptr;
      ck_launch_stats stats{};
   };
   const auto note = [](void *data, const ck_launch_stats *stats) {
      auto *completion = static_cast<Completion *>(data);
      completion->gate_open_at_call = completion->gate->load();
      completion->stats = *stats;
      completion->calls.fetch_add(1);
   };
   auto scheduler = make_scheduler(2, "default");

   GatedKernel gated;
   Completion early;
   early.gate = &gated.open;
   ActiveRecorder kernel(2);
   // The gated ordinary work holds both units: the kernel cannot start, let
   // alone complete, before the gate opens.
   ck_launch *ordinary = ck_scheduler_launch(scheduler.get(), run_kernel<GatedKernel>, &gated, 2);
   require_eventually([&] { return gated.entered.load() == 2; }, "ordinary work-groups entered");
   ck_launch *cooperative = ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<ActiveRecorder>, &kernel, kernel.context.data(), 2, nullptr);
   ck_launch_on_complete(cooperative, note, &early);
   EXPECT_EQ(early.calls.load(), 0) << "called before the launch could start";
   gated.open.store(true);
   require_eventually([&] { return early.calls.load() == 1; }, "the completion callback");
   EXPECT_TRUE(early.gate_open_at_call.load());
   wait_or_die(ordinary);
   const ck_launch_stats waited = wait_or_die(cooperative);
   EXPECT_EQ(early.calls.load(), 1);
   EXPECT_EQ(early.stats.end_ns, waited.end_ns);
   EXPECT_EQ(early.stats.run_ns, waited.run_ns);
   EXPECT_EQ(early.stats.end_ns - early.stats.start_ns, early.stats.run_ns);
   EXPECT_LE(early.stats.end_ns, steady_now_ns());

   Completion late;
   late.gate = &gated.open;
   ActiveRecorder quick(1);
   ck_launch *done = ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<ActiveRecorder>, &quick, quick.context.data(), 1, nullptr);
   // A unit completes its launch before it goes back to the idle ones: once
   // gated work holds both units, the quick kernel's launch has completed.
   GatedKernel both_units;
   ck_launch *holder =
      ck_scheduler_launch(scheduler.get(), run_kernel<GatedKernel>, &both_units, 2);
   require_eventually([&] { return both_units.entered.load() == 2; }, "both units are free");
   ck_launch_on_complete(done, note, &late);
   EXPECT_EQ(late.calls.load(), 1) << "a completed launch calls back at once";
   both_units.open.store(true);
   wait_or_die(holder);
   wait_or_die(done);
   EXPECT_EQ(late.calls.load(), 1);
}

TEST(Cooperative, FastPathUnderPolicyNever)
{
   auto scheduler = make_scheduler(4, "never");
   WorkStealing kernel(8, 3000);
   GatedKernel gated;
   ck_launch *cooperative = ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<WorkStealing>, &kernel, kernel.context.data(), 8, nullptr);
   // Ordinary work waits for free units instead of gathering them.
   gated.open.store(true);
   ck_launch *ordinary = ck_scheduler_launch(scheduler.get(), run_kernel<GatedKernel>, &gated, 2);
   const ck_launch_stats stats = wait_or_die(cooperative);
   wait_or_die(ordinary);
   EXPECT_TRUE(kernel.every_task_done_once());
   EXPECT_EQ(stats.kills, 0u);
   EXPECT_EQ(stats.forks, 0u);
   EXPECT_EQ(stats.min_active, 4u);
   EXPECT_EQ(kernel.tracker.violations(), 0u);
}

// An ordinary launch's statistics: its times, and 0 in every cooperative
// field, even after a cooperative launch recorded gathers and forks.
void expect_only_times(const ck_launch_stats &stats)
{
   EXPECT_EQ(stats.kills + stats.forks + stats.min_active + stats.max_active, 0u);
   EXPECT_EQ(stats.gathers + stats.forks_timed + stats.stuck_barrier + stats.stuck_line, 0u);
   EXPECT_EQ(stats.gather_ns_total + stats.gather_ns_max, 0u);
   EXPECT_EQ(std::count(std::begin(stats.gather_ns), std::end(stats.gather_ns), 0u),
             CK_STATS_GATHER_TIMES);
   EXPECT_EQ(std::count(std::begin(stats.fork_ns), std::end(stats.fork_ns), 0u),
             CK_STATS_FORK_TIMES);
   EXPECT_GT(stats.end_ns, 0u);
   EXPECT_EQ(stats.end_ns - stats.start_ns, stats.run_ns);
}

TEST(Cooperative, OrdinaryWorkGathersUnitsThenForksGiveThemBack)
{
   auto scheduler = make_scheduler(4, "default");
   Spinner kernel(4);
   ck_launch *cooperative = ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<Spinner>, &kernel, kernel.context.data(), 4, nullptr);
   require_eventually([&] { return kernel.running.load() == 4; },
                      "kernel.running.load() == 4", &kernel.context);

   // Two ordinary work-groups that stay until the test lets them go: the
   // kernel must give up its two top work-groups.
   GatedKernel gated;
   ck_launch *ordinary = ck_scheduler_launch(scheduler.get(), run_kernel<GatedKernel>, &gated, 2);
   require_eventually([&] { return gated.entered.load() == 2; }, "ordinary work-groups entered");
   EXPECT_EQ(kernel.active(), 2u);
   EXPECT_EQ(kernel.killed_ids_sum.load(), 3u + 2u) << "only the top work-groups are killed";
   gated.open.store(true);
   expect_only_times(wait_or_die(ordinary));

   // Freed units go back to the kernel through forks of ids 2 and 3.
   require_eventually([&] { return kernel.active() == 4 && kernel.running.load() == 4; },
                      "kernel.active() == 4 && kernel.running.load() == 4", &kernel.context);
   kernel.stop.store(true);
   const ck_launch_stats stats = wait_or_die(cooperative);
   EXPECT_EQ(stats.kills, 2u);
   EXPECT_EQ(stats.forks, 2u);
   EXPECT_EQ(kernel.forked_starts.load(), 2u);
   EXPECT_EQ(kernel.bad_records.load(), 0u);
   EXPECT_EQ(kernel.tracker.violations(), 0u);
   EXPECT_EQ(stats.min_active, 2u);
   EXPECT_EQ(stats.max_active, 4u);
   EXPECT_EQ(stats.gathers, 1u);
   EXPECT_GT(stats.gather_ns[0], 0u);
   EXPECT_EQ(stats.gather_ns_total, stats.gather_ns[0]);
   EXPECT_EQ(stats.forks_timed, 2u) << "both forks started on parked units";
   EXPECT_GT(stats.fork_ns[0], 0u);
   EXPECT_GT(stats.fork_ns[1], 0u);
   std::printf("gather of 2 units from a kernel offering every ~200 us: %.1f us; "
               "forks %.1f and %.1f us after their units became free\n",
               stats.gather_ns[0] / 1e3, stats.fork_ns[0] / 1e3, stats.fork_ns[1] / 1e3);

   // An ordinary launch after the kernel: through the completion callback
   // and through the wait.
   CountingKernel counting(2);
   ck_launch *after = ck_scheduler_launch(scheduler.get(), run_kernel<CountingKernel>, &counting, 2);
   ck_launch_stats reported{};
   ck_launch_on_complete(
      after, [](void *data, const ck_launch_stats *s) { *static_cast<ck_launch_stats *>(data) = *s; },
      &reported);
   expect_only_times(wait_or_die(after));
   expect_only_times(reported);
}

TEST(Cooperative, PrintsStatisticsOnRequest)
{
   const ck_scheduler_options options{2, "default", nullptr, nullptr, 1, 0, 0, 0};
   SchedulerPtr scheduler(ck_scheduler_create_with_options(&options));
   Spinner kernel(2);
   testing::internal::CaptureStderr();
   ck_launch *cooperative = ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<Spinner>, &kernel, kernel.context.data(), 2, nullptr);
   require_eventually([&] { return kernel.running.load() == 2; },
                      "kernel.running.load() == 2", &kernel.context);
   GatedKernel gated;
   gated.open.store(true);
   wait_or_die(ck_scheduler_launch(scheduler.get(), run_kernel<GatedKernel>, &gated, 1));
   kernel.stop.store(true);
   const ck_launch_stats stats = wait_or_die(cooperative);
   const std::string printed = testing::internal::GetCapturedStderr();
   const std::string expected = "N=2, active " + std::to_string(stats.min_active) + "..2, " +
                                std::to_string(stats.kills) + " kills, " +
                                std::to_string(stats.forks) + " forks, " +
                                std::to_string(stats.gathers) + " gathers";
   EXPECT_NE(printed.find("ck: cooperative launch"), std::string::npos) << printed;
   EXPECT_NE(printed.find(expected), std::string::npos) << printed << " lacks " << expected;
   EXPECT_EQ(stats.kills, 1u);
}

// A kernel whose work-group 0 forks the others and leaves at once: the
// launch still completes only after every forked work-group has run.
struct ForkAndLeave {
   static constexpr uint32_t resume_after_fork = 7;
   struct Record {
      uint32_t words[20];
   };

   explicit ForkAndLeave(uint32_t max_groups) : context(max_groups)
   {
      for (uint32_t i = 0; i < 20; ++i)
         record.words[i] = 1000 + i * 7;
   }

   void run(unsigned id, unsigned)
   {
      host::WorkGroup group(context, id);
      tracker.enter(group);
      if (group.resume_point() == resume_after_fork) {
         const Record received = group.transmitted<Record>();
         if (std::memcmp(&received, &record, sizeof record) != 0)
            bad_records.fetch_add(1);
         std::this_thread::sleep_for(20ms);
         forked_done.fetch_add(1);
      } else if (id == 0) {
         uint32_t forked = 0;
         if (!eventually([&] { return (forked += group.request_fork(resume_after_fork, record)) ==
                                      context.word(CK_MAX_GROUPS).load() - 1; })) {
            std::fprintf(stderr, "FATAL: no forks offered\n");
            std::abort();
         }
      }
   }

   host::Context context;
   GroupTracker tracker;
   Record record;
   std::atomic<unsigned> forked_done{0}, bad_records{0};
};

// Work-group 1 returns; work-group 0, at a barrier that now needs it, finds
// the barrier stuck and records it as the generated code does.
struct StuckAtABarrier {
   void run(unsigned id, unsigned)
   {
      if (id == 1) {
         context.word(CK_RETURNED_END).store(2);
         return;
      }
      if (!eventually([&] { return context.word(CK_RETURNED_END).load() != 0; }, 20s)) {
         std::fprintf(stderr, "FATAL: work-group 1 never returned\n");
         std::abort();
      }
      uint32_t none = 0;
      if (context.word(CK_STUCK_BARRIER).compare_exchange_strong(none, CK_STUCK_RESIZING | 2))
         context.word(CK_STUCK_LINE).store(17);
   }
   host::Context context{2};
};

TEST(Cooperative, ReportsABarrierThatCanNeverComplete)
{
   // StuckAtABarrier writes the context by hand, outside the protocol: no
   // protocol log to check.
   const ck_scheduler_options options{2, "never", nullptr, nullptr, 0, 0, 0, 0};
   SchedulerPtr scheduler(ck_scheduler_create_with_options(&options));
   StuckAtABarrier kernel;
   testing::internal::CaptureStderr();
   const ck_launch_stats stats = wait_or_die(ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<StuckAtABarrier>, &kernel, kernel.context.data(), 2, "scan"));
   const std::string printed = testing::internal::GetCapturedStderr();
   EXPECT_EQ(stats.stuck_barrier, CK_STUCK_RESIZING | 2);
   EXPECT_EQ(stats.stuck_line, 17u);
   EXPECT_NE(printed.find("ck: kernel 'scan': resizing_global_barrier call 2 (line 17) can never "
                          "complete: work-group 1 returned"),
             std::string::npos)
      << printed;

   // A launch that ends normally reports nothing.
   ActiveRecorder normal(2);
   testing::internal::CaptureStderr();
   const ck_launch_stats fine = wait_or_die(ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<ActiveRecorder>, &normal, normal.context.data(), 2, "scan"));
   EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
   EXPECT_EQ(fine.stuck_barrier, 0u);
}

// A launch the scheduler cannot start is refused, not corrected: no
// work-group at all, or no memory (CK_FAIL_LAUNCHES makes the first ones
// fail so), and the next launch runs as usual.
TEST(Cooperative, RefusesALaunchItCannotStart)
{
   const ck_scheduler_options options{2, "default", nullptr, nullptr, 0, 0, 1, 0};
   SchedulerPtr scheduler(ck_scheduler_create_with_options(&options));
   ActiveRecorder empty(1);
   EXPECT_EQ(ck_scheduler_launch_cooperative(scheduler.get(), run_kernel<ActiveRecorder>, &empty,
                                             empty.context.data(), 0, "empty"),
             nullptr)
      << "a launch of 0 work-groups starts nothing";
   ActiveRecorder failed(2);
   EXPECT_EQ(ck_scheduler_launch_cooperative(scheduler.get(), run_kernel<ActiveRecorder>, &failed,
                                             failed.context.data(), 2, "failed"),
             nullptr)
      << "the launch that CK_FAIL_LAUNCHES fails";
   ActiveRecorder next(2);
   const ck_launch_stats stats = wait_or_die(ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<ActiveRecorder>, &next, next.context.data(), 2, "next"));
   EXPECT_EQ(stats.max_active, 2u);
   EXPECT_EQ(empty.context.word(CK_ACTIVE_GROUPS).load(), 0u) << "the refused launch ran";
   EXPECT_EQ(failed.context.word(CK_ACTIVE_GROUPS).load(), 0u) << "the failed launch ran";
}

TEST(Cooperative, CompletesOnlyAfterPublishedForksRan)
{
   auto scheduler = make_scheduler(4, "default");
   GatedKernel gated;
   ck_launch *ordinary = ck_scheduler_launch(scheduler.get(), run_kernel<GatedKernel>, &gated, 3);
   require_eventually([&] { return gated.entered.load() == 3; }, "ordinary work-groups entered");
   ForkAndLeave kernel(4);
   ck_launch *cooperative = ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<ForkAndLeave>, &kernel, kernel.context.data(), 4, nullptr);
   gated.open.store(true);
   wait_or_die(ordinary);
   const ck_launch_stats stats = wait_or_die(cooperative);
   EXPECT_EQ(kernel.forked_done.load(), 3u);
   EXPECT_EQ(kernel.bad_records.load(), 0u);
   EXPECT_EQ(kernel.tracker.violations(), 0u);
   EXPECT_EQ(stats.forks, 3u);
   EXPECT_EQ(stats.min_active, 1u);
   EXPECT_EQ(stats.max_active, 4u);
}

TEST(Cooperative, UnitCapGathersUnitsAndGivesThemBack)
{
   auto scheduler = make_scheduler(4, "default");
   Spinner kernel(4);
   ck_launch *cooperative = ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<Spinner>, &kernel, kernel.context.data(), 4, nullptr);
   require_eventually([&] { return kernel.running.load() == 4; },
                      "kernel.running.load() == 4", &kernel.context);
   ck_scheduler_set_unit_cap(scheduler.get(), 1);
   require_eventually([&] { return kernel.active() == 1 && kernel.running.load() == 1; },
                      "kernel.active() == 1 && kernel.running.load() == 1", &kernel.context);
   // Units over the cap stay idle: no offers come back, also at a later
   // scheduler event (setting the cap again balances and offers at once).
   ck_scheduler_set_unit_cap(scheduler.get(), 1);
   EXPECT_EQ(kernel.context.word(CK_FORK_OFFERS).load(), 0u);
   EXPECT_EQ(kernel.active(), 1u);
   ck_scheduler_set_unit_cap(scheduler.get(), 3);
   require_eventually([&] { return kernel.active() == 3 && kernel.running.load() == 3; },
                      "kernel.active() == 3 && kernel.running.load() == 3", &kernel.context);
   ck_scheduler_set_unit_cap(scheduler.get(), 3);
   EXPECT_EQ(kernel.context.word(CK_FORK_OFFERS).load(), 0u);
   EXPECT_EQ(kernel.active(), 3u);
   ck_scheduler_set_unit_cap(scheduler.get(), 100); // clamped to 4
   require_eventually([&] { return kernel.active() == 4; },
                      "kernel.active() == 4", &kernel.context);
   kernel.stop.store(true);
   const ck_launch_stats stats = wait_or_die(cooperative);
   EXPECT_EQ(stats.kills, 3u);
   EXPECT_EQ(stats.forks, 3u);
   EXPECT_EQ(stats.gathers, 1u);
   EXPECT_EQ(kernel.tracker.violations(), 0u);
}

TEST(Cooperative, CapPolicyLimitsTheInitialUnits)
{
   auto scheduler = make_scheduler(4, "cap:2");
   ActiveRecorder kernel(4);
   const ck_launch_stats stats = wait_or_die(ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<ActiveRecorder>, &kernel, kernel.context.data(), 4, nullptr));
   EXPECT_EQ(stats.max_active, 2u);
}

TEST(Cooperative, CapFileSetsTheCap)
{
   char path[] = "/tmp/ck-cap-XXXXXX";
   const int fd = mkstemp(path);
   ASSERT_GE(fd, 0);
   close(fd);
   std::ofstream(path) << "1\n";
   const ck_scheduler_options options{4, "default", nullptr, path, 0, 0, 0, 0};
   SchedulerPtr scheduler(ck_scheduler_create_with_options(&options));
   ASSERT_TRUE(eventually([&] {
      ActiveRecorder probe(4);
      const ck_launch_stats stats = wait_or_die(ck_scheduler_launch_cooperative(
         scheduler.get(), run_kernel<ActiveRecorder>, &probe, probe.context.data(), 4, nullptr));
      return stats.max_active == 1;
   }));
   std::ofstream(path) << "3\n";
   ASSERT_TRUE(eventually([&] {
      ActiveRecorder probe(4);
      const ck_launch_stats stats = wait_or_die(ck_scheduler_launch_cooperative(
         scheduler.get(), run_kernel<ActiveRecorder>, &probe, probe.context.data(), 4, nullptr));
      return stats.max_active == 3;
   }));
   std::remove(path);
}

// CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT under a unit cap: a launch of the
// queried number of work-groups on an idle scheduler starts with all of
// them active, whether the cap comes from the policy, the API or the cap
// file (read by the query itself: no wait for the 50 ms poll).
TEST(Cooperative, MaxActiveGroupsFollowTheCap)
{
   const auto expect_all_start_active = [](ck_scheduler *scheduler, uint32_t expected,
                                           const char *cap) {
      SCOPED_TRACE(cap);
      const uint32_t max_active = ck_scheduler_max_active_groups(scheduler);
      EXPECT_EQ(max_active, expected) << "the query follows the cap";
      ActiveRecorder kernel(max_active);
      const ck_launch_stats stats = wait_or_die(ck_scheduler_launch_cooperative(
         scheduler, run_kernel<ActiveRecorder>, &kernel, kernel.context.data(), max_active,
         nullptr));
      EXPECT_EQ(stats.min_active, max_active) << "a launch of the queried size starts whole";
   };
   expect_all_start_active(make_scheduler(4, "default").get(), 4, "no cap");
   expect_all_start_active(make_scheduler(4, "cap:1").get(), 1, "cap:1");
   auto scheduler = make_scheduler(4, "cap:3");
   expect_all_start_active(scheduler.get(), 3, "cap:3");
   ck_scheduler_set_unit_cap(scheduler.get(), 2);
   expect_all_start_active(scheduler.get(), 2, "ck_scheduler_set_unit_cap 2");

   char path[] = "/tmp/ck-cap-XXXXXX";
   const int fd = mkstemp(path);
   ASSERT_GE(fd, 0);
   close(fd);
   std::ofstream(path) << "1\n";
   const ck_scheduler_options options{4, "default", nullptr, path, 0, 1, 0, 0};
   SchedulerPtr file_capped(ck_scheduler_create_with_options(&options));
   expect_all_start_active(file_capped.get(), 1, "CK_CAP_FILE 1");
   std::ofstream(path) << "3\n";
   expect_all_start_active(file_capped.get(), 3, "CK_CAP_FILE 3");
   std::ofstream(path) << "2\n";
   expect_all_start_active(file_capped.get(), 2, "CK_CAP_FILE 2");
   std::remove(path);
}

TEST(Cooperative, SeveralKernelsShareTheUnits)
{
   auto scheduler = make_scheduler(4, "default");
   std::vector<std::unique_ptr<WorkStealing>> kernels;
   std::vector<ck_launch *> launches;
   for (int i = 0; i < 3; ++i) {
      kernels.push_back(std::make_unique<WorkStealing>(4, 4000));
      launches.push_back(ck_scheduler_launch_cooperative(scheduler.get(), run_kernel<WorkStealing>,
                                                         kernels.back().get(),
                                                         kernels.back()->context.data(), 4, nullptr));
   }
   for (std::size_t i = 0; i < kernels.size(); ++i) {
      wait_or_die(launches[i]);
      EXPECT_TRUE(kernels[i]->every_task_done_once());
      EXPECT_EQ(kernels[i]->tracker.violations(), 0u);
   }
}

// Units that ordinary work gives back go, one at a time, to the cooperative
// kernel with the fewest work-groups: two kernels on 1 unit each get one of
// two freed units each (the first kernel used to get both).
TEST(Cooperative, FreedUnitsAreSharedBetweenKernels)
{
   auto scheduler = make_scheduler(4, "default");
   Spinner first(8), second(8);
   ck_launch *first_launch = ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<Spinner>, &first, first.context.data(), 8, nullptr);
   require_eventually([&] { return first.running.load() == 4; }, "first kernel on all units",
                      &first.context);
   // The second kernel waits for a unit: the first gives one back. Its
   // context is read only once it runs (the scheduler initialises it).
   ck_launch *second_launch = ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<Spinner>, &second, second.context.data(), 8, nullptr);
   require_eventually([&] { return second.running.load() >= 1; }, "the second kernel started",
                      &first.context);
   require_eventually([&] { return first.active() == 3 && second.active() == 1; },
                      "the second kernel on one unit", &first.context);
   // Ordinary work takes two more units from the first kernel, then frees them.
   GatedKernel gated;
   ck_launch *ordinary = ck_scheduler_launch(scheduler.get(), run_kernel<GatedKernel>, &gated, 2);
   require_eventually([&] { return gated.entered.load() == 2; }, "ordinary work-groups entered");
   EXPECT_EQ(first.active(), 1u);
   gated.open.store(true);
   wait_or_die(ordinary);
   require_eventually([&] { return first.active() == 2 && second.active() == 2; },
                      "one freed unit for each kernel", &second.context);
   first.stop.store(true);
   second.stop.store(true);
   wait_or_die(first_launch);
   wait_or_die(second_launch);
   EXPECT_EQ(first.bad_records.load() + second.bad_records.load(), 0u);
   EXPECT_EQ(first.tracker.violations() + second.tracker.violations(), 0u);
}

// The random policy gives every cooperative launch a seed of its own, the
// same for the same policy seed and launch rank, so that the decisions are
// reproducible; other policies give 0 (no random decisions).
TEST(RandomPolicy, SeedsFollowThePolicySeedAndTheLaunchRank)
{
   const auto seeds_of = [](const char *policy) {
      auto scheduler = make_scheduler(2, policy);
      std::vector<uint32_t> seeds;
      for (int launch = 0; launch < 3; ++launch) {
         ActiveRecorder kernel(2);
         wait_or_die(ck_scheduler_launch_cooperative(scheduler.get(),
                                                     run_kernel<ActiveRecorder>, &kernel,
                                                     kernel.context.data(), 2, nullptr));
         seeds.push_back(kernel.context.word(CK_RANDOM_SEED).load());
      }
      return seeds;
   };
   const std::vector<uint32_t> first = seeds_of("random:7");
   EXPECT_EQ(seeds_of("random:7"), first);
   EXPECT_NE(seeds_of("random:8"), first);
   EXPECT_EQ(std::set<uint32_t>(first.begin(), first.end()).size(), first.size());
   for (uint32_t seed : first)
      EXPECT_NE(seed, 0u);
   EXPECT_EQ(seeds_of("default"), std::vector<uint32_t>(3, 0u));
}

// Under the random policy the scheduler asks for every kill the kernel can
// make and offers every idle unit to forks; the kernel then decides each
// offer with its draws, so it is killed and forked over and over.
TEST(RandomPolicy, RequestsEveryKillAndOffersEveryIdleUnit)
{
   auto scheduler = make_scheduler(4, "random:1");
   Spinner kernel(6);
   ck_launch *cooperative = ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<Spinner>, &kernel, kernel.context.data(), 6, nullptr);
   require_eventually(
      [&] {
         return kernel.context.word(CK_KILLS).load() >= 20 &&
                kernel.context.word(CK_FORKS).load() >= 20;
      },
      "20 kills and 20 forks", &kernel.context);
   EXPECT_GT(kernel.context.word(CK_RANDOM_DRAWS).load(), 40u);
   kernel.stop.store(true);
   const ck_launch_stats stats = wait_or_die(cooperative);
   EXPECT_EQ(stats.gathers, 0u) << "random requests gather nothing";
   EXPECT_EQ(kernel.bad_records.load(), 0u);
   EXPECT_EQ(kernel.tracker.violations(), 0u);
   EXPECT_EQ(kernel.forked_starts.load(), stats.forks);
}

// The kill loop of a resizing barrier (the kernel side on host threads). Work-groups
// 1 and 2 of M = 3 are doomed (W = 2, F = 1); only the top one can be
// killed.
struct ResizeKills {
   ResizeKills() : context(4)
   {
      context.word(CK_MAX_GROUPS).store(4);
      context.word(CK_ACTIVE_GROUPS).store(3);
      context.word(CK_RESIZE_FIRST_DOOMED).store(1);
   }
   // Runs resize_kills() of `id` on a thread; returns whether it was killed.
   bool run(uint32_t id, const std::function<void()> &meanwhile = [] {})
   {
      std::atomic<int> killed{-1};
      std::thread thread([&] { killed.store(host::WorkGroup(context, id).resize_kills()); });
      meanwhile();
      require_eventually([&] { return killed.load() != -1; }, "resize_kills() returns", &context);
      thread.join();
      return killed.load() == 1;
   }
   host::Context context;
};

TEST(ResizeKills, KillsFromTheTop)
{
   ResizeKills resize;
   resize.context.word(CK_KILL_REQUESTS).store(2);
   EXPECT_TRUE(resize.run(2));
   EXPECT_TRUE(resize.run(1));
   EXPECT_EQ(resize.context.word(CK_ACTIVE_GROUPS).load(), 1u);
   EXPECT_EQ(resize.context.word(CK_KILL_REQUESTS).load(), 0u);
}

// The top doomed work-group stops un-killed (no kill requested just then);
// when requests come again, the lower one must not wait, forever, to become
// the top one.
TEST(ResizeKills, AGroupThatStopsUnkilledStopsTheOthers)
{
   ResizeKills resize;
   EXPECT_FALSE(resize.run(2));
   EXPECT_EQ(resize.context.word(CK_RESIZE_FIRST_DOOMED).load(), CK_RESIZE_NONE_DOOMED);
   resize.context.word(CK_KILL_REQUESTS).store(1);
   EXPECT_FALSE(resize.run(1));
   EXPECT_EQ(resize.context.word(CK_ACTIVE_GROUPS).load(), 3u);
   EXPECT_EQ(resize.context.word(CK_KILL_REQUESTS).load(), 1u);
}

// The same, with the lower work-group already offering when the top one
// stops.
TEST(ResizeKills, OfferingStopsWhenTheTopOneStops)
{
   ResizeKills resize;
   resize.context.word(CK_KILL_REQUESTS).store(1);
   EXPECT_FALSE(resize.run(1, [&] {
      std::this_thread::sleep_for(20ms);
      // As the top one stopping un-killed.
      resize.context.word(CK_RESIZE_FIRST_DOOMED).store(CK_RESIZE_NONE_DOOMED);
   }));
   EXPECT_EQ(resize.context.word(CK_ACTIVE_GROUPS).load(), 3u);
}

// W = 1 of M = 3 (F = 2): once work-group 2 is killed, work-group 1, which
// reads M = 2 only now, is still not doomed. (Doomed as id + W >= M, it
// offered; with a work-group above it that was not doomed and waits at the
// next barrier, that was a deadlock, found by the random policy.)
TEST(ResizeKills, KillsDoNotDoomLowerGroups)
{
   ResizeKills resize;
   resize.context.word(CK_RESIZE_FIRST_DOOMED).store(2);
   resize.context.word(CK_KILL_REQUESTS).store(2);
   EXPECT_TRUE(resize.run(2));
   EXPECT_FALSE(resize.run(1));
   EXPECT_EQ(resize.context.word(CK_ACTIVE_GROUPS).load(), 2u);
   EXPECT_EQ(resize.context.word(CK_KILL_REQUESTS).load(), 1u);
}

// Work-groups that wait for the test: the one told to (`leaving`) returns
// from the kernel function; the others, once `offering` is set, offer to be
// killed until they are or until `stop`.
struct Obedient {
   explicit Obedient(uint32_t max_groups) : context(max_groups) {}
   void run(unsigned id, unsigned)
   {
      host::WorkGroup group(context, id);
      running.fetch_add(1);
      while (!stop.load() && leaving.load() != id) {
         if (offering.load() && group.offer_kill()) {
            killed.fetch_add(1);
            break;
         }
         std::this_thread::sleep_for(100us);
      }
      running.fetch_sub(1);
   }
   uint32_t word(ck_context_word word) { return context.word(word).load(); }

   host::Context context;
   std::atomic<uint32_t> leaving{UINT32_MAX};
   std::atomic<bool> offering{false}, stop{false};
   std::atomic<unsigned> running{0}, killed{0};
};

// A kernel may read a kill request with query_kill_count and commit
// work-groups to offer_kill on it (FSE'17 4.2): the request stands when the
// demand that posted it goes away, until a kill meets it.
TEST(KillRequests, StandWhenTheDemandGoes)
{
   auto scheduler = make_scheduler(2, "default");
   Obedient kernel(2);
   ck_launch *cooperative = ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<Obedient>, &kernel, kernel.context.data(), 2, nullptr);
   require_eventually([&] { return kernel.running.load() == 2; }, "both work-groups run",
                      &kernel.context);
   ck_scheduler_set_unit_cap(scheduler.get(), 1);
   require_eventually([&] { return kernel.word(CK_KILL_REQUESTS) == 1; }, "a kill is requested",
                      &kernel.context);
   // The demand goes at this scheduler event: the request must survive it.
   ck_scheduler_set_unit_cap(scheduler.get(), 2);
   EXPECT_EQ(kernel.word(CK_KILL_REQUESTS), 1u) << "the request was withdrawn";
   kernel.offering.store(true);
   require_eventually([&] { return kernel.killed.load() == 1; }, "work-group 1 is killed",
                      &kernel.context);
   kernel.stop.store(true);
   const ck_launch_stats stats = wait_or_die(cooperative);
   EXPECT_EQ(stats.kills, 1u);
   EXPECT_EQ(kernel.word(CK_KILL_REQUESTS), 0u);
}

// A work-group that returns stays active (M counts it; FSE'17's semantics),
// and no work-group below it can be killed: requests that only it could
// have let through are withdrawn, and none are posted while it is the top.
TEST(KillRequests, StopAtAReturnedWorkGroup)
{
   auto scheduler = make_scheduler(3, "default");
   Obedient kernel(3);
   ck_launch *cooperative = ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<Obedient>, &kernel, kernel.context.data(), 3, nullptr);
   require_eventually([&] { return kernel.running.load() == 3; }, "three work-groups run",
                      &kernel.context);
   ck_scheduler_set_unit_cap(scheduler.get(), 1);
   require_eventually([&] { return kernel.word(CK_KILL_REQUESTS) == 2; }, "two kills requested",
                      &kernel.context);
   kernel.leaving.store(2);
   require_eventually([&] { return kernel.running.load() == 2; }, "work-group 2 returns",
                      &kernel.context);
   require_eventually([&] { return kernel.word(CK_KILL_REQUESTS) == 0; },
                      "the unmeetable requests are withdrawn", &kernel.context);
   EXPECT_EQ(kernel.word(CK_RETURNED_END), 3u);
   EXPECT_EQ(kernel.word(CK_ACTIVE_GROUPS), 3u) << "a returned work-group stays active";
   // Over the cap by one, with nothing the kernel can give back: a
   // scheduler event (the cap set again) posts no request.
   kernel.offering.store(true);
   ck_scheduler_set_unit_cap(scheduler.get(), 1);
   EXPECT_EQ(kernel.word(CK_KILL_REQUESTS), 0u);
   EXPECT_EQ(kernel.killed.load(), 0u);
   kernel.stop.store(true);
   const ck_launch_stats stats = wait_or_die(cooperative);
   EXPECT_EQ(stats.kills, 0u);
   EXPECT_EQ(stats.max_active, 3u);
}

// A kernel that breaks the protocol: work-group 0 posts every fork offer
// itself (the scheduler's word) before it returns.
struct OfferForger {
   explicit OfferForger(uint32_t max_groups) : context(max_groups), max_groups(max_groups) {}
   void run(unsigned id, unsigned)
   {
      host::WorkGroup group(context, id);
      if (id == 0)
         context.word(CK_FORK_OFFERS).store(max_groups);
   }
   host::Context context;
   uint32_t max_groups;
};

// The scheduler's invariants (the top of src/runtime/scheduler.cpp) are
// asserted in builds with assertions, at every scheduler event: a launch whose
// context breaks one (here M + offers <= N) stops the process there, with
// the invariant named, instead of running on with inconsistent words.
TEST(InvariantsDeathTest, ABrokenInvariantStopsTheProcess)
{
#ifdef NDEBUG
   GTEST_SKIP() << "assertions are compiled out (NDEBUG)";
#endif
   GTEST_FLAG_SET(death_test_style, "threadsafe");
   EXPECT_DEATH(
      {
         auto scheduler = make_scheduler(2, "default");
         OfferForger kernel(4);
         wait_or_die(ck_scheduler_launch_cooperative(scheduler.get(), run_kernel<OfferForger>,
                                                     &kernel, kernel.context.data(), 4,
                                                     nullptr));
      },
      "active \\+ offers <= kernel.max_groups");
}

// rusticl never destroys its screen, so its scheduler is never destroyed:
// the trace must still be written when the process exits (tools/ck demo
// --frontend rusticl wrote none before).
TEST(Trace, IsWrittenAtExitByASchedulerNeverDestroyed)
{
   TraceFile file;
   EXPECT_EXIT(
      {
         // held by a static, as a frontend's global holds it (reachable:
         // no leak for LeakSanitizer)
         static ck_scheduler *scheduler =
            make_scheduler(2, "default", file.path.c_str()).release();
         CountingKernel ordinary(3);
         wait_or_die(ck_scheduler_launch(scheduler, run_kernel<CountingKernel>, &ordinary, 3));
         std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
   const nlohmann::json trace = file.read_and_remove();
   ASSERT_FALSE(trace.is_discarded()) << "no trace, or not JSON:\n" << file.contents;
   unsigned launches = 0;
   for (const nlohmann::json &event : trace["traceEvents"])
      launches += event.value("name", "").rfind("ordinary launch", 0) == 0;
   EXPECT_EQ(launches, 1u);
}

TEST(Trace, IsWellFormedChromeJson)
{
   TraceFile file;
   {
      auto scheduler = make_scheduler(4, "default", file.path.c_str());
      Spinner kernel(4);
      ck_launch *cooperative = ck_scheduler_launch_cooperative(
         scheduler.get(), run_kernel<Spinner>, &kernel, kernel.context.data(), 4, nullptr);
      require_eventually([&] { return kernel.running.load() == 4; },
                      "kernel.running.load() == 4", &kernel.context);
      for (int round = 0; round < 3; ++round) {
         CountingKernel ordinary(3);
         wait_or_die(ck_scheduler_launch(scheduler.get(), run_kernel<CountingKernel>, &ordinary, 3));
         require_eventually([&] { return kernel.active() == 4; },
                      "kernel.active() == 4", &kernel.context);
      }
      kernel.stop.store(true);
      const ck_launch_stats stats = wait_or_die(cooperative);
      EXPECT_GE(stats.kills, 1u);
   }
   const nlohmann::json trace = file.read_and_remove();
   ASSERT_FALSE(trace.is_discarded()) << "not JSON:\n" << file.contents;
   ASSERT_TRUE(trace.contains("traceEvents") && trace["traceEvents"].is_array());

   // A member of an event that must be there, with the JSON type `is`.
   const auto field = [](const nlohmann::json &event, const char *key, auto is) {
      const bool present = event.contains(key) && (event[key].*is)();
      EXPECT_TRUE(present) << "event without a valid \"" << key << "\": " << event.dump();
      return present ? event[key] : nlohmann::json();
   };
   unsigned counters = 0, ordinary_launches = 0, cooperative_launches = 0, gathers = 0;
   std::map<double, std::vector<std::pair<double, double>>> spans_by_track;
   for (const nlohmann::json &event : trace["traceEvents"]) {
      const nlohmann::json phase = field(event, "ph", &nlohmann::json::is_string);
      const nlohmann::json name = field(event, "name", &nlohmann::json::is_string);
      field(event, "pid", &nlohmann::json::is_number);
      ASSERT_FALSE(HasFailure());
      if (phase == "M")
         continue;
      const double start = field(event, "ts", &nlohmann::json::is_number).get<double>();
      EXPECT_GE(start, 0);
      if (phase == "C") {
         EXPECT_EQ(name, "active work-groups");
         const nlohmann::json active =
            event.contains("args") ? field(event["args"], "active", &nlohmann::json::is_number)
                                   : nlohmann::json();
         ASSERT_TRUE(active.is_number()) << event.dump();
         EXPECT_LE(active.get<double>(), 4);
         ++counters;
      } else {
         ASSERT_EQ(phase, "X");
         const double duration = field(event, "dur", &nlohmann::json::is_number).get<double>();
         const double track = field(event, "tid", &nlohmann::json::is_number).get<double>();
         ASSERT_FALSE(HasFailure());
         EXPECT_GE(duration, 0);
         spans_by_track[track].push_back({start, start + duration});
         const std::string label = name.get<std::string>();
         ordinary_launches += label.rfind("ordinary launch", 0) == 0;
         cooperative_launches += label.rfind("cooperative launch", 0) == 0;
         gathers += label == "gather";
      }
   }
   EXPECT_GE(counters, 3u);
   EXPECT_EQ(ordinary_launches, 3u);
   EXPECT_EQ(cooperative_launches, 1u);
   EXPECT_GE(gathers, 1u);
   // The slices of one track nest (Perfetto rejects overlaps).
   for (auto &[track, spans] : spans_by_track) {
      std::sort(spans.begin(), spans.end(),
                [](auto a, auto b) { return a.first < b.first || (a.first == b.first && a.second > b.second); });
      std::vector<double> open_ends;
      for (const auto &[start, end] : spans) {
         while (!open_ends.empty() && open_ends.back() <= start)
            open_ends.pop_back();
         EXPECT_TRUE(open_ends.empty() || end <= open_ends.back()) << "overlap on track " << track;
         open_ends.push_back(end);
      }
   }
}

} // namespace
} // namespace ck::test
