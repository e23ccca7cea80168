// Ordinary kernels launched one after another without waiting: on llvmpipe
// each launch returns before it completes and starts when the queue's
// launch before it has completed, on the units that ran that one. Each
// launch must still see every write of the launches before it, with the
// arguments and local memory it was launched with, whatever the host
// changed since.
#include "cl_host.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <vector>

namespace {

const char *source = R"CLC(
/* Each work-item reads its neighbours' values of the step before. */
kernel void step(global const uint *in, global uint *out, uint k, local uint *scratch)
{
   uint g = get_global_id(0), l = get_local_id(0), n = get_global_size(0);
   scratch[l] = in[g];
   barrier(CLK_LOCAL_MEM_FENCE);
   uint left = scratch[l == 0 ? get_local_size(0) - 1 : l - 1];
   out[g] = in[g] * 3u + left + in[(g + 1) % n] + k;
}

/* The same without a barrier (llvmpipe runs it without coroutines). */
kernel void plain(global const uint *in, global uint *out, uint k)
{
   uint g = get_global_id(0), n = get_global_size(0);
   out[g] = in[g] ^ (in[(g + 7) % n] + k);
}

/* Runs for a while: iterations of a loop the compiler cannot fold. */
kernel void long_running(global uint *out, uint iterations)
{
   uint x = get_global_id(0);
   for (uint i = 0; i < iterations; i++)
      x = x * 1664525u + 1013904223u;
   out[get_global_id(0)] = x;
}
)CLC";

constexpr size_t global_size = 256;

std::vector<cl_uint> step_reference(const std::vector<cl_uint> &in, cl_uint k, size_t local)
{
   std::vector<cl_uint> out(in.size());
   for (size_t g = 0; g < in.size(); ++g) {
      const size_t l = g % local, base = g - l;
      const cl_uint left = in[base + (l == 0 ? local - 1 : l - 1)];
      out[g] = in[g] * 3u + left + in[(g + 1) % in.size()] + k;
   }
   return out;
}

std::vector<cl_uint> plain_reference(const std::vector<cl_uint> &in, cl_uint k)
{
   std::vector<cl_uint> out(in.size());
   for (size_t g = 0; g < in.size(); ++g)
      out[g] = in[g] ^ (in[(g + 7) % in.size()] + k);
   return out;
}

class QueuedLaunches : public testing::Test, protected cl_host::ProgramOnDevice {
protected:
   QueuedLaunches() : ProgramOnDevice(source) {}
};

// 400 launches of two kernels ping-ponging two buffers, their arguments,
// local sizes and local memory changed between launches, one write of a
// buffer in the middle, and no wait until the end.
TEST_F(QueuedLaunches, EachSeesTheWritesOfTheOnesBefore)
{
   cl_host::Kernel step = cl_host::create_kernel(program, "step");
   cl_host::Kernel plain = cl_host::create_kernel(program, "plain");
   cl_host::Buffer buffers[2] = {
      cl_host::create_buffer(context, CL_MEM_READ_WRITE, global_size * sizeof(cl_uint)),
      cl_host::create_buffer(context, CL_MEM_READ_WRITE, global_size * sizeof(cl_uint))};
   std::vector<cl_uint> expected(global_size);
   for (size_t g = 0; g < global_size; ++g)
      expected[g] = cl_uint(g * 2654435761u);
   cl_host::check(clEnqueueWriteBuffer(queue, buffers[0].get(), CL_FALSE, 0,
                                       global_size * sizeof(cl_uint), expected.data(), 0,
                                       nullptr, nullptr),
                  "clEnqueueWriteBuffer");
   const size_t local_sizes[] = {64, 16, 8, 32, 128};
   std::vector<cl_uint> restart;
   for (cl_uint launch = 0; launch < 400; ++launch) {
      cl_mem in = buffers[launch % 2].get(), out = buffers[1 - launch % 2].get();
      const cl_uint k = launch * 977u;
      if (launch == 200) {
         // A write between launches: it waits for the launches before it.
         restart = expected;
         for (cl_uint &v : restart)
            v ^= 0x5a5a5a5au;
         cl_host::check(clEnqueueWriteBuffer(queue, in, CL_FALSE, 0,
                                             global_size * sizeof(cl_uint), restart.data(), 0,
                                             nullptr, nullptr),
                        "clEnqueueWriteBuffer");
         expected = restart;
      }
      if (launch % 3 == 2) {
         cl_host::set_arg(plain, 0, in);
         cl_host::set_arg(plain, 1, out);
         cl_host::set_arg(plain, 2, k);
         const size_t local = 32;
         cl_host::check(clEnqueueNDRangeKernel(queue, plain, 1, nullptr, &global_size, &local, 0,
                                               nullptr, nullptr),
                        "clEnqueueNDRangeKernel");
         expected = plain_reference(expected, k);
      } else {
         const size_t local = local_sizes[launch % 5];
         cl_host::set_arg(step, 0, in);
         cl_host::set_arg(step, 1, out);
         cl_host::set_arg(step, 2, k);
         cl_host::check(clSetKernelArg(step, 3, local * sizeof(cl_uint), nullptr),
                        "clSetKernelArg");
         cl_host::check(clEnqueueNDRangeKernel(queue, step, 1, nullptr, &global_size, &local, 0,
                                               nullptr, nullptr),
                        "clEnqueueNDRangeKernel");
         expected = step_reference(expected, k, local);
      }
   }
   const auto got = cl_host::read_buffer<cl_uint>(queue, buffers[0].get(), global_size);
   for (size_t g = 0; g < global_size; ++g)
      ASSERT_EQ(got[g], expected[g]) << "work-item " << g;
}

// The kernel's buffer and kernel objects are released while it runs.
TEST_F(QueuedLaunches, ObjectsReleasedWhileTheKernelRuns)
{
   cl_host::Buffer kept =
      cl_host::create_buffer(context, CL_MEM_READ_WRITE, global_size * sizeof(cl_uint));
   for (int round = 0; round < 20; ++round) {
      cl_host::Kernel kernel = cl_host::create_kernel(program, "long_running");
      cl_host::Buffer out =
         cl_host::create_buffer(context, CL_MEM_READ_WRITE, global_size * sizeof(cl_uint));
      cl_host::set_arg(kernel, 0, round % 2 ? out.get() : kept.get());
      cl_host::set_arg(kernel, 1, cl_uint(20000));
      const size_t local = 64;
      cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global_size, &local, 0,
                                            nullptr, nullptr),
                     "clEnqueueNDRangeKernel");
   }
   cl_host::check(clFinish(queue), "clFinish");
   std::vector<cl_uint> expected(global_size);
   for (size_t g = 0; g < global_size; ++g) {
      cl_uint x = cl_uint(g);
      for (int i = 0; i < 20000; ++i)
         x = x * 1664525u + 1013904223u;
      expected[g] = x;
   }
   EXPECT_EQ(cl_host::read_buffer<cl_uint>(queue, kept.get(), global_size), expected);
}

// On llvmpipe the enqueue returns before the kernel has run: it takes far
// less time than the kernel, and the kernel's event is not complete yet.
TEST_F(QueuedLaunches, EnqueueReturnsBeforeTheKernelCompletes)
{
   using Clock = std::chrono::steady_clock;
   cl_host::Kernel kernel = cl_host::create_kernel(program, "long_running");
   cl_host::Buffer out =
      cl_host::create_buffer(context, CL_MEM_READ_WRITE, global_size * sizeof(cl_uint));
   cl_host::set_arg(kernel, 0, out.get());
   const size_t local = 64;
   const auto launch = [&](cl_uint iterations, cl_event *event) {
      cl_host::set_arg(kernel, 1, iterations);
      cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global_size, &local, 0,
                                            nullptr, event),
                     "clEnqueueNDRangeKernel");
   };
   launch(1, nullptr); // compiles
   cl_host::check(clFinish(queue), "clFinish");

   cl_event event;
   const auto start = Clock::now();
   launch(1u << 22, &event);
   const auto enqueued = Clock::now();
   cl_host::check(clFlush(queue), "clFlush");
   const cl_int status = cl_host::event_status(event);
   cl_host::check(clFinish(queue), "clFinish");
   const auto finished = Clock::now();
   clReleaseEvent(event);
   const double enqueue_s = std::chrono::duration<double>(enqueued - start).count();
   const double run_s = std::chrono::duration<double>(finished - start).count();
   EXPECT_LT(enqueue_s, 0.25 * run_s) << "the enqueue took " << enqueue_s << " s of " << run_s;
   EXPECT_NE(status, CL_COMPLETE) << "the kernel of " << run_s << " s completed within its enqueue";
}

} // namespace
