// include/cooperative_kernels.cl.h, the fallback for implementations without
// cl_ext_cooperative_kernels (spec, "Backwards compatibility").
//
//   fallback_header HEADER --without-extension
//     On an implementation without the extension (PoCL, through
//     OCL_ICD_VENDORS; exit 77 when that .icd file is absent): a kernel written with every
//     builtin, `transmit` and CK_SYNC_PARAM builds, takes the extra sync
//     argument, and with N <= compute units computes what it computes with
//     the extension: the occupancy-bound global barrier orders its rounds,
//     offer_kill and request_fork do nothing, query_kill_count() is 0.
//   fallback_header HEADER --with-extension
//     On the patched Mesa: the same kernel is cooperative (CL_TRUE,
//     CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT = compute units) and takes no
//     extra argument; built with -DCK_DEFINE_AWAY it is not cooperative
//     (CL_FALSE, 0) and takes the sync argument.
// covers: 13-define-away 13-not-cooperative 13-query-kill-count
#include "cl_host.hpp"
#include "host_test.hpp"

#include <CL/cl_ext_cooperative_kernels.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

// Every element takes its right neighbour's value plus one, once per round,
// through a second buffer and two global barriers (one of them resizing).
// After R rounds a[i] = a0[(i + R) % n] + R. Each work-group offers to be
// killed and to fork at every round; with the extension only building it
// matters here (forked work-groups would find `r` undefined).
const char *const kernel_source = R"CLC(
kernel void ring(global uint *a, global uint *b, global uint *kill_counts,
                 uint rounds CK_SYNC_PARAM)
{
   transmit uint n = get_global_size(0);
   for (uint r = 0; r < rounds; ++r) {
      const uint i = get_global_id(0);
      b[i] = a[(i + 1) % n] + 1;
      global_barrier();
      a[i] = b[i];
      resizing_global_barrier();
      offer_kill();
      request_fork();
      const uint w = query_kill_count();
      if (w != 0)
         atomic_inc(&kill_counts[get_group_id(0)]);
   }
}
)CLC";

constexpr cl_uint rounds = 50;
constexpr size_t local_size = 4;

bool has_extension(cl_device_id device)
{
   return cl_host::device_string(device, CL_DEVICE_EXTENSIONS).find("cl_ext_cooperative_kernels") !=
          std::string::npos;
}

template <typename T>
T work_group_info(cl_kernel kernel, cl_device_id device, cl_kernel_work_group_info param)
{
   T value{};
   cl_host::check(clGetKernelWorkGroupInfo(kernel, device, param, sizeof(value), &value, nullptr),
                  "clGetKernelWorkGroupInfo");
   return value;
}

void without_extension(const std::string &source)
{
   cl_device_id device = cl_host::first_device();
   std::printf("device: %s (%s)\n", cl_host::device_string(device, CL_DEVICE_NAME).c_str(),
               cl_host::device_string(device, CL_DEVICE_VERSION).c_str());
   EXPECT_FALSE(has_extension(device)) << "the device lacks cl_ext_cooperative_kernels";
   cl_host::Context context = cl_host::create_context(device);
   cl_host::Program program = cl_host::build_or_throw(context, device, source);
   cl_host::Kernel kernel = cl_host::create_kernel(program, "ring");
   EXPECT_EQ(cl_host::kernel_arg_count(kernel), 5u)
      << "CK_SYNC_PARAM adds the sync argument (5 arguments)";

   const cl_uint units = cl_host::device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);
   const size_t groups = units < 4 ? units : 4; // N <= compute units
   const size_t n = groups * local_size;
   std::printf("%u compute units; %zu work-groups of %zu\n", units, groups, local_size);
   std::vector<cl_uint> a0(n), zeros(n, 0);
   for (size_t i = 0; i < n; ++i)
      a0[i] = cl_uint(i);
   cl_host::Buffer a = cl_host::create_buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                              n * sizeof(cl_uint), a0.data());
   cl_host::Buffer b = cl_host::create_buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                              n * sizeof(cl_uint), zeros.data());
   cl_host::Buffer kill_counts = cl_host::create_buffer(
      context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, groups * sizeof(cl_uint), zeros.data());
   cl_host::Buffer sync = cl_host::create_buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                                 2 * sizeof(cl_uint), zeros.data());
   cl_host::set_arg(kernel, 0, a.get());
   cl_host::set_arg(kernel, 1, b.get());
   cl_host::set_arg(kernel, 2, kill_counts.get());
   cl_host::set_arg(kernel, 3, rounds);
   cl_host::set_arg(kernel, 4, sync.get());
   cl_host::Queue queue = cl_host::create_queue(context, device);
   const size_t global = n, local = local_size;
   cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr,
                                         nullptr),
                  "clEnqueueNDRangeKernel");
   cl_host::check(clFinish(queue), "clFinish");

   const auto result = cl_host::read_buffer<cl_uint>(queue, a, n);
   size_t wrong = 0;
   for (size_t i = 0; i < n; ++i)
      wrong += result[i] != (i + rounds) % n + rounds;
   EXPECT_EQ(wrong, 0u) << rounds << " rounds of the ring shift: wrong elements";
   const auto counts = cl_host::read_buffer<cl_uint>(queue, kill_counts, groups);
   size_t nonzero = 0;
   for (cl_uint count : counts)
      nonzero += count;
   EXPECT_EQ(nonzero, 0u) << "query_kill_count() is 0 at every call";
   const auto words = cl_host::read_buffer<cl_uint>(queue, sync, 2);
   EXPECT_EQ(words[0], 0u) << "the sync words end at 0 arrivals";
   EXPECT_EQ(words[1], 2 * rounds) << "the sync words end at 2 x rounds barrier generations";
}

void with_extension(const std::string &source)
{
   cl_device_id device = cl_host::first_device();
   EXPECT_TRUE(has_extension(device)) << "the device has cl_ext_cooperative_kernels";
   const cl_uint units = cl_host::device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);
   cl_host::Context context = cl_host::create_context(device);
   for (const bool define_away : {false, true}) {
      const std::string options = define_away ? "-DCK_DEFINE_AWAY" : "";
      const std::string label = define_away ? "with -DCK_DEFINE_AWAY" : "without options";
      cl_host::Program program = cl_host::build_or_throw(context, device, source, options);
      cl_host::Kernel kernel = cl_host::create_kernel(program, "ring");
      const auto cooperative = work_group_info<cl_bool>(kernel, device, CL_KERNEL_COOPERATIVE_EXT);
      const auto active =
         work_group_info<size_t>(kernel, device, CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT);
      SCOPED_TRACE("built " + label);
      EXPECT_EQ(cooperative, cl_bool(define_away ? CL_FALSE : CL_TRUE))
         << "the kernel is" << (define_away ? " not" : "") << " cooperative";
      EXPECT_EQ(active, define_away ? size_t(0) : size_t(units))
         << "CL_KERNEL_MAX_ACTIVE_WORK_GROUPS_EXT";
      EXPECT_EQ(cl_host::kernel_arg_count(kernel), define_away ? 5u : 4u)
         << "the kernel's arguments (the sync argument only when defined away)";
   }
}

// The command line: the header and the mode.
std::string header_path, mode;

} // namespace

// Each run checks one side (meson runs both): the other test skips, and a
// run whose every test skipped exits 77 (tests/host/host_test.hpp).
TEST(FallbackHeader, WithoutExtension)
{
   if (mode != "--without-extension")
      GTEST_SKIP() << "run with --without-extension";
   // meson points OCL_ICD_VENDORS at /etc/OpenCL/vendors/pocl.icd.
   const char *icd = std::getenv("OCL_ICD_VENDORS");
   struct stat st;
   if (!icd || stat(icd, &st) != 0)
      GTEST_SKIP() << (icd ? icd : "OCL_ICD_VENDORS (PoCL's .icd file)")
                   << " is absent: install pocl-opencl-icd (Debian) to run the fallback on an "
                      "implementation without the extension";
   without_extension(cl_host::read_file(header_path) + kernel_source);
}

TEST(FallbackHeader, WithExtension)
{
   if (mode != "--with-extension")
      GTEST_SKIP() << "run with --with-extension";
   with_extension(cl_host::read_file(header_path) + kernel_source);
}

int main(int argc, char **argv)
{
   testing::InitGoogleTest(&argc, argv);
   mode = argc == 3 ? argv[2] : "";
   if (mode != "--without-extension" && mode != "--with-extension") {
      std::fprintf(stderr, "usage: fallback_header [GTEST_OPTION...] HEADER "
                           "--without-extension|--with-extension\n");
      return 2;
   }
   header_path = argv[1];
   return host_test::run_all();
}
