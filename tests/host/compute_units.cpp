// CL_DEVICE_MAX_COMPUTE_UNITS must tell the truth: on llvmpipe, the number
// of compute threads (LP_NUM_THREADS when set), not a constant.
// covers: 8-maxactive-value
#include "cl_host.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

TEST(ComputeUnits, MatchLlvmpipeComputeThreads)
{
   const char *threads = std::getenv("LP_NUM_THREADS");
   ASSERT_NE(threads, nullptr) << "run with LP_NUM_THREADS set";
   cl_device_id device = cl_host::first_device();
   const cl_uint units = cl_host::device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);
   const cl_uint expected = static_cast<cl_uint>(std::atoi(threads));
   EXPECT_EQ(units, expected)
      << "CL_DEVICE_MAX_COMPUTE_UNITS does not match llvmpipe's compute threads (LP_NUM_THREADS)";
}
