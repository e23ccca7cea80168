// The PASS/FAIL lines that the project's host tests print, and their count;
// safe to call from several host threads.
#pragma once

#include <atomic>
#include <cstdio>
#include <string>

namespace cl_host {

inline std::atomic<int> &expectation_failures()
{
   static std::atomic<int> failures{0};
   return failures;
}

inline void expect(bool ok, const std::string &what)
{
   std::printf("%s: %s\n", ok ? "PASS" : "FAIL", what.c_str());
   if (!ok)
      ++expectation_failures();
}

// The process exit status: 1 if any expectation failed.
inline int expectations_status()
{
   return expectation_failures().load() ? 1 : 0;
}

} // namespace cl_host
