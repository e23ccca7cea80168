// The policy of a cooperative launch on a driver that dispatches it whole
// (ck/dispatch.h). The kernel's side of kills and forks is the same as under
// the scheduler (src/protocol/kernel_side.c); its parked late work-groups
// stand for the scheduler's parked units.

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

extern "C" {

ck_dispatch_policy *ck_dispatch_policy_create(void)
{
   auto *dispatch_policy = new (std::nothrow) ck_dispatch_policy;
   if (!dispatch_policy)
      return nullptr;
   dispatch_policy->policy = ck::policy_from_env();
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
   launch->park_late = policy->policy.kind != ck::Policy::Kind::Never;
   if (policy->policy.kind == ck::Policy::Kind::Random)
      launch->seed = ck::launch_seed(policy->policy, std::uint32_t(launch->rank));
}

void ck_dispatch_end(const ck_dispatch_policy *policy, ck_dispatch_launch *launch,
                     const std::uint32_t *context, std::uint32_t max_groups, std::uint64_t ran_ns)
{
   // No scheduler event samples M in between: the discovery's count and
   // the final M.
   const std::uint32_t discovered = context[CK_DISCOVERY_POLL] & CK_POLL_COUNT_MASK;
   const std::uint32_t final_active = context[CK_ACTIVE_GROUPS];
   launch->min_active = std::min(discovered, final_active);
   launch->max_active = std::max(discovered, final_active);
   launch->kills = context[CK_KILLS];
   launch->forks = context[CK_FORKS];
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
