// Kernels that run far past gallivm's loop limiter (65535 back-edges per
// invocation) must still run to the end. Stock llvmpipe silently cuts their
// loops short; the patched Mesa runs OpenCL kernels without the limiter.
#include "cl_host.hpp"
#include "watchdog.hpp"

#include <chrono>
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

namespace {

const char *source = R"CLC(
uint task_value(uint t)
{
   uint v = t;
   for (int k = 0; k < 4; ++k)
      v = v * 31u + 7u;
   return v;
}

// Workgroups take tasks from a shared counter until none are left.
kernel void drain(volatile global uint *next, global uint *done, uint tasks)
{
   local uint task;
   for (;;) {
      if (get_local_id(0) == 0)
         task = atomic_inc(next);
      barrier(CLK_LOCAL_MEM_FENCE);
      uint t = task;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (t >= tasks)
         break;
      if (get_local_id(0) == 0)
         done[t] = task_value(t);
   }
}

// One work-item, one long loop.
kernel void count(global uint *out, uint n)
{
   uint state = 1;
   for (uint i = 0; i < n; ++i)
      state = state * 1664525u + 1013904223u;
   out[0] = state;
}
)CLC";

uint32_t task_value(uint32_t t)
{
   uint32_t v = t;
   for (int k = 0; k < 4; ++k)
      v = v * 31u + 7u;
   return v;
}

class LongRunning : public testing::Test, protected cl_host::ProgramOnDevice {
protected:
   LongRunning() : ProgramOnDevice(source) {}
};

} // namespace

TEST_F(LongRunning, EightWorkGroupsDrainSharedQueue)
{
   const cl_uint tasks = 200000;
   cl_host::Kernel drain = cl_host::create_kernel(program, "drain");
   cl_uint zero = 0;
   cl_host::Buffer next = cl_host::create_buffer(
      context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(zero), &zero);
   std::vector<cl_uint> init(tasks, 0);
   cl_host::Buffer done = cl_host::create_buffer(
      context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, tasks * sizeof(cl_uint), init.data());
   cl_host::set_arg(drain, 0, next.get());
   cl_host::set_arg(drain, 1, done.get());
   cl_host::set_arg(drain, 2, tasks);
   size_t local = 16, global = 8 * local;
   {
      cl_host::Watchdog watchdog("the drain kernel", std::chrono::seconds(120));
      cl_host::check(clEnqueueNDRangeKernel(queue, drain, 1, nullptr, &global, &local, 0,
                                            nullptr, nullptr),
                     "clEnqueueNDRangeKernel(drain)");
      cl_host::check(clFinish(queue), "clFinish");
   }
   std::vector<cl_uint> result = cl_host::read_buffer<cl_uint>(queue, done, tasks);
   size_t missing = 0;
   for (cl_uint t = 0; t < tasks; ++t)
      missing += result[t] != task_value(t);
   EXPECT_EQ(missing, 0u) << "8 workgroups drain 200000 tasks from a shared queue: " << missing
                          << " of " << tasks << " tasks not done";
}

TEST_F(LongRunning, MillionIterationLoopRunsToTheEnd)
{
   const cl_uint n = 1000000;
   cl_host::Kernel count = cl_host::create_kernel(program, "count");
   cl_host::Buffer out = cl_host::create_buffer(context, CL_MEM_WRITE_ONLY, sizeof(cl_uint));
   cl_host::set_arg(count, 0, out.get());
   cl_host::set_arg(count, 1, n);
   size_t one = 1;
   {
      cl_host::Watchdog watchdog("the count kernel", std::chrono::seconds(120));
      cl_host::check(clEnqueueNDRangeKernel(queue, count, 1, nullptr, &one, &one, 0,
                                            nullptr, nullptr),
                     "clEnqueueNDRangeKernel(count)");
      cl_host::check(clFinish(queue), "clFinish");
   }
   uint32_t expected = 1;
   for (cl_uint i = 0; i < n; ++i)
      expected = expected * 1664525u + 1013904223u;
   EXPECT_EQ(cl_host::read_buffer<cl_uint>(queue, out, 1)[0], expected)
      << "a loop of 1000000 iterations runs to the end";
}
