// What every backend records and prints of a cooperative launch.
#pragma once

#include "ck/launch_stats.h"

#include <cstdint>

namespace ck {

// Counts a gather of `ns` nanoseconds; the array keeps the first
// CK_STATS_GATHER_TIMES.
void record_gather(ck_launch_stats &stats, std::uint64_t ns);

// One line on stderr: the launch's rank, N, the range of M, kills, forks,
// gathers and how long it ran.
void print_launch_stats(std::uint64_t launch, std::uint32_t max_groups,
                        const ck_launch_stats &stats, std::uint64_t ran_ns);

} // namespace ck
