// cl_khr_priority_hints and cl_khr_throttle_hints through OpenCL (the spec's
// 11.1): the device reports both; clCreateCommandQueueWithProperties takes
// the hints, rejects bad ones with the extensions' errors and returns them
// from CL_QUEUE_PROPERTIES_ARRAY; a throttled cooperative kernel never holds
// more than its cap; low-priority ordinary work does not take units from a
// medium-priority cooperative kernel; high-priority frames take their units
// from the lowest-priority cooperative kernel, within a latency bound;
// units that come free go to the forks of the high-priority cooperative
// kernel before those of a low-priority one.
//
// meson runs it under the default policy (the only one that gathers units
// by priority) with 4 compute units.
// covers: 11.1-hints-ext-strings 11.1-hints-errors 11.1-hints-properties-array
// covers: 11.1-throttle-cap 11.1-priority-no-kill-of-higher 11.1-priority-kill-order
// covers: 11.1-priority-forks
#include "CL/cl_ext_cooperative_kernels.h"
#include "cl_host.hpp"

#include <CL/cl_ext.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

using namespace cl_host;
using Clock = std::chrono::steady_clock;

namespace {

const char *source = R"CLC(
enum { STOP, STARTED, MAX_ACTIVE, ACTIVE };

// Offers kills and requests forks until the host sets STOP; work-group 0
// keeps ACTIVE at M.
kernel void cycle(volatile global uint *s)
{
   if (get_local_id(0) == 0)
      atomic_inc(&s[STARTED]);
   while (atomic_add(&s[STOP], 0) == 0) {
      offer_kill();
      request_fork();
      if (get_local_id(0) == 0) {
         atomic_max(&s[MAX_ACTIVE], get_num_groups(0));
         if (get_group_id(0) == 0)
            atomic_xchg(&s[ACTIVE], get_num_groups(0));
      }
   }
}

// An ordinary kernel that holds its units until the host sets STOP.
kernel void hold(volatile global uint *s)
{
   if (get_local_id(0) == 0)
      atomic_inc(&s[STARTED]);
   while (atomic_add(&s[STOP], 0) == 0)
      ;
}

// Requests forks `rounds` times, noting M.
kernel void grow(volatile global uint *s, uint rounds)
{
   transmit uint r = 0;
   for (; r < rounds; r++) {
      request_fork();
      if (get_local_id(0) == 0)
         atomic_max(&s[MAX_ACTIVE], get_num_groups(0));
   }
}

kernel void frame(global uint *out)
{
   out[get_global_id(0)] += 1;
}
)CLC";

enum { STOP, STARTED, MAX_ACTIVE, ACTIVE, WORDS };
constexpr size_t local = 8;
constexpr cl_uint units = 4; // LP_NUM_THREADS

struct Hints {
   cl_queue_priority_khr priority = 0; // 0: not given
   cl_queue_throttle_khr throttle = 0;
   bool profiling = false;
};

std::vector<cl_queue_properties> properties_of(const Hints &hints)
{
   std::vector<cl_queue_properties> properties;
   if (hints.profiling)
      properties.insert(properties.end(), {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE});
   if (hints.priority)
      properties.insert(properties.end(), {CL_QUEUE_PRIORITY_KHR, hints.priority});
   if (hints.throttle)
      properties.insert(properties.end(), {CL_QUEUE_THROTTLE_KHR, hints.throttle});
   properties.push_back(0);
   return properties;
}

Queue hinted_queue(cl_context context, cl_device_id device, const Hints &hints)
{
   const std::vector<cl_queue_properties> properties = properties_of(hints);
   cl_int err = CL_SUCCESS;
   Queue queue(clCreateCommandQueueWithProperties(context, device, properties.data(), &err));
   check(err, "clCreateCommandQueueWithProperties");
   return queue;
}

cl_int create_error(cl_context context, cl_device_id device,
                    const std::vector<cl_queue_properties> &properties)
{
   cl_int err = CL_SUCCESS;
   cl_command_queue queue =
      clCreateCommandQueueWithProperties(context, device, properties.data(), &err);
   if (queue)
      clReleaseCommandQueue(queue);
   return err;
}

Buffer state_buffer(cl_context context)
{
   std::vector<cl_uint> zeros(WORDS, 0);
   return create_buffer(context, CL_MEM_COPY_HOST_PTR, WORDS * sizeof(cl_uint), zeros.data());
}

void write_word(cl_command_queue queue, cl_mem buffer, size_t index, cl_uint value)
{
   check(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, index * sizeof(cl_uint), sizeof value,
                              &value, 0, nullptr, nullptr),
         "clEnqueueWriteBuffer");
}

class QueueHints : public testing::Test {
protected:
   void SetUp() override
   {
      const std::string extensions = device_string(device, CL_DEVICE_EXTENSIONS);
      if (extensions.find("cl_ext_cooperative_kernels") == std::string::npos)
         GTEST_SKIP() << "no cl_ext_cooperative_kernels";
      ASSERT_EQ(device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS), units) << "run with LP_NUM_THREADS=4";
   }

   // Waits until the kernel's STARTED word reaches `count` (20 s at most).
   void wait_started(cl_mem state, cl_uint count)
   {
      const auto deadline = Clock::now() + std::chrono::seconds(20);
      while (read_buffer<cl_uint>(control, state, WORDS)[STARTED] < count) {
         ASSERT_LT(Clock::now(), deadline) << "the cooperative kernel did not start";
         std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
   }

   // Polls the words of `state` until `done` holds for them (20 s at most).
   template <typename Done>
   void poll_until(cl_mem state, const char *what, Done done)
   {
      const auto deadline = Clock::now() + std::chrono::seconds(20);
      while (!done(read_buffer<cl_uint>(control, state, WORDS))) {
         ASSERT_LT(Clock::now(), deadline) << what;
         std::this_thread::yield();
      }
   }

   cl_device_id device = first_device();
   Context context = create_context(device);
   Program program = build_or_throw(context, device, source);
   Queue control = create_queue(context, device);
};

TEST_F(QueueHints, ReportedAcceptedAndRejectedAsSpecified)
{
   const std::string extensions = device_string(device, CL_DEVICE_EXTENSIONS);
   EXPECT_NE(extensions.find("cl_khr_priority_hints"), std::string::npos) << extensions;
   EXPECT_NE(extensions.find("cl_khr_throttle_hints"), std::string::npos) << extensions;

   const std::vector<cl_queue_properties> given = properties_of(
      {CL_QUEUE_PRIORITY_LOW_KHR, CL_QUEUE_THROTTLE_MED_KHR, /*profiling=*/true});
   Queue queue = hinted_queue(context, device,
                              {CL_QUEUE_PRIORITY_LOW_KHR, CL_QUEUE_THROTTLE_MED_KHR, true});
   size_t bytes = 0;
   ASSERT_EQ(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES_ARRAY, 0, nullptr, &bytes),
             CL_SUCCESS);
   std::vector<cl_queue_properties> returned(bytes / sizeof(cl_queue_properties));
   ASSERT_EQ(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES_ARRAY, bytes, returned.data(),
                                   nullptr),
             CL_SUCCESS);
   EXPECT_EQ(returned, given);

   for (const cl_queue_properties name : {CL_QUEUE_PRIORITY_KHR, CL_QUEUE_THROTTLE_KHR}) {
      for (const cl_queue_properties value : {cl_queue_properties(0), cl_queue_properties(3),
                                              cl_queue_properties(8), ~cl_queue_properties(0)})
         EXPECT_EQ(create_error(context, device, {name, value, 0}), CL_INVALID_VALUE)
            << std::hex << name << " = " << value;
      // A device queue cannot take either hint.
      EXPECT_EQ(create_error(context, device,
                             {CL_QUEUE_PROPERTIES,
                              CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, name,
                              name == CL_QUEUE_PRIORITY_KHR ? CL_QUEUE_PRIORITY_HIGH_KHR
                                                            : CL_QUEUE_THROTTLE_HIGH_KHR,
                              0}),
                CL_INVALID_QUEUE_PROPERTIES)
         << std::hex << name;
   }
}

// On a queue throttled low (a quarter of 4 units: 1) or medium (2), a
// kernel of 4 work-groups that keeps requesting forks never has more
// active: the profiling counter and the kernel's own record agree.
TEST_F(QueueHints, ThrottledCooperativeKernelStaysUnderItsCap)
{
   Kernel grow = create_kernel(program, "grow");
   for (const auto &[throttle, cap] : {std::pair<cl_queue_throttle_khr, cl_uint>{
                                          CL_QUEUE_THROTTLE_MED_KHR, 2},
                                       {CL_QUEUE_THROTTLE_LOW_KHR, 1}}) {
      Queue queue = hinted_queue(context, device, {0, throttle, true});
      Buffer state = state_buffer(context);
      set_arg(grow, 0, state.get());
      set_arg(grow, 1, cl_uint(20000));
      const size_t global = units * local;
      cl_event raw = nullptr;
      check(clEnqueueNDRangeKernel(queue, grow, 1, nullptr, &global, &local, 0, nullptr, &raw),
            "clEnqueueNDRangeKernel");
      Event event(raw);
      check(clFinish(queue), "clFinish");
      EXPECT_EQ(profiling_ulong(event, CL_PROFILING_COOPERATIVE_MAX_ACTIVE_EXT), cap);
      EXPECT_EQ(read_buffer<cl_uint>(control, state, WORDS)[MAX_ACTIVE], cap);
   }
}

// A frame on a low-priority queue waits for a unit while a cooperative
// kernel of the default (medium) priority holds them all: no kill is
// requested, and the frame runs once the kernel ends. The frame is
// enqueued from a thread of its own (Clover runs it inside the enqueue);
// the half second it is given is a bound on a negative check: a kill
// would let it run within milliseconds.
TEST_F(QueueHints, LowPriorityWorkDoesNotKillAMediumPriorityKernel)
{
   Kernel cycle = create_kernel(program, "cycle");
   Kernel frame = create_kernel(program, "frame");
   Queue medium = create_queue(context, device, true);
   Queue low = hinted_queue(context, device, {CL_QUEUE_PRIORITY_LOW_KHR, 0, false});
   Buffer state = state_buffer(context);
   Buffer out = state_buffer(context);
   set_arg(cycle, 0, state.get());
   set_arg(frame, 0, out.get());
   BackgroundLaunch kernel(medium, cycle, units * local, local);
   wait_started(state, units);

   std::atomic<bool> frame_done{false};
   std::thread frame_thread([&] {
      const size_t one = 1;
      check(clEnqueueNDRangeKernel(low, frame, 1, nullptr, &one, &one, 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel");
      check(clFinish(low), "clFinish");
      frame_done = true;
   });
   const auto bound = Clock::now() + std::chrono::milliseconds(500);
   while (!frame_done && Clock::now() < bound)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
   const bool ran_beside_kernel = frame_done;
   write_word(control, state, STOP, 1);
   Event event = kernel.join();
   frame_thread.join();
   EXPECT_FALSE(ran_beside_kernel) << "the low-priority frame took a unit from the kernel";
   EXPECT_EQ(profiling_ulong(event, CL_PROFILING_COOPERATIVE_KILLS_EXT), 0u);
   EXPECT_EQ(read_buffer<cl_uint>(control, out, 1)[0], 1u);
}

// Two cooperative kernels, a low-priority one started last, hold the 4
// units; frames of one work-group on a high-priority queue take their unit
// from the low-priority kernel only, each within the latency bound.
TEST_F(QueueHints, HighPriorityFramesTakeUnitsFromTheLowestPriorityKernel)
{
   Kernel medium_cycle = create_kernel(program, "cycle");
   Kernel low_cycle = create_kernel(program, "cycle");
   Kernel frame = create_kernel(program, "frame");
   Queue medium = create_queue(context, device, true);
   Queue low = hinted_queue(context, device, {CL_QUEUE_PRIORITY_LOW_KHR, 0, true});
   Queue high = hinted_queue(context, device, {CL_QUEUE_PRIORITY_HIGH_KHR, 0, false});
   Buffer medium_state = state_buffer(context), low_state = state_buffer(context);
   Buffer out = state_buffer(context);
   set_arg(medium_cycle, 0, medium_state.get());
   set_arg(low_cycle, 0, low_state.get());
   set_arg(frame, 0, out.get());
   BackgroundLaunch medium_kernel(medium, medium_cycle, 2 * local, local);
   wait_started(medium_state, 2);
   BackgroundLaunch low_kernel(low, low_cycle, 2 * local, local);
   wait_started(low_state, 2);

   constexpr int frames = 100;
   std::vector<double> latencies_ms;
   for (int i = 0; i < frames; ++i) {
      const auto start = Clock::now();
      const size_t one = 1;
      check(clEnqueueNDRangeKernel(high, frame, 1, nullptr, &one, &one, 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel");
      check(clFinish(high), "clFinish");
      latencies_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
   }
   write_word(control, medium_state, STOP, 1);
   write_word(control, low_state, STOP, 1);
   Event medium_event = medium_kernel.join();
   Event low_event = low_kernel.join();

   std::sort(latencies_ms.begin(), latencies_ms.end());
   const double median = latencies_ms[frames / 2], p90 = latencies_ms[frames * 9 / 10];
   std::printf("high-priority frames beside a low- and a medium-priority kernel: latency median "
               "%.3f ms, p90 %.3f ms, max %.3f ms\n",
               median, p90, latencies_ms.back());
   EXPECT_EQ(profiling_ulong(medium_event, CL_PROFILING_COOPERATIVE_KILLS_EXT), 0u);
   EXPECT_GE(profiling_ulong(low_event, CL_PROFILING_COOPERATIVE_KILLS_EXT), 1u);
   // A unit comes back at the low kernel's next kill point: microseconds on
   // an idle machine. Four spinning work-groups on fewer CPUs delay the
   // host's threads now and then (single frames of up to a second on 2
   // shared CPUs), so the bound holds for 9 frames in 10.
   EXPECT_LT(p90, 100.0);
   EXPECT_EQ(read_buffer<cl_uint>(control, out, 1)[0], cl_uint(frames));
}

// Units that come free while a high- and a low-priority cooperative kernel
// both request forks go to the high-priority one first, though it holds
// more. An ordinary kernel holds 2 of the 4 units; the low-priority kernel
// starts on the other 2 and gives one up for the high-priority launch (its
// top work-group is killed). With the ordinary kernel gone, both of its
// units fork the high-priority kernel: 3 and 1 active. Handed out by the
// fewest active instead, the first would go to the low-priority kernel
// (1 each, offered none yet, the older first): 2 and 2.
TEST_F(QueueHints, ForksGoToTheHigherPriorityKernelFirst)
{
   Kernel hold = create_kernel(program, "hold");
   Kernel high_cycle = create_kernel(program, "cycle");
   Kernel low_cycle = create_kernel(program, "cycle");
   Queue ordinary = create_queue(context, device);
   Queue high = hinted_queue(context, device, {CL_QUEUE_PRIORITY_HIGH_KHR, 0, true});
   Queue low = hinted_queue(context, device, {CL_QUEUE_PRIORITY_LOW_KHR, 0, true});
   Buffer hold_state = state_buffer(context);
   Buffer high_state = state_buffer(context), low_state = state_buffer(context);
   set_arg(hold, 0, hold_state.get());
   set_arg(high_cycle, 0, high_state.get());
   set_arg(low_cycle, 0, low_state.get());
   const auto started = [](cl_uint count) {
      return [count](const std::vector<cl_uint> &words) { return words[STARTED] >= count; };
   };

   BackgroundLaunch holder(ordinary, hold, 2 * local, local);
   poll_until(hold_state, "the ordinary kernel did not start", started(2));
   BackgroundLaunch low_kernel(low, low_cycle, units * local, local);
   poll_until(low_state, "the low-priority kernel did not start", started(2));
   BackgroundLaunch high_kernel(high, high_cycle, units * local, local);
   poll_until(high_state, "the high-priority kernel did not start", started(1));
   // From here M only grows, so a stale ACTIVE only undercounts.
   poll_until(low_state, "the low-priority kernel kept 2 work-groups",
              [](const auto &words) { return words[ACTIVE] == 1; });

   write_word(control, hold_state, STOP, 1);
   holder.join(); // the scheduler offers its units on before it reports completion
   cl_uint high_active = 0, low_active = 0;
   poll_until(high_state, "the freed units were not forked", [&](const auto &words) {
      high_active = words[ACTIVE];
      low_active = read_buffer<cl_uint>(control, low_state, WORDS)[ACTIVE];
      return high_active + low_active == units;
   });
   write_word(control, high_state, STOP, 1);
   write_word(control, low_state, STOP, 1);
   Event high_event = high_kernel.join();
   Event low_event = low_kernel.join();
   EXPECT_EQ(high_active, 3u);
   EXPECT_EQ(low_active, 1u);
   EXPECT_EQ(profiling_ulong(high_event, CL_PROFILING_COOPERATIVE_KILLS_EXT), 0u);
   EXPECT_EQ(profiling_ulong(low_event, CL_PROFILING_COOPERATIVE_KILLS_EXT), 1u);
}

} // namespace
