// Barrier identity (the spec's "Active work-groups"): active work-groups
// that reach different global barrier calls at once, through a condition
// that is work-group-uniform but data-dependent (so the build accepts it),
// never pass together and never hang. The launch ends as a stuck barrier
// does: its event's execution status is CL_COOPERATIVE_BARRIER_STUCK_EXT,
// clWaitForEvents fails, stderr names the kernel and both barrier calls, no
// work-item passes either call, and the next launch on the queue runs as
// usual. The same kernels with every work-group on one side run to the
// end: global/global, global/resizing and resizing/global mixes.
// covers: 10.1-mismatch-detected 10.1-stuck-passes-build 12-mismatch-stderr 12-stuck-status
// covers: 12-stuck-wait 12-stuck-after

#include "CL/cl_ext_cooperative_kernels.h"
#include "cl_host.hpp"
#include "event_capture.hpp"
#include "watchdog.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

// Each kernel: every work-group passes barrier call 1, then takes a ticket
// (broadcast through local memory: data, not the id) and reaches the
// `low` side's barrier call if its ticket is below threshold[0], else the
// `high` side's. counter[0] counts tickets, counter[1] and counter[2] the
// work-groups that reached each side, passed[0] and passed[1] those that
// passed each side's barrier. Each side does work of its own around its
// barrier, so that the compiler cannot merge the two calls.
#define KERNEL(NAME, LOW_BARRIER, HIGH_BARRIER)                                      \
   "kernel void " #NAME "(global uint *counter, global const uint *threshold,\n"    \
   "                      global uint *passed)\n"                                    \
   "{\n"                                                                              \
   "   local uint ticket;\n"                                                          \
   "   global_barrier();\n"                                                           \
   "   if (get_local_id(0) == 0)\n"                                                   \
   "      ticket = atomic_inc(&counter[0]);\n"                                        \
   "   barrier(CLK_LOCAL_MEM_FENCE);\n"                                               \
   "   if (ticket < threshold[0]) {\n"                                                \
   "      if (get_local_id(0) == 0)\n"                                                \
   "         atomic_inc(&counter[1]);\n"                                              \
   "      " #LOW_BARRIER "(); // low: " #NAME "\n"                                    \
   "      if (get_local_id(0) == 0)\n"                                                \
   "         atomic_inc(&passed[0]);\n"                                               \
   "   } else {\n"                                                                    \
   "      if (get_local_id(0) == 0)\n"                                                \
   "         atomic_add(&counter[2], 1);\n"                                           \
   "      " #HIGH_BARRIER "(); // high: " #NAME "\n"                                  \
   "      if (get_local_id(0) == 0)\n"                                                \
   "         atomic_add(&passed[1], 1);\n"                                            \
   "   }\n"                                                                           \
   "}\n"

const char *source = KERNEL(global_global, global_barrier, global_barrier)
   KERNEL(global_resizing, global_barrier, resizing_global_barrier)
      KERNEL(resizing_global, resizing_global_barrier, global_barrier);

struct Mix {
   const char *kernel;
   bool low_resizing, high_resizing;
};

const Mix mixes[] = {
   {"global_global", false, false},
   {"global_resizing", false, true},
   {"resizing_global", true, false},
};

// The source line of the comment "SIDE: KERNEL".
unsigned line_of(const char *side, const char *kernel)
{
   const std::string text = source;
   const size_t at = text.find(std::string("// ") + side + ": " + kernel + "\n");
   return unsigned(std::count(text.begin(), text.begin() + at, '\n')) + 1;
}

// "KIND call INDEX" with or without " (line L)", as stderr names a call.
std::vector<std::string> call_names(bool resizing, unsigned index, unsigned line)
{
   const std::string name =
      std::string(resizing ? "resizing_global_barrier" : "global_barrier") + " call " +
      std::to_string(index);
   return {name, name + " (line " + std::to_string(line) + ")"};
}

struct Result {
   cl_int status, waited;
   std::vector<cl_uint> counter, passed;
   std::string printed;
};

class BarrierMismatch : public testing::Test {
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

   void SetUp() override
   {
      ASSERT_TRUE(shared->program.get()) << "the program did not build";
      ASSERT_GE(shared->units, 2u) << "the mixes need two active work-groups";
   }

   static Result launch(const char *name, size_t groups, cl_uint threshold)
   {
      cl_host::Kernel kernel = cl_host::create_kernel(shared->program, name);
      cl_uint zeros[3] = {};
      cl_host::Buffer counter = cl_host::create_buffer(shared->context, CL_MEM_COPY_HOST_PTR,
                                                       sizeof(zeros), zeros);
      cl_host::Buffer limit = cl_host::create_buffer(shared->context, CL_MEM_COPY_HOST_PTR,
                                                     sizeof(threshold), &threshold);
      cl_host::Buffer passed = cl_host::create_buffer(shared->context, CL_MEM_COPY_HOST_PTR,
                                                      2 * sizeof(cl_uint), zeros);
      cl_host::set_arg(kernel, 0, counter.get());
      cl_host::set_arg(kernel, 1, limit.get());
      cl_host::set_arg(kernel, 2, passed.get());
      const size_t local = 4, global = local * groups;
      Result result;
      host_test::StderrCapture capture;
      cl_event raw_event = nullptr;
      cl_host::check(clEnqueueNDRangeKernel(shared->queue, kernel, 1, nullptr, &global, &local,
                                            0, nullptr, &raw_event),
                     "clEnqueueNDRangeKernel");
      cl_host::Event event(raw_event);
      clFinish(shared->queue); // reports a launch's error; the status is checked
      result.waited = clWaitForEvents(1, &raw_event);
      result.printed = capture.finish();
      result.status = cl_host::event_status(event);
      result.counter = cl_host::read_buffer<cl_uint>(shared->queue, counter, 3);
      result.passed = cl_host::read_buffer<cl_uint>(shared->queue, passed, 2);
      std::printf("%s, %zu work-groups, threshold %u: status %d, %u low, %u high, passed %u/%u\n",
                  name, groups, threshold, result.status, result.counter[1], result.counter[2],
                  result.passed[0], result.passed[1]);
      return result;
   }

   // Work-groups on both sides: the launch ends with the stuck status.
   static void expect_mismatch(const Mix &mix, size_t groups, cl_uint threshold)
   {
      SCOPED_TRACE(std::string(mix.kernel) + ", " + std::to_string(groups) +
                   " work-groups, threshold " + std::to_string(threshold));
      const Result got = launch(mix.kernel, groups, threshold);
      EXPECT_EQ(got.status, CL_COOPERATIVE_BARRIER_STUCK_EXT)
         << "the event reports CL_COOPERATIVE_BARRIER_STUCK_EXT";
      EXPECT_EQ(got.waited, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
      const cl_uint started = got.counter[0];
      EXPECT_EQ(started, std::min<size_t>(groups, shared->units))
         << "every active work-group passed barrier call 1";
      EXPECT_EQ(got.counter[1], std::min(threshold, started)) << "work-groups on the low side";
      EXPECT_EQ(got.counter[1] + got.counter[2], started);
      EXPECT_EQ(got.passed[0], 0u) << "a work-group passed the low side's barrier";
      EXPECT_EQ(got.passed[1], 0u) << "a work-group passed the high side's barrier";
      // The sides' calls are 2 and 3 in some order (the build numbers the
      // calls in its own block order); stderr names both.
      const std::string kernel = "kernel '" + std::string(mix.kernel) + "'";
      const std::string head = kernel + ": work-groups reached different barrier calls at once: ";
      bool named = false;
      for (unsigned low_index : {2u, 3u}) {
         const auto low = call_names(mix.low_resizing, low_index, line_of("low", mix.kernel));
         const auto high =
            call_names(mix.high_resizing, 5 - low_index, line_of("high", mix.kernel));
         for (size_t with_line = 0; with_line < 2; ++with_line) {
            for (const auto &[first, second] :
                 {std::pair{low[with_line], high[with_line]},
                  std::pair{high[with_line], low[with_line]}}) {
               if (got.printed.find(head + first + " while others waited at " + second) !=
                   std::string::npos)
                  named = true;
            }
         }
      }
      EXPECT_TRUE(named) << "stderr names the kernel and both calls: \"" << head
                         << "<one call> while others waited at <the other>\"";
   }

   // Every work-group on one side: the launch completes.
   static void expect_agreement(const Mix &mix, size_t groups, cl_uint threshold)
   {
      SCOPED_TRACE(std::string(mix.kernel) + ", " + std::to_string(groups) +
                   " work-groups, threshold " + std::to_string(threshold));
      const Result got = launch(mix.kernel, groups, threshold);
      EXPECT_EQ(got.status, CL_COMPLETE);
      EXPECT_EQ(got.waited, CL_SUCCESS);
      EXPECT_EQ(got.printed.find("barrier"), std::string::npos) << "nothing is reported";
      const size_t side = threshold == 0 ? 1 : 0;
      EXPECT_GE(got.passed[side], 1u);
      EXPECT_EQ(got.passed[1 - side], 0u);
      // A resizing side may fork or kill; a global side keeps M.
      const bool resizing = side == 0 ? mix.low_resizing : mix.high_resizing;
      if (!resizing) {
         EXPECT_EQ(got.passed[side], got.counter[0]) << "every active work-group passed";
      }
   }

   static void run_mix(const Mix &mix)
   {
      for (size_t groups : {size_t(shared->units), size_t(2 * shared->units + 1)}) {
         for (int repeat = 0; repeat < 3; ++repeat) {
            // One work-group on the low side, the rest on the high side;
            // then all but one on the low side.
            expect_mismatch(mix, groups, 1);
            expect_mismatch(mix, groups, shared->units - 1);
            expect_agreement(mix, groups, 0);
            expect_agreement(mix, groups, 0xffffffffu);
         }
      }
   }

   struct Shared {
      cl_host::Watchdog watchdog{"the barrier mismatch test", std::chrono::seconds(120)};
      cl_device_id device = nullptr;
      cl_uint units = 0;
      cl_host::Context context;
      cl_host::Queue queue;
      cl_host::Program program;
   };
   static std::unique_ptr<Shared> shared;
};

std::unique_ptr<BarrierMismatch::Shared> BarrierMismatch::shared;

} // namespace

TEST_F(BarrierMismatch, GlobalAndGlobal) { run_mix(mixes[0]); }

TEST_F(BarrierMismatch, GlobalAndResizing) { run_mix(mixes[1]); }

TEST_F(BarrierMismatch, ResizingAndGlobal) { run_mix(mixes[2]); }
