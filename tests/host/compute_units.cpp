// CL_DEVICE_MAX_COMPUTE_UNITS must tell the truth: on llvmpipe, the number
// of compute threads (LP_NUM_THREADS when set), not a constant.
#include "cl_host.hpp"

#include <cstdio>
#include <cstdlib>

int main()
{
   const char *threads = std::getenv("LP_NUM_THREADS");
   if (!threads) {
      std::fprintf(stderr, "compute_units: run with LP_NUM_THREADS set\n");
      return 1;
   }
   try {
      cl_device_id device = cl_host::first_device();
      cl_uint units = cl_host::device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);
      cl_uint expected = static_cast<cl_uint>(std::atoi(threads));
      std::printf("LP_NUM_THREADS=%u, CL_DEVICE_MAX_COMPUTE_UNITS=%u\n", expected, units);
      if (units != expected) {
         std::printf("FAIL: compute units do not match llvmpipe's compute threads\n");
         return 1;
      }
      std::printf("PASS\n");
      return 0;
   } catch (const std::exception &error) {
      std::fprintf(stderr, "compute_units: %s\n", error.what());
      return 1;
   }
}
