// printf in a cooperative kernel (the spec's section 11, "printf works in
// cooperative kernels"): the output of every work-group reaches the
// process's stdout, that of work-groups that joined through request_fork
// included, once per call.
//
// Launch: N = 4 × units work-groups of 8. Each work-group that starts
// prints a line; all but work-group 0 then return (they stay active, their
// units are free), and work-group 0 forks until M = N or it gave up; every
// forked work-group prints a line naming its id and its forker. Under the
// default and random policies the freed units are offered, so work-groups
// must fork; under never and cap:1 none may.
// covers: 11-printf
#include "CL/cl_ext_cooperative_kernels.h"
#include "cl_host.hpp"
#include "event_capture.hpp"
#include "host_test.hpp"
#include "watchdog.hpp"

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

const char *source = R"CLC(
// counter[0] counts forked work-groups, counter[1] those that returned.
kernel void print_and_fork(global uint *counter, uint n)
{
   transmit uint forker;
   forker = get_group_id(0);
   if (get_local_id(0) == 0)
      printf("ck-printf: work-group %u started\n", (uint)get_group_id(0));
   if (get_group_id(0) != 0) {
      if (get_local_id(0) == 0)
         atomic_inc(&counter[1]);
      return;
   }
   // Every other work-group has returned (and freed its unit) before work-group
   // 0 tries to fork, a bounded number of times (no fork under never, cap:1).
   while (atomic_add(&counter[1], 0) + 1 < get_num_groups(0))
      ;
   local uint m;
   for (uint tries = 0; tries < 100000; ++tries) {
      // M decides a request_fork: read once and broadcast.
      if (get_local_id(0) == 0)
         m = get_num_groups(0);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (m >= n)
         break;
      request_fork();
      if (get_group_id(0) != forker) {
         if (get_local_id(0) == 0) {
            atomic_inc(&counter[0]);
            printf("ck-printf: work-group %u forked by %u\n", (uint)get_group_id(0), forker);
         }
         return;
      }
   }
}
)CLC";

TEST(Printf, EveryWorkGroupPrintsForkedOnesToo)
{
   const char *policy_env = std::getenv("CK_POLICY");
   const std::string policy = policy_env ? policy_env : "default";
   const bool forks_offered = policy == "default" || policy.rfind("random", 0) == 0;
   cl_device_id device = cl_host::first_device();
   const cl_uint units = cl_host::device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);
   cl_host::Context context = cl_host::create_context(device);
   cl_host::Queue queue = cl_host::create_queue(context, device);
   cl_host::BuildResult built = cl_host::build_program(context, device, source);
   // printf is OpenCL C 1.2. Clover on llvmpipe has OpenCL C 1.1 and no
   // printf for any kernel: there the cooperative kernel must fail to build
   // exactly as an ordinary kernel that calls printf does.
   const std::string c_version = cl_host::device_string(device, CL_DEVICE_OPENCL_C_VERSION);
   if (c_version.rfind("OpenCL C 1.0", 0) == 0 || c_version.rfind("OpenCL C 1.1", 0) == 0) {
      const cl_host::BuildResult ordinary = cl_host::build_program(
         context, device, "kernel void plain(void) { printf(\"x\\n\"); }\n");
      std::printf("%s: printf exists in no kernel; the cooperative build says: %s\n",
                  c_version.c_str(), built.log.c_str());
      EXPECT_NE(ordinary.status, CL_SUCCESS) << "an ordinary kernel with printf built";
      EXPECT_EQ(built.status, ordinary.status) << "as for an ordinary kernel: " << built.log;
      EXPECT_NE(built.log.find("'printf'"), std::string::npos) << built.log;
      EXPECT_NE(ordinary.log.find("'printf'"), std::string::npos) << ordinary.log;
      return;
   }
   ASSERT_EQ(built.status, CL_SUCCESS) << built.log;
   cl_host::Program program = std::move(built.program);
   cl_host::Kernel kernel = cl_host::create_kernel(program, "print_and_fork");
   cl_host::Watchdog watchdog("the printf test", std::chrono::seconds(60));

   cl_uint zeros[2] = {0, 0};
   cl_host::Buffer forks = cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(zeros),
                                                  zeros);
   const cl_uint n = 4 * units;
   cl_host::set_arg(kernel, 0, forks.get());
   cl_host::set_arg(kernel, 1, n);
   const size_t local = 8, global = n * local;

   host_test::StreamCapture capture(stdout);
   cl_int status = clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr,
                                          nullptr);
   if (status == CL_SUCCESS)
      status = clFinish(queue);
   const std::string printed = capture.finish();
   ASSERT_EQ(status, CL_SUCCESS) << cl_host::error_name(status);
   const cl_uint forked = cl_host::read_buffer<cl_uint>(queue, forks, 1)[0];

   std::multiset<unsigned> started, joined;
   size_t joined_lines = 0;
   std::istringstream lines(printed);
   const std::regex start_line("ck-printf: work-group ([0-9]+) started");
   const std::regex fork_line("ck-printf: work-group ([0-9]+) forked by ([0-9]+)");
   for (std::string line; std::getline(lines, line);) {
      std::smatch match;
      if (std::regex_match(line, match, start_line)) {
         started.insert(unsigned(std::stoul(match[1])));
      } else if (std::regex_match(line, match, fork_line)) {
         ++joined_lines;
         joined.insert(unsigned(std::stoul(match[1])));
         EXPECT_EQ(match[2], "0") << "the forker is work-group 0: " << line;
      } else if (line.rfind("ck-printf", 0) == 0) {
         ADD_FAILURE() << "a line of the kernel's that is neither: " << line;
      }
   }
   std::printf("%s: %zu work-groups printed at their start, %zu forked ones (the kernel counted "
               "%u)\n",
               policy.c_str(), started.size(), joined_lines, forked);
   // The work-groups that started with the launch: ids 0 .. M0-1, once each.
   ASSERT_FALSE(started.empty()) << "no work-group's printf reached stdout";
   EXPECT_LE(started.size(), size_t(units)) << "at most one work-group per unit starts";
   unsigned expected = 0;
   for (unsigned id : started)
      EXPECT_EQ(id, expected++) << "each initial work-group prints once, ids 0 .. M0-1";
   // Forked work-groups: one line each, ids M0 .. M0+forks-1.
   EXPECT_EQ(joined_lines, size_t(forked)) << "one line per forked work-group";
   unsigned next = unsigned(started.size());
   for (unsigned id : joined)
      EXPECT_EQ(id, next++) << "forked ids follow the initial ones, once each";
   if (forks_offered)
      EXPECT_GE(forked, 1u) << "the freed units were offered: work-group 0 forked";
   else
      EXPECT_EQ(forked, 0u) << "no unit is offered under " << policy;
}

} // namespace
