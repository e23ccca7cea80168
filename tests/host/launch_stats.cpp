// The scheduler's per-launch statistics reach the host through event
// profiling (CL_PROFILING_COOPERATIVE_*_EXT): a cooperative kernel that
// offers kills and requests forks in a loop gives units to an ordinary
// kernel whose units - 1 work-groups must run at once, gets them back
// through forks, and its event tells how often and how long.
#include "CL/cl_ext_cooperative_kernels.h"
#include "cl_host.hpp"
#include "expect.hpp"
#include "watchdog.hpp"

#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

const char *source = R"CLC(
// state: [0] stop flag, [1] work-groups that joined through a fork,
// [2] work-groups that started at the top
kernel void yield_until_stopped(volatile global uint *state)
{
   local uint stop;
   transmit uint origin = 0;
   if (get_local_id(0) == 0)
      atomic_inc(&state[2]);
   for (;;) {
      offer_kill();
      origin = get_group_id(0);
      request_fork();
      if (origin != get_group_id(0) && get_local_id(0) == 0)
         atomic_inc(&state[1]);
      origin = get_group_id(0);
      if (get_local_id(0) == 0)
         stop = atomic_add(&state[0], 0);
      barrier(CLK_LOCAL_MEM_FENCE);
      const uint stopping = stop;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (stopping)
         break;
   }
}

// Every work-group waits until all have arrived: the launch needs as many
// units at once as it has work-groups.
kernel void fill_together(global uint *out, volatile global uint *arrived)
{
   if (get_local_id(0) == 0) {
      atomic_inc(arrived);
      while (atomic_add(arrived, 0) < get_num_groups(0))
         ;
   }
   barrier(CLK_GLOBAL_MEM_FENCE);
   out[get_global_id(0)] = get_global_id(0) + 1;
}
)CLC";

cl_ulong profiling_ulong(cl_event event, cl_profiling_info param)
{
   cl_ulong value = 0;
   cl_host::check(clGetEventProfilingInfo(event, param, sizeof(value), &value, nullptr),
                  "clGetEventProfilingInfo");
   return value;
}

std::vector<cl_ulong> profiling_times(cl_event event, cl_profiling_info param)
{
   size_t bytes = 0;
   cl_host::check(clGetEventProfilingInfo(event, param, 0, nullptr, &bytes),
                  "clGetEventProfilingInfo(size)");
   std::vector<cl_ulong> times(bytes / sizeof(cl_ulong));
   cl_host::check(clGetEventProfilingInfo(event, param, bytes, times.data(), nullptr),
                  "clGetEventProfilingInfo(times)");
   return times;
}

void write_uint(cl_command_queue queue, cl_mem buffer, size_t index, cl_uint value)
{
   cl_host::check(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, index * sizeof(cl_uint),
                                       sizeof(value), &value, 0, nullptr, nullptr),
                  "clEnqueueWriteBuffer");
}

} // namespace

int main()
{
   try {
      cl_device_id device = cl_host::first_device();
      const cl_uint units = cl_host::device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);
      cl_host::Context context = cl_host::create_context(device);
      cl_host::Queue cooperative_queue = cl_host::create_queue(context, device, true);
      cl_host::Queue ordinary_queue = cl_host::create_queue(context, device, true);
      cl_host::Program program = cl_host::build_or_throw(context, device, source);
      cl_host::Kernel cooperative = cl_host::create_kernel(program, "yield_until_stopped");
      cl_host::Kernel ordinary = cl_host::create_kernel(program, "fill_together");
      cl_host::Watchdog watchdog("the launch statistics test", std::chrono::seconds(60));

      if (units < 2) {
         std::printf("SKIP: needs at least 2 compute units\n");
         return 77;
      }
      cl_uint zeros[3] = {0, 0, 0};
      cl_host::Buffer state = cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR,
                                                     sizeof(zeros), zeros);
      cl_host::set_arg(cooperative, 0, state.get());
      const size_t local = 8, global = units * local;
      // Clover runs a launch on the thread that enqueues it: the cooperative
      // kernel gets a host thread of its own.
      cl_event raw_event = nullptr;
      std::thread cooperative_host([&] {
         cl_host::check(clEnqueueNDRangeKernel(cooperative_queue, cooperative, 1, nullptr, &global,
                                               &local, 0, nullptr, &raw_event),
                        "clEnqueueNDRangeKernel(cooperative)");
         cl_host::check(clFinish(cooperative_queue), "clFinish(cooperative)");
      });
      while (cl_host::read_buffer<cl_uint>(ordinary_queue, state, 3)[2] < units)
         std::this_thread::sleep_for(std::chrono::milliseconds(1));

      // units - 1 ordinary work-groups that must all run at once: the kernel
      // must give back every work-group but work-group 0.
      const size_t ordinary_global = (units - 1) * local;
      cl_host::Buffer out = cl_host::create_buffer(context, CL_MEM_READ_WRITE,
                                                   ordinary_global * sizeof(cl_uint));
      cl_host::Buffer arrived = cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR,
                                                       sizeof(cl_uint), zeros);
      cl_host::set_arg(ordinary, 0, out.get());
      cl_host::set_arg(ordinary, 1, arrived.get());
      cl_event raw_event_ordinary = nullptr;
      cl_host::check(clEnqueueNDRangeKernel(ordinary_queue, ordinary, 1, nullptr, &ordinary_global,
                                            &local, 0, nullptr, &raw_event_ordinary),
                     "clEnqueueNDRangeKernel(ordinary)");
      cl_host::Event ordinary_event(raw_event_ordinary);
      cl_host::check(clFinish(ordinary_queue), "clFinish(ordinary)");
      const std::vector<cl_uint> filled = cl_host::read_buffer<cl_uint>(ordinary_queue, out,
                                                                        ordinary_global);
      bool right = true;
      for (size_t i = 0; i < filled.size(); ++i)
         right &= filled[i] == i + 1;
      cl_host::expect(right, "the ordinary kernel computed the right result");

      // Its units come back to the kernel through forks; then stop it.
      while (cl_host::read_buffer<cl_uint>(ordinary_queue, state, 2)[1] == 0)
         std::this_thread::sleep_for(std::chrono::milliseconds(1));
      write_uint(ordinary_queue, state, 0, 1);
      cooperative_host.join();
      cl_host::Event cooperative_event(raw_event);

      const cl_ulong kills = profiling_ulong(cooperative_event, CL_PROFILING_COOPERATIVE_KILLS_EXT);
      const cl_ulong forks = profiling_ulong(cooperative_event, CL_PROFILING_COOPERATIVE_FORKS_EXT);
      const cl_ulong min_active =
         profiling_ulong(cooperative_event, CL_PROFILING_COOPERATIVE_MIN_ACTIVE_EXT);
      const cl_ulong max_active =
         profiling_ulong(cooperative_event, CL_PROFILING_COOPERATIVE_MAX_ACTIVE_EXT);
      const std::vector<cl_ulong> gathers =
         profiling_times(cooperative_event, CL_PROFILING_COOPERATIVE_GATHER_TIMES_EXT);
      const std::vector<cl_ulong> fork_times =
         profiling_times(cooperative_event, CL_PROFILING_COOPERATIVE_FORK_TIMES_EXT);
      std::printf("%u units: %llu kills, %llu forks, active %llu..%llu, %zu gathers", units,
                  (unsigned long long)kills, (unsigned long long)forks,
                  (unsigned long long)min_active, (unsigned long long)max_active, gathers.size());
      for (cl_ulong ns : gathers)
         std::printf(" %.3f ms", ns / 1e6);
      std::printf("; fork latencies");
      for (cl_ulong ns : fork_times)
         std::printf(" %.1f us", ns / 1e3);
      std::printf("\n");
      cl_host::expect(kills >= units - 1, "the kernel gave back units - 1 work-groups");
      cl_host::expect(forks >= 1, "units came back through forks");
      cl_host::expect(max_active == units, "the kernel started on every unit");
      cl_host::expect(min_active == 1, "only work-group 0 stayed while the ordinary kernel ran");
      bool timed = !gathers.empty();
      for (cl_ulong ns : gathers)
         timed &= ns > 0 && ns < 10'000'000'000ull;
      cl_host::expect(timed, "every gather has a time between 0 and 10 s");
      cl_host::expect(fork_times.size() == forks, "every fork has a latency");

      cl_host::expect(profiling_ulong(ordinary_event, CL_PROFILING_COOPERATIVE_KILLS_EXT) == 0 &&
                         profiling_times(ordinary_event,
                                         CL_PROFILING_COOPERATIVE_GATHER_TIMES_EXT).empty(),
                      "an ordinary launch reports no kills and no gathers");

      cl_host::Queue plain_queue = cl_host::create_queue(context, device);
      write_uint(plain_queue, state, 0, 1); // stops at once
      cl_event raw_event_plain = nullptr;
      cl_host::check(clEnqueueNDRangeKernel(plain_queue, cooperative, 1, nullptr, &global, &local,
                                            0, nullptr, &raw_event_plain),
                     "clEnqueueNDRangeKernel(cooperative, no profiling)");
      cl_host::Event plain_event(raw_event_plain);
      cl_host::check(clFinish(plain_queue), "clFinish(plain)");
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
