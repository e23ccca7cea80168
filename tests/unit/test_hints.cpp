// Unit tests of the scheduler's queue hints (ck_launch_hints of
// ck/scheduler.h): priority and throttle. The scheduler posts kill requests
// and fork offers under its lock within the launch call or the unit's
// return, so what it asked for is read right after the call that caused it.
// covers: 11.1-priority-kill-order 11.1-priority-no-kill-of-higher 11.1-priority-free-units
// covers: 11.1-priority-forks 11.1-throttle-cap 11.1-throttle-units 11.1-hints-default

#include "test_kernels.hpp"

#include <gtest/gtest.h>

namespace ck::test {
namespace {

// The kill requests pending in a kernel that offers no kill (the count is
// stable there: none is taken between the call that posted them and the
// read).
uint32_t pending_kills(Spinner &kernel)
{
   return kernel.context.word(CK_KILL_REQUESTS).load();
}

ck_launch *launch_spinner(ck_scheduler *scheduler, Spinner &kernel, uint32_t max_groups,
                          const ck_launch_hints &hints)
{
   ck_launch *launch = ck_scheduler_launch_cooperative_hinted(
      scheduler, run_kernel<Spinner>, &kernel, kernel.context.data(), max_groups, nullptr, &hints);
   if (!launch) {
      std::fprintf(stderr, "FATAL: the cooperative launch failed\n");
      std::abort();
   }
   return launch;
}

const char *priority_name(int priority)
{
   return priority == CK_PRIORITY_LOW ? "low" : priority == CK_PRIORITY_HIGH ? "high" : "medium";
}

TEST(Hints, ThrottleUnits)
{
   auto eight = make_scheduler(8, "default");
   EXPECT_EQ(ck_throttle_units(eight.get(), CK_THROTTLE_LOW), 2u);
   EXPECT_EQ(ck_throttle_units(eight.get(), CK_THROTTLE_MEDIUM), 4u);
   EXPECT_EQ(ck_throttle_units(eight.get(), CK_THROTTLE_HIGH), 8u);
   EXPECT_EQ(ck_throttle_units(eight.get(), CK_THROTTLE_NONE), 8u);
   auto three = make_scheduler(3, "default");
   EXPECT_EQ(ck_throttle_units(three.get(), CK_THROTTLE_LOW), 1u) << "at least one unit";
   EXPECT_EQ(ck_throttle_units(three.get(), CK_THROTTLE_MEDIUM), 1u);
}

TEST(Hints, InvalidHintsStartNothing)
{
   auto scheduler = make_scheduler(2, "default");
   CountingKernel kernel(1);
   Spinner spinner(2);
   for (const ck_launch_hints hints : {ck_launch_hints{nullptr, 2, CK_THROTTLE_NONE, 0, 0, nullptr},
                                       ck_launch_hints{nullptr, -2, CK_THROTTLE_NONE, 0, 0, nullptr},
                                       ck_launch_hints{nullptr, CK_PRIORITY_LOW, 4, 0, 0, nullptr},
                                       ck_launch_hints{nullptr, CK_PRIORITY_LOW, -1, 0, 0, nullptr}}) {
      EXPECT_EQ(ck_scheduler_launch_hinted(scheduler.get(), run_kernel<CountingKernel>, &kernel,
                                           1, &hints),
                nullptr);
      EXPECT_EQ(ck_scheduler_launch_cooperative_hinted(scheduler.get(), run_kernel<Spinner>,
                                                       &spinner, spinner.context.data(), 2,
                                                       nullptr, &hints),
                nullptr);
   }
   EXPECT_EQ(kernel.runs[0].load(), 0u);
}

// No hints, or the default hints, behave as the launch without hints: a
// waiting ordinary work-group gathers a unit from the cooperative kernel.
TEST(Hints, DefaultsKillForOrdinaryWork)
{
   for (const bool hinted : {false, true}) {
      auto scheduler = make_scheduler(2, "default");
      Spinner kernel(2);
      const ck_launch_hints defaults{nullptr, CK_PRIORITY_MEDIUM, CK_THROTTLE_NONE, 0, 0, nullptr};
      ck_launch *cooperative = launch_spinner(scheduler.get(), kernel, 2, defaults);
      require_eventually([&] { return kernel.running.load() == 2; }, "both work-groups run");
      kernel.offers_kills.store(false);
      CountingKernel ordinary(1);
      ck_launch *launch =
         hinted ? ck_scheduler_launch_hinted(scheduler.get(), run_kernel<CountingKernel>,
                                             &ordinary, 1, &defaults)
                : ck_scheduler_launch(scheduler.get(), run_kernel<CountingKernel>, &ordinary, 1);
      EXPECT_EQ(pending_kills(kernel), 1u) << (hinted ? "hinted" : "unhinted");
      kernel.offers_kills.store(true);
      wait_or_die(launch);
      kernel.stop.store(true);
      EXPECT_EQ(wait_or_die(cooperative).kills, 1u);
   }
}

struct PriorityCase {
   int cooperative, ordinary;
   bool kills;
};

// Ordinary work takes units from cooperative kernels of its priority or
// lower only; otherwise it waits for a unit to come free.
TEST(Hints, OrdinaryWorkKillsOnlyKernelsOfItsPriorityOrLower)
{
   const PriorityCase cases[] = {
      {CK_PRIORITY_MEDIUM, CK_PRIORITY_LOW, false}, {CK_PRIORITY_HIGH, CK_PRIORITY_MEDIUM, false},
      {CK_PRIORITY_HIGH, CK_PRIORITY_LOW, false},   {CK_PRIORITY_LOW, CK_PRIORITY_LOW, true},
      {CK_PRIORITY_LOW, CK_PRIORITY_HIGH, true},    {CK_PRIORITY_MEDIUM, CK_PRIORITY_HIGH, true},
      {CK_PRIORITY_HIGH, CK_PRIORITY_HIGH, true},
   };
   for (const PriorityCase &test : cases) {
      const std::string name = std::string(priority_name(test.ordinary)) + " ordinary work, " +
                               priority_name(test.cooperative) + " cooperative kernel";
      auto scheduler = make_scheduler(2, "default");
      Spinner kernel(2);
      ck_launch *cooperative = launch_spinner(scheduler.get(), kernel, 2,
                                              {nullptr, test.cooperative, CK_THROTTLE_NONE, 0, 0, nullptr});
      require_eventually([&] { return kernel.running.load() == 2; }, "both work-groups run");
      kernel.offers_kills.store(false);
      CountingKernel work(1);
      const ck_launch_hints ordinary_hints{nullptr, test.ordinary, CK_THROTTLE_NONE, 0, 0, nullptr};
      ck_launch *ordinary = ck_scheduler_launch_hinted(
         scheduler.get(), run_kernel<CountingKernel>, &work, 1, &ordinary_hints);
      EXPECT_EQ(pending_kills(kernel), test.kills ? 1u : 0u) << name;
      kernel.offers_kills.store(true);
      uint64_t stopped_ns = 0;
      if (test.kills) {
         // The unit comes from the kill, while the kernel still runs.
         wait_or_die(ordinary);
         stopped_ns = steady_now_ns();
         kernel.stop.store(true);
      } else {
         stopped_ns = steady_now_ns();
         kernel.stop.store(true);
         EXPECT_GE(wait_or_die(ordinary).start_ns, stopped_ns) << name << ": started before a unit came free";
      }
      const ck_launch_stats stats = wait_or_die(cooperative);
      EXPECT_EQ(stats.kills, test.kills ? 1u : 0u) << name;
      EXPECT_EQ(kernel.tracker.violations(), 0u);
   }
}

// A unit that comes free goes to the waiting work of the highest priority,
// whatever the launch order.
TEST(Hints, FreeUnitsGoToTheHighestPriorityFirst)
{
   auto scheduler = make_scheduler(1, "default");
   GatedKernel gated;
   ck_launch *holder = ck_scheduler_launch(scheduler.get(), run_kernel<GatedKernel>, &gated, 1);
   require_eventually([&] { return gated.entered.load() == 1; }, "the unit is held");
   CountingKernel low_work(1), high_work(1);
   Spinner medium_kernel(1);
   const ck_launch_hints low{nullptr, CK_PRIORITY_LOW, CK_THROTTLE_NONE, 0, 0, nullptr},
      medium{nullptr, CK_PRIORITY_MEDIUM, CK_THROTTLE_NONE, 0, 0, nullptr},
      high{nullptr, CK_PRIORITY_HIGH, CK_THROTTLE_NONE, 0, 0, nullptr};
   ck_launch *low_launch = ck_scheduler_launch_hinted(scheduler.get(), run_kernel<CountingKernel>,
                                                      &low_work, 1, &low);
   medium_kernel.stop.store(true); // runs once and returns
   ck_launch *medium_launch = launch_spinner(scheduler.get(), medium_kernel, 1, medium);
   ck_launch *high_launch = ck_scheduler_launch_hinted(
      scheduler.get(), run_kernel<CountingKernel>, &high_work, 1, &high);
   gated.open.store(true);
   wait_or_die(holder);
   const uint64_t high_start = wait_or_die(high_launch).start_ns;
   const uint64_t medium_start = wait_or_die(medium_launch).start_ns;
   const uint64_t low_start = wait_or_die(low_launch).start_ns;
   EXPECT_LT(high_start, medium_start);
   EXPECT_LT(medium_start, low_start);
}

// A waiting high-priority launch takes its unit from the lowest-priority
// kernel, even one that started later.
TEST(Hints, HighPriorityWorkTakesUnitsFromTheLowestPriorityFirst)
{
   auto scheduler = make_scheduler(4, "default");
   Spinner medium(2), low(2);
   ck_launch *medium_launch =
      launch_spinner(scheduler.get(), medium, 2, {nullptr, CK_PRIORITY_MEDIUM, CK_THROTTLE_NONE, 0, 0, nullptr});
   require_eventually([&] { return medium.running.load() == 2; }, "the medium kernel runs");
   ck_launch *low_launch =
      launch_spinner(scheduler.get(), low, 2, {nullptr, CK_PRIORITY_LOW, CK_THROTTLE_NONE, 0, 0, nullptr});
   require_eventually([&] { return low.running.load() == 2; }, "the low kernel runs");

   medium.offers_kills.store(false);
   low.offers_kills.store(false);
   GatedKernel gated;
   const ck_launch_hints high{nullptr, CK_PRIORITY_HIGH, CK_THROTTLE_NONE, 0, 0, nullptr};
   ck_launch *ordinary =
      ck_scheduler_launch_hinted(scheduler.get(), run_kernel<GatedKernel>, &gated, 1, &high);
   EXPECT_EQ(pending_kills(low), 1u);
   EXPECT_EQ(pending_kills(medium), 0u);
   medium.offers_kills.store(true);
   low.offers_kills.store(true);
   require_eventually([&] { return gated.entered.load() == 1; }, "the high-priority work-group");
   gated.open.store(true);
   wait_or_die(ordinary);
   medium.stop.store(true);
   low.stop.store(true);
   EXPECT_EQ(wait_or_die(medium_launch).kills, 0u);
   EXPECT_EQ(wait_or_die(low_launch).kills, 1u);
}

// Units that come free go to the forks of the higher-priority kernel while
// it can take them, though the other has fewer work-groups active.
TEST(Hints, ForksGoToTheHigherPriorityFirst)
{
   auto scheduler = make_scheduler(4, "default");
   Spinner low(4), high(4);
   ck_launch *low_launch =
      launch_spinner(scheduler.get(), low, 4, {nullptr, CK_PRIORITY_LOW, CK_THROTTLE_NONE, 0, 0, nullptr});
   require_eventually([&] { return low.running.load() == 4; }, "the low kernel runs");
   // The high kernel takes its first unit from the low one; the gated
   // high-priority work two more.
   ck_launch *high_launch =
      launch_spinner(scheduler.get(), high, 4, {nullptr, CK_PRIORITY_HIGH, CK_THROTTLE_NONE, 0, 0, nullptr});
   GatedKernel gated;
   const ck_launch_hints high_hints{nullptr, CK_PRIORITY_HIGH, CK_THROTTLE_NONE, 0, 0, nullptr};
   ck_launch *ordinary =
      ck_scheduler_launch_hinted(scheduler.get(), run_kernel<GatedKernel>, &gated, 2, &high_hints);
   require_eventually([&] { return gated.entered.load() == 2 && high.running.load() == 1; },
                      "the high kernel and the gated work run", &low.context);
   EXPECT_EQ(low.active(), 1u);
   gated.open.store(true);
   wait_or_die(ordinary);
   require_eventually([&] { return low.active() + high.active() == 4; },
                      "the freed units are forked", &high.context);
   EXPECT_EQ(high.active(), 3u);
   EXPECT_EQ(low.active(), 1u);
   high.stop.store(true);
   low.stop.store(true);
   EXPECT_EQ(wait_or_die(high_launch).kills, 0u);
   EXPECT_EQ(wait_or_die(low_launch).kills, 3u);
   EXPECT_EQ(high.tracker.violations() + low.tracker.violations(), 0u);
}

// A kernel throttled to half the units starts with at most that many and
// is offered no fork beyond them, though units are idle: the next launch
// finds them free.
TEST(Hints, ThrottleCapsTheUnitsAQueueHolds)
{
   auto scheduler = make_scheduler(8, "default");
   GatedKernel gated;
   ck_launch *holder = ck_scheduler_launch(scheduler.get(), run_kernel<GatedKernel>, &gated, 6);
   require_eventually([&] { return gated.entered.load() == 6; }, "six units held");
   Spinner throttled(8);
   int queue = 0;
   ck_launch *cooperative = launch_spinner(scheduler.get(), throttled, 8,
                                           {&queue, CK_PRIORITY_MEDIUM, CK_THROTTLE_MEDIUM, 0, 0, nullptr});
   require_eventually([&] { return throttled.running.load() == 2; }, "the throttled kernel runs");
   gated.open.store(true);
   wait_or_die(holder);
   require_eventually([&] { return throttled.active() >= 4; }, "forks up to the cap",
                      &throttled.context);
   CountingKernel probe(4);
   wait_or_die(ck_scheduler_launch(scheduler.get(), run_kernel<CountingKernel>, &probe, 4));
   throttled.stop.store(true);
   const ck_launch_stats stats = wait_or_die(cooperative);
   EXPECT_EQ(stats.kills, 0u) << "the four other units were free";
   EXPECT_EQ(stats.max_active, 4u);
   EXPECT_EQ(stats.forks, 2u);
   EXPECT_EQ(throttled.tracker.violations(), 0u);
}

// Work-group 1 returns at once (its id stays active); the others request
// forks until stopped.
struct OneReturns {
   explicit OneReturns(uint32_t max_groups) : context(max_groups) {}
   void run(unsigned id, unsigned)
   {
      host::WorkGroup group(context, id);
      if (id == 1) {
         returned.store(true);
         return;
      }
      running.fetch_add(1);
      Backoff backoff;
      while (!stop.load()) {
         group.request_fork(0, 0u);
         backoff.pause();
      }
      running.fetch_sub(1);
   }
   host::Context context;
   std::atomic<bool> stop{false}, returned{false};
   std::atomic<unsigned> running{0};
};

// A returned work-group stays active: a throttled kernel is offered no
// fork that would take M past its throttle, though the returned
// work-group's unit is free (the next launch finds it so).
TEST(Hints, ReturnedWorkGroupsCountAgainstTheThrottle)
{
   auto scheduler = make_scheduler(4, "default");
   OneReturns kernel(4);
   int queue = 0;
   const ck_launch_hints medium{&queue, CK_PRIORITY_MEDIUM, CK_THROTTLE_MEDIUM, 0, 0, nullptr};
   ck_launch *cooperative = ck_scheduler_launch_cooperative_hinted(
      scheduler.get(), run_kernel<OneReturns>, &kernel, kernel.context.data(), 4, nullptr, &medium);
   ASSERT_NE(cooperative, nullptr);
   require_eventually([&] { return kernel.returned.load() && kernel.running.load() == 1; },
                      "work-group 1 returned", &kernel.context);
   CountingKernel probe(3);
   wait_or_die(ck_scheduler_launch(scheduler.get(), run_kernel<CountingKernel>, &probe, 3));
   kernel.stop.store(true);
   const ck_launch_stats stats = wait_or_die(cooperative);
   EXPECT_EQ(stats.max_active, 2u);
   EXPECT_EQ(stats.forks, 0u);
   EXPECT_EQ(stats.kills, 0u) << "the three other units were free";
}

} // namespace
} // namespace ck::test
