#include "policy.hpp"

#include "ck/context.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace ck {

namespace {

template <typename Number>
std::optional<Number> parse_number(std::string_view text)
{
   Number value{};
   const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
   if (text.empty() || error != std::errc() || end != text.data() + text.size())
      return std::nullopt;
   return value;
}

} // namespace

std::optional<Policy> parse_policy(std::string_view text)
{
   constexpr std::string_view random_prefix = "random:", cap_prefix = "cap:";
   Policy policy;
   if (text == "default")
      return policy;
   if (text == "never") {
      policy.kind = Policy::Kind::Never;
      return policy;
   }
   if (text.substr(0, random_prefix.size()) == random_prefix) {
      const auto seed = parse_number<std::uint64_t>(text.substr(random_prefix.size()));
      if (!seed)
         return std::nullopt;
      policy.kind = Policy::Kind::Random;
      policy.seed = *seed;
      return policy;
   }
   if (text.substr(0, cap_prefix.size()) == cap_prefix) {
      const auto cap = parse_number<unsigned>(text.substr(cap_prefix.size()));
      if (!cap || *cap == 0)
         return std::nullopt;
      policy.unit_cap = *cap;
      return policy;
   }
   return std::nullopt;
}

Policy policy_from_env()
{
   const char *text = std::getenv("CK_POLICY");
   if (!text)
      return Policy{};
   if (const auto parsed = parse_policy(text))
      return *parsed;
   std::fprintf(stderr, "ck scheduler: invalid CK_POLICY '%s', using 'default'\n", text);
   return Policy{};
}

std::uint32_t launch_seed(const Policy &policy, std::uint32_t launch)
{
   const std::uint32_t policy_seed = std::uint32_t(policy.seed) ^ std::uint32_t(policy.seed >> 32);
   const std::uint32_t seed = ck_random_draw(policy_seed, launch);
   return seed ? seed : 1;
}

} // namespace ck
