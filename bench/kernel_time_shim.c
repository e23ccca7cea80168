/* kernel_time_shim: the profiled run time of every kernel an unmodified
 * OpenCL program launches, for bench/public_suite.py (LD_PRELOAD).
 *
 *   LD_PRELOAD=.../kernel_time_shim.so CK_KERNEL_TIME_FILE=out.txt PROGRAM ...
 *
 * Every command queue is created with CL_QUEUE_PROFILING_ENABLE added
 * (clCreateCommandQueue, clCreateCommandQueueWithProperties); every
 * clEnqueueNDRangeKernel keeps its event (the caller's, retained, or one of
 * its own when the caller asked for none). At clFinish, clWaitForEvents and
 * clReleaseCommandQueue (which finishes the queue first) the events that
 * have completed add CL_PROFILING_COMMAND_END - CL_PROFILING_COMMAND_START
 * to the total and are released. At exit the file named by
 * CK_KERNEL_TIME_FILE gets, one per line:
 *
 *   device NAME        the device of the first queue
 *   launches N         kernels launched (clEnqueueNDRangeKernel that succeeded)
 *   kernel_ns T        sum of END - START of the N - pending - failed launches
 *   pending P          launches still not complete at exit (waited for first)
 *   failed F           launches that ended in an error or gave no profile
 *
 * For hosts that print no result, CK_READ_DUMP=PREFIX also writes the
 * bytes of every blocking clEnqueueReadBuffer that succeeded to
 * PREFIX0001.bin, PREFIX0002.bin, ... in order (non-blocking reads are not
 * written). It costs the host a file write per read, outside the kernels.
 *
 * The real functions are reached with dlsym(RTLD_NEXT). The bookkeeping is
 * under one mutex, so several host threads cannot corrupt it, but the total
 * assumes what Rodinia's hosts do: one thread, whose clFinish (or wait, or
 * queue release) comes after its launches; a kernel still running on
 * another thread's queue is simply counted at a later call. The exit
 * handler is registered at the first queue creation, after the driver has
 * registered its own, so that it runs before them; it calls into OpenCL
 * only when launches are still pending (a host that never waited).
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cl_event *pending;
static size_t npending, cap;
static unsigned long long launches, failed, total_ns;
static char device[256];
static int exit_registered;

static void *real(const char *name)
{
   void *f = dlsym(RTLD_NEXT, name);
   if (!f) {
      fprintf(stderr, "kernel_time_shim: no %s after this library\n", name);
      abort();
   }
   return f;
}
/* The next definition of NAME, looked up once. */
#define REAL(name)                                                                             \
   ({                                                                                          \
      static __typeof__(&name) next;                                                           \
      if (!next)                                                                               \
         next = (__typeof__(&name))real(#name);                                                \
      next;                                                                                    \
   })

/* Adds the completed pending events to the total. Holds the lock. */
static void collect(void)
{
   size_t kept = 0;
   for (size_t i = 0; i < npending; i++) {
      cl_event e = pending[i];
      cl_int status = CL_QUEUED;
      if (clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL) !=
          CL_SUCCESS)
         status = -1;
      if (status > CL_COMPLETE) {
         pending[kept++] = e;
         continue;
      }
      cl_ulong start = 0, end = 0;
      if (status == CL_COMPLETE &&
          clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) ==
             CL_SUCCESS &&
          clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) ==
             CL_SUCCESS &&
          end >= start)
         total_ns += end - start;
      else
         failed++;
      clReleaseEvent(e);
   }
   npending = kept;
}

static void write_report(void)
{
   pthread_mutex_lock(&lock);
   if (npending) {
      REAL(clWaitForEvents)((cl_uint)npending, pending);
      collect();
   }
   const char *path = getenv("CK_KERNEL_TIME_FILE");
   FILE *f = path ? fopen(path, "w") : NULL;
   if (f) {
      fprintf(f, "device %s\nlaunches %llu\nkernel_ns %llu\npending %zu\nfailed %llu\n",
              device[0] ? device : "?", launches, total_ns, npending, failed);
      fclose(f);
   } else if (path) {
      fprintf(stderr, "kernel_time_shim: cannot write %s\n", path);
   }
   pthread_mutex_unlock(&lock);
}

static void first_queue(cl_device_id dev)
{
   pthread_mutex_lock(&lock);
   if (!device[0] && dev &&
       clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof device - 1, device, NULL) != CL_SUCCESS)
      device[0] = '\0';
   int reg = !exit_registered;
   exit_registered = 1;
   pthread_mutex_unlock(&lock);
   if (reg)
      atexit(write_report);
}

EXPORT cl_command_queue clCreateCommandQueue(cl_context context, cl_device_id dev,
                                             cl_command_queue_properties props, cl_int *err)
{
   cl_command_queue q =
      REAL(clCreateCommandQueue)(context, dev, props | CL_QUEUE_PROFILING_ENABLE, err);
   if (q)
      first_queue(dev);
   return q;
}

EXPORT cl_command_queue clCreateCommandQueueWithProperties(cl_context context, cl_device_id dev,
                                                           const cl_queue_properties *props,
                                                           cl_int *err)
{
   /* The caller's list with CL_QUEUE_PROFILING_ENABLE in CL_QUEUE_PROPERTIES
    * (added as a key of its own when the list has none). */
   size_t n = 0;
   while (props && props[n])
      n += 2;
   cl_queue_properties *mine = calloc(n + 3, sizeof *mine);
   if (!mine) {
      if (err)
         *err = CL_OUT_OF_HOST_MEMORY;
      return NULL;
   }
   int found = 0;
   for (size_t i = 0; i < n; i += 2) {
      mine[i] = props[i];
      mine[i + 1] = props[i + 1];
      if (props[i] == CL_QUEUE_PROPERTIES) {
         mine[i + 1] |= CL_QUEUE_PROFILING_ENABLE;
         found = 1;
      }
   }
   if (!found) {
      mine[n++] = CL_QUEUE_PROPERTIES;
      mine[n++] = CL_QUEUE_PROFILING_ENABLE;
   }
   mine[n] = 0;
   cl_command_queue q = REAL(clCreateCommandQueueWithProperties)(context, dev, mine, err);
   free(mine);
   if (q)
      first_queue(dev);
   return q;
}

EXPORT cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim,
                                     const size_t *offset, const size_t *global,
                                     const size_t *local, cl_uint nwait, const cl_event *wait,
                                     cl_event *event)
{
   cl_event own = NULL;
   cl_int r = REAL(clEnqueueNDRangeKernel)(q, k, dim, offset, global, local, nwait, wait,
                                           event ? event : &own);
   if (r != CL_SUCCESS)
      return r;
   cl_event e = event ? *event : own;
   if (event)
      clRetainEvent(e);
   pthread_mutex_lock(&lock);
   launches++;
   if (npending == cap) {
      size_t more = cap ? 2 * cap : 256;
      cl_event *grown = realloc(pending, more * sizeof *grown);
      if (!grown) {
         failed++;  /* not timed, but counted: the report says so */
         clReleaseEvent(e);
         pthread_mutex_unlock(&lock);
         return r;
      }
      pending = grown;
      cap = more;
   }
   pending[npending++] = e;
   pthread_mutex_unlock(&lock);
   return r;
}

EXPORT cl_int clEnqueueReadBuffer(cl_command_queue q, cl_mem buffer, cl_bool blocking,
                                  size_t offset, size_t size, void *ptr, cl_uint nwait,
                                  const cl_event *wait, cl_event *event)
{
   static unsigned reads;
   cl_int r = REAL(clEnqueueReadBuffer)(q, buffer, blocking, offset, size, ptr, nwait, wait,
                                        event);
   const char *prefix = getenv("CK_READ_DUMP");
   if (r != CL_SUCCESS || !blocking || !prefix)
      return r;
   pthread_mutex_lock(&lock);
   char path[4096];
   snprintf(path, sizeof path, "%s%04u.bin", prefix, ++reads);
   FILE *f = fopen(path, "wb");
   if (!f || fwrite(ptr, 1, size, f) != size)
      fprintf(stderr, "kernel_time_shim: cannot write %s\n", path);
   if (f)
      fclose(f);
   pthread_mutex_unlock(&lock);
   return r;
}

EXPORT cl_int clFinish(cl_command_queue q)
{
   cl_int r = REAL(clFinish)(q);
   pthread_mutex_lock(&lock);
   collect();
   pthread_mutex_unlock(&lock);
   return r;
}

EXPORT cl_int clWaitForEvents(cl_uint n, const cl_event *events)
{
   cl_int r = REAL(clWaitForEvents)(n, events);
   pthread_mutex_lock(&lock);
   collect();
   pthread_mutex_unlock(&lock);
   return r;
}

EXPORT cl_int clReleaseCommandQueue(cl_command_queue q)
{
   if (q)
      REAL(clFinish)(q);
   pthread_mutex_lock(&lock);
   collect();
   pthread_mutex_unlock(&lock);
   return REAL(clReleaseCommandQueue)(q);
}
