// The CK_STATS=1 line of a cooperative launch, the same for every backend.
#pragma once

#include "ck/scheduler.h"

#include <cstdint>

namespace ck {

// One line on stderr: the launch's rank, N, the range of M, kills, forks,
// gathers and how long it ran.
void print_launch_stats(std::uint64_t launch, std::uint32_t max_groups,
                        const ck_launch_stats &stats, std::uint64_t ran_ns);

} // namespace ck
