// The policy of a cooperative launch on a driver that dispatches it whole
// (ck/dispatch.h). The kernel's side of a kill is the same as under the
// scheduler (src/protocol/kernel_side.c); only the requests' author differs.

#include "ck/dispatch.h"

#include "ck/context.h"
#include "ck/scheduler.h"
#include "launch_stats.hpp"
#include "policy.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>

struct ck_dispatch_policy {
   ck::Policy policy;
   bool print_stats = false;
   std::atomic<std::uint64_t> launches{0};
};

namespace {

std::atomic_ref<std::uint32_t> header_word(std::uint32_t *context, ck_context_word word)
{
   return std::atomic_ref<std::uint32_t>(context[word]);
}

std::uint32_t read_word(const std::uint32_t *context, ck_context_word word)
{
   return std::atomic_ref<std::uint32_t>(const_cast<std::uint32_t &>(context[word])).load();
}

void sample_active(ck_dispatch_launch &launch, std::uint32_t active)
{
   if (active == 0) // the discovery has not closed yet
      return;
   launch.min_active = launch.min_active ? std::min(launch.min_active, active) : active;
   launch.max_active = std::max(launch.max_active, active);
}

} // namespace

extern "C" {

ck_dispatch_policy *ck_dispatch_policy_create(void)
{
   auto *dispatch_policy = new (std::nothrow) ck_dispatch_policy;
   if (!dispatch_policy)
      return nullptr;
   if (const char *text = std::getenv("CK_POLICY")) {
      if (const auto parsed = ck::parse_policy(text))
         dispatch_policy->policy = *parsed;
      else
         std::fprintf(stderr, "ck scheduler: invalid CK_POLICY '%s', using 'default'\n", text);
   }
   const char *stats = std::getenv("CK_STATS");
   dispatch_policy->print_stats = stats && std::string(stats) == "1";
   return dispatch_policy;
}

void ck_dispatch_policy_destroy(ck_dispatch_policy *policy)
{
   delete policy;
}

void ck_dispatch_begin(ck_dispatch_policy *policy, ck_dispatch_launch *launch)
{
   *launch = {};
   launch->rank = policy->launches.fetch_add(1);
   if (policy->policy.kind == ck::Policy::Kind::Random) {
      launch->seed = ck::launch_seed(policy->policy, std::uint32_t(launch->rank));
      launch->poll = 1;
   }
}

// The random policy keeps every kill that the launch can make requested
// (the work-group that closes the discovery posts the first ones): it tops
// the requests up to the killable work-groups with a CAS from the count it
// read, so that requests posted, claimed or given back meanwhile make it
// wait for the next poll. A kill claimed before that read and retired after
// the read of M is counted twice, so the requests can exceed what M allows
// by the kills in flight; as under the scheduler, a request that no
// work-group can meet stays unmet (the top work-group that could meet it is
// 0, or returned), and a resizing barrier that draws more kills than it can
// make kills all but work-group 0.
void ck_dispatch_poll(const ck_dispatch_policy *policy, ck_dispatch_launch *launch,
                      std::uint32_t *context)
{
   const std::uint32_t posted = header_word(context, CK_KILL_REQUESTS).load();
   const std::uint32_t active = header_word(context, CK_ACTIVE_GROUPS).load();
   sample_active(*launch, active);
   if (policy->policy.kind != ck::Policy::Kind::Random)
      return;
   const std::uint32_t killable =
      ck::killable_groups(active, header_word(context, CK_RETURNED_END).load());
   std::uint32_t expected = posted;
   if (killable > posted)
      header_word(context, CK_KILL_REQUESTS).compare_exchange_strong(expected, killable);
}

void ck_dispatch_end(const ck_dispatch_policy *policy, ck_dispatch_launch *launch,
                     const std::uint32_t *context, std::uint32_t max_groups, std::uint64_t ran_ns)
{
   // M started at the count that the discovery closed with.
   const std::uint32_t poll = read_word(context, CK_DISCOVERY_POLL);
   if (poll & CK_POLL_DISCOVER)
      sample_active(*launch, poll & CK_POLL_COUNT_MASK);
   sample_active(*launch, read_word(context, CK_ACTIVE_GROUPS));
   launch->kills = read_word(context, CK_KILLS);
   launch->forks = read_word(context, CK_FORKS);
   if (!policy->print_stats)
      return;
   // The scheduler's statistics: no gathers, and no fork latencies.
   const auto stats = std::make_unique<ck_launch_stats>();
   stats->kills = launch->kills;
   stats->forks = launch->forks;
   stats->min_active = launch->min_active;
   stats->max_active = launch->max_active;
   ck::print_launch_stats(launch->rank, max_groups, *stats, ran_ns);
}

} // extern "C"
