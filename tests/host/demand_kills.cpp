// An ordinary kernel from another command queue takes a compute unit from a
// running cooperative kernel through a kill (rusticl on zink over lavapipe,
// docs/zink-backend.md, step 4): the cooperative kernel holds both of
// lavapipe's compute threads, so the ordinary kernel can run only on a unit
// that the cooperative kernel gives back. zink tells the default policy
// that the ordinary kernel's work-group waits, and the policy asks the
// cooperative kernel for one kill (ck/dispatch.h). Without the kill both
// cooperative work-groups wait for the ordinary kernel until they give up,
// and the test fails; it does not hang.
// covers: 15-dispatched-demand

#include "beside_launch.hpp"
#include "cl_host.hpp"
#include "resize_probe.hpp"
#include "watchdog.hpp"

#include "CL/cl_ext_cooperative_kernels.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

namespace {

using namespace std::chrono_literals;

const char *const source = R"CLC(
enum { WAITING = 0, SAW_IT = 1, GAVE_UP = 2 };

// Cooperative: past a global barrier, each work-group offers a kill until
// the ordinary kernel's answer comes, at most `limit` times; work-group 0
// is never killed and tells what it saw.
kernel void hold(volatile global uint *words, global uint *outcome, uint limit)
{
   global_barrier();
   if (get_group_id(0) == 0)
      atomic_xchg(&words[0], 1);
   uint reads = 0;
   while (atomic_add(&words[1], 0) == 0 && ++reads < limit)
      offer_kill(); // a killed work-group leaves here
   if (get_group_id(0) == 0)
      outcome[0] = reads < limit ? SAW_IT : GAVE_UP;
}

// Ordinary: answers once the cooperative kernel runs. Where it starts
// first, on a unit that the cooperative kernel then lacks, the discovery
// finds one work-group (the test launches again).
kernel void answer(volatile global uint *words, global uint *outcome, uint limit)
{
   uint reads = 0;
   while (atomic_add(&words[0], 0) == 0 && ++reads < limit)
      ;
   atomic_xchg(&words[1], 1);
   outcome[1] = reads < limit ? SAW_IT : GAVE_UP;
}
)CLC";

TEST(DemandKills, AnOrdinaryKernelTakesAUnitFromARunningCooperativeKernel)
{
   const cl_device_id device = cl_host::first_device();
   cl_host::Context context = cl_host::create_context(device);
   cl_host::Queue cooperative_queue = cl_host::create_queue(context, device, true);
   cl_host::Queue ordinary_queue = cl_host::create_queue(context, device);
   cl_host::Program program = cl_host::build_or_throw(context, device, source);
   cl_host::Kernel hold = cl_host::create_kernel(program, "hold");
   cl_host::Kernel answer = cl_host::create_kernel(program, "answer");

   // 2^22 offers take about 0.7 s on lavapipe (two work-groups' atomics on
   // one word): ample for the policy, which looks every 200 us (the kill
   // came 1-11 ms after the enqueue).
   const cl_uint limit = 1u << 22;
   cl_host::Buffer words = cl_host::create_buffer(context, CL_MEM_READ_WRITE, 2 * sizeof(cl_uint));
   cl_host::Buffer outcome = cl_host::create_buffer(context, CL_MEM_READ_WRITE, 2 * sizeof(cl_uint));
   for (cl_kernel kernel : {hold.get(), answer.get()}) {
      cl_host::set_arg(kernel, 0, words.get());
      cl_host::set_arg(kernel, 1, outcome.get());
      cl_host::set_arg(kernel, 2, limit);
   }
   const auto reset = [&](cl_uint value) {
      const cl_uint zeros[2] = {0, 0}, values[2] = {value, value};
      cl_host::check(clEnqueueWriteBuffer(cooperative_queue, words, CL_TRUE, 0, sizeof(values),
                                          values, 0, nullptr, nullptr),
                     "clEnqueueWriteBuffer");
      cl_host::check(clEnqueueWriteBuffer(cooperative_queue, outcome, CL_TRUE, 0, sizeof(zeros),
                                          zeros, 0, nullptr, nullptr),
                     "clEnqueueWriteBuffer");
   };
   const auto launch_both = [&] {
      return host_test::launch_beside(cooperative_queue, hold, 2, ordinary_queue, answer);
   };

   // Both pipelines are compiled first, with nothing to wait for (lavapipe
   // compiles a pipeline under its main queue's lock, as in
   // beside_cooperative.cpp).
   reset(1);
   {
      cl_host::Watchdog watchdog{"the kernels with nothing to wait for", 120s};
      launch_both();
   }

   // The kill is needed only where the discovery found both work-groups
   // resident; a loaded machine may let it find one, whose partner then
   // leaves and frees a unit: launch again, for at most 20 s.
   const auto deadline = std::chrono::steady_clock::now() + 20s;
   int launches = 0;
   for (;;) {
      reset(0);
      const auto start = std::chrono::steady_clock::now();
      cl_host::Event event;
      {
         cl_host::Watchdog watchdog{"a cooperative kernel and an ordinary one", 120s};
         event = launch_both();
      }
      ++launches;
      const auto seen = cl_host::read_buffer<cl_uint>(cooperative_queue, outcome, 2);
      const cl_ulong kills = cl_host::profiling_ulong(event, CL_PROFILING_COOPERATIVE_KILLS_EXT);
      const cl_ulong forks = cl_host::profiling_ulong(event, CL_PROFILING_COOPERATIVE_FORKS_EXT);
      const cl_ulong most =
         cl_host::profiling_ulong(event, CL_PROFILING_COOPERATIVE_MAX_ACTIVE_EXT);
      const auto gathers =
         cl_host::profiling_times(event, CL_PROFILING_COOPERATIVE_GATHER_TIMES_EXT);
      std::printf("launch %d: %llu work-groups active at most, %llu killed, %llu forked, "
                  "%zu gathers (%.3f ms), outcome %u %u, %.1f ms\n",
                  launches, (unsigned long long)most, (unsigned long long)kills,
                  (unsigned long long)forks, gathers.size(),
                  gathers.empty() ? 0.0 : double(gathers[0]) / 1e6, seen[0], seen[1],
                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                            start)
                     .count());
      EXPECT_EQ(seen[0], 1u) << "work-group 0 gave up waiting for the ordinary kernel";
      EXPECT_EQ(seen[1], 1u) << "the ordinary kernel did not run";
      EXPECT_EQ(forks, 0u);
      if (most >= 2) {
         EXPECT_EQ(kills, 1u) << "one work-group waits: one kill, not more";
         EXPECT_EQ(gathers.size(), 1u) << "the kill's request, met, is one gather";
         break;
      }
      EXPECT_EQ(kills, 0u);
      if (HasFailure() || std::chrono::steady_clock::now() > deadline) {
         ADD_FAILURE() << "no launch in " << launches
                       << " found both work-groups resident, which the kill needs";
         break;
      }
   }
}

} // namespace
