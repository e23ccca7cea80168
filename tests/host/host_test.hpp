// What the host test programs share on GoogleTest: the exit status that
// meson and tests/piglit/piglit-wrap.sh read. gtest exits 1 when a test
// failed; a program whose every test skipped (GTEST_SKIP, e.g. a device with
// too few compute units) exits 77, meson's and piglit's skip.
#pragma once

#include <gtest/gtest.h>

namespace host_test {

// Call after testing::InitGoogleTest (and after reading the program's own
// arguments, which InitGoogleTest leaves in argv).
inline int run_all()
{
   const int failed = RUN_ALL_TESTS();
   const testing::UnitTest &unit = *testing::UnitTest::GetInstance();
   if (failed == 0 && unit.test_to_run_count() > 0 &&
       unit.skipped_test_count() == unit.test_to_run_count())
      return 77;
   return failed;
}

} // namespace host_test
