// The scheduler's per-launch statistics reach the host through event
// profiling (CL_PROFILING_COOPERATIVE_*_EXT): a cooperative kernel that
// offers kills and requests forks in a loop gives units to an ordinary
// kernel whose units - 1 work-groups must run at once, gets them back
// through forks, and its event tells how often and how long.
#include "CL/cl_ext_cooperative_kernels.h"
#include "cl_host.hpp"
#include "expect.hpp"
#include "resize_probe.hpp"
#include "watchdog.hpp"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char **argv)
{
   if (argc != 3) {
      std::fprintf(stderr, "usage: launch_stats KERNELS_DIR INCLUDE_DIR\n");
      return 2;
   }
   try {
      cl_device_id device = cl_host::first_device();
      const cl_uint units = cl_host::device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);
      if (units < 2) {
         std::printf("SKIP: needs at least 2 compute units\n");
         return 77;
      }
      cl_host::Context context = cl_host::create_context(device);
      const std::string source =
         cl_host::read_file(std::string(argv[2]) + "/cooperative_kernels.cl.h") +
         cl_host::read_file(std::string(argv[1]) + "/bench.cl");
      cl_host::Program program = cl_host::build_or_throw(context, device, source);
      cl_host::Watchdog watchdog("the launch statistics test", std::chrono::seconds(60));

      const cl_host::ResizeProbe probe = cl_host::probe_resize(context, device, program, units - 1);
      std::printf("%u units: %llu kills, %llu forks, active %llu..%llu, %zu gathers", units,
                  (unsigned long long)probe.kills, (unsigned long long)probe.forks,
                  (unsigned long long)probe.min_active, (unsigned long long)probe.max_active,
                  probe.gather_ns.size());
      for (cl_ulong ns : probe.gather_ns)
         std::printf(" %.3f ms", ns / 1e6);
      std::printf("; fork latencies");
      for (cl_ulong ns : probe.fork_ns)
         std::printf(" %.1f us", ns / 1e3);
      std::printf("\n");
      cl_host::expect(probe.ordinary_right, "the ordinary kernel computed the right result");
      cl_host::expect(probe.kills >= units - 1, "the kernel gave back units - 1 work-groups");
      cl_host::expect(probe.forks >= 1, "units came back through forks");
      cl_host::expect(probe.max_active == units, "the kernel started on every unit");
      cl_host::expect(probe.min_active == 1,
                      "only work-group 0 stayed while the ordinary kernel ran");
      bool timed = !probe.gather_ns.empty();
      for (cl_ulong ns : probe.gather_ns)
         timed &= ns > 0 && ns < 10'000'000'000ull;
      cl_host::expect(timed, "every gather has a time between 0 and 10 s");
      cl_host::expect(probe.fork_ns.size() == probe.forks, "every fork has a latency");

      cl_event ordinary = probe.ordinary_event;
      cl_host::expect(
         cl_host::profiling_ulong(ordinary, CL_PROFILING_COOPERATIVE_KILLS_EXT) == 0 &&
            cl_host::profiling_times(ordinary, CL_PROFILING_COOPERATIVE_GATHER_TIMES_EXT).empty(),
         "an ordinary launch reports no kills and no gathers");

      // Without queue profiling there are no statistics.
      cl_host::Queue plain_queue = cl_host::create_queue(context, device);
      cl_host::Kernel kernel = cl_host::create_kernel(program, "yield_until_stopped");
      cl_uint stopped[3] = {1, 0, 0};
      cl_host::Buffer state = cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR,
                                                     sizeof(stopped), stopped);
      cl_host::set_arg(kernel, 0, state.get());
      const size_t local = 8, global = units * local;
      cl_event raw_event = nullptr;
      cl_host::check(clEnqueueNDRangeKernel(plain_queue, kernel, 1, nullptr, &global, &local, 0,
                                            nullptr, &raw_event),
                     "clEnqueueNDRangeKernel(no profiling)");
      cl_host::Event plain_event(raw_event);
      cl_host::check(clFinish(plain_queue), "clFinish");
      cl_ulong unused = 0;
      cl_host::expect(clGetEventProfilingInfo(plain_event, CL_PROFILING_COOPERATIVE_KILLS_EXT,
                                              sizeof(unused), &unused, nullptr) ==
                         CL_PROFILING_INFO_NOT_AVAILABLE,
                      "without queue profiling the statistics are CL_PROFILING_INFO_NOT_AVAILABLE");
   } catch (const std::exception &error) {
      std::fprintf(stderr, "launch_stats: %s\n", error.what());
      return 1;
   }
   return cl_host::expectations_status();
}
