// A work-group that returns from a cooperative kernel stays active (the
// spec's "Active work-groups"): get_num_groups() keeps counting it, no kill
// that only it could let through stays requested, and a fork may take its
// compute unit, so that M exceeds CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT by
// the work-groups that returned.
//
// Launch: N = units + 1 work-groups, of which M = units start. The top one
// returns at once; the others watch M and query_kill_count() (under the
// random policy the scheduler asks for every kill it can); then work-group 0
// forks onto the freed unit.
// covers: 8-maxactive-all-start 8-prof-max-active 10.1-fairness 10.1-n-def
// covers: 10.1-returned-blocks-kills 10.1-returned-stays-active 10.1-returned-unit-forked
// covers: 10.1-size-change-points 10.4-fork-ids 10.4-forker-continues 10.7-value
// covers: 10.7-withdrawn-at-returned 15-stats
#include "CL/cl_ext_cooperative_kernels.h"
#include "cl_host.hpp"
#include "resize_probe.hpp"
#include "watchdog.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

const char *source = R"CLC(
enum { M_CHANGED, KILLS_LEFT, WATCHED, FORKED, M_AFTER_FORK, RESULTS };

kernel void top_returns(global uint *results, global uint *top_left, uint kill_polls,
                        uint fork_polls)
{
   transmit uint started_with;
   transmit uint forker;
   local uint m_start, m_now;
   // M decides a return and a request_fork below: each time, one
   // work-item reads it and broadcasts it.
   if (get_local_id(0) == 0)
      m_start = get_num_groups(0);
   barrier(CLK_LOCAL_MEM_FENCE);
   started_with = m_start;
   forker = get_group_id(0);
   if (get_group_id(0) != 0 && get_group_id(0) + 1 == started_with) {
      if (get_local_id(0) == 0)
         atomic_xchg(top_left, 1);
      return;
   }
   while (atomic_or(top_left, 0) == 0)
      ;
   uint kills = 1;
   for (uint i = 0; i < kill_polls && kills != 0; ++i) {
      kills = query_kill_count();
      if (get_num_groups(0) != started_with && get_local_id(0) == 0)
         atomic_inc(&results[M_CHANGED]);
   }
   if (get_local_id(0) == 0)
      atomic_inc(&results[WATCHED]);
   if (get_group_id(0) != 0)
      return;
   if (get_local_id(0) == 0)
      results[KILLS_LEFT] = kills;
   // Every watcher has stopped watching M before it grows.
   while (atomic_or(&results[WATCHED], 0) + 1 < started_with)
      ;
   for (uint i = 0; i < fork_polls; ++i) {
      if (get_local_id(0) == 0)
         m_now = get_num_groups(0);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (m_now != started_with)
         break;
      request_fork();
      if (get_group_id(0) != forker) {
         if (get_local_id(0) == 0)
            atomic_inc(&results[FORKED]);
         return;
      }
   }
   if (get_local_id(0) == 0)
      results[M_AFTER_FORK] = get_num_groups(0);
}
)CLC";

enum { M_CHANGED, KILLS_LEFT, WATCHED, FORKED, M_AFTER_FORK, RESULTS };

} // namespace

TEST(ReturnedGroups, StayActive)
{
   const char *policy_env = std::getenv("CK_POLICY");
   const std::string policy = policy_env ? policy_env : "default";
   const bool forks_offered = policy != "never";
   cl_device_id device = cl_host::first_device();
   const cl_uint units = cl_host::device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);
   if (units < 2)
      GTEST_SKIP() << "needs at least 2 compute units";
   cl_host::Context context = cl_host::create_context(device);
   cl_host::Queue queue = cl_host::create_queue(context, device, /*profiling=*/true);
   cl_host::Program program = cl_host::build_or_throw(context, device, source);
   cl_host::Kernel kernel = cl_host::create_kernel(program, "top_returns");
   size_t max_active = 0;
   cl_host::check(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT,
                                           sizeof(max_active), &max_active, nullptr),
                  "clGetKernelWorkGroupInfo");
   cl_host::Watchdog watchdog("the returned work-groups test", std::chrono::seconds(60));

   for (int launch = 0; launch < 20; ++launch) {
      SCOPED_TRACE("launch " + std::to_string(launch) + " (" + policy + ")");
      cl_uint zeros[RESULTS] = {}, top_left = 0;
      cl_host::Buffer results =
         cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(zeros), zeros);
      cl_host::Buffer flag =
         cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(top_left), &top_left);
      cl_host::set_arg(kernel, 0, results.get());
      cl_host::set_arg(kernel, 1, flag.get());
      // The kill polls bound the wait for the scheduler to withdraw its kill
      // requests. llvmpipe runs that loop one work-item after the other, so
      // a poll takes a few atomics' time: the bound is large.
      cl_host::set_arg(kernel, 2, cl_uint(4000000));
      cl_host::set_arg(kernel, 3, cl_uint(200000));
      const size_t local = 8, global = local * (units + 1);
      cl_event raw_event = nullptr;
      cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0,
                                            nullptr, &raw_event),
                     "clEnqueueNDRangeKernel");
      cl_host::Event event(raw_event);
      cl_host::check(clFinish(queue), "clFinish");
      const auto got = cl_host::read_buffer<cl_uint>(queue, results, RESULTS);
      const cl_ulong most_active =
         cl_host::profiling_ulong(event, CL_PROFILING_COOPERATIVE_MAX_ACTIVE_EXT);
      std::printf("launch %d (%s): M changed %u times, kills left %u, forked %u, M after "
                  "fork %u, most active %llu (CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT %zu)\n",
                  launch, policy.c_str(), got[M_CHANGED], got[KILLS_LEFT], got[FORKED],
                  got[M_AFTER_FORK], (unsigned long long)most_active, max_active);
      EXPECT_EQ(got[M_CHANGED], 0u)
         << "get_num_groups() still counts the work-group that returned";
      EXPECT_EQ(got[KILLS_LEFT], 0u)
         << "no kill stays requested that only a returned work-group could let through";
      if (forks_offered) {
         EXPECT_EQ(got[FORKED], 1u) << "a fork takes the returned work-group's unit";
         EXPECT_EQ(got[M_AFTER_FORK], units + 1)
            << "a fork takes the returned work-group's unit: M = units + 1";
         EXPECT_EQ(most_active, units + 1)
            << "MAX_ACTIVE counts the returned work-group: one above "
               "CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT";
         EXPECT_EQ(max_active, units) << "CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT is the units";
      } else {
         EXPECT_EQ(got[FORKED], 0u) << "without offers nothing forks";
         EXPECT_EQ(most_active, units) << "without offers nothing forks";
      }
   }
}
