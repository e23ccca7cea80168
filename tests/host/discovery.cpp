// Occupancy discovery on a driver that dispatches a cooperative launch's
// work-groups all at once (rusticl on zink over lavapipe,
// docs/zink-backend.md): a launch of many more work-groups than the device
// keeps resident runs with the M that found each other, 1 <= M <= the
// compute threads (LP_NUM_THREADS), their ids are [0, M), a global barrier
// of those M completes, and the result is exact. The others leave before
// they touch anything. With the driver's quiet period, the compute threads
// that start beside the first work-group join it: some launch of a few
// finds more than one.
// covers: 10.1-m-bounds 15-dispatched-discovery

#include "cl_host.hpp"
#include "watchdog.hpp"

#include "CL/cl_ext_cooperative_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace std::chrono_literals;

// Every active work-group stamps its id in rounds: each round, work-group g
// adds 1 to slot g, then all pass a global barrier, then g checks that every
// slot below M holds the round, and counts a mismatch otherwise. Work-groups
// that did not take part never write.
const char *const source = R"CLC(
kernel void rounds(global uint *slots, global uint *wrong, global uint *seen, uint count)
{
   const uint m = get_num_groups(0), g = get_group_id(0);
   if (get_local_id(0) == 0)
      atomic_inc(&seen[g]);
   for (uint r = 1; r <= count; ++r) {
      if (get_local_id(0) == 0)
         slots[g] = r;
      global_barrier();
      if (get_local_id(0) == 0)
         for (uint i = 0; i < m; ++i)
            if (slots[i] != r)
               atomic_inc(wrong);
      global_barrier();
   }
}
)CLC";

unsigned compute_threads()
{
   const char *threads = std::getenv("LP_NUM_THREADS");
   return threads ? unsigned(std::atoi(threads)) : 0;
}

TEST(Discovery, ManyWorkGroupsRunWithThoseResidentTogether)
{
   const cl_device_id device = cl_host::first_device();
   const unsigned threads = compute_threads();
   ASSERT_GE(threads, 1u) << "set LP_NUM_THREADS: the test bounds M by it";
   cl_host::Context context = cl_host::create_context(device);
   cl_host::Queue queue = cl_host::create_queue(context, device, /*profiling=*/true);
   cl_host::Program program = cl_host::build_or_throw(context, device, source);
   cl_host::Kernel kernel = cl_host::create_kernel(program, "rounds");

   constexpr size_t groups = 64, local = 8, global = groups * local;
   constexpr cl_uint count = 200;
   cl_ulong most = 0;
   for (int launch = 0; launch < 10; ++launch) {
      SCOPED_TRACE("launch " + std::to_string(launch));
      std::vector<cl_uint> zeros(groups, 0);
      cl_host::Buffer slots = cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR,
                                                     groups * sizeof(cl_uint), zeros.data());
      cl_host::Buffer wrong = cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR,
                                                     sizeof(cl_uint), zeros.data());
      cl_host::Buffer seen = cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR,
                                                    groups * sizeof(cl_uint), zeros.data());
      cl_host::set_arg(kernel, 0, slots.get());
      cl_host::set_arg(kernel, 1, wrong.get());
      cl_host::set_arg(kernel, 2, seen.get());
      cl_host::set_arg(kernel, 3, count);
      cl_event raw_event = nullptr;
      cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0,
                                            nullptr, &raw_event),
                     "clEnqueueNDRangeKernel");
      cl_host::Event event(raw_event);
      {
         cl_host::Watchdog watchdog{"a launch whose work-groups discover each other", 60s};
         cl_host::check(clFinish(queue), "clFinish");
      }
      ASSERT_EQ(cl_host::event_status(event), CL_COMPLETE);
      const cl_ulong active =
         cl_host::profiling_ulong(event, CL_PROFILING_COOPERATIVE_MAX_ACTIVE_EXT);
      EXPECT_GE(active, 1u);
      EXPECT_LE(active, threads) << "more work-groups active than run at once";
      most = std::max(most, active);

      EXPECT_EQ(cl_host::read_buffer<cl_uint>(queue, wrong, 1)[0], 0u)
         << "a global barrier let a work-group through early";
      const auto stamped = cl_host::read_buffer<cl_uint>(queue, slots, groups);
      const auto started = cl_host::read_buffer<cl_uint>(queue, seen, groups);
      for (size_t g = 0; g < groups; ++g) {
         const bool took_part = g < active;
         EXPECT_EQ(stamped[g], took_part ? count : 0u) << "slot " << g;
         EXPECT_EQ(started[g], took_part ? 1u : 0u) << "work-group id " << g;
      }
   }
   if (threads >= 2)
      EXPECT_GE(most, 2u) << "no launch found two work-groups resident together";
}

} // namespace
