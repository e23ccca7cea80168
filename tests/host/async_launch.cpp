// clEnqueueNDRangeKernel of a cooperative kernel returns once the launch is
// handed to the driver's scheduler, and the launch keeps OpenCL's rules:
// the enqueue takes as long for a kernel ten times longer; the event is
// CL_RUNNING, then CL_COMPLETE after clWaitForEvents or clFinish; a
// CL_COMPLETE callback fires after the kernel's end; profiling START and
// END are its real run; a launch, a map or a copy enqueued right after it
// on its queue runs after it; and releasing the kernel, its program, its
// buffer, its queue and its context while it runs is safe.
// covers: 8-prof-min-active 10.1-fairness 10.5-no-early-leave 15-async 15-spin-hint
#include "CL/cl_ext_cooperative_kernels.h"
#include "cl_host.hpp"
#include "watchdog.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

using namespace cl_host;
using Clock = std::chrono::steady_clock;

namespace {

const char *source = R"CLC(
// Work-group 0 writes its results after n global barriers.
kernel void rounds(global uint *out, uint n)
{
   transmit uint r = 0;
   while (r < n) {
      r++;
      global_barrier();
   }
   if (get_group_id(0) == 0)
      for (uint i = get_local_id(0); i < 64; i += get_local_size(0))
         out[i] = n + i;
}
)CLC";

constexpr size_t groups = 4;
constexpr size_t local_size = 16;
constexpr size_t words = 64;
constexpr cl_uint short_rounds = 2000;
constexpr cl_uint long_rounds = 20000;

// CLOCK_MONOTONIC, the clock of profiling times on Mesa.
cl_ulong monotonic_ns()
{
   return cl_ulong(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
         .count());
}

struct Completion {
   std::atomic<int> calls{0};
   std::atomic<cl_int> status{1};
   std::atomic<cl_ulong> at_ns{0};
};

void CL_CALLBACK on_complete(cl_event, cl_int status, void *data)
{
   auto *completion = static_cast<Completion *>(data);
   completion->at_ns = monotonic_ns();
   completion->status = status;
   ++completion->calls;
}

bool wait_for_callback(const Completion &completion)
{
   const auto deadline = Clock::now() + std::chrono::seconds(10);
   while (completion.calls.load() == 0 && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
   return completion.calls.load() == 1;
}

bool holds_results(const cl_uint *values, cl_uint n)
{
   for (size_t i = 0; i < words; ++i)
      if (values[i] != n + i)
         return false;
   return true;
}

Event launch(cl_command_queue queue, cl_kernel kernel, cl_mem out, cl_uint n)
{
   set_arg(kernel, 0, out);
   set_arg(kernel, 1, n);
   const size_t global_size = groups * local_size;
   cl_event raw = nullptr;
   check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global_size, &local_size, 0,
                                nullptr, &raw),
         "clEnqueueNDRangeKernel");
   return Event(raw);
}

struct Timed {
   double enqueue_ms;
   double kernel_ms;
};

// Enqueue and flush, timed; then the event's life up to completion.
Timed timed_launch(cl_command_queue queue, cl_kernel kernel, cl_mem out, cl_uint n,
                   const char *name)
{
   const auto start = Clock::now();
   Event event = launch(queue, kernel, out, n);
   check(clFlush(queue), "clFlush");
   const double enqueue_ms =
      std::chrono::duration<double, std::milli>(Clock::now() - start).count();
   // Right after clFlush the command may still be queued or submitted; it is
   // seen CL_RUNNING before it completes.
   bool seen_running = false;
   for (cl_int status = event_status(event); status != CL_COMPLETE && status >= 0;
        status = event_status(event))
      if ((seen_running = status == CL_RUNNING))
         break;

   Completion completion;
   check(clSetEventCallback(event, CL_COMPLETE, on_complete, &completion),
         "clSetEventCallback");
   const bool early_callback = completion.calls.load() != 0;
   cl_event list[] = {event.get()};
   check(clWaitForEvents(1, list), "clWaitForEvents");
   const cl_ulong waited_ns = monotonic_ns();
   const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();

   const cl_ulong submit = profiling_ulong(event, CL_PROFILING_COMMAND_SUBMIT);
   const cl_ulong begin = profiling_ulong(event, CL_PROFILING_COMMAND_START);
   const cl_ulong end = profiling_ulong(event, CL_PROFILING_COMMAND_END);
   const double kernel_ms = (end - begin) / 1e6;
   std::printf("%s kernel: %.1f ms, enqueue and flush %.3f ms\n", name, kernel_ms, enqueue_ms);

   SCOPED_TRACE(std::string(name) + " kernel");
   if (n == long_rounds) {
      EXPECT_TRUE(seen_running) << "CL_RUNNING before CL_COMPLETE";
      EXPECT_FALSE(early_callback) << "the CL_COMPLETE callback did not fire at registration";
      EXPECT_GE(kernel_ms, 0.5 * wall_ms)
         << "END - START covers the kernel's run (" << wall_ms << " ms from enqueue to wait)";
   }
   EXPECT_EQ(event_status(event), CL_COMPLETE) << "CL_COMPLETE after clWaitForEvents";
   // SUBMIT <= START < END <= the return of clWaitForEvents
   EXPECT_LE(submit, begin) << "SUBMIT <= START";
   EXPECT_LT(begin, end) << "START < END";
   EXPECT_LE(end, waited_ns) << "END <= the return of clWaitForEvents";
   EXPECT_TRUE(wait_for_callback(completion)) << "the CL_COMPLETE callback fired once";
   EXPECT_EQ(completion.status.load(), CL_COMPLETE) << "the CL_COMPLETE callback got CL_COMPLETE";
   EXPECT_GE(completion.at_ns.load(), end) << "the callback fired after the kernel's END";

   cl_ulong min_active = 0, max_active = 0;
   check(clGetEventProfilingInfo(event, CL_PROFILING_COOPERATIVE_MIN_ACTIVE_EXT,
                                 sizeof(min_active), &min_active, nullptr),
         "clGetEventProfilingInfo(MIN_ACTIVE)");
   check(clGetEventProfilingInfo(event, CL_PROFILING_COOPERATIVE_MAX_ACTIVE_EXT,
                                 sizeof(max_active), &max_active, nullptr),
         "clGetEventProfilingInfo(MAX_ACTIVE)");
   // The cooperative profiling tokens describe the launch.
   EXPECT_GE(min_active, 1u) << "MIN_ACTIVE";
   EXPECT_LE(min_active, max_active) << "MIN_ACTIVE <= MAX_ACTIVE";
   EXPECT_LE(max_active, groups) << "MAX_ACTIVE <= the work-groups launched";
   return {enqueue_ms, kernel_ms};
}

// The device, its context, queue, program and buffers, shared by the
// tests, with the kernel compiled by a first launch; as before, one 100 s
// watchdog spans them all.
class AsyncLaunch : public testing::Test {
protected:
   struct Shared {
      Watchdog watchdog{"asynchronous cooperative launches", std::chrono::seconds(100)};
      cl_device_id device = nullptr;
      Context context;
      Queue queue;
      Program program;
      Kernel kernel;
      Buffer out, copy;
   };

   static void SetUpTestSuite()
   {
      shared = std::make_unique<Shared>();
      shared->device = first_device();
      shared->context = create_context(shared->device);
      shared->queue = create_queue(shared->context, shared->device, true);
      shared->program = build_or_throw(shared->context, shared->device, source);
      shared->kernel = create_kernel(shared->program, "rounds");
      shared->out = create_buffer(shared->context, CL_MEM_READ_WRITE, words * sizeof(cl_uint));
      shared->copy = create_buffer(shared->context, CL_MEM_READ_WRITE, words * sizeof(cl_uint));
      // llvmpipe compiles a kernel at its first launch, inside the enqueue on
      // Clover: a launch of no rounds compiles it before the timings.
      launch(shared->queue, shared->kernel, shared->out, 0);
      check(clFinish(shared->queue), "clFinish");
   }
   static void TearDownTestSuite() { shared.reset(); }

   void SetUp() override
   {
      ASSERT_TRUE(shared->copy.get()) << "the setup failed";
      device = shared->device;
      queue = shared->queue;
      kernel = shared->kernel;
      out = shared->out;
      copy = shared->copy;
   }

   static std::unique_ptr<Shared> shared;
   cl_device_id device = nullptr;
   cl_command_queue queue = nullptr;
   cl_kernel kernel = nullptr;
   cl_mem out = nullptr, copy = nullptr;
};

std::unique_ptr<AsyncLaunch::Shared> AsyncLaunch::shared;

} // namespace

// The enqueue takes as long for a kernel ten times longer; the event's
// life, callbacks and profiling of each.
TEST_F(AsyncLaunch, EnqueueReturnsBeforeTheKernelRuns)
{
   const Timed short_run = timed_launch(queue, kernel, out, short_rounds, "short");
   // The fastest of three enqueues: a synchronous enqueue takes the kernel's
   // run every time, while a host thread descheduled on a loaded machine
   // (one enqueue of 40 ms, seen once beside another test) does not recur.
   Timed long_run = timed_launch(queue, kernel, out, long_rounds, "long");
   for (int again = 0; again < 2; ++again) {
      const Timed next = timed_launch(queue, kernel, out, long_rounds, "long");
      if (next.enqueue_ms < long_run.enqueue_ms)
         long_run = next;
   }
   EXPECT_LT(long_run.enqueue_ms * 10, long_run.kernel_ms)
      << "enqueue and clFlush took less than a tenth of the kernel's run";
   EXPECT_LT(long_run.enqueue_ms, short_run.kernel_ms)
      << "enqueueing the long kernel took less time than the short one ran";
}

// clFinish, then a map, a copy and a launch enqueued right after a launch.
TEST_F(AsyncLaunch, CommandsAfterALaunchRunAfterIt)
{
   Event event = launch(queue, kernel, out, long_rounds - 1);
   check(clFlush(queue), "clFlush");
   check(clFinish(queue), "clFinish");
   EXPECT_EQ(event_status(event), CL_COMPLETE) << "CL_COMPLETE after clFinish";
   EXPECT_TRUE(holds_results(read_buffer<cl_uint>(queue, out, words).data(), long_rounds - 1))
      << "the kernel's results after clFinish";

   event = launch(queue, kernel, out, long_rounds + 1);
   cl_int error = CL_SUCCESS;
   auto *mapped = static_cast<cl_uint *>(clEnqueueMapBuffer(
      queue, out, CL_TRUE, CL_MAP_READ, 0, words * sizeof(cl_uint), 0, nullptr, nullptr, &error));
   check(error, "clEnqueueMapBuffer");
   EXPECT_TRUE(holds_results(mapped, long_rounds + 1))
      << "a map right after the launch sees its results";
   check(clEnqueueUnmapMemObject(queue, out, mapped, 0, nullptr, nullptr),
         "clEnqueueUnmapMemObject");

   event = launch(queue, kernel, out, long_rounds + 2);
   check(clEnqueueCopyBuffer(queue, out, copy, 0, 0, words * sizeof(cl_uint), 0, nullptr,
                             nullptr),
         "clEnqueueCopyBuffer");
   EXPECT_TRUE(holds_results(read_buffer<cl_uint>(queue, copy, words).data(), long_rounds + 2))
      << "a copy right after the launch sees its results";

   // A launch right after a long one runs after it: the short one's results
   // stay, although it alone would end first.
   event = launch(queue, kernel, out, long_rounds + 3);
   Event second = launch(queue, kernel, out, short_rounds);
   check(clFlush(queue), "clFlush");
   EXPECT_TRUE(holds_results(read_buffer<cl_uint>(queue, out, words).data(), short_rounds))
      << "a launch enqueued right after a longer one ran after it";
}

// Everything but the event goes while the kernel runs.
TEST_F(AsyncLaunch, ReleasingEverythingButTheEventWhileItRuns)
{
   Completion completion;
   Event event;
   {
      Context own_context = create_context(device);
      Queue own_queue = create_queue(own_context, device);
      Program own_program = build_or_throw(own_context, device, source);
      Kernel own_kernel = create_kernel(own_program, "rounds");
      Buffer own_out = create_buffer(own_context, CL_MEM_READ_WRITE, words * sizeof(cl_uint));
      event = launch(own_queue, own_kernel, own_out, long_rounds);
      check(clFlush(own_queue), "clFlush");
      check(clSetEventCallback(event, CL_COMPLETE, on_complete, &completion),
            "clSetEventCallback");
   }
   cl_event list[] = {event.get()};
   check(clWaitForEvents(1, list), "clWaitForEvents after the releases");
   EXPECT_EQ(event_status(event), CL_COMPLETE)
      << "a kernel whose kernel, program, buffer, queue and context were released completed";
   EXPECT_TRUE(wait_for_callback(completion)) << "its CL_COMPLETE callback fired";
   EXPECT_EQ(completion.status.load(), CL_COMPLETE) << "its CL_COMPLETE callback got CL_COMPLETE";
}
