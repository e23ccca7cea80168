#include "launch_stats.hpp"

#include "statistics.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace ck {

void record_gather(ck_launch_stats &stats, std::uint64_t ns)
{
   if (stats.gathers < CK_STATS_GATHER_TIMES)
      stats.gather_ns[stats.gathers] = ns;
   ++stats.gathers;
   stats.gather_ns_total += ns;
   stats.gather_ns_max = std::max<std::uint64_t>(stats.gather_ns_max, ns);
}

void print_launch_stats(std::uint64_t launch, std::uint32_t max_groups,
                        const ck_launch_stats &stats, std::uint64_t ran_ns)
{
   const std::vector<double> gathers_ns(
      stats.gather_ns,
      stats.gather_ns + std::min<std::uint64_t>(stats.gathers, CK_STATS_GATHER_TIMES));
   const double median_ms = gathers_ns.empty() ? 0.0 : ck_statistics::median(gathers_ns) / 1e6;
   std::fprintf(stderr,
                "ck: cooperative launch %llu: N=%u, active %u..%u, %llu kills, %llu forks, "
                "%u gathers (median %.3f ms, max %.3f ms), ran %.3f ms\n",
                static_cast<unsigned long long>(launch), max_groups, stats.min_active,
                stats.max_active, static_cast<unsigned long long>(stats.kills),
                static_cast<unsigned long long>(stats.forks), stats.gathers, median_ms,
                stats.gather_ns_max / 1e6, ran_ns / 1e6);
}

} // namespace ck
