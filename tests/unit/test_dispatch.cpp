// The policy of a cooperative launch that a driver dispatches whole
// (ck/dispatch.h, zink's backend): its seeds and its switch for parked late
// work-groups, and whole dispatches of host threads that run the kernel
// side of the protocol, with kills and forks under the random policy.
// covers: 15-dispatched-kills 15-dispatched-demand

#include "ck/context.h"
#include "ck/dispatch.h"
#include "ck/runtime.h"
#include "host_work_group.hpp"
#include "kernel_side.h"
#include "policy.hpp"
#include "trace_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace ck::test {
namespace {

using namespace std::chrono_literals;

// What the driver passes as a launch's times: os_time_get_nano()'s clock.
uint64_t monotonic_ns()
{
   return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

struct PolicyDeleter {
   void operator()(ck_dispatch_policy *policy) const { ck_dispatch_policy_destroy(policy); }
};
using PolicyPtr = std::unique_ptr<ck_dispatch_policy, PolicyDeleter>;

PolicyPtr policy_from_env(const char *policy)
{
   setenv("CK_POLICY", policy, 1);
   PolicyPtr created(ck_dispatch_policy_create());
   unsetenv("CK_POLICY");
   return created;
}

TEST(DispatchPolicy, TheRandomPolicySeedsEachLaunchAsTheSchedulerDoes)
{
   const PolicyPtr policy = policy_from_env("random:7");
   ASSERT_TRUE(policy);
   Policy random;
   random.kind = Policy::Kind::Random;
   random.seed = 7;
   std::vector<uint32_t> seeds;
   for (uint32_t rank = 0; rank < 3; ++rank) {
      ck_dispatch_launch launch;
      ck_dispatch_begin(policy.get(), &launch, nullptr);
      EXPECT_EQ(launch.rank, rank);
      EXPECT_EQ(launch.seed, launch_seed(random, rank));
      EXPECT_NE(launch.seed, 0u);
      EXPECT_EQ(launch.park_late, 1u);
      seeds.push_back(launch.seed);
   }
   EXPECT_NE(seeds[0], seeds[1]);
   EXPECT_NE(seeds[1], seeds[2]);
}

TEST(DispatchPolicy, LateWorkGroupsParkUnlessThePolicyIsNever)
{
   for (const char *text : {"default", "never", "cap:1"}) {
      const PolicyPtr policy = policy_from_env(text);
      ck_dispatch_launch launch;
      ck_dispatch_begin(policy.get(), &launch, nullptr);
      EXPECT_EQ(launch.seed, 0u) << text;
      EXPECT_EQ(launch.park_late, std::string(text) == "never" ? 0u : 1u) << text;
   }
}

TEST(DispatchPolicy, TheStatisticsAreTheDiscoveredAndTheFinalM)
{
   const PolicyPtr policy = policy_from_env("default");
   ck_dispatch_launch launch;
   ck_dispatch_begin(policy.get(), &launch, nullptr);
   host::Context context(8);
   ck_context_init_discovery(context.data(), 8);
   // Closed with 3 joined; 2 killed, 4 forked: 5 at the end, which came
   // early at the second global barrier call.
   context.word(CK_DISCOVERY_POLL).store(CK_POLL_DISCOVER | 3);
   context.word(CK_ACTIVE_GROUPS).store(5);
   context.word(CK_KILLS).store(2);
   context.word(CK_FORKS).store(4);
   context.word(CK_STUCK_BARRIER).store(2);
   context.word(CK_STUCK_LINE).store(17);
   ck_dispatch_end(policy.get(), &launch, context.data(), 8, 1000, 3500);
   const ck_launch_stats &stats = launch.stats;
   EXPECT_EQ(stats.min_active, 3u);
   EXPECT_EQ(stats.max_active, 5u);
   EXPECT_EQ(stats.kills, 2u);
   EXPECT_EQ(stats.forks, 4u);
   EXPECT_EQ(stats.start_ns, 1000u);
   EXPECT_EQ(stats.end_ns, 3500u);
   EXPECT_EQ(stats.run_ns, 2500u);
   EXPECT_EQ(stats.queued_ns, 0u);
   EXPECT_EQ(stats.stuck_barrier, 2u);
   EXPECT_EQ(stats.stuck_line, 17u);
   EXPECT_EQ(stats.gathers, 0u);
}

constexpr uint32_t rounds = 24;

struct Round {
   uint32_t round;
};

struct DispatchResult {
   uint32_t discovered = 0; // M when the discovery closed
   uint32_t final_active = 0;
   uint32_t kills = 0, forks = 0;
   uint32_t gathers = 0; // ck_dispatch_demand()'s
   bool stuck = false;
   std::array<uint32_t, rounds> passed{}; // work-groups that passed each barrier
   std::array<uint32_t, rounds> ids{};    // their ids, one bit each
};

// One dispatch of `groups` work-groups taken in order by `slots` host
// threads, each running one work-group to its end before it takes the next
// (as a GPU and lavapipe's compute threads place them), under `policy`:
// the discovery, late work-groups parked for forks, and the random
// policy's kills, all on the kernel's side. The kernel: each round, some
// work, offer_kill, request_fork (forks join there, with the round
// transmitted), count itself, then a global barrier. With
// `waiting_groups`, the driver's thread tells the policy all along that
// so many work-groups of other work wait (ck_dispatch_demand()), as zink
// does between the slices of its wait for the dispatch.
DispatchResult dispatch(ck_dispatch_policy *policy, uint32_t groups, unsigned slots,
                        uint32_t waiting_groups = 0)
{
   host::Context context(groups);
   ck_context_init_discovery(context.data(), groups);
   context.word(CK_DISCOVERY_QUIET).store(1u << 12);
   ck_dispatch_launch launch;
   ck_dispatch_begin(policy, &launch, "rounds");
   const uint64_t start_ns = monotonic_ns();
   context.word(CK_RANDOM_SEED).store(launch.seed);
   context.word(CK_PARK_LATE).store(launch.park_late);

   DispatchResult result;
   std::array<std::atomic<uint32_t>, rounds> passed{}, ids{};
   std::atomic<uint32_t> next{0}, unfinished{slots};
   std::atomic<bool> stuck{false};
   auto work_group = [&](uint32_t hardware_id) {
      ck_word id = 0;
      if (!__ck_discover(context.data(), hardware_id, groups, &id))
         return;
      host::WorkGroup group(context, id);
      uint32_t round = group.resume_point() != 0 ? group.transmitted<Round>().round : 0;
      bool joined = group.resume_point() != 0;
      for (; round < rounds; ++round) {
         if (!joined) {
            const auto until = std::chrono::steady_clock::now() + 20us;
            while (std::chrono::steady_clock::now() < until)
               ;
            if (group.offer_kill())
               return;
            group.request_fork(1, Round{round});
         }
         joined = false;
         passed[round].fetch_add(1);
         ids[round].fetch_or(1u << id);
         if (group.global_barrier()) {
            stuck = true;
            return;
         }
      }
   };
   std::vector<std::thread> threads;
   if (waiting_groups > 0) {
      ck_dispatch_demand(policy, &launch, context.data(), waiting_groups);
      threads.emplace_back([&] {
         while (unfinished.load() != 0) {
            ck_dispatch_demand(policy, &launch, context.data(), waiting_groups);
            std::this_thread::sleep_for(20us);
         }
      });
   }
   // The slots start together, as a GPU's units do, so that the discovery
   // finds more than the first of them when the machine lets it.
   std::atomic<unsigned> started{0};
   for (unsigned slot = 0; slot < slots; ++slot)
      threads.emplace_back([&] {
         started.fetch_add(1);
         while (started.load() < slots)
            std::this_thread::yield();
         for (uint32_t g; (g = next.fetch_add(1)) < groups;)
            work_group(g);
         unfinished.fetch_sub(1);
      });
   const auto deadline = std::chrono::steady_clock::now() + 20s;
   while (unfinished.load() != 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(1ms);
   if (unfinished.load() != 0) { // a work-group hangs: fail loudly, now
      std::fprintf(stderr, "a dispatch did not complete in 20 s\n");
      std::quick_exit(EXIT_FAILURE);
   }
   for (std::thread &thread : threads)
      thread.join();
   ck_dispatch_end(policy, &launch, context.data(), groups, start_ns, monotonic_ns());
   result.discovered = context.word(CK_DISCOVERY_POLL).load() & CK_POLL_COUNT_MASK;
   result.final_active = context.word(CK_ACTIVE_GROUPS).load();
   result.kills = context.word(CK_KILLS).load();
   result.forks = context.word(CK_FORKS).load();
   result.gathers = launch.stats.gathers;
   result.stuck = stuck.load();
   for (uint32_t round = 0; round < rounds; ++round) {
      result.passed[round] = passed[round].load();
      result.ids[round] = ids[round].load();
   }
   EXPECT_EQ(context.word(CK_FORK_OFFERS).load(), 0u) << "a parked work-group left its offer";
   EXPECT_EQ(context.word(CK_FORKS_CLAIMED).load(), result.forks) << "a fork never started";
   EXPECT_LE(context.word(CK_KILL_REQUESTS).load() + 1, result.final_active)
      << "more kills requested than M - 1";
   return result;
}

// Every round's work-groups are [0, k), and M moved only by the kills and
// forks counted.
void check(const DispatchResult &result)
{
   ASSERT_FALSE(result.stuck);
   for (uint32_t round = 0; round < rounds; ++round) {
      const uint32_t passed = result.passed[round];
      EXPECT_GE(passed, 1u) << "work-group 0 is never killed";
      EXPECT_EQ(result.ids[round], (passed == 32 ? ~0u : (1u << passed) - 1))
         << "round " << round << ": not the ids [0, " << passed << ")";
   }
   EXPECT_EQ(result.final_active, result.passed[rounds - 1]);
   EXPECT_EQ(result.final_active + result.kills, result.discovered + result.forks);
}

TEST(DispatchPolicy, UnderTheRandomPolicyADispatchKillsAndItsLateWorkGroupsFork)
{
   // A dispatch can kill and fork only where the discovery found two
   // work-groups resident together, which a loaded machine may deny it for
   // many dispatches in a row (its threads not running when the discovery
   // closes): so dispatch 20 times, and on until both were seen, for at
   // most 15 s.
   const PolicyPtr policy = policy_from_env("random:3");
   uint32_t kills = 0, forks = 0, dispatches = 0, found_several = 0;
   const auto deadline = std::chrono::steady_clock::now() + 15s;
   while (!HasFailure() && (dispatches < 20 || kills < 8 || forks < 8) &&
          std::chrono::steady_clock::now() < deadline) {
      const DispatchResult result = dispatch(policy.get(), 16, 3);
      check(result);
      kills += result.kills;
      forks += result.forks;
      ++dispatches;
      found_several += result.discovered >= 2;
   }
   const std::string seen = std::to_string(dispatches) + " dispatches, " +
                            std::to_string(found_several) + " found two or more";
   EXPECT_GE(kills, 8u) << seen;
   EXPECT_GE(forks, 8u) << "the parked late work-groups took few forks; " << seen;
}

TEST(DispatchPolicy, UnderTheDefaultPolicyLateWorkGroupsTakeForksAndNothingIsKilled)
{
   const PolicyPtr policy = policy_from_env("default");
   for (int round = 0; round < 10 && !HasFailure(); ++round) {
      const DispatchResult result = dispatch(policy.get(), 16, 3);
      check(result);
      EXPECT_EQ(result.kills, 0u);
   }
}

TEST(DispatchPolicy, UnderTheDefaultPolicyWaitingWorkTakesAUnitThroughAKill)
{
   // One work-group of other work waits all along: a dispatch that found D
   // work-groups resident keeps D - 1 (at least one) and is asked for one
   // kill, and its late work-groups leave instead of parking. The kill comes
   // only if the driver's thread runs before the kernel ends, which a loaded
   // machine may deny it: so dispatch 20 times, and on until three killed,
   // for at most 15 s.
   const PolicyPtr policy = policy_from_env("default");
   uint32_t killing = 0, dispatches = 0;
   const auto deadline = std::chrono::steady_clock::now() + 15s;
   while (!HasFailure() && (dispatches < 20 || killing < 3) &&
          std::chrono::steady_clock::now() < deadline) {
      const DispatchResult result = dispatch(policy.get(), 16, 3, 1);
      check(result);
      EXPECT_LE(result.kills, result.discovered >= 2 ? 1u : 0u) << "killed below D - 1";
      EXPECT_EQ(result.forks, 0u) << "a late work-group parked while work waited";
      EXPECT_EQ(result.gathers, result.kills) << "the one request, met, is one gather";
      killing += result.kills;
      ++dispatches;
   }
   EXPECT_GE(killing, 3u) << "few dispatches gave a unit back in " << dispatches;
}

// CK_TRACE, as the scheduler writes it: every launch from its start to its
// end, each gather within its launch, and a counter of active work-groups
// per launch that starts at the discovery's count and ends at 0.
TEST(DispatchPolicy, TheTraceHasTheLaunchesTheirGathersAndTheirActiveWorkGroups)
{
   TraceFile file;
   uint32_t dispatches = 0, killing = 0;
   {
      setenv("CK_TRACE", file.path.c_str(), 1);
      const PolicyPtr policy = policy_from_env("default");
      unsetenv("CK_TRACE");
      const auto deadline = std::chrono::steady_clock::now() + 15s;
      while (!HasFailure() && killing == 0 && std::chrono::steady_clock::now() < deadline) {
         const DispatchResult result = dispatch(policy.get(), 16, 3, 1);
         check(result);
         killing += result.kills;
         ++dispatches;
      }
   } // the policy is destroyed: the trace is written
   ASSERT_GE(killing, 1u) << "no dispatch killed in " << dispatches;
   const nlohmann::json trace = file.read_and_remove();
   ASSERT_FALSE(trace.is_discarded()) << "no trace, or not JSON:\n" << file.contents;

   struct Span {
      double start, end;
   };
   std::map<uint64_t, Span> launches;
   std::vector<std::pair<uint64_t, Span>> gathers;
   std::map<uint64_t, std::vector<std::pair<double, uint32_t>>> counters;
   for (const nlohmann::json &event : trace["traceEvents"]) {
      const std::string phase = event.value("ph", "");
      if (phase == "X") {
         const uint64_t launch = event["args"]["launch"];
         const double start = event["ts"], duration = event["dur"];
         const Span span{start, start + duration};
         if (event.value("cat", "") == "gather")
            gathers.emplace_back(launch, span);
         else if (event.value("name", "") ==
                  "cooperative launch " + std::to_string(launch) + " of 'rounds' (16 groups)")
            launches[launch] = span;
         else
            ADD_FAILURE() << "an unexpected span: " << event.dump();
      } else if (phase == "C") {
         const std::string id = event["id"];
         counters[std::stoull(id.substr(id.find(' ') + 1))].emplace_back(
            event["ts"], event["args"]["active"]);
      }
   }
   EXPECT_EQ(launches.size(), dispatches);
   EXPECT_GE(gathers.size(), 1u);
   // Times are microseconds written with 3 decimals; an end is a start plus
   // a duration, each rounded.
   const double rounding = 0.002;
   for (const auto &[launch, gather] : gathers) {
      ASSERT_EQ(launches.count(launch), 1u) << "a gather of no launch";
      EXPECT_LE(launches[launch].start, gather.start);
      EXPECT_LE(gather.start, gather.end);
      EXPECT_LE(gather.end, launches[launch].end + rounding);
   }
   for (auto &[launch, samples] : counters) {
      ASSERT_EQ(launches.count(launch), 1u) << "a counter of no launch";
      std::stable_sort(samples.begin(), samples.end(),
                       [](const auto &a, const auto &b) { return a.first < b.first; });
      EXPECT_GE(samples.front().second, 1u) << "the discovery found none";
      EXPECT_EQ(samples.front().first, launches[launch].start);
      EXPECT_EQ(samples.back().second, 0u);
      EXPECT_NEAR(samples.back().first, launches[launch].end, rounding);
   }
   EXPECT_EQ(counters.size(), launches.size());
}

TEST(DispatchPolicy, UnderNeverLateWorkGroupsLeave)
{
   const PolicyPtr policy = policy_from_env("never");
   for (int round = 0; round < 10 && !HasFailure(); ++round) {
      const DispatchResult result = dispatch(policy.get(), 16, 3);
      check(result);
      EXPECT_EQ(result.kills, 0u);
      EXPECT_EQ(result.forks, 0u);
   }
}

} // namespace
} // namespace ck::test
