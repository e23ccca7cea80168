// Cooperative kernels under stress on the patched Mesa: a work-stealing
// kernel and a barrier-heavy relaxation run at once while CK_POLICY (set by the test
// runner, e.g. random:SEED) kills and forks their work-groups at random and
// four host threads keep launching ordinary kernels on their own queues.
// Every result is checked exactly, the work stealing counts its own kill and
// fork events (the relaxation's come from event profiling), and a deadlock
// ends the test through the watchdog.
// covers: 8-prof-kills 10.1-fairness 10.1-global-size 10.2-resize-copies-wg0 10.3-never-wg0
// covers: 10.3-no-effect 10.4-workitem-functions 10.5-no-early-leave 10.6-barrier 10.6-resize
// covers: 10.6-survivors-intact 10.8-broadcast 11-barrier 13-header-noop 15-random
// covers: 15-spin-hint
#include "CL/cl_ext_cooperative_kernels.h"
#include "cl_host.hpp"
#include "host_test.hpp"
#include "resize_probe.hpp"
#include "watchdog.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>
#include <vector>

namespace {

// Besides kernels/relax_cooperative.cl:
const char *own_kernels = R"CLC(
// stats: [0] starts at the top, [1] starts through a fork, [2] normal exits
kernel void steal(volatile global uint *next, global uint *done, uint tasks,
                  volatile global uint *stats)
{
   local uint slot;
   transmit uint forker = 0;
   if (get_local_id(0) == 0)
      atomic_inc(&stats[0]);
   for (;;) {
      offer_kill();
      forker = get_group_id(0);
      request_fork();
      if (forker != get_group_id(0) && get_local_id(0) == 0)
         atomic_inc(&stats[1]); // this work-group was forked just now
      forker = get_group_id(0);
      if (get_local_id(0) == 0)
         slot = atomic_inc(next);
      barrier(CLK_LOCAL_MEM_FENCE);
      uint task = slot;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (task >= tasks)
         break;
      // A short task: every work-item does a little work, one records it.
      uint v = task;
      for (int k = 0; k < 16; ++k)
         v = v * 31u + get_local_id(0);
      if (get_local_id(0) == 0)
         atomic_inc(&done[task]);
   }
   if (get_local_id(0) == 0)
      atomic_inc(&stats[2]);
}

kernel void square(global uint *data)
{
   uint i = get_global_id(0);
   data[i] = i * i;
}
)CLC";

constexpr int ordinary_threads = 4;

// Launches `square` again and again on a queue of its own until `stop`,
// checking every result; returns the number of launches, or -1 on a wrong one.
long launch_ordinary(cl_context context, cl_device_id device, cl_program program,
                     const std::atomic<bool> &stop)
{
   cl_host::Queue queue = cl_host::create_queue(context, device);
   cl_host::Kernel kernel = cl_host::create_kernel(program, "square");
   const size_t n = 256, local = 16;
   cl_host::Buffer data = cl_host::create_buffer(context, CL_MEM_READ_WRITE, n * sizeof(cl_uint));
   cl_host::set_arg(kernel, 0, data.get());
   long launches = 0;
   while (!stop.load()) {
      std::vector<cl_uint> zeros(n, 0);
      cl_host::check(clEnqueueWriteBuffer(queue, data, CL_TRUE, 0, n * sizeof(cl_uint),
                                          zeros.data(), 0, nullptr, nullptr),
                     "clEnqueueWriteBuffer");
      cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &n, &local, 0, nullptr,
                                            nullptr),
                     "clEnqueueNDRangeKernel(square)");
      std::vector<cl_uint> result = cl_host::read_buffer<cl_uint>(queue, data, n);
      for (size_t i = 0; i < n; ++i)
         if (result[i] != i * i)
            return -1;
      ++launches;
   }
   return launches;
}

struct Events {
   cl_ulong kills = 0, forks = 0;
};

Events run_work_stealing(cl_context context, cl_device_id device, cl_program program,
                         cl_uint groups)
{
   cl_host::Queue queue = cl_host::create_queue(context, device);
   cl_host::Kernel kernel = cl_host::create_kernel(program, "steal");
   const cl_uint tasks = 400000;
   std::vector<cl_uint> zeros(tasks, 0);
   cl_host::Buffer next = cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(cl_uint),
                                                 zeros.data());
   cl_host::Buffer done = cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR,
                                                 tasks * sizeof(cl_uint), zeros.data());
   cl_host::Buffer stats = cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR,
                                                  3 * sizeof(cl_uint), zeros.data());
   cl_host::set_arg(kernel, 0, next.get());
   cl_host::set_arg(kernel, 1, done.get());
   cl_host::set_arg(kernel, 2, tasks);
   cl_host::set_arg(kernel, 3, stats.get());
   const size_t local = 16, global = groups * local;
   cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr,
                                         nullptr),
                  "clEnqueueNDRangeKernel(steal)");
   cl_host::check(clFinish(queue), "clFinish(steal)");

   std::vector<cl_uint> counts = cl_host::read_buffer<cl_uint>(queue, done, tasks);
   size_t wrong = 0;
   for (cl_uint count : counts)
      wrong += count != 1;
   std::printf("work stealing: %zu of %u tasks not done exactly once\n", wrong, tasks);
   EXPECT_EQ(wrong, 0u) << "work stealing: every task done exactly once";
   std::vector<cl_uint> s = cl_host::read_buffer<cl_uint>(queue, stats, 3);
   Events events;
   events.forks = s[1];
   events.kills = s[0] + s[1] - s[2];
   std::printf("work stealing: %u started at the top, %u forked, %llu killed\n", s[0], s[1],
               (unsigned long long)events.kills);
   return events;
}

Events run_relaxation(cl_context context, cl_device_id device, cl_program program,
                      cl_uint groups, const char *variant)
{
   cl_host::Queue queue = cl_host::create_queue(context, device, /*profiling=*/true);
   cl_host::Kernel kernel = cl_host::create_kernel(program, "relax");
   const int n = 4096, steps = 1500;
   std::vector<int> cells(n);
   for (int i = 0; i < n; ++i)
      cells[i] = (i * 7919) % 100000;
   cl_host::Buffer a = cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, n * sizeof(int),
                                              cells.data());
   cl_host::Buffer b = cl_host::create_buffer(context, CL_MEM_READ_WRITE, n * sizeof(int));
   cl_host::set_arg(kernel, 0, a.get());
   cl_host::set_arg(kernel, 1, b.get());
   cl_host::set_arg(kernel, 2, n);
   cl_host::set_arg(kernel, 3, steps);
   const size_t local = 32, global = groups * local;
   cl_event launch = nullptr;
   cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr,
                                         &launch),
                  "clEnqueueNDRangeKernel(relax)");
   const cl_host::Event event(launch);
   cl_host::check(clFinish(queue), "clFinish(relax)");
   std::vector<int> next(n);
   for (int step = 0; step < steps; ++step) {
      for (int i = 0; i < n; ++i)
         next[i] = (i == 0 || i == n - 1) ? cells[i]
                                          : (cells[i - 1] + 2 * cells[i] + cells[i + 1]) >> 2;
      cells.swap(next);
   }
   std::vector<int> result = cl_host::read_buffer<int>(queue, steps % 2 ? b : a, n);
   EXPECT_TRUE(result == cells) << "relaxation" << variant
                                << ": exact result after 1500 resizing barriers";
   Events events;
   events.kills = cl_host::profiling_ulong(event, CL_PROFILING_COOPERATIVE_KILLS_EXT);
   events.forks = cl_host::profiling_ulong(event, CL_PROFILING_COOPERATIVE_FORKS_EXT);
   std::printf("relaxation%s: %llu kills, %llu forks\n", variant,
               (unsigned long long)events.kills, (unsigned long long)events.forks);
   return events;
}

// The directories given on the command line.
std::string kernels_dir, include_dir;

} // namespace

// One test: how the kernels share the units is what it tests.
TEST(Stress, CooperativeKernelsBesideOrdinaryOnes)
{
   const char *policy = std::getenv("CK_POLICY");
   std::printf("CK_POLICY=%s\n", policy ? policy : "(default)");
   cl_device_id device = cl_host::first_device();
   const cl_uint units = cl_host::device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);
   cl_host::Context context = cl_host::create_context(device);
   const std::string source =
      cl_host::read_file(include_dir + "/cooperative_kernels.cl.h") +
      cl_host::read_file(kernels_dir + "/relax_cooperative.cl") + own_kernels;
   cl_host::Program program = cl_host::build_or_throw(context, device, source);
   // The same kernels with FSE'17's first resizing barrier (no query).
   cl_host::Program without_query =
      cl_host::build_or_throw(context, device, "#define CK_RESIZING_WITHOUT_QUERY\n" + source);

   cl_host::Watchdog watchdog("the stress test", std::chrono::seconds(240));
   std::atomic<bool> stop{false};
   std::vector<long> launches(ordinary_threads, 0);
   std::vector<std::thread> threads;
   for (int t = 0; t < ordinary_threads; ++t)
      threads.emplace_back([&, t] { launches[t] = launch_ordinary(context, device, program, stop); });

   // How many kills and forks one run sees depends on timing (from ~30
   // when other tests share the CPUs to thousands): under a random
   // policy, run the work stealing again (each run checked) until the
   // kernel has been resized often enough, for at most a minute.
   const cl_ulong minimum = policy && std::string(policy).rfind("random:", 0) == 0 ? 350 : 0;
   const auto rounds_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
   cl_ulong events = 0;
   int rounds = 0;
   // Two cooperative kernels at once share the units: the relaxation
   // runs on a host thread of its own while the work stealing runs.
   std::exception_ptr relaxation_error;
   Events relaxation_events;
   std::thread relaxation([&] {
      try {
         relaxation_events = run_relaxation(context, device, program, 4 * units, "");
      } catch (...) {
         relaxation_error = std::current_exception();
      }
   });
   do {
      const Events stealing = run_work_stealing(context, device, program, 4 * units);
      events += stealing.kills + stealing.forks;
      ++rounds;
   } while (events < minimum && std::chrono::steady_clock::now() < rounds_deadline);
   relaxation.join();
   if (relaxation_error)
      std::rethrow_exception(relaxation_error);
   // The same for the relaxation: FSE'17's first resizing barrier runs
   // again (each run checked) until the two barriers have seen enough.
   cl_ulong relaxation_total = relaxation_events.kills + relaxation_events.forks;
   const auto relaxation_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
   int relaxation_rounds = 0;
   do {
      const Events without_query_events =
         run_relaxation(context, device, without_query, 4 * units, " without query");
      relaxation_total += without_query_events.kills + without_query_events.forks;
      ++relaxation_rounds;
   } while (relaxation_total < minimum &&
            std::chrono::steady_clock::now() < relaxation_deadline);
   stop = true;
   for (std::thread &thread : threads)
      thread.join();

   long total = 0;
   bool all_right = true;
   for (long count : launches) {
      all_right &= count >= 0;
      total += count;
   }
   std::printf("ordinary kernels from %d host threads: %ld launches\n", ordinary_threads,
               total);
   EXPECT_TRUE(all_right) << "every ordinary launch computed the right result";
   EXPECT_GT(total, 0) << "ordinary kernels ran while the cooperative ones did";
   std::printf("work stealing: %llu kill and fork events in %d runs (at least %llu wanted)\n",
               (unsigned long long)events, rounds, (unsigned long long)minimum);
   EXPECT_GE(events, minimum) << "work stealing: enough kill and fork events under this policy";
   std::printf("relaxation: %llu kill and fork events, %d runs without query (at least %llu "
               "wanted)\n",
               (unsigned long long)relaxation_total, relaxation_rounds,
               (unsigned long long)minimum);
   EXPECT_GE(relaxation_total, minimum)
      << "relaxation: enough kill and fork events under this policy";
}

int main(int argc, char **argv)
{
   testing::InitGoogleTest(&argc, argv);
   if (argc != 3) {
      std::fprintf(stderr, "usage: stress [GTEST_OPTION...] KERNELS_DIR INCLUDE_DIR\n");
      return 2;
   }
   kernels_dir = argv[1];
   include_dir = argv[2];
   return host_test::run_all();
}
