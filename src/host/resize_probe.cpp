#include "resize_probe.hpp"

#include "CL/cl_ext_cooperative_kernels.h"

#include <chrono>
#include <thread>

namespace cl_host {

namespace {

void write_uint(cl_command_queue queue, cl_mem buffer, size_t index, cl_uint value)
{
   check(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, index * sizeof(cl_uint), sizeof(value),
                              &value, 0, nullptr, nullptr),
         "clEnqueueWriteBuffer");
}

void wait_until(cl_command_queue queue, cl_mem state, size_t index, cl_uint at_least)
{
   while (read_buffer<cl_uint>(queue, state, index + 1)[index] < at_least)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
}

} // namespace

std::vector<cl_ulong> profiling_times(cl_event event, cl_profiling_info param)
{
   size_t bytes = 0;
   check(clGetEventProfilingInfo(event, param, 0, nullptr, &bytes),
         "clGetEventProfilingInfo(size)");
   std::vector<cl_ulong> times(bytes / sizeof(cl_ulong));
   check(clGetEventProfilingInfo(event, param, bytes, times.data(), nullptr),
         "clGetEventProfilingInfo(times)");
   return times;
}

ResizeProbe probe_resize(cl_context context, cl_device_id device, cl_program program,
                         cl_uint ordinary_groups)
{
   const cl_uint units = device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);
   if (ordinary_groups < 1 || ordinary_groups >= units)
      throw Error("probe_resize: needs 1 <= ordinary work-groups < compute units",
                  CL_INVALID_VALUE);
   Queue cooperative_queue = create_queue(context, device, true);
   Queue ordinary_queue = create_queue(context, device, true);
   Kernel cooperative = create_kernel(program, "yield_until_stopped");
   Kernel ordinary = create_kernel(program, "fill_together");

   cl_uint zeros[3] = {0, 0, 0};
   Buffer state = create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(zeros), zeros);
   Buffer arrived = create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(cl_uint), zeros);
   const size_t local = 8, global = units * local, ordinary_global = ordinary_groups * local;
   Buffer out = create_buffer(context, CL_MEM_READ_WRITE, ordinary_global * sizeof(cl_uint));
   set_arg(cooperative, 0, state.get());
   set_arg(ordinary, 0, out.get());
   set_arg(ordinary, 1, arrived.get());

   ResizeProbe probe;
   BackgroundLaunch cooperative_launch(cooperative_queue, cooperative, global, local);
   try {
      wait_until(ordinary_queue, state, 2, units); // on every unit
      cl_event ordinary_event = nullptr;
      check(clEnqueueNDRangeKernel(ordinary_queue, ordinary, 1, nullptr, &ordinary_global, &local,
                                   0, nullptr, &ordinary_event),
            "clEnqueueNDRangeKernel(fill_together)");
      probe.ordinary_event = Event(ordinary_event);
      check(clFinish(ordinary_queue), "clFinish(fill_together)");
      const std::vector<cl_uint> filled = read_buffer<cl_uint>(ordinary_queue, out,
                                                               ordinary_global);
      probe.ordinary_right = true;
      for (size_t i = 0; i < filled.size(); ++i)
         probe.ordinary_right &= filled[i] == i + 1;
      wait_until(ordinary_queue, state, 1, 1); // a unit came back
   } catch (...) {
      write_uint(ordinary_queue, state, 0, 1);
      throw;
   }
   write_uint(ordinary_queue, state, 0, 1);
   probe.cooperative_event = cooperative_launch.join();

   cl_event event = probe.cooperative_event;
   probe.kills = profiling_ulong(event, CL_PROFILING_COOPERATIVE_KILLS_EXT);
   probe.forks = profiling_ulong(event, CL_PROFILING_COOPERATIVE_FORKS_EXT);
   probe.min_active = profiling_ulong(event, CL_PROFILING_COOPERATIVE_MIN_ACTIVE_EXT);
   probe.max_active = profiling_ulong(event, CL_PROFILING_COOPERATIVE_MAX_ACTIVE_EXT);
   probe.gather_ns = profiling_times(event, CL_PROFILING_COOPERATIVE_GATHER_TIMES_EXT);
   probe.fork_ns = profiling_times(event, CL_PROFILING_COOPERATIVE_FORK_TIMES_EXT);
   return probe;
}

} // namespace cl_host
