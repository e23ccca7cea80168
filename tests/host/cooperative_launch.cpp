// The device names the extension with the header's version, impossible
// cooperative launches get the right CL error code, and the hidden launch
// context stays hidden from the host.
#include "cl_host.hpp"
#include "expect.hpp"

#include "CL/cl_ext_cooperative_kernels.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char *source = R"CLC(
kernel void sum_rounds(global uint *out)
{
   for (int r = 0; r < 4; ++r) {
      if (get_global_id(0) == 0)
         out[0] += get_num_groups(0);
      global_barrier();
   }
}

kernel void local_size_of(global uint *out)
{
   if (get_global_id(0) == 0) {
      out[0] = get_local_size(0);
      out[1] = get_num_groups(0);
   }
   global_barrier();
}
)CLC";

// CL_DEVICE_EXTENSIONS names the extension; CL_DEVICE_EXTENSIONS_WITH_VERSION
// (OpenCL 3.0) gives it the version of the header.
void expect_extension_reported(cl_device_id device)
{
   const std::string extensions = " " + cl_host::device_string(device, CL_DEVICE_EXTENSIONS) + " ";
   cl_host::expect(extensions.find(std::string(" ") + CL_EXT_COOPERATIVE_KERNELS_EXTENSION_NAME +
                                   " ") != std::string::npos,
                   "CL_DEVICE_EXTENSIONS names " CL_EXT_COOPERATIVE_KERNELS_EXTENSION_NAME);
   size_t bytes = 0;
   cl_host::check(clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS_WITH_VERSION, 0, nullptr, &bytes),
                  "clGetDeviceInfo(CL_DEVICE_EXTENSIONS_WITH_VERSION)");
   std::vector<cl_name_version> versions(bytes / sizeof(cl_name_version));
   cl_host::check(clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS_WITH_VERSION, bytes,
                                  versions.data(), nullptr),
                  "clGetDeviceInfo(CL_DEVICE_EXTENSIONS_WITH_VERSION)");
   const auto entry = std::find_if(versions.begin(), versions.end(), [](const cl_name_version &v) {
      return std::strcmp(v.name, CL_EXT_COOPERATIVE_KERNELS_EXTENSION_NAME) == 0;
   });
   cl_host::expect(entry != versions.end() &&
                      entry->version == CL_EXT_COOPERATIVE_KERNELS_EXTENSION_VERSION,
                   "CL_DEVICE_EXTENSIONS_WITH_VERSION gives the extension the header's version");
}

} // namespace

int main()
{
   try {
      cl_device_id device = cl_host::first_device();
      expect_extension_reported(device);
      cl_host::Context context = cl_host::create_context(device);
      cl_host::Queue queue = cl_host::create_queue(context, device);
      cl_host::Program program = cl_host::build_or_throw(context, device, source);
      cl_host::Kernel kernel = cl_host::create_kernel(program, "sum_rounds");

      cl_uint num_args = 0;
      cl_host::check(clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof(num_args), &num_args,
                                     nullptr),
                     "clGetKernelInfo");
      cl_host::expect(num_args == 1, "the launch context is not a user argument");
      cl_host::expect(clSetKernelArg(kernel, 1, sizeof(cl_mem), nullptr) == CL_INVALID_ARG_INDEX,
             "setting an argument past the user's ones is CL_INVALID_ARG_INDEX");

      cl_uint zero = 0;
      cl_host::Buffer out = cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(zero),
                                                   &zero);
      cl_host::set_arg(kernel, 0, out.get());

      const size_t global2d[2] = {16, 2}, local2d[2] = {8, 1};
      cl_host::expect(clEnqueueNDRangeKernel(queue, kernel, 2, nullptr, global2d, local2d, 0, nullptr,
                                    nullptr) == CL_INVALID_WORK_DIMENSION,
             "a 2-D cooperative launch is CL_INVALID_WORK_DIMENSION");

      const size_t local = 1, none = 0, too_many = 70000;
      cl_host::expect(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &none, &local, 0,
                                             nullptr, nullptr) == CL_INVALID_GLOBAL_WORK_SIZE,
                      "0 work-groups (1 <= M <= N cannot hold) is CL_INVALID_GLOBAL_WORK_SIZE");
      cl_host::expect(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, nullptr, nullptr, 0,
                                             nullptr, nullptr) == CL_INVALID_GLOBAL_WORK_SIZE,
                      "no global work size is CL_INVALID_GLOBAL_WORK_SIZE");
      cl_host::Program ordinary_program = cl_host::build_or_throw(
         context, device, "kernel void fill(global uint *out) { out[get_global_id(0)] = 1; }");
      cl_host::Kernel ordinary = cl_host::create_kernel(ordinary_program, "fill");
      cl_host::set_arg(ordinary, 0, out.get());
      // An empty NDRange is valid from OpenCL 2.1 on ("OpenCL 3.0 ..." parses as 3.0).
      const std::string version = cl_host::device_string(device, CL_DEVICE_VERSION);
      const bool empty_ndrange_valid = std::stod(version.substr(7)) >= 2.1;
      const cl_int empty = clEnqueueNDRangeKernel(queue, ordinary, 1, nullptr, &none, nullptr, 0,
                                                  nullptr, nullptr);
      if (empty_ndrange_valid)
         cl_host::expect(empty == CL_SUCCESS,
                         "an empty NDRange of an ordinary kernel succeeds (" + version + ")");
      else
         cl_host::expect(empty == CL_INVALID_GLOBAL_WORK_SIZE,
                         "an empty NDRange of an ordinary kernel is CL_INVALID_GLOBAL_WORK_SIZE (" +
                            version + ")");
      cl_host::expect(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &too_many, &local, 0, nullptr,
                                    nullptr) == CL_OUT_OF_RESOURCES,
             "70000 work-groups (beyond what the barrier counts) is CL_OUT_OF_RESOURCES");

      // More work-groups than compute units: the scheduler runs what fits.
      const cl_uint units = cl_host::device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);
      const size_t many = 8 * units;
      cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &many, &local, 0, nullptr,
                                            nullptr),
                     "clEnqueueNDRangeKernel");
      cl_host::check(clFinish(queue), "clFinish");
      const cl_uint total = cl_host::read_buffer<cl_uint>(queue, out, 1)[0];
      std::printf("4 rounds summed get_num_groups() = %u (%u units, %zu requested)\n", total,
                  units, many);
      cl_host::expect(total >= 4 && total <= 4 * units,
             "a launch of 8x the compute units completes with 1 <= M <= units");

      // No local size: the implementation picks one, as for any kernel, and
      // N follows from it.
      cl_host::Kernel sized = cl_host::create_kernel(program, "local_size_of");
      cl_uint picked[2] = {0, 0};
      cl_host::Buffer picked_out =
         cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(picked), picked);
      cl_host::set_arg(sized, 0, picked_out.get());
      const size_t global_any = 96 * units;
      cl_host::check(clEnqueueNDRangeKernel(queue, sized, 1, nullptr, &global_any, nullptr, 0,
                                            nullptr, nullptr),
                     "clEnqueueNDRangeKernel with no local size");
      cl_host::check(clFinish(queue), "clFinish");
      const auto got = cl_host::read_buffer<cl_uint>(queue, picked_out, 2);
      std::printf("no local size: %zu work-items ran as work-groups of %u, M = %u\n", global_any,
                  got[0], got[1]);
      cl_host::expect(got[0] >= 1 && global_any % got[0] == 0 && got[1] >= 1 &&
                         got[1] <= std::min<size_t>(global_any / got[0], units),
                      "a NULL local size runs with a local size that divides the global size "
                      "and 1 <= M <= min(N, units)");
   } catch (const std::exception &error) {
      std::fprintf(stderr, "cooperative_launch: %s\n", error.what());
      return 1;
   }
   return cl_host::expectations_status();
}
