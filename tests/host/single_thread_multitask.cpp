// One host thread multitasks: it enqueues a long cooperative kernel on one
// queue, flushes, and keeps enqueueing and finishing short frames on a second
// queue. Frames must complete while the kernel runs (clEnqueueNDRangeKernel
// returned at once and the scheduler lends the frames compute units), and the
// kernel's event must keep OpenCL's rules: CL_RUNNING while it runs,
// callbacks and profiling END at completion, a later command on the same
// in-order queue and a command on another queue that waits for its event see
// its results.
//
// Clover runs a command inside its enqueue call once the commands it
// depends on were submitted, so a command that must wait for the kernel (a
// read on its queue, a command on another queue that waits for its event)
// waits in that call; there the test enqueues them after the frames.
// covers: 10.6-barrier 15-async
#include "cl_host.hpp"
#include "watchdog.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace cl_host;
using Clock = std::chrono::steady_clock;

namespace {

const char *source = R"CLC(
// Every round ends at a resizing barrier, where the scheduler may take
// compute units back for the frames. Work-group 0 is never killed.
kernel void rounds(global uint *progress, global uint *done, uint n)
{
   transmit uint r = 0;
   while (r < n) {
      if (get_group_id(0) == 0 && get_local_id(0) == 0)
         progress[0] = r + 1;
      r++;
      resizing_global_barrier();
   }
   if (get_group_id(0) == 0 && get_local_id(0) == 0)
      done[0] = 0xC0FFEEu;
}

kernel void frame(global uint *count)
{
   if (get_global_id(0) == 0)
      count[0] += 1;
}

kernel void copy_word(global const uint *from, global uint *to)
{
   to[0] = from[0];
}
)CLC";

constexpr cl_uint done_value = 0xC0FFEEu;
constexpr cl_uint rounds = 20000;
constexpr size_t groups = 8;
constexpr size_t local_size = 16;

struct Completion {
   std::atomic<int> calls{0};
   std::atomic<cl_int> status{1};
};

void CL_CALLBACK on_complete(cl_event, cl_int status, void *data)
{
   auto *completion = static_cast<Completion *>(data);
   completion->status = status;
   ++completion->calls;
}

std::string platform_name(cl_device_id device)
{
   cl_platform_id platform = nullptr;
   check(clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof(platform), &platform, nullptr),
         "clGetDeviceInfo");
   char name[256] = {};
   check(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof(name), name, nullptr),
         "clGetPlatformInfo");
   return name;
}

} // namespace

// One scenario, one test: the frames, the kernel and its event are checked
// on the same run.
TEST(SingleThreadMultitask, FramesRunWhileCooperativeKernelRuns)
{
   const cl_device_id device = first_device();
   const bool dependents_wait_in_enqueue = platform_name(device) == "Clover";

   Watchdog watchdog("single-thread multitasking", std::chrono::seconds(100));
   Context context = create_context(device);
   Queue cooperative_queue = create_queue(context, device, true);
   Queue frame_queue = create_queue(context, device, true);
   Queue waiting_queue = create_queue(context, device);
   Program program = build_or_throw(context, device, source);
   Kernel rounds_kernel = create_kernel(program, "rounds");
   Kernel frame_kernel = create_kernel(program, "frame");
   Kernel copy_kernel = create_kernel(program, "copy_word");

   cl_uint zero = 0;
   Buffer progress = create_buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   sizeof(cl_uint), &zero);
   Buffer done = create_buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               sizeof(cl_uint), &zero);
   Buffer frame_count = create_buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                      sizeof(cl_uint), &zero);
   Buffer copied = create_buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                 sizeof(cl_uint), &zero);
   set_arg(rounds_kernel, 0, progress.get());
   set_arg(rounds_kernel, 1, done.get());
   set_arg(frame_kernel, 0, frame_count.get());
   set_arg(copy_kernel, 0, done.get());
   set_arg(copy_kernel, 1, copied.get());

   // llvmpipe compiles a kernel at its first launch, inside the enqueue
   // call on Clover: a launch of no rounds compiles it before the timing.
   const size_t global_size = groups * local_size;
   cl_event raw = nullptr;
   set_arg(rounds_kernel, 2, cl_uint(0));
   check(clEnqueueNDRangeKernel(cooperative_queue, rounds_kernel, 1, nullptr, &global_size,
                                &local_size, 0, nullptr, nullptr),
         "clEnqueueNDRangeKernel(no rounds)");
   check(clFinish(cooperative_queue), "clFinish");
   set_arg(rounds_kernel, 2, rounds);

   // The cooperative kernel, then on the same in-order queue a read of its
   // result, and on a third queue a copy that waits for its event.
   const auto enqueue_start = Clock::now();
   check(clEnqueueNDRangeKernel(cooperative_queue, rounds_kernel, 1, nullptr, &global_size,
                                &local_size, 0, nullptr, &raw),
         "clEnqueueNDRangeKernel");
   check(clFlush(cooperative_queue), "clFlush");
   const auto enqueue_time = Clock::now() - enqueue_start;
   Event kernel_event(raw);

   Completion completion;
   check(clSetEventCallback(kernel_event, CL_COMPLETE, on_complete, &completion),
         "clSetEventCallback");

   cl_uint read_back = 0;
   Event read_event, copy_event;
   cl_event wait_list[] = {kernel_event.get()};
   const size_t one = 1;
   const auto enqueue_dependents = [&] {
      check(clEnqueueReadBuffer(cooperative_queue, done, CL_FALSE, 0, sizeof(cl_uint),
                                &read_back, 0, nullptr, &raw),
            "clEnqueueReadBuffer");
      read_event = Event(raw);
      check(clFlush(cooperative_queue), "clFlush");
      check(clEnqueueNDRangeKernel(waiting_queue, copy_kernel, 1, nullptr, &one, &one, 1,
                                   wait_list, &raw),
            "clEnqueueNDRangeKernel(copy)");
      copy_event = Event(raw);
      check(clFlush(waiting_queue), "clFlush");
   };
   if (!dependents_wait_in_enqueue)
      enqueue_dependents();

   // Frames on the other queue until the kernel completes.
   int frames_while_running = 0;
   bool seen_running = false;
   bool callback_early = false;
   std::vector<cl_ulong> frame_starts;
   for (;;) {
      const cl_int before = event_status(kernel_event);
      if (before == CL_COMPLETE || before < 0)
         break;
      seen_running |= before == CL_RUNNING;
      check(clEnqueueNDRangeKernel(frame_queue, frame_kernel, 1, nullptr, &one, &one, 0,
                                   nullptr, &raw),
            "clEnqueueNDRangeKernel(frame)");
      Event frame_event(raw);
      check(clFinish(frame_queue), "clFinish");
      // The callback's count first: the event is CL_COMPLETE before its
      // callback runs, so a count read after the status could see a
      // callback that fired in between.
      const bool called = completion.calls.load() != 0;
      const cl_int after = event_status(kernel_event);
      if (after != CL_COMPLETE) {
         ++frames_while_running;
         frame_starts.push_back(profiling_ulong(frame_event, CL_PROFILING_COMMAND_START));
         callback_early |= called;
      }
   }
   check(clWaitForEvents(1, wait_list), "clWaitForEvents");
   if (dependents_wait_in_enqueue)
      enqueue_dependents();
   check(clFinish(cooperative_queue), "clFinish");
   check(clFinish(frame_queue), "clFinish");

   const cl_ulong start = profiling_ulong(kernel_event, CL_PROFILING_COMMAND_START);
   const cl_ulong end = profiling_ulong(kernel_event, CL_PROFILING_COMMAND_END);
   const double kernel_ms = (end - start) / 1e6;
   const double enqueue_ms = std::chrono::duration<double, std::milli>(enqueue_time).count();
   std::printf("kernel %.1f ms, enqueue and flush %.3f ms, %d frames while it ran\n", kernel_ms,
               enqueue_ms, frames_while_running);

   EXPECT_EQ(event_status(kernel_event), CL_COMPLETE) << "the kernel completed";
   EXPECT_LT(enqueue_ms * 10, kernel_ms)
      << "clEnqueueNDRangeKernel and clFlush returned before the kernel ran a tenth of its time";
   EXPECT_TRUE(seen_running) << "the kernel's event was CL_RUNNING while it ran";
   EXPECT_GE(frames_while_running, 3) << "frames completed while the cooperative kernel ran";
   EXPECT_FALSE(callback_early) << "the completion callback did not fire while the kernel ran";
   EXPECT_EQ(completion.calls.load(), 1) << "the completion callback fired once";
   EXPECT_EQ(completion.status.load(), CL_COMPLETE) << "the completion callback got CL_COMPLETE";
   // END is when the kernel completed, which its event reports a little
   // later (rusticl's queue thread marks it complete when it wakes): a frame
   // may start in between. By the profiling clock, frames still ran while
   // the kernel did.
   const auto frames_before_end =
      std::count_if(frame_starts.begin(), frame_starts.end(),
                    [end](cl_ulong frame_start) { return frame_start < end; });
   EXPECT_GE(frames_before_end, 3)
      << "profiling END is the kernel's completion, after frames that ran during it";
   EXPECT_GT(end, start) << "profiling END follows START";

   cl_event copy_list[] = {copy_event.get()};
   check(clWaitForEvents(1, copy_list), "clWaitForEvents(copy)");
   EXPECT_EQ(read_back, done_value)
      << "a read enqueued after the kernel on its queue saw its result";
   EXPECT_GE(profiling_ulong(read_event, CL_PROFILING_COMMAND_START), end)
      << "that read started after the kernel ended";
   EXPECT_EQ(read_buffer<cl_uint>(waiting_queue, copied, 1)[0], done_value)
      << "a command on another queue that waits for the kernel's event saw its result";
   EXPECT_EQ(read_buffer<cl_uint>(frame_queue, progress, 1)[0], rounds)
      << "the kernel ran every round";
}
