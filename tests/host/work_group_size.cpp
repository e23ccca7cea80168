// CL_KERNEL_WORK_GROUP_SIZE must say how large a work-group the kernel can
// run with, and a launch must be held to it: programs size their
// work-groups by this query. rusticl answered the subgroup size (32) where
// llvmpipe runs 1024 work-items per work-group, and took any local size
// whose dimensions each fit.
#include "cl_host.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

const char *source = R"CLC(
kernel void ids(global uint *out)
{
   out[get_global_id(0)] = get_group_id(0) * 0x10000u + get_local_id(0);
}
)CLC";

size_t kernel_work_group_size(cl_kernel kernel, cl_device_id device)
{
   size_t size = 0;
   cl_host::check(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(size),
                                           &size, nullptr),
                  "clGetKernelWorkGroupInfo");
   return size;
}

} // namespace

TEST(WorkGroupSize, KernelQueryAllowsWhatTheDeviceRuns)
{
   cl_device_id device = cl_host::first_device();
   cl_host::Context context = cl_host::create_context(device);
   cl_host::Queue queue = cl_host::create_queue(context, device);
   cl_host::Program program = cl_host::build_or_throw(context, device, source);
   cl_host::Kernel kernel = cl_host::create_kernel(program, "ids");
   size_t device_max = 0;
   cl_host::check(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(device_max),
                                  &device_max, nullptr),
                  "clGetDeviceInfo");
   const size_t local = kernel_work_group_size(kernel, device);
   EXPECT_EQ(local, device_max) << "nothing in this kernel limits its work-groups";

   // Two work-groups of the size the query allows compute in full.
   const size_t global = 2 * local;
   cl_host::Buffer out = cl_host::create_buffer(context, CL_MEM_READ_WRITE, global * sizeof(cl_uint));
   cl_host::set_arg(kernel, 0, out.get());
   cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr,
                                         nullptr),
                  "clEnqueueNDRangeKernel");
   const auto got = cl_host::read_buffer<cl_uint>(queue, out, global);
   for (size_t i = 0; i < global; ++i)
      ASSERT_EQ(got[i], cl_uint((i / local) * 0x10000u + i % local)) << "work-item " << i;

   // A work-group of more work-items than that is refused, even where each
   // dimension fits CL_DEVICE_MAX_WORK_ITEM_SIZES.
   std::vector<size_t> item_sizes(3);
   cl_host::check(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                                  item_sizes.size() * sizeof(size_t), item_sizes.data(), nullptr),
                  "clGetDeviceInfo");
   if (item_sizes[0] >= local && item_sizes[1] >= 2) {
      const size_t too_large[2] = {local, 2}, grid[2] = {local, 2};
      EXPECT_EQ(clEnqueueNDRangeKernel(queue, kernel, 2, nullptr, grid, too_large, 0, nullptr,
                                       nullptr),
                CL_INVALID_WORK_GROUP_SIZE);
   }
}
