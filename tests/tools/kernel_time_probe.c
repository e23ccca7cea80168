/* A small OpenCL host for bench/kernel_time_shim.c's test
 * (tests/tools/test_public_suite.py): five launches of one kernel, reached
 * by every path the shim counts at. Queue 1 (clCreateCommandQueue, no
 * properties): launch 1 with an event the host waits for and releases,
 * launch 2 without one, clFinish. Queue 2
 * (clCreateCommandQueueWithProperties, no properties): launches 3 and 4,
 * a blocking read of the result, clReleaseCommandQueue. Queue 1 again:
 * launch 5, never waited for (the shim's exit handler waits). Prints the
 * device, whether queue 1 came out profiling (it asked for no profiling),
 * and 'probe ok' if the read matches.
 */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096

static const char *source =
   "__kernel void fill(__global int *out, int v) {\n"
   "   int i = get_global_id(0), acc = v;\n"
   "   for (int k = 0; k < 2000; k++) acc = acc * 1103515245 + 12345 + i;\n"
   "   out[i] = v + i + (acc == 42 && v == -1);\n"
   "}\n";

#define CHECK(what, err)                                                                       \
   do {                                                                                        \
      if ((err) != CL_SUCCESS) {                                                               \
         fprintf(stderr, "%s: %d\n", what, (int)(err));                                       \
         return 1;                                                                             \
      }                                                                                        \
   } while (0)

static cl_int launch(cl_command_queue q, cl_kernel k, cl_int v, cl_event *ev)
{
   size_t global = N;
   cl_int err = clSetKernelArg(k, 1, sizeof v, &v);
   return err ? err : clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, ev);
}

int main(void)
{
   cl_platform_id platform;
   cl_device_id device;
   cl_int err = clGetPlatformIDs(1, &platform, NULL);
   CHECK("clGetPlatformIDs", err);
   err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
   CHECK("clGetDeviceIDs", err);
   char name[256] = "";
   clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
   printf("device %s\n", name);
   cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
   CHECK("clCreateContext", err);
   cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
   CHECK("clCreateProgramWithSource", err);
   err = clBuildProgram(prog, 1, &device, "", NULL, NULL);
   CHECK("clBuildProgram", err);
   cl_kernel k = clCreateKernel(prog, "fill", &err);
   CHECK("clCreateKernel", err);
   cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(cl_int), NULL, &err);
   CHECK("clCreateBuffer", err);
   err = clSetKernelArg(k, 0, sizeof buf, &buf);
   CHECK("clSetKernelArg", err);

   cl_command_queue q1 = clCreateCommandQueue(ctx, device, 0, &err);
   CHECK("clCreateCommandQueue", err);
   cl_command_queue_properties props = 0;
   clGetCommandQueueInfo(q1, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
   printf("profiling %d\n", (props & CL_QUEUE_PROFILING_ENABLE) ? 1 : 0);
   cl_event ev;
   err = launch(q1, k, 1, &ev);
   CHECK("launch 1", err);
   err = clWaitForEvents(1, &ev);
   CHECK("clWaitForEvents", err);
   clReleaseEvent(ev);
   err = launch(q1, k, 2, NULL);
   CHECK("launch 2", err);
   err = clFinish(q1);
   CHECK("clFinish", err);

   cl_command_queue q2 = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);
   CHECK("clCreateCommandQueueWithProperties", err);
   err = launch(q2, k, 3, NULL);
   CHECK("launch 3", err);
   err = launch(q2, k, 4, NULL);
   CHECK("launch 4", err);
   cl_int *out = malloc(N * sizeof *out);
   err = clEnqueueReadBuffer(q2, buf, CL_TRUE, 0, N * sizeof *out, out, 0, NULL, NULL);
   CHECK("clEnqueueReadBuffer", err);
   clReleaseCommandQueue(q2);
   int bad = 0;
   for (int i = 0; i < N; i++)
      bad += out[i] != 4 + i;

   err = launch(q1, k, 5, NULL);
   CHECK("launch 5", err);
   clFlush(q1);
   printf(bad ? "probe: %d wrong\n" : "probe ok\n", bad);
   return bad != 0;
}
