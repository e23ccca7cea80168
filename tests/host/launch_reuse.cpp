// A frontend may keep what it built for a kernel's launch (rusticl keeps each
// kernel's compute state in the queue's context, zink a pipeline per launch
// shape) only while it is the same kernel launched the same way: a kernel
// created where a released one lived runs its own code, a launch with a
// larger __local argument gets the local memory it asks for, and more
// kernels than the frontend keeps take turns.
#include "cl_host.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

struct Device {
   cl_device_id id = cl_host::first_device();
   cl_host::Context context = cl_host::create_context(id);
   cl_host::Queue queue = cl_host::create_queue(context, id);
};

constexpr size_t items = 256, local_items = 64;

// Launches `kernel` over `items` work-items in work-groups of `local_items`.
void launch(const Device &device, cl_kernel kernel)
{
   cl_host::check(clEnqueueNDRangeKernel(device.queue, kernel, 1, nullptr, &items, &local_items,
                                         0, nullptr, nullptr),
                  "clEnqueueNDRangeKernel");
}

} // namespace

// A kernel whose work-group size is fixed at build time, so that a driver may
// build its launch once, still gets its __local argument's memory, at every
// size. (zink built such kernels once, with no room for the argument.)
TEST(LaunchReuse, AFixedSizeKernelGetsItsLocalArgument)
{
   Device device;
   cl_host::Program program = cl_host::build_or_throw(device.context, device.id, R"CLC(
kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void rotate_rows(global uint *out, local uint *rows, uint row_count)
{
   uint lid = get_local_id(0), gid = get_global_id(0);
   for (uint r = 0; r < row_count; ++r)
      rows[r * 64 + lid] = gid * 31u + r;
   barrier(CLK_LOCAL_MEM_FENCE);
   uint sum = 0;
   for (uint r = 0; r < row_count; ++r)
      sum += rows[r * 64 + (lid + r) % 64];
   out[gid] = sum;
}
)CLC");
   cl_host::Kernel kernel = cl_host::create_kernel(program, "rotate_rows");
   cl_host::Buffer out =
      cl_host::create_buffer(device.context, CL_MEM_READ_WRITE, items * sizeof(cl_uint));
   cl_host::set_arg(kernel, 0, out.get());
   for (cl_uint row_count : {16u, 1u, 64u, 4u}) {
      cl_host::check(clSetKernelArg(kernel, 1, local_items * row_count * sizeof(cl_uint), nullptr),
                     "clSetKernelArg");
      cl_host::set_arg(kernel, 2, row_count);
      launch(device, kernel);
      const auto got = cl_host::read_buffer<cl_uint>(device.queue, out, items);
      for (size_t i = 0; i < items; ++i) {
         const size_t base = i - i % local_items, lid = i % local_items;
         cl_uint want = 0;
         for (cl_uint r = 0; r < row_count; ++r)
            want += cl_uint(base + (lid + r) % local_items) * 31u + r;
         ASSERT_EQ(got[i], want) << row_count << " rows, work-item " << i;
      }
   }
}

TEST(LaunchReuse, AKernelCreatedAfterAReleasedOneRunsItsOwnCode)
{
   Device device;
   cl_host::Buffer out =
      cl_host::create_buffer(device.context, CL_MEM_READ_WRITE, items * sizeof(cl_uint));
   for (cl_uint round = 0; round < 32; ++round) {
      const std::string source = "kernel void fill(global uint *out) { out[get_global_id(0)] = " +
                                 std::to_string(round) + "u + get_global_id(0); }";
      cl_host::Program program = cl_host::build_or_throw(device.context, device.id, source);
      cl_host::Kernel kernel = cl_host::create_kernel(program, "fill");
      cl_host::set_arg(kernel, 0, out.get());
      launch(device, kernel);
      const auto got = cl_host::read_buffer<cl_uint>(device.queue, out, items);
      for (size_t i = 0; i < items; ++i)
         ASSERT_EQ(got[i], round + i) << "round " << round << ", work-item " << i;
   }
}

TEST(LaunchReuse, EachLaunchGetsTheLocalMemoryItsArgumentsAskFor)
{
   Device device;
   cl_host::Program program = cl_host::build_or_throw(device.context, device.id, R"CLC(
kernel void sum_local(global uint *out, local uint *scratch, uint per_item)
{
   uint lid = get_local_id(0), size = get_local_size(0);
   for (uint j = 0; j < per_item; ++j)
      scratch[j * size + lid] = get_global_id(0) + j;
   barrier(CLK_LOCAL_MEM_FENCE);
   if (lid == 0) {
      uint sum = 0;
      for (uint k = 0; k < per_item * size; ++k)
         sum += scratch[k];
      out[get_group_id(0)] = sum;
   }
}
)CLC");
   cl_host::Kernel kernel = cl_host::create_kernel(program, "sum_local");
   const size_t groups = items / local_items;
   cl_host::Buffer out =
      cl_host::create_buffer(device.context, CL_MEM_READ_WRITE, groups * sizeof(cl_uint));
   cl_host::set_arg(kernel, 0, out.get());
   for (cl_uint per_item : {1u, 64u, 2u, 64u, 1u}) {
      cl_host::check(clSetKernelArg(kernel, 1, local_items * per_item * sizeof(cl_uint), nullptr),
                     "clSetKernelArg");
      cl_host::set_arg(kernel, 2, per_item);
      launch(device, kernel);
      const auto got = cl_host::read_buffer<cl_uint>(device.queue, out, groups);
      for (size_t g = 0; g < groups; ++g) {
         cl_uint want = 0;
         for (cl_uint j = 0; j < per_item; ++j)
            for (size_t lid = 0; lid < local_items; ++lid)
               want += cl_uint(g * local_items + lid + j);
         ASSERT_EQ(got[g], want) << per_item << " words per work-item, work-group " << g;
      }
   }
}

// Launches of a kernel short enough for llvmpipe to run them on the thread
// that waits for them (CK_SHORT_LAUNCH_US) get local memory there too: a
// static __local array and a __local argument, a barrier between the
// writes and the reads, new data at every launch.
TEST(LaunchReuse, RepeatedShortLaunchesGetTheirLocalMemory)
{
   Device device;
   cl_host::Program program = cl_host::build_or_throw(device.context, device.id, R"CLC(
kernel void reverse_pairs(global const uint *in, global uint *out, local uint *copy)
{
   local uint tile[64];
   uint lid = get_local_id(0), size = get_local_size(0), gid = get_global_id(0);
   tile[lid] = in[gid];
   copy[lid] = in[gid] * 3u;
   barrier(CLK_LOCAL_MEM_FENCE);
   out[gid] = tile[size - 1 - lid] + copy[(lid + 1) % size];
}
)CLC");
   cl_host::Kernel kernel = cl_host::create_kernel(program, "reverse_pairs");
   cl_host::Buffer in = cl_host::create_buffer(device.context, CL_MEM_READ_WRITE, items * sizeof(cl_uint));
   cl_host::Buffer out = cl_host::create_buffer(device.context, CL_MEM_READ_WRITE, items * sizeof(cl_uint));
   cl_host::set_arg(kernel, 0, in.get());
   cl_host::set_arg(kernel, 1, out.get());
   cl_host::check(clSetKernelArg(kernel, 2, local_items * sizeof(cl_uint), nullptr),
                  "clSetKernelArg");
   std::vector<cl_uint> data(items);
   for (cl_uint round = 0; round < 20; ++round) {
      for (size_t i = 0; i < items; ++i)
         data[i] = cl_uint(i * 7 + round * 1000);
      cl_host::check(clEnqueueWriteBuffer(device.queue, in.get(), CL_TRUE, 0,
                                          items * sizeof(cl_uint), data.data(), 0, nullptr,
                                          nullptr),
                     "clEnqueueWriteBuffer");
      launch(device, kernel);
      const auto got = cl_host::read_buffer<cl_uint>(device.queue, out, items);
      for (size_t i = 0; i < items; ++i) {
         const size_t base = i - i % local_items, lid = i % local_items;
         const cl_uint want =
            data[base + local_items - 1 - lid] + data[base + (lid + 1) % local_items] * 3u;
         ASSERT_EQ(got[i], want) << "launch " << round << ", work-item " << i;
      }
   }
}

TEST(LaunchReuse, ManyKernelsTakeTurnsOnOneQueue)
{
   Device device;
   constexpr cl_uint kernel_count = 40;
   std::string source;
   for (cl_uint k = 0; k < kernel_count; ++k)
      source += "kernel void scale" + std::to_string(k) +
                "(global uint *out) { out[get_global_id(0)] = get_global_id(0) * " +
                std::to_string(k + 1) + "u; }\n";
   cl_host::Program program = cl_host::build_or_throw(device.context, device.id, source);
   std::vector<cl_host::Kernel> kernels;
   std::vector<cl_host::Buffer> outs;
   for (cl_uint k = 0; k < kernel_count; ++k) {
      kernels.push_back(cl_host::create_kernel(program, ("scale" + std::to_string(k)).c_str()));
      outs.push_back(
         cl_host::create_buffer(device.context, CL_MEM_READ_WRITE, items * sizeof(cl_uint)));
      cl_host::set_arg(kernels.back(), 0, outs.back().get());
   }
   for (int round = 0; round < 3; ++round) {
      for (cl_uint k = 0; k < kernel_count; ++k)
         launch(device, kernels[k]);
      for (cl_uint k = 0; k < kernel_count; ++k) {
         const auto got = cl_host::read_buffer<cl_uint>(device.queue, outs[k], items);
         for (size_t i = 0; i < items; ++i)
            ASSERT_EQ(got[i], cl_uint(i * (k + 1)))
               << "round " << round << ", kernel " << k << ", work-item " << i;
      }
   }
}
