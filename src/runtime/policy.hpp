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

// The policy CK_POLICY names; an invalid one is reported on stderr and
// replaced by the default policy.
Policy policy_from_env();

// CK_RANDOM_SEED of the cooperative launch of rank `launch` (0 for the
// first) under the random policy: nonzero, a function of the policy's seed
// and the rank, so that every backend gives the same launch the same draws.
std::uint32_t launch_seed(const Policy &policy, std::uint32_t launch);

} // namespace ck
