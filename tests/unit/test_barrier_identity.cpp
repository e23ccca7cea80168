// Barrier identity (the spec's "Active work-groups"): work-groups that reach
// different barrier calls at once never pass together. The kernel side
// (kernel_side.c, built natively) runs on host threads against the real
// scheduler, with every launch's protocol log checked (CK_CHECK): the
// barrier call each work-group reaches in each round comes from a plan, as
// in a kernel whose condition is data read from a buffer. A mismatch ends
// the launch as a stuck barrier: every work-group leaves, none passes the
// barrier, the record names both calls, and nothing hangs. Plans whose
// work-groups agree run to the end, through global and resizing barriers
// at several calls, under the default and random policies.
// covers: 10.1-barrier-call 10.1-mismatch-detected 12-mismatch-stderr 15-mismatch-record

#include "test_kernels.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace ck::test {
namespace {

constexpr uint32_t global1 = 1, global2 = 2, resizing3 = CK_STUCK_RESIZING | 3,
                   resizing4 = CK_STUCK_RESIZING | 4;

// The source line the plan gives barrier call `site`.
uint32_t line_of(uint32_t site) { return 100 + (site & CK_STUCK_INDEX_MASK); }

// plan(round, id): the barrier call work-group `id` reaches in `round`.
using Plan = std::function<uint32_t(uint32_t round, uint32_t id)>;

struct PlannedBarriers {
   static constexpr uint32_t resume_at_join = 1;
   struct Record {
      uint32_t round;
   };

   PlannedBarriers(uint32_t max_groups, uint32_t rounds, Plan plan)
      : context(max_groups), rounds(rounds), plan(std::move(plan)), passed(rounds)
   {
   }

   // True if the work-group left (killed, or the barrier is stuck).
   bool barrier(host::WorkGroup &group, uint32_t round)
   {
      const uint32_t call = plan(round, group.id());
      if (call & CK_STUCK_RESIZING)
         return group.resizing_global_barrier(resume_at_join, Record{round}, call,
                                              line_of(call));
      return group.global_barrier(call, line_of(call));
   }

   void run(unsigned id, unsigned)
   {
      host::WorkGroup group(context, id);
      uint32_t round = 0;
      if (group.resume_point() == resume_at_join) {
         // Forked by a resizing barrier: joins it where it was forked.
         round = group.transmitted<Record>().round;
         const uint32_t call = plan(round, id);
         if (group.join_resizing_barrier(call, line_of(call)))
            return;
         passed[round].fetch_add(1);
         ++round;
      }
      for (; round < rounds; ++round) {
         if (barrier(group, round))
            return;
         passed[round].fetch_add(1);
      }
   }

   host::Context context;
   const uint32_t rounds;
   const Plan plan;
   std::vector<std::atomic<uint32_t>> passed; // per round
};

struct Outcome {
   ck_launch_stats stats;
   uint32_t mismatch_site, mismatch_line;
   std::vector<uint32_t> passed;
   std::string printed;
};

// `checked`: with the protocol log replayed (CK_CHECK=1), which catches a
// release of work-groups at different calls on its own; unchecked, as
// launches run by default, the kernel side alone must.
Outcome run_plan(const char *policy, bool checked, unsigned units, uint32_t groups,
                 uint32_t rounds, const Plan &plan)
{
   const ck_scheduler_options options{units, policy, nullptr, nullptr, 0, checked ? 1 : 0, 0, 0};
   SchedulerPtr scheduler(ck_scheduler_create_with_options(&options));
   PlannedBarriers kernel(groups, rounds, plan);
   testing::internal::CaptureStderr();
   Outcome outcome;
   outcome.stats = wait_or_die(ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<PlannedBarriers>, &kernel, kernel.context.data(), groups,
      "planned"));
   outcome.printed = testing::internal::GetCapturedStderr();
   outcome.mismatch_site = kernel.context.word(CK_MISMATCH_SITE).load();
   outcome.mismatch_line = kernel.context.word(CK_MISMATCH_LINE).load();
   for (auto &count : kernel.passed)
      outcome.passed.push_back(count.load());
   return outcome;
}

std::string call_name(uint32_t site)
{
   return std::string(site & CK_STUCK_RESIZING ? "resizing_global_barrier" : "global_barrier") +
          " call " + std::to_string(site & CK_STUCK_INDEX_MASK) + " (line " +
          std::to_string(line_of(site)) + ")";
}

const char *const policies[] = {"default", "random:1", "random:7", "random:12345"};

// Round 0: every work-group at barrier call 1; round 1: the plan's mix
// (`low` for work-groups below `split`, `high` for the others); round 2:
// call 1 again, which no work-group may reach.
void expect_mismatch(uint32_t low, uint32_t high, uint32_t split)
{
   for (const char *policy : policies) {
    for (bool checked : {false, true}) {
      for (unsigned units : {2u, 3u}) {
         for (uint32_t groups : {units, 2 * units + 1}) {
            for (int repeat = 0; repeat < 3; ++repeat) {
               SCOPED_TRACE(std::string(policy) + (checked ? ", checked, " : ", ") +
                            std::to_string(units) + " units, N = " + std::to_string(groups));
               const Outcome got = run_plan(policy, checked, units, groups, 3, [&](uint32_t round,
                                                                          uint32_t id) {
                  return round == 1 ? (id < split ? low : high) : global1;
               });
               // Round 0 is a global barrier: M is still min(N, units) >= 2
               // at round 1, so work-groups on both sides reach it.
               EXPECT_EQ(got.passed[1], 0u) << "a work-group passed the mismatched barrier";
               EXPECT_EQ(got.passed[2], 0u);
               ASSERT_TRUE(got.stats.stuck_barrier == low || got.stats.stuck_barrier == high)
                  << "the launch reports the mismatch as a stuck barrier: "
                  << got.stats.stuck_barrier << "\n"
                  << got.printed;
               const uint32_t other = got.stats.stuck_barrier == low ? high : low;
               EXPECT_EQ(got.stats.stuck_line, line_of(got.stats.stuck_barrier));
               EXPECT_EQ(got.mismatch_site, other) << "CK_MISMATCH_SITE names the other call";
               EXPECT_EQ(got.mismatch_line, line_of(other))
                  << "a work-group waiting at the other call recorded its line";
               const std::string message = "ck: kernel 'planned': work-groups reached different "
                                           "barrier calls at once: " +
                                           call_name(got.stats.stuck_barrier) +
                                           " while others waited at " + call_name(other);
               EXPECT_NE(got.printed.find(message), std::string::npos)
                  << "stderr says \"" << message << "\":\n"
                  << got.printed;
            }
         }
      }
    }
   }
}

TEST(BarrierIdentity, GlobalBarriersAtDifferentCallsNeverPass)
{
   expect_mismatch(global1, global2, 1);
}

TEST(BarrierIdentity, TheTopWorkGroupAtAnotherGlobalBarrier)
{
   // Only work-group 1 of two active ones, or the top ones, differ.
   expect_mismatch(global2, global1, 1);
}

TEST(BarrierIdentity, WorkGroupZeroAtAResizingBarrierOthersAtAGlobalOne)
{
   expect_mismatch(resizing3, global2, 1);
}

TEST(BarrierIdentity, WorkGroupZeroAtAGlobalBarrierOthersAtAResizingOne)
{
   expect_mismatch(global2, resizing3, 1);
}

TEST(BarrierIdentity, ResizingBarriersAtDifferentCalls)
{
   expect_mismatch(resizing3, resizing4, 1);
}

// Work-groups that agree pass every barrier, whichever calls follow each
// other: the tag of each barrier is cleared at its release, and a later
// barrier at another call is no mismatch.
TEST(BarrierIdentity, AgreeingWorkGroupsPassEveryCall)
{
   const uint32_t sequence[] = {global1, resizing3, global2, global2,
                                resizing4, resizing4, global1, resizing3};
   const uint32_t rounds = sizeof sequence / sizeof sequence[0];
   for (const char *policy : policies) {
    for (bool checked : {false, true}) {
      for (unsigned units : {2u, 3u}) {
         for (uint32_t groups : {units, 2 * units + 1}) {
            for (int repeat = 0; repeat < 3; ++repeat) {
               SCOPED_TRACE(std::string(policy) + (checked ? ", checked, " : ", ") +
                            std::to_string(units) + " units, N = " + std::to_string(groups));
               const Outcome got = run_plan(policy, checked, units, groups, rounds,
                                            [&](uint32_t round, uint32_t) { return sequence[round]; });
               EXPECT_EQ(got.stats.stuck_barrier, 0u) << got.printed;
               EXPECT_EQ(got.mismatch_site, 0u);
               for (uint32_t round = 0; round < rounds; ++round)
                  EXPECT_GE(got.passed[round], 1u) << "round " << round;
               if (std::string(policy) == "default") {
                  // No kills nor forks: every active work-group passes each.
                  for (uint32_t round = 0; round < rounds; ++round)
                     EXPECT_EQ(got.passed[round], std::min(groups, units)) << "round " << round;
               }
            }
         }
      }
    }
   }
}

} // namespace
} // namespace ck::test
