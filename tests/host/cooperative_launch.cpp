// The device names the extension with the header's version, impossible
// cooperative launches get the right CL error code, possible ones at the
// limits run, the kernel queries answer with the spec's types, and the
// hidden launch context stays hidden from the host. Non-uniform work-groups
// are rejected, and global offsets are kept, in forked work-groups too.
//
// Spec sections are named as in docs/spec-coverage.md: 8 New API Enums,
// 10.1 Active work-groups, 11 Interactions with other features, 12 Errors.
// covers: 1-ext-string 4-ext-version 6-ndrange 8-host-header 8-kquery-sizes-errors
// covers: 8-maxactive-all-start 8-maxactive-value 10.1-global-offset 10.1-m-bounds
// covers: 10.1-null-local 10.4-workitem-functions 11-enqueue-task 12-gws-null-zero
// covers: 12-non-uniform 12-oor-limit 12-work-dim 15-hidden-arg
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS // clEnqueueTask (section 11)
#include "cl_host.hpp"

#include "CL/cl_ext_cooperative_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
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

/* Section 10.1: with a global offset every work-item's get_global_id(0)
   is the offset + its group id x the local size + its local id, in the
   work-groups that started with the launch and in those that joined
   through request_fork; get_group_id(0) stays below M. errors[0]: wrong
   ids or offset; errors[1]: forked work-groups (local id 0). */
kernel void offset_ids(global uint *errors, uint rounds, uint offset)
{
   transmit uint r;
   transmit uint forker;
   r = 0;
   while (r < rounds) {
      r++;
      forker = get_group_id(0);
      offer_kill();
      request_fork();
      const uint g = get_group_id(0);
      if (get_global_offset(0) != offset || g >= get_num_groups(0) ||
          get_global_id(0) != offset + g * get_local_size(0) + get_local_id(0))
         atomic_inc(&errors[0]);
      if (forker != g && get_local_id(0) == 0)
         atomic_inc(&errors[1]);
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

// Section 8: CL_KERNEL_COOPERATIVE_EXT is a cl_bool and
// CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT a size_t, accepted by
// clGetKernelWorkGroupInfo with its usual rules (OpenCL 3.0, 5.9.4): the
// size query (param_value NULL) gives the type's size, a param_value_size
// below it is CL_INVALID_VALUE, and a read gives the value and its size.
// The values: CL_TRUE and the number of compute threads (the compute units
// on llvmpipe) for a cooperative kernel, CL_FALSE and 0 for an ordinary one.
template <typename T>
void expect_work_group_info(cl_kernel kernel, cl_device_id device, cl_kernel_work_group_info param,
                            const char *name, const char *kernel_name, T expected)
{
   SCOPED_TRACE(std::string(name) + " of " + kernel_name);
   size_t size = 0;
   cl_int status = clGetKernelWorkGroupInfo(kernel, device, param, 0, nullptr, &size);
   EXPECT_EQ(status, CL_SUCCESS) << "the size query: " << cl_host::error_name(status);
   EXPECT_EQ(size, sizeof(T)) << "the size query gives the type's size";
   unsigned char bytes[2 * sizeof(T)] = {};
   status = clGetKernelWorkGroupInfo(kernel, device, param, sizeof(T) - 1, bytes, nullptr);
   EXPECT_EQ(status, CL_INVALID_VALUE)
      << "a param_value_size of sizeof - 1 is CL_INVALID_VALUE (got "
      << cl_host::error_name(status) << ")";
   T value{};
   size = 0;
   status = clGetKernelWorkGroupInfo(kernel, device, param, sizeof(value), &value, &size);
   EXPECT_EQ(status, CL_SUCCESS) << "the read: " << cl_host::error_name(status);
   EXPECT_EQ(size, sizeof(T)) << "the read gives the type's size";
   EXPECT_EQ(value, expected) << "the value read";
}

// The unit cap the scheduler runs under (CK_POLICY=cap:K or the number in
// CK_CAP_FILE), 0 without one.
unsigned unit_cap_from_environment()
{
   unsigned cap = 0;
   const char *policy = std::getenv("CK_POLICY");
   if (policy && std::strncmp(policy, "cap:", 4) == 0)
      cap = unsigned(std::strtoul(policy + 4, nullptr, 10));
   if (const char *cap_file = std::getenv("CK_CAP_FILE"))
      std::ifstream(cap_file) >> cap;
   return cap;
}

// The device, its context, queue and programs, shared by the tests; each
// test gets its own kernels (sum_rounds with a cleared output, and an
// ordinary one), so that the arguments one sets stay its own.
class CooperativeLaunch : public testing::Test {
protected:
   struct Shared {
      cl_device_id device = nullptr;
      cl_uint units = 0;
      cl_host::Context context;
      cl_host::Queue queue;
      cl_host::Program program, ordinary_program;
   };

   static void SetUpTestSuite()
   {
      shared = std::make_unique<Shared>();
      shared->device = cl_host::first_device();
      shared->units = cl_host::device_uint(shared->device, CL_DEVICE_MAX_COMPUTE_UNITS);
      shared->context = cl_host::create_context(shared->device);
      shared->queue = cl_host::create_queue(shared->context, shared->device);
      shared->program = cl_host::build_or_throw(shared->context, shared->device, source);
      shared->ordinary_program = cl_host::build_or_throw(
         shared->context, shared->device,
         "kernel void fill(global uint *out) { out[get_global_id(0)] = 1; }");
   }
   static void TearDownTestSuite() { shared.reset(); }

   void SetUp() override
   {
      ASSERT_TRUE(shared->ordinary_program.get()) << "the programs did not build";
      device = shared->device;
      units = shared->units;
      context = shared->context;
      queue = shared->queue;
      program = shared->program;
      kernel = cl_host::create_kernel(program, "sum_rounds");
      cl_uint zero = 0;
      out = cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(zero), &zero);
      cl_host::set_arg(kernel, 0, out.get());
      ordinary = cl_host::create_kernel(shared->ordinary_program, "fill");
      cl_host::set_arg(ordinary, 0, out.get());
   }

   static std::unique_ptr<Shared> shared;
   cl_device_id device = nullptr;
   cl_uint units = 0;
   cl_context context = nullptr;
   cl_command_queue queue = nullptr;
   cl_program program = nullptr;
   cl_host::Kernel kernel, ordinary;
   cl_host::Buffer out;
};

std::unique_ptr<CooperativeLaunch::Shared> CooperativeLaunch::shared;

} // namespace

// CL_DEVICE_EXTENSIONS names the extension; CL_DEVICE_EXTENSIONS_WITH_VERSION
// (OpenCL 3.0) gives it the version of the header.
TEST_F(CooperativeLaunch, DeviceReportsTheExtension)
{
   const std::string extensions = " " + cl_host::device_string(device, CL_DEVICE_EXTENSIONS) + " ";
   EXPECT_NE(extensions.find(std::string(" ") + CL_EXT_COOPERATIVE_KERNELS_EXTENSION_NAME + " "),
             std::string::npos)
      << "CL_DEVICE_EXTENSIONS names " CL_EXT_COOPERATIVE_KERNELS_EXTENSION_NAME;
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
   ASSERT_NE(entry, versions.end()) << "CL_DEVICE_EXTENSIONS_WITH_VERSION names the extension";
   EXPECT_EQ(entry->version, cl_version(CL_EXT_COOPERATIVE_KERNELS_EXTENSION_VERSION))
      << "CL_DEVICE_EXTENSIONS_WITH_VERSION gives the extension the header's version";
}

TEST_F(CooperativeLaunch, LaunchContextIsNotAUserArgument)
{
   cl_uint num_args = 0;
   cl_host::check(clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof(num_args), &num_args,
                                  nullptr),
                  "clGetKernelInfo");
   EXPECT_EQ(num_args, 1u) << "the launch context is not a user argument";
   EXPECT_EQ(clSetKernelArg(kernel, 1, sizeof(cl_mem), nullptr), CL_INVALID_ARG_INDEX)
      << "setting an argument past the user's ones is CL_INVALID_ARG_INDEX";
}

// Sections 11 and 12: "work_dim is not 1", even when the other dimensions
// are 1 (the range is 1-D in all but work_dim).
TEST_F(CooperativeLaunch, WorkDimensionIsOne)
{
   const size_t global2d[2] = {16, 2}, local2d[2] = {8, 1};
   EXPECT_EQ(clEnqueueNDRangeKernel(queue, kernel, 2, nullptr, global2d, local2d, 0, nullptr,
                                    nullptr),
             CL_INVALID_WORK_DIMENSION)
      << "a 2-D cooperative launch is CL_INVALID_WORK_DIMENSION";
   const size_t global_flat[3] = {16, 1, 1}, local_flat[3] = {8, 1, 1};
   EXPECT_EQ(clEnqueueNDRangeKernel(queue, kernel, 2, nullptr, global_flat, local_flat, 0,
                                    nullptr, nullptr),
             CL_INVALID_WORK_DIMENSION)
      << "a 2-D cooperative launch of 16x1 is CL_INVALID_WORK_DIMENSION";
   EXPECT_EQ(clEnqueueNDRangeKernel(queue, kernel, 3, nullptr, global_flat, local_flat, 0,
                                    nullptr, nullptr),
             CL_INVALID_WORK_DIMENSION)
      << "a 3-D cooperative launch of 16x1x1 is CL_INVALID_WORK_DIMENSION";
}

TEST_F(CooperativeLaunch, NoWorkGroupsIsInvalidGlobalWorkSize)
{
   const size_t local = 1, none = 0;
   EXPECT_EQ(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &none, &local, 0, nullptr,
                                    nullptr),
             CL_INVALID_GLOBAL_WORK_SIZE)
      << "0 work-groups (1 <= M <= N cannot hold) is CL_INVALID_GLOBAL_WORK_SIZE";
   EXPECT_EQ(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, nullptr, nullptr, 0, nullptr,
                                    nullptr),
             CL_INVALID_GLOBAL_WORK_SIZE)
      << "no global work size is CL_INVALID_GLOBAL_WORK_SIZE";
}

// Section 8: the kernel queries, for a cooperative and an ordinary kernel.
// MAX_ACTIVE is the compute units a launch may use: under a unit cap, the cap.
TEST_F(CooperativeLaunch, KernelQueries)
{
   const unsigned cap = unit_cap_from_environment();
   expect_work_group_info<cl_bool>(kernel, device, CL_KERNEL_COOPERATIVE_EXT,
                                   "CL_KERNEL_COOPERATIVE_EXT", "a cooperative kernel", CL_TRUE);
   expect_work_group_info<size_t>(kernel, device, CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT,
                                  "CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT", "a cooperative kernel",
                                  cap ? std::min(units, cap) : units);
   expect_work_group_info<cl_bool>(ordinary, device, CL_KERNEL_COOPERATIVE_EXT,
                                   "CL_KERNEL_COOPERATIVE_EXT", "an ordinary kernel", CL_FALSE);
   expect_work_group_info<size_t>(ordinary, device, CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT,
                                  "CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT", "an ordinary kernel",
                                  0);
}

// Section 8: a launch of CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT work-groups
// on an idle device starts with all of them active, under every policy and
// cap: persistent-thread code sized by the query must not wait for
// work-groups that never start.
TEST_F(CooperativeLaunch, LaunchOfMaxActiveStartsWhole)
{
   size_t max_active = 0;
   cl_host::check(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT,
                                           sizeof(max_active), &max_active, nullptr),
                  "clGetKernelWorkGroupInfo(CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT)");
   cl_host::Queue profiled = cl_host::create_queue(context, device, /*profiling=*/true);
   const size_t local = 1;
   cl_event raw_event = nullptr;
   cl_host::check(clEnqueueNDRangeKernel(profiled, kernel, 1, nullptr, &max_active, &local, 0,
                                         nullptr, &raw_event),
                  "clEnqueueNDRangeKernel(N = CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT)");
   cl_host::Event event(raw_event);
   cl_host::check(clFinish(profiled), "clFinish");
   EXPECT_EQ(cl_host::profiling_ulong(raw_event, CL_PROFILING_COOPERATIVE_MIN_ACTIVE_EXT),
             max_active)
      << "MIN_ACTIVE: every one of the queried " << max_active << " work-groups started";
   EXPECT_EQ(cl_host::read_buffer<cl_uint>(profiled, out, 1)[0], 4 * max_active)
      << "4 barrier rounds summed get_num_groups() = the queried value";
}

// An empty NDRange is valid from OpenCL 2.1 on ("OpenCL 3.0 ..." parses as 3.0).
TEST_F(CooperativeLaunch, EmptyNDRangeOfAnOrdinaryKernel)
{
   const size_t none = 0;
   const std::string version = cl_host::device_string(device, CL_DEVICE_VERSION);
   const bool empty_ndrange_valid = std::stod(version.substr(7)) >= 2.1;
   const cl_int empty =
      clEnqueueNDRangeKernel(queue, ordinary, 1, nullptr, &none, nullptr, 0, nullptr, nullptr);
   if (empty_ndrange_valid) {
      EXPECT_EQ(empty, CL_SUCCESS)
         << "an empty NDRange of an ordinary kernel succeeds (" << version << ")";
   } else {
      EXPECT_EQ(empty, CL_INVALID_GLOBAL_WORK_SIZE)
         << "an empty NDRange of an ordinary kernel is CL_INVALID_GLOBAL_WORK_SIZE (" << version
         << ")";
   }
   cl_host::check(clFinish(queue), "clFinish");
}

// Section 12: on llvmpipe (a driver that schedules cooperative kernels)
// the limit is 65535 work-groups: N = 65535 runs, N = 65536 is
// CL_OUT_OF_RESOURCES. The limit counts work-groups, not work-items:
// with work-groups of 2 the boundary stays at N = 65535.
TEST_F(CooperativeLaunch, AtMost65535WorkGroups)
{
   const size_t local = 1, too_many = 70000;
   EXPECT_EQ(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &too_many, &local, 0, nullptr,
                                    nullptr),
             CL_OUT_OF_RESOURCES)
      << "70000 work-groups (beyond what the barrier counts) is CL_OUT_OF_RESOURCES";
   for (const size_t group_size : {size_t(1), size_t(2)}) {
      SCOPED_TRACE("work-groups of " + std::to_string(group_size));
      const size_t over = 65536 * group_size;
      const cl_int rejected = clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &over,
                                                     &group_size, 0, nullptr, nullptr);
      EXPECT_EQ(rejected, CL_OUT_OF_RESOURCES)
         << "65536 work-groups is CL_OUT_OF_RESOURCES (got " << cl_host::error_name(rejected)
         << ")";
      cl_uint cleared = 0;
      cl_host::Buffer rounds =
         cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(cleared), &cleared);
      cl_host::set_arg(kernel, 0, rounds.get());
      const size_t most = 65535 * group_size;
      const cl_int accepted = clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &most,
                                                     &group_size, 0, nullptr, nullptr);
      EXPECT_EQ(accepted, CL_SUCCESS)
         << "65535 work-groups is accepted (got " << cl_host::error_name(accepted) << ")";
      cl_host::check(clFinish(queue), "clFinish");
      const cl_uint summed = cl_host::read_buffer<cl_uint>(queue, rounds, 1)[0];
      if (accepted == CL_SUCCESS) {
         EXPECT_GE(summed, 4u) << "65535 work-groups run 4 barrier rounds with 1 <= M";
         EXPECT_LE(summed, 4 * units) << "65535 work-groups run 4 barrier rounds with M <= units";
      }
   }
}

// Sections 10.1 and 11: N = 1 runs, with M = 1 at every barrier.
TEST_F(CooperativeLaunch, OneWorkGroup)
{
   const size_t one_group = 8;
   cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &one_group, &one_group, 0,
                                         nullptr, nullptr),
                  "clEnqueueNDRangeKernel(N = 1)");
   cl_host::check(clFinish(queue), "clFinish");
   EXPECT_EQ(cl_host::read_buffer<cl_uint>(queue, out, 1)[0], 4u)
      << "a launch of 1 work-group runs its 4 barrier rounds with get_num_groups() = 1";
}

// More work-groups than compute units: the scheduler runs what fits.
TEST_F(CooperativeLaunch, MoreWorkGroupsThanUnits)
{
   const size_t local = 1, many = 8 * units;
   cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &many, &local, 0, nullptr,
                                         nullptr),
                  "clEnqueueNDRangeKernel");
   cl_host::check(clFinish(queue), "clFinish");
   const cl_uint total = cl_host::read_buffer<cl_uint>(queue, out, 1)[0];
   std::printf("4 rounds summed get_num_groups() = %u (%u units, %zu requested)\n", total, units,
               many);
   EXPECT_GE(total, 4u) << "a launch of 8x the compute units completes with 1 <= M";
   EXPECT_LE(total, 4 * units) << "a launch of 8x the compute units completes with M <= units";
}

// No local size: the implementation picks one, as for any kernel, and N
// follows from it.
TEST_F(CooperativeLaunch, NullLocalSize)
{
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
   // A NULL local size runs with a local size that divides the global size
   // and 1 <= M <= min(N, units).
   ASSERT_GE(got[0], 1u) << "the local size picked";
   EXPECT_EQ(global_any % got[0], 0u) << "the local size picked divides the global size";
   EXPECT_GE(got[1], 1u) << "M";
   EXPECT_LE(got[1], std::min<size_t>(global_any / got[0], units)) << "M <= min(N, units)";
}

// Section 12: a global size that is not a multiple of the local size
// (OpenCL 2.0's non-uniform work-groups) is CL_INVALID_WORK_GROUP_SIZE for
// a cooperative kernel, whatever the device allows other kernels.
TEST_F(CooperativeLaunch, NonUniformWorkGroupsAreInvalid)
{
   const size_t uneven = 20, eight = 8;
   const cl_int status =
      clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &uneven, &eight, 0, nullptr, nullptr);
   EXPECT_EQ(status, CL_INVALID_WORK_GROUP_SIZE)
      << "a global size of 20 with work-groups of 8 is CL_INVALID_WORK_GROUP_SIZE (got "
      << cl_host::error_name(status) << ")";
   const size_t over_one = 8 * units + 1;
   const cl_int status2 =
      clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &over_one, &eight, 0, nullptr, nullptr);
   EXPECT_EQ(status2, CL_INVALID_WORK_GROUP_SIZE)
      << "a global size of 8 x units + 1 with work-groups of 8 is CL_INVALID_WORK_GROUP_SIZE "
         "(got "
      << cl_host::error_name(status2) << ")";
   // (Into a buffer large enough, in case the device allows it.)
   std::vector<cl_uint> room(64, 0);
   cl_host::Buffer ordinary_out = cl_host::create_buffer(
      context, CL_MEM_COPY_HOST_PTR, room.size() * sizeof(cl_uint), room.data());
   cl_host::set_arg(ordinary, 0, ordinary_out.get());
   const cl_int ordinary_status =
      clEnqueueNDRangeKernel(queue, ordinary, 1, nullptr, &uneven, &eight, 0, nullptr, nullptr);
   std::printf("an ordinary kernel with the same NDRange: %s\n",
               cl_host::error_name(ordinary_status));
   cl_host::check(clFinish(queue), "clFinish");
}

// Section 10.1: global offsets are allowed; get_global_id includes the
// offset, in work-groups forked by request_fork too. Under a random policy
// the launch must fork (launched again until it does).
TEST_F(CooperativeLaunch, GlobalOffsetInForkedWorkGroups)
{
   const char *policy = std::getenv("CK_POLICY");
   const bool random = policy && std::string(policy).rfind("random:", 0) == 0;
   cl_host::Kernel offsets = cl_host::create_kernel(program, "offset_ids");
   const size_t offset = 1000, group = 8, global = 4 * units * group;
   cl_uint wrong = 0, forked = 0;
   for (int attempt = 0; attempt < 8 && (attempt == 0 || (random && forked == 0)); ++attempt) {
      cl_uint zeros[2] = {0, 0};
      cl_host::Buffer errors =
         cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(zeros), zeros);
      cl_host::set_arg(offsets, 0, errors.get());
      cl_host::set_arg(offsets, 1, cl_uint(200));
      cl_host::set_arg(offsets, 2, cl_uint(offset));
      const cl_int status = clEnqueueNDRangeKernel(queue, offsets, 1, &offset, &global, &group,
                                                   0, nullptr, nullptr);
      EXPECT_EQ(status, CL_SUCCESS)
         << "a cooperative launch with a global offset is accepted (got "
         << cl_host::error_name(status) << ")";
      cl_host::check(clFinish(queue), "clFinish");
      const auto got = cl_host::read_buffer<cl_uint>(queue, errors, 2);
      wrong += got[0];
      forked += got[1];
   }
   std::printf("global offset %zu: %u forked work-groups, %u wrong ids\n", offset, forked, wrong);
   EXPECT_EQ(wrong, 0u) << "with a global offset, get_global_id(0) = offset + group id x local "
                           "size + local id and get_global_offset(0) = offset, in forked "
                           "work-groups too";
   if (random) {
      EXPECT_GT(forked, 0u) << "under a random policy, work-groups were forked with the offset";
   }
}

// Section 11: clEnqueueTask (N = 1) of a cooperative kernel is allowed; it
// runs one work-group of one work-item, so M = N = 1.
TEST_F(CooperativeLaunch, EnqueueTask)
{
   cl_host::Kernel sized = cl_host::create_kernel(program, "local_size_of");
   cl_uint task_out[2] = {0, 0};
   cl_host::Buffer task_buffer =
      cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(task_out), task_out);
   cl_host::set_arg(sized, 0, task_buffer.get());
   const cl_int task = clEnqueueTask(queue, sized, 0, nullptr, nullptr);
   EXPECT_EQ(task, CL_SUCCESS) << "clEnqueueTask of a cooperative kernel is accepted (got "
                               << cl_host::error_name(task) << ")";
   cl_host::check(clFinish(queue), "clFinish");
   const auto task_got = cl_host::read_buffer<cl_uint>(queue, task_buffer, 2);
   if (task == CL_SUCCESS) {
      EXPECT_EQ(task_got[0], 1u) << "clEnqueueTask runs the kernel with get_local_size() = 1";
      EXPECT_EQ(task_got[1], 1u) << "clEnqueueTask runs the kernel with get_num_groups() = 1";
   }
   // Section 8: its statistics are those of a launch of N = 1.
   cl_host::Queue profiled = cl_host::create_queue(context, device, /*profiling=*/true);
   cl_event raw_task_event = nullptr;
   cl_host::check(clEnqueueTask(profiled, sized, 0, nullptr, &raw_task_event),
                  "clEnqueueTask on a profiling queue");
   cl_host::Event task_event(raw_task_event);
   cl_host::check(clFinish(profiled), "clFinish");
   EXPECT_EQ(cl_host::profiling_ulong(raw_task_event, CL_PROFILING_COOPERATIVE_MIN_ACTIVE_EXT), 1u)
      << "a cooperative clEnqueueTask reports MIN_ACTIVE = 1";
   EXPECT_EQ(cl_host::profiling_ulong(raw_task_event, CL_PROFILING_COOPERATIVE_MAX_ACTIVE_EXT), 1u)
      << "a cooperative clEnqueueTask reports MAX_ACTIVE = 1";
}
