// The non-cooperative "graphics" workload of FSE'17 §5.2/§5.4: a matrix
// product (kernels/apps/matmul.cl) launched as an ordinary kernel with exactly
// k work-groups, its size calibrated so that a launch with every compute unit
// on an idle device takes the workload's duration (3 ms or 10 ms). It has a
// context and a profiling queue of its own, as another process's work would,
// and checks its product against a host reference.
#pragma once

#include "app.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace ck_apps {

// A graphics load: one frame of work_ms every period_ms (FSE'17 §5.2).
struct GraphicsLoad {
   std::string name;
   double period_ms;
   double work_ms;
};

// light 70/3, medium 40/3, heavy 40/10.
const std::vector<GraphicsLoad> &graphics_loads();
const GraphicsLoad &graphics_load(const std::string &name); // throws for an unknown name

struct Frame {
   std::chrono::steady_clock::time_point start; // just before the enqueue
   double host_ms = 0;  // clEnqueueNDRangeKernel to clFinish, host clock
   double exec_ms = -1; // CL_PROFILING_COMMAND_START to _END; -1 when not available
   bool verified = false;
   bool correct = true; // only meaningful when verified
   std::string mismatch;
};

class Graphics {
public:
   // priority: the queue's CL_QUEUE_PRIORITY_KHR, 0 for none.
   Graphics(cl_device_id device, const AppConfig &config, size_t local_size = 64,
            cl_queue_priority_khr priority = 0);
   Graphics(const Graphics &) = delete;
   Graphics &operator=(const Graphics &) = delete;

   // Picks the matrix size n so that one launch with `groups` work-groups on
   // an idle device takes target_ms (host clock, median of a few launches);
   // returns the time measured for the chosen n. Verifies one launch.
   double calibrate(double target_ms, unsigned groups);
   // Uses an n x n product without calibrating (computes its reference).
   void set_size(int n);
   int size() const { return n_; }

   // One launch with `groups` work-groups; waits for it. With verify, the
   // product buffer is poisoned first and compared with the reference after
   // (both outside the timed part).
   Frame launch(unsigned groups, bool verify);

private:
   void allocate(int n);
   double median_launch_ms(unsigned groups, int launches);

   cl_device_id device_;
   size_t local_size_;
   cl_host::Context context_;
   cl_host::Queue queue_;
   cl_host::Program program_;
   cl_host::Kernel kernel_;
   cl_host::Buffer a_, b_, c_;
   int n_ = 0;
   std::vector<float> reference_;
};

} // namespace ck_apps
