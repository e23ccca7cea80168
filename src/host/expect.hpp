// The PASS/FAIL lines that the project's host tests print, and their count.
#pragma once

#include <cstdio>
#include <string>

namespace cl_host {

inline int &expectation_failures()
{
   static int failures = 0;
   return failures;
}

inline void expect(bool ok, const std::string &what)
{
   std::printf("%s: %s\n", ok ? "PASS" : "FAIL", what.c_str());
   expectation_failures() += !ok;
}

// The process exit status: 1 if any expectation failed.
inline int expectations_status()
{
   return expectation_failures() ? 1 : 0;
}

} // namespace cl_host
