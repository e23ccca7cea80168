// ck-bench: micro-benchmarks of cooperative kernels on the patched Mesa,
// measured side by side in one run. Launched by `tools/ck bench`, which sets
// LP_NUM_THREADS (the compute units) and the default policy for each run
// (the resizing probes need it; alone on every unit, nothing else resizes).
//
//  - independent: ordinary launches of 32 and 1024 work-groups of independent
//    work-items; across LP_NUM_THREADS (at most 32 in llvmpipe), what more
//    compute units than CPUs cost: a fair guarantee for an ordinary launch
//    of N work-groups would need N units;
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
// Google Benchmark runs each measurement --repeats times (repetitions
// interleaved at random, so that the machine's drift falls on all of them)
// and reports the median, mean and spread; the ratios that compare
// measurements are printed after them, from the medians.
#include "cl_host.hpp"
#include "resize_probe.hpp"
#include "statistics.hpp"
#include "watchdog.hpp"

#include <benchmark/benchmark.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
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

   // Milliseconds for an ordinary launch of `groups` work-groups of 64
   // independent work-items (compiled in an untimed first launch).
   double independent_ms(cl_uint groups)
   {
      cl_host::Kernel kernel = cl_host::create_kernel(persistent_, "independent");
      const size_t local = 64, global = groups * local;
      std::vector<float> values(global, 1.0f);
      cl_host::Buffer data = cl_host::create_buffer(context_, CL_MEM_COPY_HOST_PTR,
                                                    global * sizeof(float), values.data());
      cl_host::set_arg(kernel, 0, data.get());
      cl_host::set_arg(kernel, 1, 256);
      run(kernel, global, local);
      const auto start = Clock::now();
      run(kernel, global, local);
      return 1e3 * seconds_since(start);
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

// One benchmark whose single iteration is a measurement in seconds;
// `counters` adds the measurement's other figures.
template <typename Measure>
void register_measurement(const std::string &name, int repeats, Measure measure)
{
   benchmark::RegisterBenchmark(name.c_str(), [name, measure](benchmark::State &state) {
      cl_host::Watchdog watchdog("benchmark " + name, std::chrono::seconds(300));
      for (auto _ : state)
         state.SetIterationTime(measure(state));
   })
      ->UseManualTime()
      ->Iterations(1)
      ->Repetitions(repeats)
      ->ComputeStatistics("min", [](const std::vector<double> &v) { return ck_statistics::min_of(v); })
      ->ComputeStatistics("max", [](const std::vector<double> &v) { return ck_statistics::max_of(v); })
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMicrosecond);
}

// The console table, and the medians it shows, for the ratios after it.
class MedianReporter : public benchmark::ConsoleReporter {
public:
   MedianReporter() : ConsoleReporter(OO_Tabular) {}

   void ReportRuns(const std::vector<Run> &runs) override
   {
      for (const Run &run : runs)
         // The median over repetitions, or the one run there is.
         if (run.aggregate_name == "median" ||
             (run.run_type == Run::RT_Iteration && run.repetitions == 1)) {
            const std::string &benchmark = run.run_name.function_name;
            medians_[benchmark] = run.GetAdjustedRealTime();
            for (const auto &[name, counter] : run.counters)
               medians_[benchmark + ":" + name] = counter.value;
         }
      ConsoleReporter::ReportRuns(runs);
   }

   // The median of `name` (or of its counter, "name:counter"); NaN if absent.
   double median(const std::string &name) const
   {
      const auto found = medians_.find(name);
      return found == medians_.end() ? NAN : found->second;
   }

private:
   std::map<std::string, double> medians_;
};

} // namespace

int main(int argc, char **argv)
{
   // Our flags, then Google Benchmark's (--benchmark_filter=..., ...).
   Options options;
   std::vector<char *> benchmark_args = {argv[0]};
   // A default that --benchmark_enable_random_interleaving=false overrides.
   std::string interleave = "--benchmark_enable_random_interleaving=true";
   benchmark_args.push_back(interleave.data());
   for (int i = 1; i < argc; ++i) {
      const std::string flag = argv[i];
      const bool has_value = i + 1 < argc;
      if (flag == "--kernels" && has_value)
         options.kernels = argv[++i];
      else if (flag == "--include" && has_value)
         options.include = argv[++i];
      else if (flag == "--repeats" && has_value)
         options.repeats = std::max(1, std::atoi(argv[++i]));
      else if (flag.rfind("--benchmark_", 0) == 0)
         benchmark_args.push_back(argv[i]);
      else {
         std::fprintf(stderr, "usage: ck-bench [--kernels DIR] [--include DIR] [--repeats N] "
                              "[--benchmark_...]\n");
         return 2;
      }
   }
   int benchmark_argc = int(benchmark_args.size());
   benchmark::Initialize(&benchmark_argc, benchmark_args.data());
   try {
      Bench bench(options);
      const unsigned units = bench.units();
      const int repeats = options.repeats;
      std::printf("compute units: %u, %d repetitions each (time: the median)\n", units, repeats);

      using State = benchmark::State;
      register_measurement("launch/empty_1_group", repeats,
                           [&](State &) { return bench.empty_launch_us() / 1e6; });
      const auto barrier_time = std::chrono::milliseconds(100);
      register_measurement("barrier/global_barrier_cooperative", repeats, [&](State &) {
         return bench.barrier_us(true, barrier_time) / 1e6;
      });
      register_measurement("barrier/occupancy_bound_persistent", repeats, [&](State &) {
         return bench.barrier_us(false, barrier_time) / 1e6;
      });
      register_measurement("barrier/host_pthread_barrier", repeats,
                           [&](State &) { return host_barrier_us(units, 20000, true) / 1e6; });
      register_measurement("barrier/host_spin_and_yield", repeats,
                           [&](State &) { return host_barrier_us(units, 20000, false) / 1e6; });

      // Ordinary work, whatever the compute units: with LP_NUM_THREADS=32,
      // each of 32 work-groups has a unit of its own, as a fair guarantee
      // for ordinary kernels would need.
      for (cl_uint groups : {32u, 1024u})
         register_measurement("independent/" + std::to_string(groups) + "_groups_of_64", repeats,
                              [&, groups](State &) { return bench.independent_ms(groups) / 1e3; });

      // The two builds of the relaxation run in one repetition, so that each
      // ratio compares runs made at the same time.
      const int n = 16384, steps = 1000;
      const unsigned cpus = std::thread::hardware_concurrency();
      const bool paired = units <= cpus;
      register_measurement("relaxation/cooperative", repeats, [&, paired](State &state) {
         const double cooperative_ms = bench.relax_ms(true, n, steps);
         state.counters["cooperative_ms"] = cooperative_ms;
         if (paired) {
            const double persistent_ms = bench.relax_ms(false, n, steps);
            state.counters["persistent_ms"] = persistent_ms;
            state.counters["slowdown"] = cooperative_ms / persistent_ms;
         }
         return cooperative_ms / 1e3;
      });

      const char *policy = std::getenv("CK_POLICY");
      const bool probes = units >= 2 && (!policy || std::string(policy) == "default");
      std::vector<cl_uint> asked;
      if (probes)
         for (cl_uint k : {1u, units / 4, units / 2, units - 1})
            if (k >= 1 && std::find(asked.begin(), asked.end(), k) == asked.end())
               asked.push_back(k);
      for (cl_uint k : asked)
         register_measurement("resize/ordinary_takes_k=" + std::to_string(k), repeats,
                              [&, k](State &state) {
                                 const cl_host::ResizeProbe probe = bench.resize(k);
                                 std::vector<double> gathers, forks;
                                 for (cl_ulong ns : probe.gather_ns)
                                    gathers.push_back(ns / 1e6);
                                 for (cl_ulong ns : probe.fork_ns)
                                    forks.push_back(ns / 1e3);
                                 state.counters["gather_ms"] = ck_statistics::median(gathers);
                                 state.counters["fork_us"] = ck_statistics::median(forks);
                                 return ck_statistics::median(gathers) / 1e3;
                              });

      MedianReporter reporter;
      benchmark::RunSpecifiedBenchmarks(&reporter);
      benchmark::Shutdown();

      // A ratio whose parts a --benchmark_filter left out is not printed.
      const auto print_ratio = [](const char *what, double ratio, const char *note) {
         if (std::isfinite(ratio))
            std::printf("  %s: %.3f (%s)\n", what, ratio, note);
      };
      std::printf("\nratios of the medians:\n");
      print_ratio("global_barrier / host spin-and-yield barrier",
                  reporter.median("barrier/global_barrier_cooperative") /
                     reporter.median("barrier/host_spin_and_yield"),
                  "goal <= 2");
      if (paired)
         print_ratio("relaxation, cooperative / persistent threads",
                     reporter.median("relaxation/cooperative:slowdown"),
                     "the fast paths' cost; runs paired");
      else
         std::printf("  relaxation, persistent threads: skipped (%u units on %u CPUs: its "
                     "barriers spin through whole time slices)\n",
                     units, cpus);
      if (probes) {
         std::vector<double> forks;
         for (cl_uint k : asked)
            forks.push_back(reporter.median("resize/ordinary_takes_k=" + std::to_string(k) +
                                            ":fork_us"));
         print_ratio("fork latency / empty launch",
                     ck_statistics::median(ck_statistics::finite(forks)) /
                        reporter.median("launch/empty_1_group"),
                     "goal <= 2");
      } else {
         std::printf("  resizing: skipped (%s)\n",
                     units < 2 ? "one compute unit" : "the probes need CK_POLICY=default");
      }
   } catch (const std::exception &error) {
      std::fprintf(stderr, "ck-bench: %s\n", error.what());
      return 1;
   }
   return 0;
}
