#include "cl_host.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

namespace cl_host {

const char *error_name(cl_int code)
{
   switch (code) {
   case CL_SUCCESS: return "CL_SUCCESS";
   case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
   case CL_DEVICE_NOT_AVAILABLE: return "CL_DEVICE_NOT_AVAILABLE";
   case CL_COMPILER_NOT_AVAILABLE: return "CL_COMPILER_NOT_AVAILABLE";
   case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
   case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
   case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
   case CL_PROFILING_INFO_NOT_AVAILABLE: return "CL_PROFILING_INFO_NOT_AVAILABLE";
   case CL_MEM_COPY_OVERLAP: return "CL_MEM_COPY_OVERLAP";
   case CL_IMAGE_FORMAT_MISMATCH: return "CL_IMAGE_FORMAT_MISMATCH";
   case CL_IMAGE_FORMAT_NOT_SUPPORTED: return "CL_IMAGE_FORMAT_NOT_SUPPORTED";
   case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
   case CL_MAP_FAILURE: return "CL_MAP_FAILURE";
   case CL_MISALIGNED_SUB_BUFFER_OFFSET: return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
   case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST: return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
   case CL_COMPILE_PROGRAM_FAILURE: return "CL_COMPILE_PROGRAM_FAILURE";
   case CL_LINKER_NOT_AVAILABLE: return "CL_LINKER_NOT_AVAILABLE";
   case CL_LINK_PROGRAM_FAILURE: return "CL_LINK_PROGRAM_FAILURE";
   case CL_DEVICE_PARTITION_FAILED: return "CL_DEVICE_PARTITION_FAILED";
   case CL_KERNEL_ARG_INFO_NOT_AVAILABLE: return "CL_KERNEL_ARG_INFO_NOT_AVAILABLE";
   case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
   case CL_INVALID_DEVICE_TYPE: return "CL_INVALID_DEVICE_TYPE";
   case CL_INVALID_PLATFORM: return "CL_INVALID_PLATFORM";
   case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
   case CL_INVALID_CONTEXT: return "CL_INVALID_CONTEXT";
   case CL_INVALID_QUEUE_PROPERTIES: return "CL_INVALID_QUEUE_PROPERTIES";
   case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
   case CL_INVALID_HOST_PTR: return "CL_INVALID_HOST_PTR";
   case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
   case CL_INVALID_IMAGE_FORMAT_DESCRIPTOR: return "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR";
   case CL_INVALID_IMAGE_SIZE: return "CL_INVALID_IMAGE_SIZE";
   case CL_INVALID_SAMPLER: return "CL_INVALID_SAMPLER";
   case CL_INVALID_BINARY: return "CL_INVALID_BINARY";
   case CL_INVALID_BUILD_OPTIONS: return "CL_INVALID_BUILD_OPTIONS";
   case CL_INVALID_PROGRAM: return "CL_INVALID_PROGRAM";
   case CL_INVALID_PROGRAM_EXECUTABLE: return "CL_INVALID_PROGRAM_EXECUTABLE";
   case CL_INVALID_KERNEL_NAME: return "CL_INVALID_KERNEL_NAME";
   case CL_INVALID_KERNEL_DEFINITION: return "CL_INVALID_KERNEL_DEFINITION";
   case CL_INVALID_KERNEL: return "CL_INVALID_KERNEL";
   case CL_INVALID_ARG_INDEX: return "CL_INVALID_ARG_INDEX";
   case CL_INVALID_ARG_VALUE: return "CL_INVALID_ARG_VALUE";
   case CL_INVALID_ARG_SIZE: return "CL_INVALID_ARG_SIZE";
   case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
   case CL_INVALID_WORK_DIMENSION: return "CL_INVALID_WORK_DIMENSION";
   case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
   case CL_INVALID_WORK_ITEM_SIZE: return "CL_INVALID_WORK_ITEM_SIZE";
   case CL_INVALID_GLOBAL_OFFSET: return "CL_INVALID_GLOBAL_OFFSET";
   case CL_INVALID_EVENT_WAIT_LIST: return "CL_INVALID_EVENT_WAIT_LIST";
   case CL_INVALID_EVENT: return "CL_INVALID_EVENT";
   case CL_INVALID_OPERATION: return "CL_INVALID_OPERATION";
   case CL_INVALID_GL_OBJECT: return "CL_INVALID_GL_OBJECT";
   case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
   case CL_INVALID_MIP_LEVEL: return "CL_INVALID_MIP_LEVEL";
   case CL_INVALID_GLOBAL_WORK_SIZE: return "CL_INVALID_GLOBAL_WORK_SIZE";
   case CL_INVALID_PROPERTY: return "CL_INVALID_PROPERTY";
   case CL_INVALID_IMAGE_DESCRIPTOR: return "CL_INVALID_IMAGE_DESCRIPTOR";
   case CL_INVALID_COMPILER_OPTIONS: return "CL_INVALID_COMPILER_OPTIONS";
   case CL_INVALID_LINKER_OPTIONS: return "CL_INVALID_LINKER_OPTIONS";
   case CL_INVALID_DEVICE_PARTITION_COUNT: return "CL_INVALID_DEVICE_PARTITION_COUNT";
   case CL_INVALID_PIPE_SIZE: return "CL_INVALID_PIPE_SIZE";
   case CL_INVALID_DEVICE_QUEUE: return "CL_INVALID_DEVICE_QUEUE";
   case CL_INVALID_SPEC_ID: return "CL_INVALID_SPEC_ID";
   case CL_MAX_SIZE_RESTRICTION_EXCEEDED: return "CL_MAX_SIZE_RESTRICTION_EXCEEDED";
   default: return "unknown CL error";
   }
}

Error::Error(const std::string &what, cl_int code)
   : std::runtime_error(what + ": " + error_name(code) + " (" + std::to_string(code) + ")"),
     code_(code)
{
}

void check(cl_int code, const char *what)
{
   if (code != CL_SUCCESS)
      throw Error(what, code);
}

cl_device_id first_device()
{
   cl_uint num_platforms = 0;
   check(clGetPlatformIDs(0, nullptr, &num_platforms), "clGetPlatformIDs");
   std::vector<cl_platform_id> platforms(num_platforms);
   check(clGetPlatformIDs(num_platforms, platforms.data(), nullptr), "clGetPlatformIDs");
   for (cl_platform_id platform : platforms) {
      cl_device_id device = nullptr;
      if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) == CL_SUCCESS)
         return device;
   }
   throw Error("no OpenCL device found (is the ICD set up? try 'tools/ck run')", CL_DEVICE_NOT_FOUND);
}

std::string device_string(cl_device_id device, cl_device_info param)
{
   size_t size = 0;
   check(clGetDeviceInfo(device, param, 0, nullptr, &size), "clGetDeviceInfo");
   std::string value(size, '\0');
   check(clGetDeviceInfo(device, param, size, value.data(), nullptr), "clGetDeviceInfo");
   while (!value.empty() && value.back() == '\0')
      value.pop_back();
   return value;
}

std::vector<std::string> kernel_names(cl_program program)
{
   size_t bytes = 0;
   check(clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &bytes),
                  "clGetProgramInfo(CL_PROGRAM_KERNEL_NAMES)");
   std::string names(bytes, '\0');
   check(clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, bytes, names.data(), nullptr),
                  "clGetProgramInfo(CL_PROGRAM_KERNEL_NAMES)");
   names.resize(names.find('\0') == std::string::npos ? names.size() : names.find('\0'));
   std::vector<std::string> list;
   std::istringstream in(names);
   for (std::string name; std::getline(in, name, ';');)
      if (!name.empty())
         list.push_back(name);
   std::sort(list.begin(), list.end());
   return list;
}

cl_uint device_uint(cl_device_id device, cl_device_info param)
{
   cl_uint value = 0;
   check(clGetDeviceInfo(device, param, sizeof(value), &value, nullptr), "clGetDeviceInfo");
   return value;
}

Context create_context(cl_device_id device)
{
   cl_int err = CL_SUCCESS;
   Context context(clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err));
   check(err, "clCreateContext");
   return context;
}

Queue create_queue(cl_context context, cl_device_id device, bool profiling,
                   cl_queue_priority_khr priority)
{
   if (priority == 0)
      return create_queue(context, device, profiling);
   const cl_queue_properties properties[] = {
      CL_QUEUE_PROPERTIES, profiling ? CL_QUEUE_PROFILING_ENABLE : 0u, CL_QUEUE_PRIORITY_KHR,
      priority, 0};
   cl_int err = CL_SUCCESS;
   Queue queue(clCreateCommandQueueWithProperties(context, device, properties, &err));
   check(err, "clCreateCommandQueueWithProperties(CL_QUEUE_PRIORITY_KHR)");
   return queue;
}

Queue create_queue(cl_context context, cl_device_id device, bool profiling)
{
   cl_int err = CL_SUCCESS;
   cl_command_queue_properties props = profiling ? CL_QUEUE_PROFILING_ENABLE : 0;
   Queue queue(clCreateCommandQueue(context, device, props, &err));
   check(err, "clCreateCommandQueue");
   return queue;
}

BuildResult build_program(cl_context context, cl_device_id device, const std::string &source,
                          const std::string &options)
{
   BuildResult result;
   const char *text = source.c_str();
   size_t length = source.size();
   cl_int err = CL_SUCCESS;
   result.program = Program(clCreateProgramWithSource(context, 1, &text, &length, &err));
   check(err, "clCreateProgramWithSource");
   result.status = clBuildProgram(result.program, 1, &device, options.c_str(), nullptr, nullptr);
   size_t size = 0;
   check(clGetProgramBuildInfo(result.program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size),
         "clGetProgramBuildInfo");
   result.log.resize(size);
   check(clGetProgramBuildInfo(result.program, device, CL_PROGRAM_BUILD_LOG, size,
                               result.log.data(), nullptr),
         "clGetProgramBuildInfo");
   while (!result.log.empty() && result.log.back() == '\0')
      result.log.pop_back();
   return result;
}

Program build_or_throw(cl_context context, cl_device_id device, const std::string &source,
                       const std::string &options)
{
   BuildResult result = build_program(context, device, source, options);
   if (result.status != CL_SUCCESS)
      throw Error("clBuildProgram failed; build log:\n" + result.log + "\n", result.status);
   return std::move(result.program);
}

ProgramOnDevice::ProgramOnDevice(const std::string &source, const std::string &options)
   : device(first_device()), context(create_context(device)), queue(create_queue(context, device)),
     program(build_or_throw(context, device, source, options))
{
}

Kernel create_kernel(cl_program program, const std::string &name)
{
   cl_int err = CL_SUCCESS;
   Kernel kernel(clCreateKernel(program, name.c_str(), &err));
   check(err, ("clCreateKernel(" + name + ")").c_str());
   return kernel;
}

cl_uint kernel_arg_count(cl_kernel kernel)
{
   cl_uint count = 0;
   check(clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof count, &count, nullptr),
         "clGetKernelInfo(CL_KERNEL_NUM_ARGS)");
   return count;
}

BackgroundLaunch::BackgroundLaunch(cl_command_queue queue, cl_kernel kernel, size_t global,
                                   size_t local)
   : thread_([this, queue, kernel, global, local] {
        status_ = clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr,
                                         &event_);
        if (status_ == CL_SUCCESS)
           status_ = clFinish(queue);
     })
{
}

BackgroundLaunch::~BackgroundLaunch()
{
   if (thread_.joinable())
      thread_.join();
   if (event_)
      clReleaseEvent(event_);
}

Event BackgroundLaunch::join()
{
   thread_.join();
   Event event(std::exchange(event_, nullptr));
   check(status_, "the background launch");
   return event;
}

std::string read_file(const std::string &path)
{
   std::ifstream in(path, std::ios::binary);
   if (!in)
      throw std::runtime_error("cannot read " + path);
   std::ostringstream text;
   text << in.rdbuf();
   return text.str();
}

Buffer create_buffer(cl_context context, cl_mem_flags flags, size_t bytes, void *host)
{
   cl_int err = CL_SUCCESS;
   Buffer buffer(clCreateBuffer(context, flags, bytes, host, &err));
   check(err, "clCreateBuffer");
   return buffer;
}

cl_int event_status(cl_event event)
{
   cl_int status = 0;
   check(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status,
                        nullptr),
         "clGetEventInfo");
   return status;
}

cl_ulong profiling_ulong(cl_event event, cl_profiling_info param)
{
   cl_ulong value = 0;
   check(clGetEventProfilingInfo(event, param, sizeof(value), &value, nullptr),
         "clGetEventProfilingInfo");
   return value;
}

} // namespace cl_host
