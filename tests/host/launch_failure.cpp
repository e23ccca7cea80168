// What the driver does with a cooperative launch that it cannot start, and
// with what a launch held once it completes (the spec's "Errors").
//
// Run with CK_FAIL_LAUNCHES=1: the scheduler fails the process's first
// cooperative launch as if no memory were left. That launch must end with
// CL_OUT_OF_RESOURCES, run no work-item, and leave the queue working; it
// must not run the kernel some other way.
//
// A completed launch must not keep the buffers it used: one the
// application released afterwards gives its memory back at once, not at the
// queue's next command.
// covers: 12-oom-status 12-oom-untouched 12-oom-after
#include "CL/cl_ext_cooperative_kernels.h"
#include "cl_host.hpp"
#include "event_capture.hpp"
#include "watchdog.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

const char *source = R"CLC(
// Each work-item fills a strided share of out[0..n), then work-group 0
// notes how many work-groups passed the barrier.
kernel void fill(global uint *out, uint n, global uint *passed)
{
   const uint stride = get_num_groups(0) * get_local_size(0);
   for (uint i = get_global_id(0); i < n; i += stride)
      out[i] = i + 1;
   global_barrier();
   if (get_local_id(0) == 0)
      atomic_inc(passed);
}
)CLC";

// Resident memory of this process, in bytes.
size_t resident_bytes()
{
   std::ifstream statm("/proc/self/statm");
   size_t total_pages = 0, resident_pages = 0;
   statm >> total_pages >> resident_pages;
   return resident_pages * size_t(sysconf(_SC_PAGESIZE));
}

class LaunchFailure : public testing::Test {
protected:
   void SetUp() override
   {
      device_ = cl_host::first_device();
      units_ = cl_host::device_uint(device_, CL_DEVICE_MAX_COMPUTE_UNITS);
      context_ = cl_host::create_context(device_);
      queue_ = cl_host::create_queue(context_, device_, /*profiling=*/true);
      program_ = cl_host::build_or_throw(context_, device_, source);
      kernel_ = cl_host::create_kernel(program_, "fill");
   }

   // Enqueues fill over `out` (n words) with `groups` work-groups of 4.
   cl_host::Event enqueue_fill(cl_mem out, cl_uint n, cl_mem passed, size_t groups)
   {
      cl_host::set_arg(kernel_, 0, out);
      cl_host::set_arg(kernel_, 1, n);
      cl_host::set_arg(kernel_, 2, passed);
      const size_t local = 4, global = local * groups;
      cl_event event = nullptr;
      cl_host::check(clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &global, &local, 0,
                                            nullptr, &event),
                     "clEnqueueNDRangeKernel");
      return cl_host::Event(event);
   }

   cl_host::Watchdog watchdog_{"the launch failure test", std::chrono::seconds(90)};
   cl_device_id device_ = nullptr;
   cl_uint units_ = 0;
   cl_host::Context context_;
   cl_host::Queue queue_;
   cl_host::Program program_;
   cl_host::Kernel kernel_;
};

// The first cooperative launch of the process fails (CK_FAIL_LAUNCHES=1).
TEST_F(LaunchFailure, ALaunchWithoutMemoryEndsWithAnErrorAndRunsNothing)
{
   const char *failing = std::getenv("CK_FAIL_LAUNCHES");
   ASSERT_TRUE(failing && std::string(failing) == "1") << "run with CK_FAIL_LAUNCHES=1";
   const cl_uint n = 1024;
   const std::vector<cl_uint> zeros(n, 0);
   cl_host::Buffer out = cl_host::create_buffer(context_, CL_MEM_COPY_HOST_PTR,
                                                n * sizeof(cl_uint), const_cast<cl_uint *>(zeros.data()));
   cl_host::Buffer passed = cl_host::create_buffer(context_, CL_MEM_COPY_HOST_PTR, sizeof(cl_uint),
                                                   const_cast<cl_uint *>(zeros.data()));
   const size_t groups = units_;

   cl_host::Event failed = enqueue_fill(out, n, passed, groups);
   host_test::CompletionCallback callback;
   cl_host::check(clSetEventCallback(failed, CL_COMPLETE, host_test::note_completion, &callback),
                  "clSetEventCallback");
   cl_event raw = failed.get();
   EXPECT_EQ(clWaitForEvents(1, &raw), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
   EXPECT_EQ(cl_host::event_status(failed), CL_OUT_OF_RESOURCES);
   cl_ulong end = 0;
   EXPECT_EQ(clGetEventProfilingInfo(failed, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr),
             CL_PROFILING_INFO_NOT_AVAILABLE);
   EXPECT_EQ(cl_host::read_buffer<cl_uint>(queue_, out, n), zeros) << "a work-item ran";
   EXPECT_EQ(cl_host::read_buffer<cl_uint>(queue_, passed, 1)[0], 0u) << "a work-group ran";
   // The callback has run by the time the blocking read above returned on
   // both frontends; it may still be on its way on another thread.
   for (int i = 0; i < 1000 && !callback.called; ++i)
      usleep(5000);
   EXPECT_TRUE(callback.called);
   EXPECT_EQ(callback.status.load(), CL_OUT_OF_RESOURCES);

   // The next launch on the queue runs in full.
   cl_host::Event next = enqueue_fill(out, n, passed, groups);
   raw = next.get();
   EXPECT_EQ(clWaitForEvents(1, &raw), CL_SUCCESS);
   EXPECT_EQ(cl_host::event_status(next), CL_COMPLETE);
   const auto filled = cl_host::read_buffer<cl_uint>(queue_, out, n);
   for (cl_uint i = 0; i < n; ++i)
      ASSERT_EQ(filled[i], i + 1) << "word " << i;
   EXPECT_EQ(cl_host::read_buffer<cl_uint>(queue_, passed, 1)[0], cl_uint(groups));
}

// A buffer released after its kernel completed is freed then, though the
// queue does nothing more.
TEST_F(LaunchFailure, ACompletedLaunchKeepsNoBuffer)
{
   const cl_uint n = 64u << 20; // 256 MiB of words
   const size_t before = resident_bytes();
   {
      cl_host::Buffer out =
         cl_host::create_buffer(context_, CL_MEM_READ_WRITE, size_t(n) * sizeof(cl_uint));
      cl_uint zero = 0;
      cl_host::Buffer passed =
         cl_host::create_buffer(context_, CL_MEM_COPY_HOST_PTR, sizeof(cl_uint), &zero);
      cl_host::Event event = enqueue_fill(out, n, passed, units_);
      cl_host::check(clFinish(queue_), "clFinish");
      // A launch that CK_FAIL_LAUNCHES failed has nothing to free: run one
      // that completes.
      if (cl_host::event_status(event) != CL_COMPLETE) {
         cl_host::Event again = enqueue_fill(out, n, passed, units_);
         cl_host::check(clFinish(queue_), "clFinish");
         ASSERT_EQ(cl_host::event_status(again), CL_COMPLETE);
      }
      const size_t used = resident_bytes();
      std::printf("resident: %zu MiB before, %zu MiB with the buffer\n", before >> 20, used >> 20);
      ASSERT_GE(used, before + (200u << 20)) << "the kernel did not touch the buffer";
      // The kernel holds the buffer as its argument: let it go too.
      cl_host::set_arg(kernel_, 0, passed.get());
   }
   const size_t after = resident_bytes();
   std::printf("resident: %zu MiB after releasing it\n", after >> 20);
   EXPECT_LT(after, before + (64u << 20)) << "the buffer's memory was not given back";
}

} // namespace
