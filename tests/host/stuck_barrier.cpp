// A global barrier that can never complete is an error, not a hang (the
// spec's "Active work-groups"): a work-group that returned from the kernel
// stays active, so a barrier that others wait at, or reach later, needs it
// and never completes. The launch ends instead: its event's execution status
// is CL_COOPERATIVE_BARRIER_STUCK_EXT, clWaitForEvents fails with
// CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, CL_COMPLETE callbacks get
// the error, stderr names the kernel and the barrier, and the next launch on
// the same queue runs as usual.
// covers: 10.1-stuck-detected 10.1-stuck-memory 10.1-stuck-passes-build 10.5-no-early-leave
// covers: 10.8-broadcast 11-barrier 12-stuck-after 12-stuck-callback 12-stuck-no-profiling
// covers: 12-stuck-status 12-stuck-stderr 12-stuck-wait 15-stuck-record
#include "CL/cl_ext_cooperative_kernels.h"
#include "cl_host.hpp"
#include "event_capture.hpp"
#include "watchdog.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

const char *source = R"CLC(
// The first work-group to count itself calls global_barrier() once more
// than the others, which return: the decision is data, made uniform
// through local memory, so the build cannot see it.
kernel void extra_barrier(global uint *counter)
{
   local uint ticket;
   if (get_local_id(0) == 0)
      ticket = atomic_inc(counter);
   barrier(CLK_LOCAL_MEM_FENCE);
   if (ticket == 0)
      global_barrier(); // stuck: extra_barrier
}

// counter[0] counts work-groups, counter[1] those past the last barrier;
// the first to count itself returns early and notes its id in counter[2].
bool counted_first(global uint *counter, local uint *ticket)
{
   if (get_local_id(0) == 0)
      *ticket = atomic_inc(&counter[0]);
   barrier(CLK_LOCAL_MEM_FENCE);
   if (*ticket == 0 && get_local_id(0) == 0)
      counter[2] = get_group_id(0);
   return *ticket == 0;
}

// One work-group returns between two global barriers.
kernel void returns_between_barriers(global uint *counter)
{
   local uint ticket;
   global_barrier();
   if (counted_first(counter, &ticket))
      return;
   global_barrier(); // stuck: returns_between_barriers
   if (get_local_id(0) == 0)
      atomic_inc(&counter[1]);
}

// One work-group returns before a resizing barrier.
kernel void returns_before_resizing(global uint *counter)
{
   local uint ticket;
   if (counted_first(counter, &ticket))
      return;
   resizing_global_barrier(); // stuck: returns_before_resizing
   if (get_local_id(0) == 0)
      atomic_inc(&counter[1]);
}

// Every work-item writes its slot before the barrier; one work-group
// returns, the others wait at the barrier and leave; none writes after it.
kernel void writes_before_stuck(global uint *out, global uint *counter)
{
   local uint ticket;
   out[get_global_id(0)] = get_global_id(0) + 1;
   if (counted_first(counter, &ticket))
      return;
   global_barrier(); // stuck: writes_before_stuck
   out[get_global_id(0)] = 0xdeadu;
}

// A kernel that keeps the rules, launched after each stuck one: every
// active work-group counts itself before the barrier.
kernel void all_arrive(global uint *sum)
{
   if (get_local_id(0) == 0)
      atomic_inc(&sum[0]);
   global_barrier();
   if (get_local_id(0) == 0 && get_group_id(0) == 0) {
      sum[1] = atomic_or(&sum[0], 0);
      sum[2] = get_num_groups(0);
   }
}
)CLC";

struct Case {
   const char *kernel;
   bool notes_leaver; // counted_first() above
   const char *barrier; // the stuck barrier's kind and index, as stderr names it
};

// The line of the source that carries the comment "stuck: KERNEL".
unsigned stuck_line(const char *kernel)
{
   const std::string text = source;
   const size_t at = text.find(std::string("// stuck: ") + kernel + "\n");
   return unsigned(std::count(text.begin(), text.begin() + at, '\n')) + 1;
}

void run_stuck(cl_context context, cl_command_queue queue, cl_program program,
               const Case &test, size_t groups)
{
   cl_host::Kernel kernel = cl_host::create_kernel(program, test.kernel);
   cl_uint zeros[3] = {};
   cl_host::Buffer counter =
      cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(zeros), zeros);
   cl_host::set_arg(kernel, 0, counter.get());
   const size_t local = 4, global = local * groups;

   host_test::StderrCapture capture;
   cl_event raw_event = nullptr;
   cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr,
                                         &raw_event),
                  "clEnqueueNDRangeKernel");
   cl_host::Event event(raw_event);
   host_test::CompletionCallback callback;
   cl_host::check(clSetEventCallback(event, CL_COMPLETE, host_test::note_completion, &callback),
                  "clSetEventCallback");
   cl_host::check(clFinish(queue), "clFinish");
   const cl_int waited = clWaitForEvents(1, &raw_event);
   for (int i = 0; i < 1000 && !callback.called; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
   const std::string printed = capture.finish();
   const cl_int status = cl_host::event_status(event);

   std::printf("%s, %zu work-groups: status %d, clWaitForEvents %s, callback %s %d\n",
               test.kernel, groups, status, cl_host::error_name(waited),
               callback.called ? "called with" : "not called", callback.status.load());
   SCOPED_TRACE(std::string(test.kernel) + ", " + std::to_string(groups) + " work-groups");
   EXPECT_EQ(status, CL_COOPERATIVE_BARRIER_STUCK_EXT)
      << "the event reports CL_COOPERATIVE_BARRIER_STUCK_EXT";
   EXPECT_EQ(waited, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
      << "clWaitForEvents fails with CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
   EXPECT_TRUE(callback.called) << "the CL_COMPLETE callback is called";
   EXPECT_EQ(callback.status.load(), CL_COOPERATIVE_BARRIER_STUCK_EXT)
      << "the CL_COMPLETE callback gets the error";
   // The line where the frontend keeps debug information (Clover does).
   const std::string named = std::string("kernel '") + test.kernel + "': " + test.barrier;
   const std::string message = named + " can never complete";
   const std::string with_line =
      named + " (line " + std::to_string(stuck_line(test.kernel)) + ") can never complete";
   EXPECT_TRUE(printed.find(message) != std::string::npos ||
               printed.find(with_line) != std::string::npos)
      << "stderr says \"" << message << "\" or \"" << with_line << "\"";
   if (test.notes_leaver) {
      const auto got = cl_host::read_buffer<cl_uint>(queue, counter, 3);
      const std::string returned = "work-group " + std::to_string(got[2]) + " returned";
      EXPECT_NE(printed.find(returned), std::string::npos)
         << "stderr says \"" << returned << "\"";
      EXPECT_EQ(got[1], 0u) << "no work-group passed the stuck barrier";
   }
}

void run_good(cl_context context, cl_command_queue queue, cl_program program, size_t groups)
{
   cl_host::Kernel kernel = cl_host::create_kernel(program, "all_arrive");
   cl_uint zeros[3] = {};
   cl_host::Buffer sum =
      cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(zeros), zeros);
   cl_host::set_arg(kernel, 0, sum.get());
   const size_t local = 4, global = local * groups;
   cl_event raw_event = nullptr;
   cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr,
                                         &raw_event),
                  "clEnqueueNDRangeKernel");
   cl_host::Event event(raw_event);
   cl_host::check(clWaitForEvents(1, &raw_event), "clWaitForEvents");
   const auto got = cl_host::read_buffer<cl_uint>(queue, sum, 3);
   // The next launch on the queue completes, every active work-group at its barrier.
   EXPECT_EQ(cl_host::event_status(event), CL_COMPLETE) << "the next launch completes";
   EXPECT_EQ(got[0], got[2]) << "every active work-group counted itself";
   EXPECT_EQ(got[1], got[2]) << "every active work-group arrived at the barrier";
   EXPECT_GE(got[2], 1u);
   EXPECT_LE(got[2], groups);
}

// The device, its context and the program, shared by the cases; the
// watchdog spans them all.
class StuckBarrier : public testing::Test {
protected:
   static void SetUpTestSuite()
   {
      shared = std::make_unique<Shared>();
      shared->device = cl_host::first_device();
      shared->units = cl_host::device_uint(shared->device, CL_DEVICE_MAX_COMPUTE_UNITS);
      shared->context = cl_host::create_context(shared->device);
      shared->queue = cl_host::create_queue(shared->context, shared->device);
      shared->program = cl_host::build_or_throw(shared->context, shared->device, source);
   }
   static void TearDownTestSuite() { shared.reset(); }

   void SetUp() override { ASSERT_TRUE(shared->program.get()) << "the program did not build"; }

   // Each case with as many work-groups as units, and more than units.
   static void run_case(const Case &test)
   {
      for (size_t groups : {size_t(shared->units), size_t(2 * shared->units + 1)}) {
         for (int repeat = 0; repeat < 3; ++repeat) {
            run_stuck(shared->context, shared->queue, shared->program, test, groups);
            run_good(shared->context, shared->queue, shared->program, groups);
         }
      }
   }

   struct Shared {
      cl_host::Watchdog watchdog{"the stuck barrier test", std::chrono::seconds(90)};
      cl_device_id device = nullptr;
      cl_uint units = 0;
      cl_host::Context context;
      cl_host::Queue queue;
      cl_host::Program program;
   };
   static std::unique_ptr<Shared> shared;
};

std::unique_ptr<StuckBarrier::Shared> StuckBarrier::shared;

} // namespace

// Section 10.1: "Global memory then holds what the work-groups wrote before
// they left": every work-item of the work-groups that waited at the stuck
// barrier (and of the one that returned) wrote its slot, none of them past
// the barrier, and no other work-group started. Section 12: on a profiling
// queue, the stuck launch's profiling information is not available.
TEST_F(StuckBarrier, WritesBeforeTheBarrierAreKept)
{
   cl_host::Queue queue =
      cl_host::create_queue(shared->context, shared->device, /*profiling=*/true);
   cl_host::Kernel kernel = cl_host::create_kernel(shared->program, "writes_before_stuck");
   for (size_t groups : {size_t(shared->units), size_t(2 * shared->units + 1)}) {
      SCOPED_TRACE(std::to_string(groups) + " work-groups");
      const size_t local = 4, global = local * groups;
      std::vector<cl_uint> zeros(global, 0);
      cl_host::Buffer out = cl_host::create_buffer(shared->context, CL_MEM_COPY_HOST_PTR,
                                                   global * sizeof(cl_uint), zeros.data());
      cl_host::Buffer counter = cl_host::create_buffer(shared->context, CL_MEM_COPY_HOST_PTR,
                                                       3 * sizeof(cl_uint), zeros.data());
      cl_host::set_arg(kernel, 0, out.get());
      cl_host::set_arg(kernel, 1, counter.get());
      host_test::StderrCapture capture;
      cl_event raw_event = nullptr;
      cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0,
                                            nullptr, &raw_event),
                     "clEnqueueNDRangeKernel");
      cl_host::Event event(raw_event);
      clFinish(queue); // reports the launch's error; the status is checked below
      capture.finish();
      ASSERT_EQ(cl_host::event_status(event), CL_COOPERATIVE_BARRIER_STUCK_EXT);
      const auto written = cl_host::read_buffer<cl_uint>(queue, out, global);
      const auto counted = cl_host::read_buffer<cl_uint>(queue, counter, 3);
      const size_t ran = counted[0];
      EXPECT_GE(ran, 2u) << "work-groups that started";
      EXPECT_LE(ran, std::min<size_t>(groups, shared->units));
      for (size_t i = 0; i < global; ++i)
         EXPECT_EQ(written[i], i / local < ran ? cl_uint(i + 1) : 0u)
            << "slot " << i << " of work-group " << i / local << " (" << ran << " ran)";
      cl_ulong value = 0;
      EXPECT_EQ(clGetEventProfilingInfo(event, CL_PROFILING_COOPERATIVE_KILLS_EXT, sizeof(value),
                                        &value, nullptr),
                CL_PROFILING_INFO_NOT_AVAILABLE)
         << "profiling information is not available";
      EXPECT_EQ(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(value), &value,
                                        nullptr),
                CL_PROFILING_INFO_NOT_AVAILABLE)
         << "not even CL_PROFILING_COMMAND_END";
      run_good(shared->context, shared->queue, shared->program, groups);
   }
}

TEST_F(StuckBarrier, ExtraBarrier)
{
   run_case({"extra_barrier", false, "global_barrier call 1"});
}

TEST_F(StuckBarrier, ReturnsBetweenBarriers)
{
   run_case({"returns_between_barriers", true, "global_barrier call 2"});
}

TEST_F(StuckBarrier, ReturnsBeforeResizing)
{
   run_case({"returns_before_resizing", true, "resizing_global_barrier call 1"});
}
