// build_check FILE.cl: builds an OpenCL C file on the first device and checks
// what the file's comment directives expect of the build:
//
//   // CHECK-BUILD: success | failure
//   // CHECK-LOG: text          the build log contains text (repeatable)
//   // CHECK-LOG-NOT: text      the build log does not contain text (repeatable)
//   // CHECK-COOPERATIVE: name  clGetKernelWorkGroupInfo says the kernel is
//                             cooperative, with as many active work-groups
//                             as compute units
//   // CHECK-NOT-COOPERATIVE: name   ... says it is not (and 0 active groups)
//
// piglit's cl-program-tester checks that a build fails; this checks why.
#include "CL/cl_ext_cooperative_kernels.h"
#include "cl_host.hpp"
#include "expect.hpp"

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Expectations {
   bool build_succeeds = true;
   std::vector<std::string> log_contains;
   std::vector<std::string> log_lacks;
   std::vector<std::string> cooperative;
   std::vector<std::string> not_cooperative;
};

std::string trim(const std::string &text)
{
   size_t begin = text.find_first_not_of(" \t");
   size_t end = text.find_last_not_of(" \t\r");
   return begin == std::string::npos ? "" : text.substr(begin, end - begin + 1);
}

Expectations parse_directives(const std::string &source)
{
   Expectations expect;
   std::istringstream lines(source);
   std::string line;
   auto value_of = [&line](const std::string &directive, std::string &value) {
      size_t at = line.find("// " + directive + ":");
      if (at == std::string::npos)
         return false;
      value = trim(line.substr(at + directive.size() + 4));
      return true;
   };
   std::string value;
   while (std::getline(lines, line)) {
      if (value_of("CHECK-BUILD", value))
         expect.build_succeeds = value == "success";
      else if (value_of("CHECK-LOG", value))
         expect.log_contains.push_back(value);
      else if (value_of("CHECK-LOG-NOT", value))
         expect.log_lacks.push_back(value);
      else if (value_of("CHECK-COOPERATIVE", value))
         expect.cooperative.push_back(value);
      else if (value_of("CHECK-NOT-COOPERATIVE", value))
         expect.not_cooperative.push_back(value);
   }
   return expect;
}

template <typename T>
T work_group_info(cl_kernel kernel, cl_device_id device, cl_kernel_work_group_info param)
{
   T value{};
   cl_host::check(clGetKernelWorkGroupInfo(kernel, device, param, sizeof(value), &value, nullptr),
                  "clGetKernelWorkGroupInfo");
   return value;
}

void check_kernel(cl_program program, cl_device_id device, const std::string &name,
                  bool cooperative)
{
   cl_host::Kernel kernel = cl_host::create_kernel(program, name);
   const cl_uint units = cl_host::device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);
   const auto is_cooperative = work_group_info<cl_bool>(kernel, device, CL_KERNEL_COOPERATIVE_EXT);
   const auto active = work_group_info<size_t>(kernel, device, CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT);
   cl_host::expect((is_cooperative == CL_TRUE) == cooperative,
          "kernel " + name + (cooperative ? " is" : " is not") + " cooperative");
   cl_host::expect(active == (cooperative ? units : 0),
          "kernel " + name + ": " + std::to_string(active) + " active work-groups at most");
   cl_uint num_args = 0;
   cl_host::check(clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof(num_args), &num_args, nullptr),
                  "clGetKernelInfo");
   std::printf("kernel %s: %u arguments visible to the host\n", name.c_str(), num_args);
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
      const Expectations expected = parse_directives(source);
      cl_device_id device = cl_host::first_device();
      cl_host::Context context = cl_host::create_context(device);
      cl_host::BuildResult build = cl_host::build_program(context, device, source);
      std::printf("build status %s; build log:\n%s\n", cl_host::error_name(build.status),
                  build.log.c_str());
      if (expected.build_succeeds)
         cl_host::expect(build.status == CL_SUCCESS, "the build succeeds");
      else
         cl_host::expect(build.status == CL_BUILD_PROGRAM_FAILURE,
                "the build fails with CL_BUILD_PROGRAM_FAILURE");
      for (const std::string &text : expected.log_contains)
         cl_host::expect(build.log.find(text) != std::string::npos, "the build log says '" + text + "'");
      for (const std::string &text : expected.log_lacks)
         cl_host::expect(build.log.find(text) == std::string::npos,
                         "the build log does not say '" + text + "'");
      if (build.status == CL_SUCCESS) {
         for (const std::string &name : expected.cooperative)
            check_kernel(build.program, device, name, true);
         for (const std::string &name : expected.not_cooperative)
            check_kernel(build.program, device, name, false);
      }
   } catch (const std::exception &error) {
      std::fprintf(stderr, "build_check: %s\n", error.what());
      return 1;
   }
   return cl_host::expectations_status();
}
