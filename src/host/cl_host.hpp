// Small RAII layer over the OpenCL C API for the project's host programs
// (demo, tests, benchmarks). Errors throw cl_host::Error with the failing
// call and the CL_* code by name.
#pragma once

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace cl_host {

const char *error_name(cl_int code);

class Error : public std::runtime_error {
public:
   Error(const std::string &what, cl_int code);
   cl_int code() const { return code_; }

private:
   cl_int code_;
};

// Throws Error unless code is CL_SUCCESS.
void check(cl_int code, const char *what);

// Owns one reference to an OpenCL object.
template <typename Handle, cl_int (*Release)(Handle)>
class Ref {
public:
   Ref() = default;
   explicit Ref(Handle handle) : handle_(handle) {}
   Ref(const Ref &) = delete;
   Ref &operator=(const Ref &) = delete;
   Ref(Ref &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
   Ref &operator=(Ref &&other) noexcept
   {
      std::swap(handle_, other.handle_);
      return *this;
   }
   ~Ref()
   {
      if (handle_)
         Release(handle_);
   }
   Handle get() const { return handle_; }
   operator Handle() const { return handle_; }

private:
   Handle handle_ = nullptr;
};

using Context = Ref<cl_context, clReleaseContext>;
using Queue = Ref<cl_command_queue, clReleaseCommandQueue>;
using Program = Ref<cl_program, clReleaseProgram>;
using Kernel = Ref<cl_kernel, clReleaseKernel>;
using Buffer = Ref<cl_mem, clReleaseMemObject>;
using Event = Ref<cl_event, clReleaseEvent>;

// The first GPU-or-CPU device of the first platform that has one.
cl_device_id first_device();

std::string device_string(cl_device_id device, cl_device_info param);
cl_uint device_uint(cl_device_id device, cl_device_info param);

Context create_context(cl_device_id device);
Queue create_queue(cl_context context, cl_device_id device, bool profiling = false);
// A queue with a CL_QUEUE_PRIORITY_KHR (cl_khr_priority_hints); 0: none.
Queue create_queue(cl_context context, cl_device_id device, bool profiling,
                   cl_queue_priority_khr priority);

struct BuildResult {
   Program program;
   cl_int status = CL_SUCCESS;
   std::string log;
};

// Builds source; never throws for a build failure, so callers can inspect the log.
BuildResult build_program(cl_context context, cl_device_id device, const std::string &source,
                          const std::string &options = "");

// Builds source or throws Error with the build log in the message.
Program build_or_throw(cl_context context, cl_device_id device, const std::string &source,
                       const std::string &options = "");

// The first device's context and queue, and `source` built for it: what a
// test or benchmark sets up before anything else.
struct ProgramOnDevice {
   explicit ProgramOnDevice(const std::string &source, const std::string &options = "");

   cl_device_id device = nullptr;
   Context context;
   Queue queue;
   Program program;
};

// The names of a built program's kernels (CL_PROGRAM_KERNEL_NAMES), sorted.
std::vector<std::string> kernel_names(cl_program program);

// The kernel `name` of a built program, or throws Error naming it.
Kernel create_kernel(cl_program program, const std::string &name);

// CL_KERNEL_NUM_ARGS. A kernel built with include/cooperative_kernels.cl.h
// takes one argument more where the extension is absent (CK_SYNC_PARAM).
cl_uint kernel_arg_count(cl_kernel kernel);

// A 1-D launch enqueued and finished on a host thread of its own, for a
// kernel that runs until the calling thread tells it to stop (Clover may
// run a launch on the thread that enqueues it). Stop the kernel before
// join() or destruction: both wait for the thread.
class BackgroundLaunch {
public:
   BackgroundLaunch(cl_command_queue queue, cl_kernel kernel, size_t global, size_t local);
   ~BackgroundLaunch();
   BackgroundLaunch(const BackgroundLaunch &) = delete;
   BackgroundLaunch &operator=(const BackgroundLaunch &) = delete;

   // Waits for the launch; throws Error if its enqueue or clFinish failed.
   Event join();

private:
   cl_int status_ = CL_SUCCESS;
   cl_event event_ = nullptr;
   std::thread thread_;
};

std::string read_file(const std::string &path);

Buffer create_buffer(cl_context context, cl_mem_flags flags, size_t bytes, void *host = nullptr);

// CL_EVENT_COMMAND_EXECUTION_STATUS, and a cl_ulong profiling value.
cl_int event_status(cl_event event);
cl_ulong profiling_ulong(cl_event event, cl_profiling_info param);

template <typename T>
void set_arg(cl_kernel kernel, cl_uint index, const T &value)
{
   check(clSetKernelArg(kernel, index, sizeof(T), &value), "clSetKernelArg");
}

template <typename T>
std::vector<T> read_buffer(cl_command_queue queue, cl_mem buffer, size_t count)
{
   std::vector<T> out(count);
   check(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, count * sizeof(T), out.data(), 0,
                             nullptr, nullptr),
         "clEnqueueReadBuffer");
   return out;
}

} // namespace cl_host
