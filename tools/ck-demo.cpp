// ck-demo: runs kernels/relax.cl on a generated input and checks the result
// against a sequential reference. Launched by `tools/ck demo`.
#include "cl_host.hpp"
#include "watchdog.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Options {
   std::string kernels = "kernels";
   int n = 4096;
   int steps = 4000;
   cl_uint groups = 0; // 0: one per compute unit
   size_t local_size = 64;
   int timeout_s = 120;
};

void usage(FILE *out)
{
   std::fprintf(out,
                "usage: ck-demo [--kernels DIR] [--n CELLS] [--steps STEPS] [--groups N]\n"
                "               [--local-size L] [--timeout SECONDS]\n"
                "Relaxes CELLS integers for STEPS steps, one inter-workgroup barrier per\n"
                "step, and compares the result with a sequential reference.\n"
                "--groups defaults to CL_DEVICE_MAX_COMPUTE_UNITS.\n");
}

long parse_number(const char *flag, const char *text)
{
   char *end = nullptr;
   long value = std::strtol(text, &end, 10);
   if (!*text || *end || value <= 0) {
      std::fprintf(stderr, "ck-demo: %s needs a positive integer, got '%s'\n", flag, text);
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
      if (i + 1 >= argc) {
         usage(stderr);
         std::exit(2);
      }
      const char *value = argv[++i];
      if (arg == "--kernels")
         options.kernels = value;
      else if (arg == "--n")
         options.n = parse_number("--n", value);
      else if (arg == "--steps")
         options.steps = parse_number("--steps", value);
      else if (arg == "--groups")
         options.groups = parse_number("--groups", value);
      else if (arg == "--local-size")
         options.local_size = parse_number("--local-size", value);
      else if (arg == "--timeout")
         options.timeout_s = parse_number("--timeout", value);
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

} // namespace

int main(int argc, char **argv)
{
   Options options = parse(argc, argv);
   try {
      cl_device_id device = cl_host::first_device();
      cl_uint units = cl_host::device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);
      cl_uint groups = options.groups ? options.groups : units;
      std::printf("device: %s (%s), %u compute units\n",
                  cl_host::device_string(device, CL_DEVICE_NAME).c_str(),
                  cl_host::device_string(device, CL_DEVICE_VERSION).c_str(), units);
      std::printf("relax: %d cells, %d steps, %u workgroups of %zu work-items\n", options.n,
                  options.steps, groups, options.local_size);

      cl_host::Context context = cl_host::create_context(device);
      cl_host::Queue queue = cl_host::create_queue(context, device);
      std::string source = cl_host::read_file(options.kernels + "/relax.cl");
      cl_host::Program program = cl_host::build_or_throw(context, device, source);
      cl_int err = CL_SUCCESS;
      cl_host::Kernel kernel(clCreateKernel(program, "relax", &err));
      cl_host::check(err, "clCreateKernel");

      std::vector<int> input = generate_input(options.n);
      const size_t bytes = input.size() * sizeof(int);
      cl_host::Buffer a = cl_host::create_buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                                 bytes, input.data());
      cl_host::Buffer b = cl_host::create_buffer(context, CL_MEM_READ_WRITE, bytes);
      cl_uint zeros[2] = {0, 0};
      cl_host::Buffer sync = cl_host::create_buffer(
         context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(zeros), zeros);
      cl_host::set_arg(kernel, 0, a.get());
      cl_host::set_arg(kernel, 1, b.get());
      cl_host::set_arg(kernel, 2, options.n);
      cl_host::set_arg(kernel, 3, options.steps);
      cl_host::set_arg(kernel, 4, sync.get());

      size_t global = groups * options.local_size;
      auto start = std::chrono::steady_clock::now();
      {
         cl_host::Watchdog watchdog("the relax kernel", std::chrono::seconds(options.timeout_s));
         cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global,
                                               &options.local_size, 0, nullptr, nullptr),
                        "clEnqueueNDRangeKernel");
         cl_host::check(clFinish(queue), "clFinish");
      }
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                            start)
                     .count();
      std::vector<int> result =
         cl_host::read_buffer<int>(queue, options.steps % 2 ? b : a, input.size());
      std::vector<int> expected = reference(input, options.steps);
      size_t wrong = 0;
      for (size_t i = 0; i < result.size(); ++i)
         wrong += result[i] != expected[i];
      std::printf("kernel time: %.1f ms (%.2f us per barrier step)\n", ms,
                  1000.0 * ms / options.steps);
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
