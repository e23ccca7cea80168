// The replay of protocol logs against the FSE'17 rules (src/runtime/
// protocol_check.cpp): a trace that the rules allow passes, and each step
// that no rule allows is caught, with the reason. The stress and scheduler
// tests run every launch with the check on.
// covers: 10.1-mismatch-detected 10.1-returned-stays-active 10.1-stuck-detected 10.3-kill-top-only
// covers: 15-ck-check

#include "protocol_check.hpp"

#include "ck/context.h"

#include <gtest/gtest.h>

#include <vector>

namespace ck {
namespace {

using Events = std::vector<ProtocolEvent>;

constexpr uint32_t barrier_site = 1, resizing_site = CK_STUCK_RESIZING | 2;

ProtocolEvent start(uint32_t group) { return {CK_EVENT_START, group, 0, 0}; }
ProtocolEvent exit_(uint32_t group) { return {CK_EVENT_EXIT, group, 0, 0}; }
ProtocolEvent ret(uint32_t group) { return {CK_EVENT_RETURN, group, 0, 0}; }
ProtocolEvent kill(uint32_t group, uint32_t active) { return {CK_EVENT_KILL, group, active, 0}; }
ProtocolEvent fork(uint32_t first, uint32_t count) { return {CK_EVENT_FORK, first, count, 0}; }
ProtocolEvent arrive(uint32_t group, uint32_t generation, uint32_t site = barrier_site)
{
   return {CK_EVENT_ARRIVE, group, generation, site};
}
ProtocolEvent release(uint32_t generation, uint32_t counted)
{
   return {CK_EVENT_RELEASE, generation, counted, 0};
}
ProtocolEvent pass(uint32_t group, uint32_t generation)
{
   return {CK_EVENT_PASS, group, generation, 0};
}
ProtocolEvent stuck(uint32_t group, uint32_t generation)
{
   return {CK_EVENT_STUCK, group, generation, 0};
}

// Appends what ends a launch: every listed work-group returns and exits.
Events finish(Events events, std::initializer_list<uint32_t> groups)
{
   for (uint32_t group : groups) {
      events.push_back(ret(group));
      events.push_back(exit_(group));
   }
   return events;
}

// N = 4, M0 = 2: a barrier, a fork of two, a kill of the top one, then a
// resizing barrier of the three left, which forks one more.
const Events allowed = finish(
   {start(0), start(1), arrive(1, 0), arrive(0, 0), release(0, 2), pass(0, 0), pass(1, 0),
    fork(2, 2), start(3), start(2), kill(3, 4), exit_(3), arrive(2, 1, resizing_site),
    arrive(0, 1, resizing_site), arrive(1, 1, resizing_site), release(1, 3), fork(3, 1),
    pass(0, 1), pass(2, 1), start(3), pass(1, 1)},
   {0, 1, 2, 3});

const LaunchShape shape{4, 2};

std::string error_of(const Events &events, const LaunchShape &launch = shape,
                     bool stuck_reported = false)
{
   return check_protocol(events, launch, stuck_reported).value_or("");
}

TEST(ProtocolCheck, AcceptsWhatTheRulesAllow)
{
   EXPECT_EQ(error_of(allowed), "");
   EXPECT_EQ(error_of(finish({start(0)}, {0}), {1, 1}), "");
}

// Replaces event `index` of the allowed trace.
Events with(std::size_t index, ProtocolEvent event)
{
   Events events = allowed;
   events[index] = event;
   return events;
}

Events without(std::size_t index)
{
   Events events = allowed;
   events.erase(events.begin() + index);
   return events;
}

TEST(ProtocolCheck, KillOnlyTakesTheTopWorkGroup)
{
   EXPECT_NE(error_of(with(10, kill(2, 4))).find("not the top one"), std::string::npos);
   EXPECT_NE(error_of(with(10, kill(3, 3))).find("read M = 3, but M is 4"), std::string::npos);
   EXPECT_NE(error_of(finish({start(0), kill(0, 1), exit_(0)}, {}), {2, 1})
                .find("killed work-group 0"),
             std::string::npos);
   // Work-group 1 returned: it stays active and can no longer be killed.
   EXPECT_NE(error_of({start(0), start(1), ret(1), kill(1, 2)}).find("not running"),
             std::string::npos);
   // Nor can one that waits at a barrier.
   EXPECT_NE(error_of({start(0), start(1), arrive(1, 0), kill(1, 2)}).find("waits at a barrier"),
             std::string::npos);
}

TEST(ProtocolCheck, ForkTakesTheIdsFromM)
{
   EXPECT_NE(error_of(with(7, fork(3, 1))).find("forked ids from 3, but M is 2"),
             std::string::npos);
   EXPECT_NE(error_of(with(7, fork(2, 3))).find("forked 3 work-groups with room for 2"),
             std::string::npos);
   // A forked work-group starts only once, and only once forked.
   EXPECT_NE(error_of(with(8, start(1))).find("neither initial nor forked"), std::string::npos);
}

TEST(ProtocolCheck, BarrierWaitsForEveryActiveWorkGroup)
{
   // Released with work-group 0 still missing.
   Events early = allowed;
   std::swap(early[3], early[4]);
   EXPECT_NE(error_of(early).find("released with 1 of M = 2"), std::string::npos);
   EXPECT_NE(error_of(with(4, release(0, 1))).find("counted 1 arrived, but M is 2"),
             std::string::npos);
   // Passing without a release.
   EXPECT_NE(error_of(without(4)).find("not released"), std::string::npos);
   // The resizing barrier counts the work-groups forked before it.
   EXPECT_NE(error_of(without(14)).find("released with 2 of M = 3"), std::string::npos);
   // Work-groups at different barrier calls.
   EXPECT_NE(error_of(with(13, arrive(0, 1, barrier_site))).find("different barrier calls"),
             std::string::npos);
   // A generation out of order.
   EXPECT_NE(error_of(with(12, arrive(2, 5, resizing_site))).find("expected 1"),
             std::string::npos);
}

TEST(ProtocolCheck, StuckNeedsAReturnedWorkGroup)
{
   EXPECT_EQ(error_of({start(0), start(1), ret(1), exit_(1), arrive(0, 0), stuck(0, 0), exit_(0)},
                      {2, 2}, true),
             "");
   EXPECT_NE(error_of({start(0), start(1), arrive(0, 0), stuck(0, 0)}, {2, 2}, true)
                .find("no work-group has returned"),
             std::string::npos);
   EXPECT_NE(error_of(allowed, shape, true).find("no work-group found"), std::string::npos);
}

ProtocolEvent mismatch(uint32_t group, uint32_t site, uint32_t other)
{
   return {CK_EVENT_MISMATCH, group, site, other};
}

// A work-group that reaches another barrier call than those waiting does
// not arrive and leaves; the barrier is then stuck for the others.
TEST(ProtocolCheck, AMismatchLeavesTheBarrierStuck)
{
   EXPECT_EQ(error_of({start(0), start(1), arrive(0, 0), mismatch(1, resizing_site, barrier_site),
                       exit_(1), stuck(0, 0), exit_(0)},
                      {2, 2}, true),
             "");
   // Those that waited may have found the barrier stuck and left before a
   // later work-group reaches another call: the barrier keeps its call.
   EXPECT_EQ(error_of({start(0), start(1), start(2), arrive(0, 0),
                       mismatch(1, resizing_site, barrier_site), exit_(1), stuck(0, 0), exit_(0),
                       mismatch(2, resizing_site, barrier_site), exit_(2)},
                      {3, 3}, true),
             "");
   // The mismatch must name the call the others wait at, and differ from it.
   EXPECT_NE(error_of({start(0), start(1), arrive(0, 0), mismatch(1, resizing_site, 7)}, {2, 2},
                      true)
                .find("while the work-groups wait at"),
             std::string::npos);
   EXPECT_NE(error_of({start(0), start(1), arrive(0, 0), mismatch(1, barrier_site, barrier_site)},
                      {2, 2}, true)
                .find("while the work-groups wait at"),
             std::string::npos);
   // Nobody waits yet: the first arrival tags the barrier.
   EXPECT_NE(error_of({start(0), start(1), mismatch(1, resizing_site, barrier_site)}, {2, 2}, true)
                .find("where no work-group waits"),
             std::string::npos);
   // The launch must report it.
   EXPECT_NE(error_of({start(0), start(1), arrive(0, 0), mismatch(1, resizing_site, barrier_site),
                       exit_(1), stuck(0, 0), exit_(0)},
                      {2, 2}, false)
                .find("does not report"),
             std::string::npos);
   // A barrier stuck with neither a return nor a mismatch is still wrong.
   EXPECT_NE(error_of({start(0), start(1), arrive(0, 0), stuck(0, 0)}, {2, 2}, true)
                .find("no work-group has returned or reached another barrier call"),
             std::string::npos);
}

TEST(ProtocolCheck, EveryWorkGroupLeavesProperly)
{
   // Exits without returning.
   EXPECT_NE(error_of({start(0), exit_(0)}, {1, 1}).find("exited without returning"),
             std::string::npos);
   // A forked work-group that never started.
   EXPECT_NE(error_of(finish({start(0), fork(1, 1)}, {0}), {2, 1})
                .find("active work-group 1 never exited"),
             std::string::npos);
   // A killed one whose unit never came back.
   EXPECT_NE(error_of(finish({start(0), start(1), kill(1, 2)}, {0}), {2, 2})
                .find("killed work-group 1 never exited"),
             std::string::npos);
}

// A killed work-group's id can be forked and started again before the
// killed one's unit is back.
TEST(ProtocolCheck, AKilledIdCanComeBackBeforeItsUnit)
{
   EXPECT_EQ(error_of(finish({start(0), start(1), kill(1, 2), fork(1, 1), start(1), exit_(1)},
                             {0, 1}),
                      {2, 2}),
             "");
}

TEST(ProtocolCheck, ReportsTheEventsBeforeTheBrokenStep)
{
   const std::string error = error_of(with(10, kill(2, 4)));
   EXPECT_NE(error.find("event 10 (kill work-group 2 (M 4))"), std::string::npos) << error;
   EXPECT_NE(error.find("7: fork [2, 4)"), std::string::npos) << error;
}

// What the scheduler does with a launch's log: the kernel side's entries
// (appended here under the same lock) come back in order.
TEST(ProtocolLog, ReturnsTheEntriesInOrderAndNoticesLostOnes)
{
   std::vector<uint32_t> context(ck_context_bytes(2) / 4);
   ProtocolLog log(4);
   log.attach(context.data());
   EXPECT_EQ(context[CK_LOG_STATE], uint32_t(CK_LOG_FREE));
   log.append(context.data(), CK_EVENT_START, 0);
   log.append(context.data(), CK_EVENT_FORK, 1, 1);
   const auto events = log.take(context.data());
   ASSERT_TRUE(events);
   ASSERT_EQ(events->size(), 2u);
   EXPECT_EQ((*events)[1].event, uint32_t(CK_EVENT_FORK));
   EXPECT_EQ((*events)[1].b, 1u);
   EXPECT_EQ(context[CK_LOG_STATE], uint32_t(CK_LOG_FREE));
   // Each entry is taken once.
   log.append(context.data(), CK_EVENT_START, 1);
   const auto next = log.take(context.data());
   ASSERT_TRUE(next);
   ASSERT_EQ(next->size(), 1u);
   EXPECT_EQ((*next)[0].a, 1u);
   log.append(context.data(), CK_EVENT_RETURN, 1);
   log.append(context.data(), CK_EVENT_EXIT, 1);
   EXPECT_FALSE(log.take(context.data()));
   EXPECT_EQ(log.appended(), 5u);
}

} // namespace
} // namespace ck
