// The policy of a cooperative launch that a driver dispatches whole
// (ck/dispatch.h, zink's backend): its seeds, the kill requests it posts,
// and kills meeting them in a running launch, whose work-groups are host
// threads that run the kernel side of the protocol, beside a thread that
// polls for the driver.
// covers: 15-dispatched-kills

#include "ck/context.h"
#include "ck/dispatch.h"
#include "ck/runtime.h"
#include "host_work_group.hpp"
#include "kernel_side.h"
#include "policy.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

namespace ck::test {
namespace {

using namespace std::chrono_literals;

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
      ck_dispatch_begin(policy.get(), &launch);
      EXPECT_EQ(launch.rank, rank);
      EXPECT_EQ(launch.seed, launch_seed(random, rank));
      EXPECT_NE(launch.seed, 0u);
      EXPECT_TRUE(launch.poll);
      seeds.push_back(launch.seed);
   }
   EXPECT_NE(seeds[0], seeds[1]);
   EXPECT_NE(seeds[1], seeds[2]);
}

TEST(DispatchPolicy, OnlyTheRandomPolicyAsksForKills)
{
   for (const char *text : {"default", "never", "cap:1"}) {
      const PolicyPtr policy = policy_from_env(text);
      ck_dispatch_launch launch;
      ck_dispatch_begin(policy.get(), &launch);
      EXPECT_EQ(launch.seed, 0u) << text;
      EXPECT_FALSE(launch.poll) << text;
      host::Context context(8);
      ck_context_init(context.data(), 8, 5);
      ck_dispatch_poll(policy.get(), &launch, context.data());
      EXPECT_EQ(context.word(CK_KILL_REQUESTS).load(), 0u) << text;
      EXPECT_EQ(launch.min_active, 5u) << text;
   }
}

TEST(DispatchPolicy, RandomRequestsWhatMAndTheReturnedWorkGroupsAllow)
{
   const PolicyPtr policy = policy_from_env("random:1");
   ck_dispatch_launch launch;
   ck_dispatch_begin(policy.get(), &launch);
   host::Context context(8);
   ck_context_init_discovery(context.data(), 8);
   ck_dispatch_poll(policy.get(), &launch, context.data());
   EXPECT_EQ(context.word(CK_KILL_REQUESTS).load(), 0u) << "nothing active before the discovery";
   EXPECT_EQ(launch.max_active, 0u);

   context.word(CK_ACTIVE_GROUPS).store(5); // the discovery closed with 5
   ck_dispatch_poll(policy.get(), &launch, context.data());
   EXPECT_EQ(context.word(CK_KILL_REQUESTS).load(), 4u) << "all but work-group 0";

   // Work-group 4 claimed a request and retired.
   context.word(CK_KILL_REQUESTS).store(3);
   context.word(CK_ACTIVE_GROUPS).store(4);
   ck_dispatch_poll(policy.get(), &launch, context.data());
   EXPECT_EQ(context.word(CK_KILL_REQUESTS).load(), 3u);

   // Work-groups 2 and 3 stay active once they returned: only those above
   // the highest that returned can be killed, and requests are never taken
   // back.
   host::Context returned(8);
   ck_context_init(returned.data(), 8, 6);
   returned.word(CK_RETURNED_END).store(4);
   ck_dispatch_poll(policy.get(), &launch, returned.data());
   EXPECT_EQ(returned.word(CK_KILL_REQUESTS).load(), 2u);
   returned.word(CK_RETURNED_END).store(6);
   ck_dispatch_poll(policy.get(), &launch, returned.data());
   EXPECT_EQ(returned.word(CK_KILL_REQUESTS).load(), 2u);

   ck_dispatch_end(policy.get(), &launch, context.data(), 8, 1000);
   EXPECT_EQ(launch.min_active, 4u);
   EXPECT_EQ(launch.max_active, 6u);
}

TEST(DispatchPolicy, TheStatisticsStartFromTheDiscoveredCount)
{
   const PolicyPtr policy = policy_from_env("default");
   ck_dispatch_launch launch;
   ck_dispatch_begin(policy.get(), &launch);
   host::Context context(8);
   ck_context_init_discovery(context.data(), 8);
   // Closed with 3 joined; 2 killed before any poll; 1 left.
   context.word(CK_DISCOVERY_POLL).store(CK_POLL_DISCOVER | 3);
   context.word(CK_ACTIVE_GROUPS).store(1);
   context.word(CK_KILLS).store(2);
   ck_dispatch_end(policy.get(), &launch, context.data(), 8, 1000);
   EXPECT_EQ(launch.min_active, 1u);
   EXPECT_EQ(launch.max_active, 3u);
   EXPECT_EQ(launch.kills, 2u);
}

constexpr uint32_t rounds = 24;

struct DispatchResult {
   uint32_t initial = 0; // M at the start
   uint32_t final_active = 0;
   uint32_t kills = 0;
   uint64_t stats_kills = 0; // as ck_dispatch_end() read them
   uint32_t stats_min_active = 0;
   bool stuck = false, timed_out = false;
   std::array<uint32_t, rounds> passed{}; // work-groups that passed each barrier
   std::array<uint32_t, rounds> ids{};    // their ids, one bit each
};

// One launch of `groups` work-groups, all active from the start (the
// discovery is test_discovery.cpp's), each on a thread of its own, under
// `policy`. The kernel: each round, some work, offer_kill, count itself,
// then a global barrier; with the driver's thread polling the context
// meanwhile.
DispatchResult dispatch(ck_dispatch_policy *policy, uint32_t groups)
{
   host::Context context(groups);
   ck_context_init(context.data(), groups, groups);
   ck_dispatch_launch launch;
   ck_dispatch_begin(policy, &launch);
   context.word(CK_RANDOM_SEED).store(launch.seed);

   DispatchResult result;
   std::array<std::atomic<uint32_t>, rounds> passed{}, ids{};
   std::atomic<uint32_t> unfinished{groups};
   std::atomic<bool> stuck{false};
   const auto deadline = std::chrono::steady_clock::now() + 20s;
   auto work_group = [&](uint32_t id) {
      host::WorkGroup group(context, id);
      for (uint32_t round = 0; round < rounds; ++round) {
         // Work of a round, long enough for the driver to poll in it.
         const auto until = std::chrono::steady_clock::now() + 50us;
         while (std::chrono::steady_clock::now() < until)
            ;
         if (group.offer_kill())
            return;
         passed[round].fetch_add(1);
         ids[round].fetch_or(1u << id);
         if (group.global_barrier()) {
            stuck = true;
            return;
         }
      }
   };
   std::vector<std::thread> threads;
   for (uint32_t id = 0; id < groups; ++id)
      threads.emplace_back([&, id] {
         work_group(id);
         unfinished.fetch_sub(1);
      });
   std::thread driver([&] {
      while (unfinished.load() != 0 && std::chrono::steady_clock::now() < deadline) {
         if (launch.poll)
            ck_dispatch_poll(policy, &launch, context.data());
         std::this_thread::sleep_for(20us);
      }
   });
   driver.join();
   result.timed_out = unfinished.load() != 0;
   if (result.timed_out) { // the work-groups hang in a barrier: fail loudly, now
      std::fprintf(stderr, "a launch did not complete in 20 s\n");
      std::quick_exit(EXIT_FAILURE);
   }
   for (std::thread &thread : threads)
      thread.join();
   ck_dispatch_end(policy, &launch, context.data(), groups, 0);
   result.initial = groups;
   result.final_active = context.word(CK_ACTIVE_GROUPS).load();
   result.kills = context.word(CK_KILLS).load();
   result.stats_kills = launch.kills;
   result.stats_min_active = launch.min_active;
   result.stuck = stuck.load();
   for (uint32_t round = 0; round < rounds; ++round) {
      result.passed[round] = passed[round].load();
      result.ids[round] = ids[round].load();
   }
   return result;
}

// Every round's work-groups are [0, k) with k never growing, the kills are
// the work-groups lost, and the statistics say so.
void check(const DispatchResult &result)
{
   ASSERT_FALSE(result.stuck);
   uint32_t before = result.initial;
   for (uint32_t round = 0; round < rounds; ++round) {
      const uint32_t passed = result.passed[round];
      EXPECT_GE(passed, 1u) << "work-group 0 is never killed";
      EXPECT_LE(passed, before) << "round " << round;
      EXPECT_EQ(result.ids[round], (passed == 32 ? ~0u : (1u << passed) - 1))
         << "round " << round << ": not the ids [0, " << passed << ")";
      before = passed;
   }
   EXPECT_EQ(result.final_active, result.passed[rounds - 1]);
   EXPECT_EQ(result.kills, result.initial - result.final_active);
   EXPECT_EQ(result.stats_kills, result.kills);
   EXPECT_EQ(result.stats_min_active, result.final_active);
}

TEST(DispatchPolicy, TheRandomPolicyKillsInARunningDispatch)
{
   const PolicyPtr policy = policy_from_env("random:3");
   uint32_t kills = 0;
   for (int round = 0; round < 40 && !HasFailure() && kills < 8; ++round) {
      const DispatchResult result = dispatch(policy.get(), 4);
      check(result);
      kills += result.kills;
   }
   EXPECT_GE(kills, 8u) << "the random policy's requests met few kills";
}

TEST(DispatchPolicy, TheDefaultPolicyKillsNothing)
{
   const PolicyPtr policy = policy_from_env("default");
   for (int round = 0; round < 10 && !HasFailure(); ++round) {
      const DispatchResult result = dispatch(policy.get(), 4);
      check(result);
      EXPECT_EQ(result.kills, 0u);
   }
}

} // namespace
} // namespace ck::test
