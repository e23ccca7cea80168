// Occupancy discovery (__ck_discover, kernel_side.c built natively): the
// work-groups of a dispatch find which of them are resident together, the
// way the zink backend starts a cooperative kernel (docs/zink-backend.md).
// A dispatch here is N work-groups taken in order by a few host threads, the
// "slots", each running one work-group to its end before it takes the next,
// as a GPU (and lavapipe's compute threads) place work-groups. Whoever joins
// the poll runs a global barrier of the M that joined: it completes only if
// they were all resident at once, and a watchdog fails the test if it does
// not.
// covers: 15-dispatched-discovery

#include "ck/context.h"
#include "ck/runtime.h"
#include "host_work_group.hpp"
#include "kernel_side.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace ck::test {
namespace {

using namespace std::chrono_literals;

TEST(Discovery, WithoutAPollEveryWorkGroupKeepsItsId)
{
   host::Context context(8);
   ck_context_init(context.data(), 8, 8);
   for (uint32_t group = 0; group < 8; ++group) {
      ck_word id = ~0u;
      EXPECT_EQ(__ck_discover(context.data(), group, 8, &id), 1u);
      EXPECT_EQ(id, group);
   }
   EXPECT_EQ(context.word(CK_ACTIVE_GROUPS).load(), 8u);
}

TEST(Discovery, OneWorkGroupAloneJoinsClosesAndSetsM)
{
   host::Context context(4);
   ck_context_init_discovery(context.data(), 4);
   ck_word id = ~0u;
   EXPECT_EQ(__ck_discover(context.data(), 3, 4, &id), 1u);
   EXPECT_EQ(id, 0u); // its ticket, not the hardware's id
   EXPECT_EQ(context.word(CK_ACTIVE_GROUPS).load(), 1u);
   EXPECT_EQ(context.word(CK_DISCOVERY_POLL).load(), CK_POLL_DISCOVER | 1u);
}

TEST(Discovery, AWorkGroupAfterTheCloseLeavesAndWritesNothing)
{
   host::Context context(4);
   ck_context_init_discovery(context.data(), 4);
   ck_word id = ~0u;
   ASSERT_EQ(__ck_discover(context.data(), 0, 4, &id), 1u);
   const std::vector<uint32_t> before(context.data(),
                                      context.data() + ck_context_bytes(4) / 4);
   ck_word late_id = 12345;
   EXPECT_EQ(__ck_discover(context.data(), 1, 4, &late_id), 0u);
   EXPECT_EQ(late_id, 12345u);
   EXPECT_TRUE(std::equal(before.begin(), before.end(), context.data()));
}

// Once every dispatched work-group joined, none can come: the poll closes
// without the quiet period (a launch of no more work-groups than are
// resident together paid it in full). 2^32 - 1 polls take over 0.4 s even
// at 10 polls a nanosecond, so a close in 250 ms came before it.
TEST(Discovery, ThePollClosesOnceEveryDispatchedWorkGroupJoined)
{
   constexpr uint32_t groups = 2;
   host::Context context(groups);
   ck_context_init_discovery(context.data(), groups);
   context.word(CK_DISCOVERY_QUIET).store(~0u);
   const auto start = std::chrono::steady_clock::now();
   std::vector<std::thread> threads;
   std::atomic<uint32_t> joined{0};
   for (uint32_t group = 0; group < groups; ++group)
      threads.emplace_back([&, group] {
         ck_word id = ~0u;
         if (__ck_discover(context.data(), group, groups, &id))
            joined.fetch_add(1);
      });
   for (std::thread &thread : threads)
      thread.join();
   EXPECT_LT(std::chrono::steady_clock::now() - start, 250ms)
      << "the joined work-groups waited out the quiet period";
   EXPECT_EQ(joined.load(), groups);
   EXPECT_EQ(context.word(CK_ACTIVE_GROUPS).load(), groups);
   EXPECT_EQ(context.word(CK_DISCOVERY_POLL).load(), CK_POLL_DISCOVER | groups);
}

// Under the random policy the host cannot post the kill requests before it
// knows M, and a short launch could end before its first poll: the
// work-group whose CAS set M posts M - 1.
TEST(Discovery, UnderTheRandomPolicyTheCloserPostsTheKillRequests)
{
   for (const uint32_t seed : {0u, 5u}) {
      constexpr uint32_t groups = 3;
      host::Context context(groups);
      ck_context_init_discovery(context.data(), groups);
      context.word(CK_DISCOVERY_QUIET).store(~0u); // all three join
      context.word(CK_RANDOM_SEED).store(seed);
      std::vector<std::thread> threads;
      for (uint32_t group = 0; group < groups; ++group)
         threads.emplace_back([&, group] {
            ck_word id = ~0u;
            __ck_discover(context.data(), group, groups, &id);
         });
      for (std::thread &thread : threads)
         thread.join();
      ASSERT_EQ(context.word(CK_ACTIVE_GROUPS).load(), groups);
      EXPECT_EQ(context.word(CK_KILL_REQUESTS).load(), seed ? groups - 1 : 0u) << "seed " << seed;
   }
}

// A dispatch of `groups` work-groups on `slots` threads; returns the ids the
// participants took, in no order, after checking what every dispatch must.
std::vector<uint32_t> dispatch(uint32_t groups, unsigned slots)
{
   host::Context context(groups);
   ck_context_init_discovery(context.data(), groups);
   std::atomic<uint32_t> next{0}, arrived{0}, left{0};
   std::vector<uint32_t> ids;
   std::atomic_flag ids_lock = ATOMIC_FLAG_INIT;
   std::atomic<bool> timed_out{false};

   auto work_group = [&](uint32_t hardware_id) {
      ck_word id = 0;
      if (!__ck_discover(context.data(), hardware_id, groups, &id))
         return; // not resident with the others: leaves at once
      while (ids_lock.test_and_set())
         ;
      ids.push_back(id);
      ids_lock.clear();
      // The kernel: one global barrier of the M participants.
      const uint32_t active = context.word(CK_ACTIVE_GROUPS).load();
      arrived.fetch_add(1);
      const auto deadline = std::chrono::steady_clock::now() + 10s;
      while (arrived.load() < active) {
         if (std::chrono::steady_clock::now() > deadline) {
            timed_out = true;
            break;
         }
         std::this_thread::yield();
      }
      left.fetch_add(1);
   };
   std::vector<std::thread> threads;
   for (unsigned slot = 0; slot < slots; ++slot)
      threads.emplace_back([&] {
         for (uint32_t g; (g = next.fetch_add(1)) < groups;)
            work_group(g);
      });
   for (std::thread &thread : threads)
      thread.join();

   EXPECT_FALSE(timed_out) << "the participants' barrier never completed";
   const uint32_t active = context.word(CK_ACTIVE_GROUPS).load();
   EXPECT_GE(active, 1u);
   EXPECT_LE(active, slots) << "more participants than work-groups resident at once";
   EXPECT_EQ(ids.size(), active);
   EXPECT_EQ(context.word(CK_DISCOVERY_POLL).load(), CK_POLL_DISCOVER | active);
   std::sort(ids.begin(), ids.end());
   for (uint32_t i = 0; i < ids.size(); ++i)
      EXPECT_EQ(ids[i], i) << "ids are not [0, M)";
   return ids;
}

TEST(Discovery, MoreWorkGroupsThanSlots)
{
   // Many dispatches, for the races between joins and the close.
   unsigned most = 0;
   for (int round = 0; round < 300 && !HasFailure(); ++round)
      most = std::max<unsigned>(most, dispatch(64, 3).size());
   EXPECT_GE(most, 1u);
}

TEST(Discovery, AsManyWorkGroupsAsSlots)
{
   for (int round = 0; round < 300 && !HasFailure(); ++round)
      dispatch(4, 4);
}

TEST(Discovery, OneSlot)
{
   for (int round = 0; round < 50 && !HasFailure(); ++round)
      EXPECT_EQ(dispatch(16, 1).size(), 1u);
}

} // namespace
} // namespace ck::test
