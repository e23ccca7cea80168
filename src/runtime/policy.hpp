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

} // namespace ck
