// ck-demo: the main job of `tools/ck demo`.
//
// Runs kernels/relax_cooperative.cl (a relaxation with one resizing global
// barrier per step) on a generated input while another host thread, with a
// context and queue of its own, launches a short non-cooperative kernel
// (kernels/apps/matmul.cl) at a frame-like period. With --single-thread, one host
// thread does both: it enqueues the cooperative kernel, flushes, and launches
// the frames until the kernel's event completes, which needs an enqueue that
// returns at once (rusticl). The cooperative kernel asks for more work-groups
// than the device has compute units; the driver's scheduler runs as many as
// it can and lends units to every frame. The result is checked against a
// sequential reference, and the frame latencies printed. With --priority,
// the frames' queue has CL_QUEUE_PRIORITY_HIGH_KHR and the cooperative
// kernel's CL_QUEUE_PRIORITY_LOW_KHR (cl_khr_priority_hints).
// With CK_TRACE set, the scheduler writes its occupancy trace at exit.
// covers: 10.1-global-size 10.2-resize-copies-wg0 10.6-barrier 10.6-resize
// covers: 10.6-survivors-intact 13-header-noop
#include "cl_host.hpp"
#include "graphics.hpp"
#include "statistics.hpp"
#include "watchdog.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
   std::string kernels = "kernels";
   std::string include = "include";
   int n = 16384;
   int steps = 10000;
   cl_uint groups = 0; // 0: four per compute unit
   size_t local_size = 64;
   int frame_period_ms = 20;
   int frame_size = 64; // matmul dimension
   int timeout_s = 300;
   bool single_thread = false;
   bool priority = false;
};

void usage(FILE *out)
{
   std::fprintf(out,
                "usage: ck-demo [--kernels DIR] [--include DIR] [--n CELLS] [--steps STEPS] [--groups N]\n"
                "               [--local-size L] [--frame-period MS] [--frame-size S]\n"
                "               [--timeout SECONDS] [--single-thread] [--priority]\n"
                "Relaxes CELLS integers for STEPS steps in a cooperative kernel of N\n"
                "work-groups (default: 4 per compute unit) while another thread (with\n"
                "--single-thread: the same thread) launches an SxS matrix product every\n"
                "MS milliseconds (0: no frames). --priority: the frames' queue has a high\n"
                "priority, the cooperative kernel's a low one (cl_khr_priority_hints).\n");
}

long parse_number(const char *flag, const char *text, long min)
{
   char *end = nullptr;
   long value = std::strtol(text, &end, 10);
   if (!*text || *end || value < min) {
      std::fprintf(stderr, "ck-demo: %s needs an integer >= %ld, got '%s'\n", flag, min, text);
      std::exit(2);
   }
   return value;
}

Options parse(int argc, char **argv)
{
   Options options;
   for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg == "--help") {
         usage(stdout);
         std::exit(0);
      }
      if (arg == "--single-thread") {
         options.single_thread = true;
         continue;
      }
      if (arg == "--priority") {
         options.priority = true;
         continue;
      }
      if (i + 1 >= argc) {
         usage(stderr);
         std::exit(2);
      }
      const char *value = argv[++i];
      if (arg == "--kernels")
         options.kernels = value;
      else if (arg == "--include")
         options.include = value;
      else if (arg == "--n")
         options.n = parse_number("--n", value, 3);
      else if (arg == "--steps")
         options.steps = parse_number("--steps", value, 1);
      else if (arg == "--groups")
         options.groups = parse_number("--groups", value, 1);
      else if (arg == "--local-size")
         options.local_size = parse_number("--local-size", value, 1);
      else if (arg == "--frame-period")
         options.frame_period_ms = parse_number("--frame-period", value, 0);
      else if (arg == "--frame-size")
         options.frame_size = parse_number("--frame-size", value, 8);
      else if (arg == "--timeout")
         options.timeout_s = parse_number("--timeout", value, 1);
      else {
         usage(stderr);
         std::exit(2);
      }
   }
   return options;
}

std::vector<int> generate_input(int n)
{
   std::vector<int> cells(n);
   uint32_t state = 12345;
   for (int &cell : cells) {
      state = state * 1664525u + 1013904223u;
      cell = static_cast<int>(state >> 12) % 1000000;
   }
   return cells;
}

std::vector<int> reference(std::vector<int> cells, int steps)
{
   std::vector<int> next(cells.size());
   const int n = static_cast<int>(cells.size());
   for (int step = 0; step < steps; ++step) {
      for (int i = 0; i < n; ++i)
         next[i] = (i == 0 || i == n - 1) ? cells[i]
                                          : (cells[i - 1] + 2 * cells[i] + cells[i + 1]) >> 2;
      cells.swap(next);
   }
   return cells;
}

double milliseconds_since(Clock::time_point start)
{
   return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The frames: FSE'17's graphics stand-in (kernels/apps/matmul.cl through
// ck_apps::Graphics, on a context and queue of its own), a frame_size square
// product over every compute unit. Construction runs a first, untimed frame:
// llvmpipe compiles the kernel at its first launch.
class FrameLoad {
public:
   FrameLoad(cl_device_id device, const Options &options, cl_uint units)
      : graphics_(device, apps_config(options), 64,
                  options.priority ? CL_QUEUE_PRIORITY_HIGH_KHR : 0),
        units_(units)
   {
      graphics_.set_size(options.frame_size);
      run();
   }

   // Runs one frame; returns its enqueue-to-finish latency in milliseconds.
   double run() { return graphics_.launch(units_, false).host_ms; }

   // Throws unless one more frame computes the product its reference gives.
   void check_product()
   {
      const ck_apps::Frame frame = graphics_.launch(units_, true);
      if (!frame.correct)
         throw std::runtime_error("a frame computed a wrong matrix product: " + frame.mismatch);
   }

private:
   static ck_apps::AppConfig apps_config(const Options &options)
   {
      ck_apps::AppConfig config;
      config.kernels_dir = options.kernels;
      config.include_dir = options.include;
      return config;
   }

   ck_apps::Graphics graphics_;
   cl_uint units_;
};

// Runs frames, one per period, until `finished` returns true (at least one);
// returns their latencies.
template <typename Finished>
std::vector<double> run_frames(FrameLoad &load, const Options &options, Finished finished)
{
   std::vector<double> latencies;
   auto next = Clock::now();
   do {
      latencies.push_back(load.run());
      next += std::chrono::milliseconds(options.frame_period_ms);
      std::this_thread::sleep_until(next);
   } while (!finished());
   load.check_product();
   return latencies;
}


} // namespace

int main(int argc, char **argv)
{
   Options options = parse(argc, argv);
   try {
      cl_device_id device = cl_host::first_device();
      const cl_uint units = cl_host::device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);
      const cl_uint groups = options.groups ? options.groups : 4 * units;
      std::printf("device: %s, %u compute units\n",
                  cl_host::device_string(device, CL_DEVICE_NAME).c_str(), units);
      std::printf("cooperative relaxation: %d cells, %d steps, %u work-groups of %zu "
                  "(more than the %u units: the scheduler decides how many run)\n",
                  options.n, options.steps, groups, options.local_size, units);

      cl_host::Context context = cl_host::create_context(device);
      // Profiling: a cooperative launch's START and END stamps are its run
      // on the compute units (first work-group to completion), without the
      // compile that its enqueue may include.
      cl_host::Queue queue = cl_host::create_queue(
         context, device, /*profiling=*/true, options.priority ? CL_QUEUE_PRIORITY_LOW_KHR : 0);
      if (options.priority)
         std::printf("queue priorities: frames high, cooperative kernel low\n");
      cl_host::Program program = cl_host::build_or_throw(
         context, device,
         cl_host::read_file(options.include + "/cooperative_kernels.cl.h") +
            cl_host::read_file(options.kernels + "/relax_cooperative.cl"));
      cl_host::Kernel kernel = cl_host::create_kernel(program, "relax");

      std::vector<int> input = generate_input(options.n);
      const size_t bytes = input.size() * sizeof(int);
      cl_host::Buffer a = cl_host::create_buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                                 bytes, input.data());
      cl_host::Buffer b = cl_host::create_buffer(context, CL_MEM_READ_WRITE, bytes);
      cl_host::set_arg(kernel, 0, a.get());
      cl_host::set_arg(kernel, 1, b.get());
      cl_host::set_arg(kernel, 2, options.n);
      const size_t global = groups * options.local_size;

      // llvmpipe compiles a kernel at its first launch: a launch of no steps
      // (it touches no cell) compiles it, timed apart. (rusticl compiles at
      // every launch, from the shader cache once it holds the kernel.)
      cl_host::set_arg(kernel, 3, 0);
      const auto first_launch = Clock::now();
      cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global,
                                            &options.local_size, 0, nullptr, nullptr),
                     "clEnqueueNDRangeKernel(relax, 0 steps)");
      cl_host::check(clFinish(queue), "clFinish(relax, 0 steps)");
      std::printf("first launch (0 steps: the kernel's compile): %.1f ms, not counted below\n",
                  milliseconds_since(first_launch));
      cl_host::set_arg(kernel, 3, options.steps);

      std::vector<double> frames;
      cl_event raw = nullptr;
      double host_ms = 0;
      cl_host::Watchdog watchdog("the cooperative relax kernel",
                                 std::chrono::seconds(options.timeout_s));
      if (options.single_thread && options.frame_period_ms > 0) {
         // Frames from this thread until the kernel's event completes.
         FrameLoad load(device, options, units);
         const auto start = Clock::now();
         cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global,
                                               &options.local_size, 0, nullptr, &raw),
                        "clEnqueueNDRangeKernel(relax)");
         cl_host::check(clFlush(queue), "clFlush(relax)");
         frames = run_frames(load, options, [&] {
            return cl_host::event_status(raw) <= CL_COMPLETE;
         });
         cl_host::check(clWaitForEvents(1, &raw), "clWaitForEvents(relax)");
         host_ms = milliseconds_since(start);
      } else {
         std::atomic<bool> stop{false};
         std::string frame_error;
         std::thread frame_thread;
         std::promise<void> frames_ready;
         if (options.frame_period_ms > 0) {
            frame_thread = std::thread([&] {
               try {
                  FrameLoad load(device, options, units);
                  frames_ready.set_value();
                  frames = run_frames(load, options, [&] { return stop.load(); });
               } catch (const std::exception &error) {
                  frame_error = error.what();
                  try {
                     frames_ready.set_value();
                  } catch (const std::future_error &) { // set already
                  }
               }
            });
            // Frames from the start of the kernel: not behind their first,
            // compiling launch.
            frames_ready.get_future().wait();
         }

         const auto start = Clock::now();
         cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global,
                                               &options.local_size, 0, nullptr, &raw),
                        "clEnqueueNDRangeKernel(relax)");
         cl_host::check(clFinish(queue), "clFinish(relax)");
         host_ms = milliseconds_since(start);
         stop = true;
         if (frame_thread.joinable())
            frame_thread.join();
         if (!frame_error.empty())
            throw std::runtime_error(frame_error);
      }

      const cl_host::Event done(raw);
      const double kernel_ms =
         1e-6 * double(cl_host::profiling_ulong(raw, CL_PROFILING_COMMAND_END) -
                       cl_host::profiling_ulong(raw, CL_PROFILING_COMMAND_START));
      std::printf("cooperative kernel: %.1f ms (%.1f us per resizing barrier step); "
                  "%.1f ms from enqueue to completion on the host\n",
                  kernel_ms, 1000.0 * kernel_ms / options.steps, host_ms);
      if (!frames.empty())
         std::printf("frames: %zu matmul %dx%d every %d ms; latency median %.2f ms, "
                     "p99 %.2f ms, max %.2f ms\n",
                     frames.size(), options.frame_size, options.frame_size,
                     options.frame_period_ms, ck_statistics::percentile(frames, 0.5), ck_statistics::percentile(frames, 0.99),
                     ck_statistics::percentile(frames, 1.0));
      if (options.single_thread && !frames.empty())
         // The loop stops at the first frame after which the kernel was complete.
         std::printf("single host thread: %zu of the %zu frames completed while the "
                     "cooperative kernel ran\n",
                     frames.size() - 1, frames.size());

      std::vector<int> result =
         cl_host::read_buffer<int>(queue, options.steps % 2 ? b : a, input.size());
      std::vector<int> expected = reference(input, options.steps);
      size_t wrong = 0;
      for (size_t i = 0; i < result.size(); ++i)
         wrong += result[i] != expected[i];
      if (wrong) {
         std::printf("FAIL: %zu of %zu cells differ from the sequential reference\n", wrong,
                     result.size());
         return 1;
      }
      std::printf("PASS: all %zu cells match the sequential reference\n", result.size());
      return 0;
   } catch (const std::exception &error) {
      std::fprintf(stderr, "ck-demo: %s\n", error.what());
      return 1;
   }
}
