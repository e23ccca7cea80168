// ck-bench: micro-benchmarks of cooperative kernels on the patched Mesa,
// measured side by side in one run. Launched by `tools/ck bench`, which sets
// LP_NUM_THREADS (the compute units) and the default policy for each run
// (the resizing probes need it; alone on every unit, nothing else resizes).
//
//  - launch: enqueue-to-finish of an empty one-work-group kernel (the cost a
//    fork is compared with);
//  - global barrier: cooperative global_barrier() against the occupancy-bound
//    barrier of persistent-thread code, and against host barriers with as many
//    threads (pthread_barrier_wait, a spinning barrier that yields);
//  - fast paths: the relaxation with a resizing barrier per step, cooperative
//    against the same source compiled as persistent-thread code (only with
//    no more units than CPUs: with more, persistent-thread barriers spin
//    through whole time slices and the comparison measures nothing else);
//  - resizing: an ordinary kernel that needs k units at once takes them from
//    a cooperative kernel (k = 1, N/4, N/2, N-1): the gather time, and the
//    fork latency when the units come back, from the launch statistics.
// Every figure is the median over --repeats runs, with the minimum and maximum.
#include "cl_host.hpp"
#include "resize_probe.hpp"
#include "statistics.hpp"
#include "watchdog.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
   std::string kernels = "kernels";
   std::string include = "include";
   int repeats = 5;
};

using ck_statistics::Spread;
using ck_statistics::spread_of;

// A deadlock ends the process through the watchdog: one per measurement, not
// per launch (starting its thread would cost more than a launch).
Spread measure(int repeats, const std::function<double()> &run_once)
{
   cl_host::Watchdog watchdog("a benchmark", std::chrono::seconds(300));
   std::vector<double> samples;
   for (int i = 0; i < repeats; ++i)
      samples.push_back(run_once());
   return spread_of(samples);
}

void print_row(const char *what, const Spread &s, const char *unit)
{
   std::printf("  %-44s %10.2f %s  (min %.2f, max %.2f)\n", what, s.median, unit, s.min, s.max);
}

double seconds_since(Clock::time_point start)
{
   return std::chrono::duration<double>(Clock::now() - start).count();
}

// Microseconds per barrier of `threads` host threads doing `rounds` barriers.
double host_barrier_us(unsigned threads, int rounds, bool use_pthread)
{
   pthread_barrier_t pthread_barrier;
   pthread_barrier_init(&pthread_barrier, nullptr, threads);
   std::atomic<unsigned> arrived{0};
   std::atomic<unsigned> generation{0};
   auto spin_yield_barrier = [&] {
      const unsigned gen = generation.load();
      if (arrived.fetch_add(1) + 1 == threads) {
         arrived.store(0);
         generation.fetch_add(1);
      } else {
         while (generation.load() == gen)
            sched_yield();
      }
   };
   const auto start = Clock::now();
   std::vector<std::thread> workers;
   for (unsigned t = 0; t < threads; ++t)
      workers.emplace_back([&] {
         for (int r = 0; r < rounds; ++r) {
            if (use_pthread)
               pthread_barrier_wait(&pthread_barrier);
            else
               spin_yield_barrier();
         }
      });
   for (std::thread &worker : workers)
      worker.join();
   const double us = 1e6 * seconds_since(start) / rounds;
   pthread_barrier_destroy(&pthread_barrier);
   return us;
}

class Bench {
public:
   Bench(const Options &options)
      : options_(options), device_(cl_host::first_device()),
        context_(cl_host::create_context(device_)),
        queue_(cl_host::create_queue(context_, device_))
   {
      const std::string header = cl_host::read_file(options.include + "/cooperative_kernels.cl.h");
      const std::string kernels = cl_host::read_file(options.kernels + "/relax_cooperative.cl") +
                                  cl_host::read_file(options.kernels + "/bench.cl");
      cooperative_ = cl_host::build_or_throw(context_, device_, header + kernels);
      persistent_ =
         cl_host::build_or_throw(context_, device_, "#define CK_DEFINE_AWAY\n" + header + kernels);
      units_ = cl_host::device_uint(device_, CL_DEVICE_MAX_COMPUTE_UNITS);
   }

   cl_uint units() const { return units_; }

   cl_host::ResizeProbe resize(cl_uint ordinary_groups)
   {
      cl_host::Watchdog watchdog("a resizing probe", std::chrono::seconds(120));
      return cl_host::probe_resize(context_, device_, cooperative_, ordinary_groups);
   }

   double empty_launch_us()
   {
      cl_host::Kernel kernel = cl_host::create_kernel(cooperative_, "empty");
      cl_host::Buffer out = cl_host::create_buffer(context_, CL_MEM_READ_WRITE, 4);
      cl_host::set_arg(kernel, 0, out.get());
      const size_t one = 1;
      const int launches = 200;
      run(kernel, one, one); // compile
      const auto start = Clock::now();
      for (int i = 0; i < launches; ++i)
         run(kernel, one, one);
      return 1e6 * seconds_since(start) / launches;
   }

   // Microseconds per global barrier, one work-group per unit, over about
   // `target` of barriers: a short run first tells how many that is (the
   // persistent-thread barrier takes milliseconds once units outnumber CPUs).
   double barrier_us(bool cooperative, std::chrono::milliseconds target)
   {
      const double estimate_us = barrier_us(cooperative, 20);
      const int rounds =
         int(std::clamp(1e3 * target.count() / std::max(estimate_us, 0.01), 20.0, 20000.0));
      return barrier_us(cooperative, rounds);
   }

   double barrier_us(bool cooperative, int rounds)
   {
      cl_host::Kernel kernel = cl_host::create_kernel(cooperative ? cooperative_ : persistent_, "barriers");
      cl_host::Buffer out = cl_host::create_buffer(context_, CL_MEM_READ_WRITE, 4);
      cl_host::set_arg(kernel, 0, out.get());
      cl_host::Buffer sync = zeroed(2);
      if (!cooperative)
         cl_host::set_arg(kernel, 2, sync.get());
      const size_t local = 1, global = units_;
      cl_host::set_arg(kernel, 1, 1);
      run(kernel, global, local); // compile
      reset(sync, 2);
      cl_host::set_arg(kernel, 1, rounds);
      const auto start = Clock::now();
      run(kernel, global, local);
      return 1e6 * seconds_since(start) / rounds;
   }

   // Milliseconds for the relaxation, one work-group per unit.
   double relax_ms(bool cooperative, int n, int steps)
   {
      cl_host::Kernel kernel = cl_host::create_kernel(cooperative ? cooperative_ : persistent_, "relax");
      std::vector<int> cells(n, 1);
      cl_host::Buffer a = cl_host::create_buffer(context_, CL_MEM_COPY_HOST_PTR, n * sizeof(int),
                                                 cells.data());
      cl_host::Buffer b = cl_host::create_buffer(context_, CL_MEM_READ_WRITE, n * sizeof(int));
      cl_host::Buffer sync = zeroed(2);
      cl_host::set_arg(kernel, 0, a.get());
      cl_host::set_arg(kernel, 1, b.get());
      cl_host::set_arg(kernel, 2, n);
      if (!cooperative)
         cl_host::set_arg(kernel, 4, sync.get());
      const size_t local = 64, global = units_ * local;
      cl_host::set_arg(kernel, 3, 1);
      run(kernel, global, local); // compile
      reset(sync, 2);
      cl_host::set_arg(kernel, 3, steps);
      const auto start = Clock::now();
      run(kernel, global, local);
      return 1e3 * seconds_since(start);
   }

private:
   cl_host::Buffer zeroed(size_t words)
   {
      std::vector<cl_uint> zeros(words, 0);
      return cl_host::create_buffer(context_, CL_MEM_COPY_HOST_PTR, words * 4, zeros.data());
   }

   void reset(cl_mem buffer, size_t words)
   {
      std::vector<cl_uint> zeros(words, 0);
      cl_host::check(clEnqueueWriteBuffer(queue_, buffer, CL_TRUE, 0, words * 4, zeros.data(), 0,
                                          nullptr, nullptr),
                     "clEnqueueWriteBuffer");
   }

   void run(cl_kernel kernel, size_t global, size_t local)
   {
      cl_host::check(clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, &local, 0,
                                            nullptr, nullptr),
                     "clEnqueueNDRangeKernel");
      cl_host::check(clFinish(queue_), "clFinish");
   }

   Options options_;
   cl_device_id device_;
   cl_host::Context context_;
   cl_host::Queue queue_;
   cl_host::Program cooperative_, persistent_;
   cl_uint units_ = 0;
};

} // namespace

int main(int argc, char **argv)
{
   Options options;
   for (int i = 1; i + 1 < argc; i += 2) {
      std::string flag = argv[i];
      if (flag == "--kernels")
         options.kernels = argv[i + 1];
      else if (flag == "--include")
         options.include = argv[i + 1];
      else if (flag == "--repeats")
         options.repeats = std::max(1, std::atoi(argv[i + 1]));
      else {
         std::fprintf(stderr, "usage: ck-bench [--kernels DIR] [--include DIR] [--repeats N]\n");
         return 2;
      }
   }
   try {
      Bench bench(options);
      const unsigned units = bench.units();
      const int repeats = options.repeats;
      std::printf("compute units: %u, %d repeats each\n", units, repeats);

      const Spread launch = measure(repeats, [&] { return bench.empty_launch_us(); });
      print_row("empty 1-group launch, enqueue to finish", launch, "us");

      const auto barrier_time = std::chrono::milliseconds(100);
      const Spread cooperative_barrier =
         measure(repeats, [&] { return bench.barrier_us(true, barrier_time); });
      const Spread persistent_barrier =
         measure(repeats, [&] { return bench.barrier_us(false, barrier_time); });
      const Spread pthread_barrier =
         measure(repeats, [&] { return host_barrier_us(units, 20000, true); });
      const Spread yield_barrier =
         measure(repeats, [&] { return host_barrier_us(units, 20000, false); });
      print_row("global_barrier (cooperative)", cooperative_barrier, "us");
      print_row("occupancy-bound barrier (persistent threads)", persistent_barrier, "us");
      print_row("host pthread_barrier_wait", pthread_barrier, "us");
      print_row("host spin-and-yield barrier", yield_barrier, "us");
      std::printf("  ratio global_barrier / spin-and-yield: %.2f (goal <= 2)\n",
                  cooperative_barrier.median / yield_barrier.median);

      // Runs alternate, so that the machine's drift falls on both builds.
      const int n = 16384, steps = 1000;
      const unsigned cpus = std::thread::hardware_concurrency();
      const bool both = units <= cpus;
      std::vector<double> cooperative_ms, persistent_ms, ratios;
      {
         cl_host::Watchdog watchdog("the relaxations", std::chrono::seconds(300));
         for (int r = 0; r < repeats; ++r) {
            cooperative_ms.push_back(bench.relax_ms(true, n, steps));
            if (both) {
               persistent_ms.push_back(bench.relax_ms(false, n, steps));
               ratios.push_back(cooperative_ms.back() / persistent_ms.back());
            }
         }
      }
      print_row("relaxation, cooperative (resizing barriers)", spread_of(cooperative_ms), "ms");
      if (both) {
         print_row("relaxation, persistent threads", spread_of(persistent_ms), "ms");
         const Spread ratio = spread_of(ratios);
         std::printf("  slowdown cooperative / persistent: %.3f (min %.3f, max %.3f; fast-path "
                     "cost, runs paired)\n",
                     ratio.median, ratio.min, ratio.max);
      } else {
         std::printf("  relaxation, persistent threads: skipped (%u units on %u CPUs: its\n"
                     "  barriers spin through whole time slices, see the barrier above)\n",
                     units, cpus);
      }

      const char *policy = std::getenv("CK_POLICY");
      if (policy && std::string(policy) != "default") {
         std::printf("  resizing: skipped (CK_POLICY=%s; the probes need the default policy)\n",
                     policy);
      } else if (units >= 2) {
         std::vector<cl_uint> asked;
         for (cl_uint k : {1u, units / 4, units / 2, units - 1})
            if (k >= 1 && std::find(asked.begin(), asked.end(), k) == asked.end())
               asked.push_back(k);
         std::printf("  resizing: an ordinary kernel takes k units from a cooperative kernel on "
                     "all %u\n", units);
         std::vector<double> all_forks;
         for (cl_uint k : asked) {
            std::vector<double> gathers, forks;
            for (int r = 0; r < repeats; ++r) {
               const cl_host::ResizeProbe probe = bench.resize(k);
               for (cl_ulong ns : probe.gather_ns)
                  gathers.push_back(ns / 1e6);
               for (cl_ulong ns : probe.fork_ns)
                  forks.push_back(ns / 1e3);
            }
            all_forks.insert(all_forks.end(), forks.begin(), forks.end());
            const std::string label = "k=" + std::to_string(k);
            print_row((label + ": gather time").c_str(), spread_of(gathers), "ms");
            print_row((label + ": fork latency").c_str(), spread_of(forks), "us");
         }
         const Spread fork = spread_of(all_forks);
         std::printf("  ratio fork latency / empty launch: %.2f (goal <= 2)\n",
                     fork.median / launch.median);
      }
   } catch (const std::exception &error) {
      std::fprintf(stderr, "ck-bench: %s\n", error.what());
      return 1;
   }
   return 0;
}
