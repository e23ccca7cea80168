// Event profiling stamps are taken when each step happens, also for
// commands that wait in a queue: many kernels enqueued back to back on one
// in-order profiling queue, a cooperative launch among them, then one
// clFinish. Each command's stamps must be ordered (QUEUED <= SUBMIT <=
// START <= END <= COMPLETE), the commands must not overlap (one in-order
// queue runs one command at a time), and their run times must fit in the
// host's wall time around them. A frontend that stamps END when the event is
// waited on, not when the command completed, reports the commands as
// overlapping and their sum as many times the wall time; one that stamps
// START and END around a launch that returns before the kernel completes
// reports a long kernel as taking a small part of the time it ran.
#include "cl_host.hpp"
#include "watchdog.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace cl_host;
using std::chrono::steady_clock;

const char *source = R"CLC(
// A few milliseconds of arithmetic per work-item.
kernel void spin(global uint *out, uint rounds)
{
   uint state = get_global_id(0);
   for (uint i = 0; i < rounds; ++i)
      state = state * 1664525u + 1013904223u;
   out[get_global_id(0)] = state;
}

// Global barriers that every work-group passes a few times.
kernel void steps(global uint *count)
{
   for (uint i = 0; i < 8; ++i) {
      if (get_local_id(0) == 0)
         atomic_inc(count);
      global_barrier();
   }
}
)CLC";

struct Stamps {
   cl_ulong queued, submit, start, end, complete;
};

Stamps stamps_of(cl_event event)
{
   return {profiling_ulong(event, CL_PROFILING_COMMAND_QUEUED),
           profiling_ulong(event, CL_PROFILING_COMMAND_SUBMIT),
           profiling_ulong(event, CL_PROFILING_COMMAND_START),
           profiling_ulong(event, CL_PROFILING_COMMAND_END),
           profiling_ulong(event, CL_PROFILING_COMMAND_COMPLETE)};
}

// A profiling queue with the program built, and `spin` set to run
// `rounds` rounds on `items` work-items.
struct ProfilingQueue {
   static constexpr size_t items = 64;
   cl_device_id device = first_device();
   Context context = create_context(device);
   Queue queue = create_queue(context, device, true);
   Program program = build_or_throw(context, device, source);
   Kernel spin = create_kernel(program, "spin");
   Buffer out = create_buffer(context, CL_MEM_READ_WRITE, items * sizeof(cl_uint));

   explicit ProfilingQueue(cl_uint rounds)
   {
      set_arg(spin, 0, out.get());
      set_arg(spin, 1, rounds);
   }
};

TEST(ProfilingStamps, QueuedKernelsOrderedAndWithinWallTime)
{
   constexpr size_t kernels = 40, cooperative_at = 20, groups = 2;
   ProfilingQueue q(20000);
   const size_t items = q.items;
   const Queue &queue = q.queue;
   Kernel steps = create_kernel(q.program, "steps");
   Buffer count = create_buffer(q.context, CL_MEM_READ_WRITE, sizeof(cl_uint));
   const cl_uint zero = 0;
   check(clEnqueueWriteBuffer(queue, count, CL_TRUE, 0, sizeof zero, &zero, 0, nullptr, nullptr),
         "clEnqueueWriteBuffer");
   set_arg(steps, 0, count.get());

   Watchdog watchdog("40 queued kernels and clFinish", std::chrono::seconds(60));
   std::vector<Event> events;
   const auto host_begin = steady_clock::now();
   for (size_t k = 0; k < kernels; ++k) {
      cl_event event = nullptr;
      const size_t global = k == cooperative_at ? groups : items;
      const size_t local = k == cooperative_at ? 1 : 16;
      check(clEnqueueNDRangeKernel(queue, k == cooperative_at ? steps : q.spin, 1, nullptr,
                                   &global, &local, 0, nullptr, &event),
            "clEnqueueNDRangeKernel");
      events.emplace_back(event);
   }
   check(clFinish(queue), "clFinish");
   const auto host_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           steady_clock::now() - host_begin)
                           .count();

   EXPECT_EQ(read_buffer<cl_uint>(queue, count, 1)[0], 8 * groups);
   std::vector<Stamps> stamps;
   for (const Event &event : events)
      stamps.push_back(stamps_of(event));
   cl_ulong run_ns = 0;
   for (size_t k = 0; k < kernels; ++k) {
      const Stamps &s = stamps[k];
      SCOPED_TRACE("command " + std::to_string(k));
      EXPECT_LE(s.queued, s.submit);
      EXPECT_LE(s.submit, s.start);
      EXPECT_LT(s.start, s.end) << "a kernel that computes takes time";
      EXPECT_LE(s.end, s.complete);
      if (k > 0) {
         EXPECT_LE(stamps[k - 1].end, s.start) << "commands of one in-order queue overlap";
      }
      run_ns += s.end - s.start;
   }
   EXPECT_LE(stamps.back().end - stamps.front().queued, cl_ulong(host_ns))
      << "the stamps span more than the host waited";
   EXPECT_LE(run_ns, cl_ulong(host_ns))
      << "the kernels ran " << run_ns / 1e6 << " ms in " << host_ns / 1e6 << " ms of host time";
}

// One long kernel, then clFinish: the kernel runs for most of the time the
// host waits, whatever else loads the machine (both stretch alike). Stamps
// taken around a launch that returns before the kernel completes cover
// little of it.
TEST(ProfilingStamps, LongKernelSpansTheHostsWait)
{
   ProfilingQueue q(2000000);
   const Queue &queue = q.queue;
   const Kernel &spin = q.spin;
   const size_t global = q.items, local = 16;
   // The first launch compiles the kernel.
   check(clEnqueueNDRangeKernel(queue, spin, 1, nullptr, &global, &local, 0, nullptr, nullptr),
         "clEnqueueNDRangeKernel");
   check(clFinish(queue), "clFinish");

   Watchdog watchdog("one long kernel and clFinish", std::chrono::seconds(60));
   cl_event event = nullptr;
   const auto host_begin = steady_clock::now();
   check(clEnqueueNDRangeKernel(queue, spin, 1, nullptr, &global, &local, 0, nullptr, &event),
         "clEnqueueNDRangeKernel");
   Event owned(event);
   check(clFinish(queue), "clFinish");
   const auto host_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           steady_clock::now() - host_begin)
                           .count();
   const Stamps s = stamps_of(event);
   const cl_ulong run_ns = s.end - s.start;
   EXPECT_LE(run_ns, cl_ulong(host_ns)) << "the kernel ran longer than the host waited";
   EXPECT_GE(2 * run_ns, cl_ulong(host_ns))
      << "the kernel ran " << run_ns / 1e6 << " ms of the " << host_ns / 1e6
      << " ms the host waited for it";
}

} // namespace
