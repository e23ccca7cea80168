#include "graphics.hpp"

#include "statistics.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace ck_apps {

namespace {

using Clock = std::chrono::steady_clock;

// Small integers, so that every product is exact in float whatever the
// order of the additions (9 n < 2^24), and the check can be exact.
float a_value(int i, int j) { return float((i * 7 + j * 3 + 1) % 4); }
float b_value(int i, int j) { return float((i * 5 + j * 11 + 2) % 4); }

double profiled_ms(cl_event event)
{
   cl_ulong start = 0, end = 0;
   if (clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start,
                               nullptr) != CL_SUCCESS ||
       clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) !=
          CL_SUCCESS ||
       end < start)
      return -1;
   return (end - start) / 1e6;
}

} // namespace

const std::vector<GraphicsLoad> &graphics_loads()
{
   static const std::vector<GraphicsLoad> loads = {
      {"light", 70, 3}, {"medium", 40, 3}, {"heavy", 40, 10}};
   return loads;
}

const GraphicsLoad &graphics_load(const std::string &name)
{
   for (const GraphicsLoad &load : graphics_loads())
      if (load.name == name)
         return load;
   throw std::invalid_argument("unknown graphics load '" + name + "' (light, medium, heavy)");
}

Graphics::Graphics(cl_device_id device, const AppConfig &config, size_t local_size,
                   cl_queue_priority_khr priority)
   : device_(device), local_size_(local_size), context_(cl_host::create_context(device)),
     queue_(cl_host::create_queue(context_, device, true, priority))
{
   program_ = cl_host::build_or_throw(context_, device_,
                                      cl_host::read_file(config.kernels_dir + "/apps/matmul.cl"));
   kernel_ = cl_host::create_kernel(program_, "matmul");
}

void Graphics::allocate(int n)
{
   std::vector<float> a(size_t(n) * n), b(size_t(n) * n);
   for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
         a[size_t(i) * n + j] = a_value(i, j);
         b[size_t(i) * n + j] = b_value(i, j);
      }
   const size_t bytes = a.size() * sizeof(float);
   a_ = cl_host::create_buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, a.data());
   b_ = cl_host::create_buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, b.data());
   c_ = cl_host::create_buffer(context_, CL_MEM_READ_WRITE, bytes);
   cl_host::set_arg(kernel_, 0, a_.get());
   cl_host::set_arg(kernel_, 1, b_.get());
   cl_host::set_arg(kernel_, 2, c_.get());
   cl_host::set_arg(kernel_, 3, cl_int(n));
   n_ = n;
   reference_.clear();
}

void Graphics::set_size(int n)
{
   if (n < 1)
      throw std::invalid_argument("matmul size must be positive");
   allocate(n);
   // Sequential reference, in exact integer arithmetic (row-major i-k-j).
   std::vector<uint32_t> a(size_t(n) * n), b(size_t(n) * n), c(size_t(n) * n, 0);
   for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
         a[size_t(i) * n + j] = uint32_t(a_value(i, j));
         b[size_t(i) * n + j] = uint32_t(b_value(i, j));
      }
   for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k) {
         const uint32_t aik = a[size_t(i) * n + k];
         const uint32_t *b_row = &b[size_t(k) * n];
         uint32_t *c_row = &c[size_t(i) * n];
         for (int j = 0; j < n; ++j)
            c_row[j] += aik * b_row[j];
      }
   reference_.assign(c.begin(), c.end());
}

Frame Graphics::launch(unsigned groups, bool verify)
{
   if (!n_)
      throw std::logic_error("Graphics::launch before calibrate or set_size");
   Frame frame;
   if (verify && !reference_.empty()) {
      const float poison = -1.0f;
      cl_host::check(clEnqueueFillBuffer(queue_, c_, &poison, sizeof poison, 0,
                                         size_t(n_) * n_ * sizeof(float), 0, nullptr, nullptr),
                     "clEnqueueFillBuffer(matmul)");
      cl_host::check(clFinish(queue_), "clFinish(matmul fill)");
   }
   const size_t global = size_t(groups) * local_size_;
   cl_event raw = nullptr;
   const auto start = Clock::now();
   frame.start = start;
   cl_host::check(clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &global, &local_size_, 0,
                                         nullptr, &raw),
                  "clEnqueueNDRangeKernel(matmul)");
   cl_host::Event event(raw);
   cl_host::check(clFinish(queue_), "clFinish(matmul)");
   frame.host_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
   frame.exec_ms = profiled_ms(event);
   if (verify && !reference_.empty()) {
      frame.verified = true;
      std::vector<float> c = cl_host::read_buffer<float>(queue_, c_, size_t(n_) * n_);
      for (size_t i = 0; i < c.size(); ++i)
         if (c[i] != reference_[i]) {
            frame.correct = false;
            frame.mismatch = "matmul " + std::to_string(n_) + "x" + std::to_string(n_) + " with " +
                             std::to_string(groups) + " work-groups: c[" +
                             std::to_string(i / n_) + "][" + std::to_string(i % n_) + "] = " +
                             std::to_string(c[i]) + ", expected " + std::to_string(reference_[i]);
            break;
         }
   }
   return frame;
}

double Graphics::median_launch_ms(unsigned groups, int launches)
{
   std::vector<double> times;
   for (int i = 0; i < launches; ++i)
      times.push_back(launch(groups, false).host_ms);
   return ck_statistics::median(times);
}

double Graphics::calibrate(double target_ms, unsigned groups)
{
   if (target_ms <= 0 || groups == 0)
      throw std::invalid_argument("matmul calibration needs a positive duration and work-groups");
   int n = 64;
   allocate(n);
   launch(groups, false); // llvmpipe compiles the kernel at its first launch
   int best_n = n;
   double best_ms = -1;
   for (int iteration = 0; iteration < 10; ++iteration) {
      const double ms = median_launch_ms(groups, 5);
      if (best_ms < 0 || std::fabs(std::log(ms / target_ms)) < std::fabs(std::log(best_ms / target_ms))) {
         best_n = n;
         best_ms = ms;
      }
      if (std::fabs(ms / target_ms - 1) < 0.05)
         break;
      // Time grows with n^3: step the size by the cube root of the ratio,
      // damped so that launch overhead at small sizes does not overshoot.
      const double factor = std::cbrt(target_ms / std::max(ms, 1e-3));
      int next = int(std::lround(n * std::clamp(factor, 0.5, 2.0)));
      next = std::clamp(next, 8, 8192);
      if (next == n)
         next = ms < target_ms ? n + 1 : n - 1;
      n = next;
      allocate(n);
   }
   set_size(best_n);
   const Frame check = launch(groups, true);
   if (!check.correct)
      throw std::runtime_error("calibration launch computed a wrong product: " + check.mismatch);
   return median_launch_ms(groups, 5);
}

} // namespace ck_apps
