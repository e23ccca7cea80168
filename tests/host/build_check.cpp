// build_check FILE.cl: builds an OpenCL C file on the first device and
// prints a report of the build, which tests/host/build_check.sh gives to
// LLVM's FileCheck with FILE.cl as the check file:
//
//   compute units: U
//   build: success | failure (CL_BUILD_PROGRAM_FAILURE) | error (STATUS)
//   build log:
//   ... the build log, as the frontend gave it ...
//   end of build log
//   kernel NAME: cooperative, A active work-groups, K host arguments
//   kernel NAME: not cooperative, 0 active work-groups, K host arguments
//
// one kernel line per kernel of a program that built, in name order, from
// clGetKernelWorkGroupInfo (CL_KERNEL_COOPERATIVE_EXT and
// CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT) and CL_KERNEL_NUM_ARGS. A file's
// directives then read, e.g.:
//
//   // CHECK: compute units: [[UNITS:[0-9]+]]
//   // CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
//   // CHECK: input.cl:[[@LINE+5]]:{{.*}}[recursion]
//   // CHECK-DAG: kernel k: cooperative, [[UNITS]] active work-groups
//
// piglit's cl-program-tester checks that a build fails; this checks why.
// The exit status is 0 once the report is printed: FileCheck judges it.
// covers: 6-cooperative-def 8-kcoop-value 8-maxactive-value 10.2-root-scope
// covers: 10.4-undefined-warning 10.8-fail-log 15-source-lines
#include "CL/cl_ext_cooperative_kernels.h"
#include "cl_host.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace {

template <typename T>
T work_group_info(cl_kernel kernel, cl_device_id device, cl_kernel_work_group_info param)
{
   T value{};
   cl_host::check(clGetKernelWorkGroupInfo(kernel, device, param, sizeof(value), &value, nullptr),
                  "clGetKernelWorkGroupInfo");
   return value;
}


void report_kernel(cl_program program, cl_device_id device, const std::string &name)
{
   cl_host::Kernel kernel = cl_host::create_kernel(program, name);
   const auto is_cooperative = work_group_info<cl_bool>(kernel, device, CL_KERNEL_COOPERATIVE_EXT);
   const auto active = work_group_info<size_t>(kernel, device, CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT);
   cl_uint num_args = 0;
   cl_host::check(clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof(num_args), &num_args, nullptr),
                  "clGetKernelInfo");
   std::printf("kernel %s: %s, %zu active work-groups, %u host arguments\n", name.c_str(),
               is_cooperative == CL_TRUE    ? "cooperative"
               : is_cooperative == CL_FALSE ? "not cooperative"
                                            : "neither CL_TRUE nor CL_FALSE",
               active, num_args);
}

} // namespace

int main(int argc, char **argv)
{
   if (argc != 2) {
      std::fprintf(stderr, "usage: build_check FILE.cl\n");
      return 2;
   }
   try {
      const std::string source = cl_host::read_file(argv[1]);
      cl_device_id device = cl_host::first_device();
      std::printf("compute units: %u\n", cl_host::device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS));
      cl_host::Context context = cl_host::create_context(device);
      cl_host::BuildResult build = cl_host::build_program(context, device, source);
      if (build.status == CL_SUCCESS)
         std::printf("build: success\n");
      else if (build.status == CL_BUILD_PROGRAM_FAILURE)
         std::printf("build: failure (CL_BUILD_PROGRAM_FAILURE)\n");
      else
         std::printf("build: error (%s)\n", cl_host::error_name(build.status));
      std::printf("build log:\n%s%s", build.log.c_str(),
                  build.log.empty() || build.log.back() == '\n' ? "" : "\n");
      std::printf("end of build log\n");
      if (build.status == CL_SUCCESS)
         for (const std::string &name : cl_host::kernel_names(build.program))
            report_kernel(build.program, device, name);
   } catch (const std::exception &error) {
      std::fflush(stdout);
      std::fprintf(stderr, "build_check: %s\n", error.what());
      return 1;
   }
   return 0;
}
