// Scheduling policies (the CK_POLICY syntax is documented in ck/scheduler.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ck {

struct Policy {
   enum class Kind { Default, Never, Random };
   Kind kind = Kind::Default;
   std::uint64_t seed = 0;  // Random only
   unsigned unit_cap = 0;   // 0: no cap
};

// nullopt if the text is not a policy.
std::optional<Policy> parse_policy(std::string_view text);

// CK_RANDOM_SEED of the cooperative launch of rank `launch` (0 for the
// first) under the random policy: nonzero, a function of the policy's seed
// and the rank, so that every backend gives the same launch the same draws.
std::uint32_t launch_seed(const Policy &policy, std::uint32_t launch);

// How many of a launch's M active work-groups can still be killed: kills
// come from the top down and stop at work-group 0 and at the highest
// work-group that returned from the kernel (CK_RETURNED_END; it stays
// active but never offers again).
constexpr std::uint32_t killable_groups(std::uint32_t active, std::uint32_t returned_end)
{
   const std::uint32_t floor = returned_end > 1 ? returned_end : 1;
   return active > floor ? active - floor : 0;
}

} // namespace ck
