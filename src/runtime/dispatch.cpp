// The policy of a cooperative launch on a driver that dispatches it whole
// (ck/dispatch.h). The kernel's side of kills and forks is the same as under
// the scheduler (src/protocol/kernel_side.c); its parked late work-groups
// stand for the scheduler's parked units.

#include "ck/dispatch.h"

#include "ck/context.h"
#include "launch_stats.hpp"
#include "policy.hpp"
#include "trace.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <optional>
#include <string>

struct ck_dispatch_policy {
   ck::Policy policy;
   bool print_stats = false;
   std::atomic<std::uint64_t> launches{0};
   // CK_TRACE: the launches, their gathers and M as the driver saw it. The
   // recorder is thread-safe; the launches' calls only add to it.
   mutable std::optional<ck::TraceRecorder> trace;
};

namespace {

using Clock = ck::Trace::Clock;

// The driver's times are os_time_get_nano()'s: CLOCK_MONOTONIC, as
// steady_clock's on Linux.
Clock::time_point time_point(std::uint64_t ns)
{
   return Clock::time_point(std::chrono::nanoseconds(ns));
}

std::uint64_t monotonic_ns()
{
   return std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                           Clock::now().time_since_epoch())
                           .count());
}

// Ends the gather under way, if any, at now_ns.
void end_gather(const ck_dispatch_policy *policy, ck_dispatch_launch *launch,
                std::uint64_t now_ns)
{
   if (!launch->gather_start_ns)
      return;
   ck::record_gather(launch->stats, now_ns - launch->gather_start_ns);
   if (policy->trace)
      policy->trace->gather(launch->rank, time_point(launch->gather_start_ns),
                            time_point(now_ns));
   launch->gather_start_ns = 0;
}

// M as the driver last saw it, in the trace's counter of the launch.
void trace_active(const ck_dispatch_policy *policy, ck_dispatch_launch *launch,
                  std::uint64_t now_ns, std::uint32_t active)
{
   if (!policy->trace || active == launch->traced_active)
      return;
   policy->trace->active_groups(launch->rank, time_point(now_ns), active);
   launch->traced_active = active;
}

} // namespace

extern "C" {

ck_dispatch_policy *ck_dispatch_policy_create(void)
{
   auto *dispatch_policy = new (std::nothrow) ck_dispatch_policy;
   if (!dispatch_policy)
      return nullptr;
   dispatch_policy->policy = ck::policy_from_env();
   const char *stats = std::getenv("CK_STATS");
   dispatch_policy->print_stats = stats && std::string(stats) == "1";
   const char *trace = std::getenv("CK_TRACE");
   if (trace && *trace)
      dispatch_policy->trace.emplace(trace, Clock::now());
   return dispatch_policy;
}

void ck_dispatch_policy_destroy(ck_dispatch_policy *policy)
{
   delete policy;
}

void ck_dispatch_begin(ck_dispatch_policy *policy, ck_dispatch_launch *launch,
                       const char *kernel_name)
{
   *launch = {};
   launch->kernel_name = kernel_name;
   launch->rank = policy->launches.fetch_add(1);
   launch->park_late = policy->policy.kind != ck::Policy::Kind::Never;
   if (policy->policy.kind == ck::Policy::Kind::Random)
      launch->seed = ck::launch_seed(policy->policy, std::uint32_t(launch->rank));
}

void ck_dispatch_demand(const ck_dispatch_policy *policy, ck_dispatch_launch *launch,
                        std::uint32_t *context, std::uint32_t waiting_groups)
{
   if (policy->policy.kind != ck::Policy::Kind::Default)
      return;
   const auto word = [context](unsigned index) {
      return std::atomic_ref<std::uint32_t>(context[index]);
   };
   const bool waiting = waiting_groups > 0;
   word(CK_PARK_LATE).store(waiting ? 0u : launch->park_late);

   // Every kill consumes a request and counts in CK_KILLS, and only this
   // function posts requests under the default policy, so the requests
   // standing are those posted less the kills. CK_KILLS is read before M:
   // a kill between the reads then makes the room look smaller, not larger,
   // and the requests stay within M - 1 (tests/model/parking.pml).
   const std::uint32_t kills = word(CK_KILLS).load();
   const std::int64_t active = word(CK_ACTIVE_GROUPS).load();
   if (active == 0)
      return; // the discovery has not closed
   const std::int64_t floor = std::max(1u, word(CK_RETURNED_END).load());
   const std::int64_t killable = active - floor;
   const auto standing = [&] { return std::int64_t(launch->kills_posted) - kills; };

   // Requests that no active work-group can meet any more (one above them
   // returned) are taken back, as the scheduler takes them back.
   for (std::int64_t unmeetable = standing() - killable; unmeetable > 0;) {
      std::uint32_t requests = word(CK_KILL_REQUESTS).load();
      const std::uint32_t taken = std::min<std::uint32_t>(requests, std::uint32_t(unmeetable));
      if (taken == 0)
         break;
      if (word(CK_KILL_REQUESTS).compare_exchange_weak(requests, requests - taken)) {
         launch->kills_posted -= taken;
         unmeetable -= taken;
      }
   }

   // A gather: from the first request of a round to the moment every
   // request posted is met or taken back, as this thread sees it.
   const std::uint64_t now_ns = monotonic_ns();
   trace_active(policy, launch, now_ns, std::uint32_t(active));
   if (standing() == 0)
      end_gather(policy, launch, now_ns);
   if (!waiting)
      return;
   const std::uint32_t discovered = word(CK_DISCOVERY_POLL).load() & CK_POLL_COUNT_MASK;
   const std::int64_t keep = std::max<std::int64_t>(1, std::int64_t(discovered) - waiting_groups);
   const std::int64_t wanted = std::min(active - standing() - keep, killable - standing());
   if (wanted <= 0)
      return;
   word(CK_KILL_REQUESTS).fetch_add(std::uint32_t(wanted));
   launch->kills_posted += std::uint32_t(wanted);
   if (!launch->gather_start_ns)
      launch->gather_start_ns = now_ns;
}

void ck_dispatch_end(const ck_dispatch_policy *policy, ck_dispatch_launch *launch,
                     const std::uint32_t *context, std::uint32_t max_groups,
                     std::uint64_t start_ns, std::uint64_t end_ns)
{
   ck_launch_stats &stats = launch->stats;
   // No scheduler event samples M in between: the discovery's count and
   // the final M.
   const std::uint32_t discovered = context[CK_DISCOVERY_POLL] & CK_POLL_COUNT_MASK;
   const std::uint32_t final_active = context[CK_ACTIVE_GROUPS];
   stats.min_active = std::min(discovered, final_active);
   stats.max_active = std::max(discovered, final_active);
   stats.kills = context[CK_KILLS];
   stats.forks = context[CK_FORKS];
   stats.start_ns = start_ns;
   stats.end_ns = end_ns;
   stats.run_ns = end_ns - start_ns;
   stats.stuck_barrier = context[CK_STUCK_BARRIER];
   stats.stuck_line = context[CK_STUCK_LINE];
   // A gather whose last kill came after the driver's last look at the
   // context ends with the launch, as far as the driver can tell (and lies
   // within it in the trace).
   if (stats.kills >= launch->kills_posted)
      end_gather(policy, launch, std::max(end_ns, launch->gather_start_ns));
   if (policy->print_stats)
      ck::print_launch_stats(launch->rank, max_groups, stats, stats.run_ns);
   if (policy->trace) {
      // The discovery's M from the start (its close is not seen from
      // here), then M at each of the driver's looks, 0 at the end.
      policy->trace->active_groups(launch->rank, time_point(start_ns), discovered);
      policy->trace->launch(launch->rank, true,
                            ck::launch_name(true, launch->rank,
                                            launch->kernel_name ? launch->kernel_name : "",
                                            max_groups, false),
                            time_point(start_ns), time_point(end_ns));
      policy->trace->active_groups(launch->rank, time_point(end_ns), 0);
   }
}

} // extern "C"
