// An ordinary kernel from another command queue runs while a cooperative
// kernel runs (rusticl on zink over lavapipe, docs/zink-backend.md, step 3):
// zink submits a cooperative launch on a queue of its own, so the main
// queue's work does not wait for the launch to end. A cooperative kernel and
// an ordinary one, one work-group each on lavapipe's two compute threads,
// wait for each other. On one queue the second would start only after the
// first ended, which gives up after a bounded wait and says so: the test
// fails, it does not hang.
// covers: 15-dispatched-beside

#include "beside_launch.hpp"
#include "cl_host.hpp"
#include "watchdog.hpp"

#include "CL/cl_ext_cooperative_kernels.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

using namespace std::chrono_literals;

const char *const source = R"CLC(
enum { WAITING = 0, SAW_IT = 1, GAVE_UP = 2 };

// Waits for *word to be nonzero, at most `limit` reads.
uint wait_for(volatile global uint *word, uint limit)
{
   uint reads = 0;
   while (atomic_add(word, 0) == 0 && ++reads < limit)
      ;
   return reads < limit ? SAW_IT : GAVE_UP;
}

// Cooperative (it passes a global barrier): work-item 0 says it started,
// then waits for the ordinary kernel's answer.
kernel void call(volatile global uint *words, global uint *outcome, uint limit)
{
   global_barrier();
   if (get_global_id(0) != 0)
      return;
   atomic_xchg(&words[0], 1);
   outcome[0] = wait_for(&words[1], limit);
}

// Ordinary: answers once it sees the cooperative kernel running.
kernel void answer(volatile global uint *words, global uint *outcome, uint limit)
{
   outcome[1] = wait_for(&words[0], limit);
   atomic_xchg(&words[1], 1);
}
)CLC";

const char *outcome_name(cl_uint outcome)
{
   switch (outcome) {
   case 1: return "saw the other kernel";
   case 2: return "gave up waiting for the other kernel";
   default: return "did not run";
   }
}

// Each kernel waits for the other, each for a bounded number of reads
// (seconds on lavapipe): only if both run at once do both see the other.
// On one queue the second to start finds the first gone.
TEST(BesideCooperative, AnOrdinaryKernelOfAnotherQueueRunsWhileACooperativeOneRuns)
{
   const cl_device_id device = cl_host::first_device();
   cl_host::Context context = cl_host::create_context(device);
   cl_host::Queue cooperative_queue = cl_host::create_queue(context, device);
   cl_host::Queue ordinary_queue = cl_host::create_queue(context, device);
   cl_host::Program program = cl_host::build_or_throw(context, device, source);
   cl_host::Kernel call = cl_host::create_kernel(program, "call");
   cl_host::Kernel answer = cl_host::create_kernel(program, "answer");

   // 2^28 reads take about 10 s on lavapipe; CK_BESIDE_READS sets fewer
   // for a GPU, whose reads of global memory are slower.
   const char *reads = std::getenv("CK_BESIDE_READS");
   const cl_uint limit = reads ? cl_uint(std::strtoul(reads, nullptr, 10)) : 1u << 28;
   ASSERT_GT(limit, 0u) << "CK_BESIDE_READS=" << reads;
   cl_uint zeros[2] = {0, 0};
   cl_host::Buffer words = cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(zeros), zeros);
   cl_host::Buffer outcome = cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(zeros), zeros);
   for (cl_kernel kernel : {call.get(), answer.get()}) {
      cl_host::set_arg(kernel, 0, words.get());
      cl_host::set_arg(kernel, 1, outcome.get());
      cl_host::set_arg(kernel, 2, limit);
   }
   const auto launch_both = [&] {
      host_test::launch_beside(cooperative_queue, call, 1, ordinary_queue, answer);
   };

   // Both pipelines are compiled first, with nothing to wait for: lavapipe
   // compiles a pipeline under its main queue's lock, which a running
   // submission holds, so a compile would wait for the ordinary kernel.
   cl_uint ones[2] = {1, 1};
   cl_host::check(clEnqueueWriteBuffer(cooperative_queue, words, CL_TRUE, 0, sizeof(ones), ones,
                                       0, nullptr, nullptr),
                  "clEnqueueWriteBuffer");
   {
      cl_host::Watchdog watchdog{"the kernels with nothing to wait for", 120s};
      launch_both();
   }
   for (cl_command_queue queue : {cooperative_queue.get(), ordinary_queue.get()})
      cl_host::check(clEnqueueWriteBuffer(queue, words, CL_TRUE, 0, sizeof(zeros), zeros, 0,
                                          nullptr, nullptr),
                     "clEnqueueWriteBuffer");

   const auto start = std::chrono::steady_clock::now();
   {
      cl_host::Watchdog watchdog{"a cooperative kernel and an ordinary one", 120s};
      launch_both();
   }
   std::printf("both kernels ended %.1f ms after their enqueue\n",
               std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                  .count());
   const auto seen = cl_host::read_buffer<cl_uint>(cooperative_queue, outcome, 2);
   EXPECT_EQ(seen[0], 1u) << "the cooperative kernel " << outcome_name(seen[0]);
   EXPECT_EQ(seen[1], 1u) << "the ordinary kernel " << outcome_name(seen[1]);
}

} // namespace
