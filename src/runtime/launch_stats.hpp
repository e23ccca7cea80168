// The CK_STATS=1 line of a cooperative launch, the same for every backend.
#pragma once

#include "ck/scheduler.h"

#include <algorithm>
#include <cstdint>

namespace ck {

// Counts a gather of `ns` nanoseconds in a record with ck_launch_stats's
// gather fields (the scheduler's statistics, or ck_dispatch_launch), whose
// array keeps the first CK_STATS_GATHER_TIMES.
template <typename Record> void record_gather(Record &record, std::uint64_t ns)
{
   static_assert(sizeof(record.gather_ns) / sizeof(record.gather_ns[0]) == CK_STATS_GATHER_TIMES);
   if (record.gathers < CK_STATS_GATHER_TIMES)
      record.gather_ns[record.gathers] = ns;
   ++record.gathers;
   record.gather_ns_total += ns;
   record.gather_ns_max = std::max<std::uint64_t>(record.gather_ns_max, ns);
}

// One line on stderr: the launch's rank, N, the range of M, kills, forks,
// gathers and how long it ran.
void print_launch_stats(std::uint64_t launch, std::uint32_t max_groups,
                        const ck_launch_stats &stats, std::uint64_t ran_ns);

} // namespace ck
