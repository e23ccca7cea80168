// The idioms blocking algorithms are made of: a work-group waits in a loop
// for a value that another work-group writes. The code generation must keep
// every load the program asks to see fresh in its loop (volatile loads,
// atomic loads of any order, RMWs) and every fence in its place, or the wait
// never ends (a load taken out of its loop) or the waiter sees stale data.
//
// Each idiom runs in every load form the frontend's OpenCL C has (1.x:
// volatile load, atomic_add(p, 0); 3.0: atomic_load_explicit relaxed with
// fences, acquire/release, seq_cst), with the wait in a divergent loop (one
// work-item of the group waits) and in a uniform one (all of them do), as an
// ordinary kernel and as a cooperative one (a global_barrier() at its end).
// The waits are among work-groups that the progress model promises to run
// fairly: N <= compute units for an ordinary launch, the active work-groups
// (ids below get_num_groups()) of a cooperative one. Waiting for a
// work-group that is not active is the user's bug, not tested here.
//
// Every launch has a watchdog: a wait that never ends fails loudly
// ("DEADLOCK: ..." and exit status 3) instead of hanging the run.
// covers: 10.1-fairness
#include "cl_host.hpp"
#include "host_test.hpp"
#include "watchdog.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace {

const char *source = R"CLC(
// An OpenCL C 3.0 compiler says which memory orders a program may use.
#if (FORM_ACQUIRE && !defined(__opencl_c_atomic_order_acq_rel)) || \
    (FORM_SEQ_CST && !defined(__opencl_c_atomic_order_seq_cst))
kernel void order_unsupported(void)
{
}
#else
// How the waiting work-items read the word they wait on (LOAD), order
// what they read after it (ACQUIRE_FENCE), and how the other side
// publishes (RELEASE_STORE, RELEASE_INC).
#if FORM_VOLATILE || FORM_RMW
#if FORM_VOLATILE
#define LOAD(p) (*(volatile global int *)(p))
#else
#define LOAD(p) atomic_add((p), 0)
#endif
#define ACQUIRE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#define RELEASE_STORE(p, v) (mem_fence(CLK_GLOBAL_MEM_FENCE), atomic_xchg((p), (v)))
#define RELEASE_INC(p) (mem_fence(CLK_GLOBAL_MEM_FENCE), atomic_inc(p))
#else
#define ATOMIC(p) ((volatile global atomic_int *)(p))
#if FORM_RELAXED
#define LOAD(p) atomic_load_explicit(ATOMIC(p), memory_order_relaxed, memory_scope_device)
#define ACQUIRE_FENCE() \
   atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire, memory_scope_device)
#define RELEASE_FENCE() \
   atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device)
#define RELEASE_STORE(p, v) (RELEASE_FENCE(), \
   atomic_store_explicit(ATOMIC(p), (v), memory_order_relaxed, memory_scope_device))
#define RELEASE_INC(p) (RELEASE_FENCE(), \
   atomic_fetch_add_explicit(ATOMIC(p), 1, memory_order_relaxed, memory_scope_device))
#else
#if FORM_ACQUIRE
#define LOAD_ORDER memory_order_acquire
#define STORE_ORDER memory_order_release
#else
#define LOAD_ORDER memory_order_seq_cst
#define STORE_ORDER memory_order_seq_cst
#endif
#define LOAD(p) atomic_load_explicit(ATOMIC(p), LOAD_ORDER, memory_scope_device)
#define ACQUIRE_FENCE()
#define RELEASE_STORE(p, v) \
   atomic_store_explicit(ATOMIC(p), (v), STORE_ORDER, memory_scope_device)
#define RELEASE_INC(p) atomic_fetch_add_explicit(ATOMIC(p), 1, STORE_ORDER, memory_scope_device)
#endif
#endif

// A cooperative kernel ends at a global barrier: all its active
// work-groups, and only they, take part in the idiom.
#if COOPERATIVE
#define END() global_barrier()
#else
#define END()
#endif

// The waiting work-items: all of the group's (a uniform loop), or the
// first alone (a divergent one).
#if UNIFORM
#define WAITER true
#else
#define WAITER (get_local_id(0) == 0)
#endif

enum { OUT_M, OUT_RESULT, OUT_WORK, OUT_DATA };

// Work before a release, so that the waiter usually waits.
int busy(uint n)
{
   int x = (int)get_group_id(0) + 1;
   for (uint i = 0; i < n; i++)
      x = x * 1664525 + 1013904223;
   return x;
}

// Work-group 0 sets a flag that the last active work-group waits for.
kernel void flag(global int *sync, global int *out)
{
   const uint g = get_group_id(0), m = get_num_groups(0);
   if (g == 0 && get_local_id(0) == 0) {
      out[OUT_M] = m;
      out[OUT_WORK] = busy(100000);
      RELEASE_STORE(&sync[0], 1);
   }
   if (g == m - 1 && WAITER) {
      while (LOAD(&sync[0]) == 0)
         ;
      if (get_local_id(0) == 0)
         out[OUT_RESULT] = LOAD(&sync[0]);
   }
   END();
}

// Work-group 0 writes a block of data, then the flag; the last active
// work-group waits for the flag, then must see all the data.
kernel void message(global int *sync, global int *data, global int *out)
{
   const uint g = get_group_id(0), m = get_num_groups(0), l = get_local_id(0);
   if (g == 0) {
      if (l == 0)
         out[OUT_WORK] = busy(100000);
      data[l] = 7 * (int)l + 1;
      barrier(CLK_GLOBAL_MEM_FENCE);
      if (l == 0) {
         out[OUT_M] = m;
         RELEASE_STORE(&sync[0], 1);
      }
   }
   if (g == m - 1) {
      if (WAITER)
         while (LOAD(&sync[0]) == 0)
            ;
      ACQUIRE_FENCE();
      barrier(CLK_GLOBAL_MEM_FENCE);
      out[OUT_DATA + l] = data[l];
   }
   END();
}

// A ticket lock around a plain read-modify-write of a counter, taken
// `rounds` times by every active work-group: lock[0] hands out tickets,
// lock[1] is the ticket being served.
kernel void ticket_lock(global int *lock, global int *out, uint rounds)
{
   local int ticket;
   const uint g = get_group_id(0), l = get_local_id(0);
   if (g == 0 && l == 0)
      out[OUT_M] = get_num_groups(0);
#if UNIFORM
   for (uint r = 0; r < rounds; r++) {
      if (l == 0)
         ticket = atomic_inc(&lock[0]);
      barrier(CLK_LOCAL_MEM_FENCE);
      while (LOAD(&lock[1]) != ticket)
         ;
      // every work-item has seen the turn before it passes on
      barrier(CLK_LOCAL_MEM_FENCE);
      if (l == 0) {
         ACQUIRE_FENCE();
         out[OUT_RESULT] += 1;
         RELEASE_INC(&lock[1]);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
   }
#else
   if (l == 0) {
      for (uint r = 0; r < rounds; r++) {
         const int t = atomic_inc(&lock[0]);
         while (LOAD(&lock[1]) != t)
            ;
         ACQUIRE_FENCE();
         out[OUT_RESULT] += 1;
         RELEASE_INC(&lock[1]);
      }
   }
#endif
   END();
}

// The XF barrier of the OOPSLA'16 paper between the active work-groups:
// work-group 0 is the master, flags[g] the slave g's arrival.
void xf_barrier(global int *flags)
{
   const uint g = get_group_id(0), m = get_num_groups(0), l = get_local_id(0);
   barrier(CLK_GLOBAL_MEM_FENCE);
   if (g == 0) {
#if UNIFORM
      for (uint s = 1; s < m; s++)
         while (LOAD(&flags[s]) == 0)
            ;
#else
      for (uint s = 1 + l; s < m; s += get_local_size(0))
         while (LOAD(&flags[s]) == 0)
            ;
#endif
      ACQUIRE_FENCE();
      barrier(CLK_GLOBAL_MEM_FENCE);
      for (uint s = 1 + l; s < m; s += get_local_size(0))
         RELEASE_STORE(&flags[s], 0);
   } else {
      if (l == 0)
         RELEASE_STORE(&flags[g], 1);
      if (WAITER)
         while (LOAD(&flags[g]) == 1)
            ;
      ACQUIRE_FENCE();
      barrier(CLK_GLOBAL_MEM_FENCE);
   }
}

// Each round every active work-group writes its slot, meets the others at
// the barrier, and reads its neighbour's: a value from another round is
// an error.
kernel void xf_rounds(global int *flags, global int *slots, global int *out, uint rounds)
{
   const uint g = get_group_id(0), m = get_num_groups(0), l = get_local_id(0);
   int errors = 0;
   for (uint r = 0; r < rounds; r++) {
      if (l == 0)
         slots[(r & 1) * m + g] = (int)(r * m + g);
      xf_barrier(flags);
      const uint next = (g + 1) % m;
      if (l == 0 && slots[(r & 1) * m + next] != (int)(r * m + next))
         errors++;
   }
   if (l == 0) {
      if (g == 0)
         out[OUT_M] = m;
      atomic_add(&out[OUT_RESULT], errors);
   }
   END();
}

// A work queue's head/tail protocol: work-group 0 pushes `tasks` tasks
// (the task, then the tail), then sets `done`; every active work-group
// claims tasks by moving the head with a compare-and-swap, and waits
// while the queue is empty and not done. Each task must be taken once.
enum { HEAD, TAIL, DONE };
kernel void work_queue(global int *queue, global int *tasks_out, global int *out,
                       uint tasks)
{
   local int claimed, seen_tail;
   const uint g = get_group_id(0), l = get_local_id(0);
   global int *task = queue + 4;
   if (g == 0 && l == 0) {
      out[OUT_M] = get_num_groups(0);
      for (uint t = 0; t < tasks; t++) {
         task[t] = (int)(t * 3 + 1);
         RELEASE_STORE(&queue[TAIL], (int)t + 1);
      }
      RELEASE_STORE(&queue[DONE], 1);
   }
   for (;;) {
      if (l == 0) {
         const int h = LOAD(&queue[HEAD]);
         const int t = LOAD(&queue[TAIL]);
         seen_tail = t;
         claimed = -2; // the queue looked empty
         if (h < t)
            claimed = atomic_cmpxchg(&queue[HEAD], h, h + 1) == h ? h : -3;
         else if (LOAD(&queue[DONE]) && h >= LOAD(&queue[TAIL]))
            claimed = -1; // empty for good
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      const int c = claimed, t = seen_tail;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (c == -1)
         break;
      if (c >= 0 && l == 0) {
         ACQUIRE_FENCE();
         atomic_inc(&tasks_out[task[c] / 3]);
      }
      if (c == -2 && WAITER) // wait for a push or the end
         while (LOAD(&queue[TAIL]) == t && !LOAD(&queue[DONE]))
            ;
      barrier(CLK_LOCAL_MEM_FENCE);
   }
   END();
}
#endif
)CLC";

constexpr size_t local_size = 64;
constexpr size_t groups = 2;
constexpr auto watchdog_limit = std::chrono::seconds(20);
enum { OUT_M, OUT_RESULT, OUT_WORK, OUT_DATA };

struct LoadForm {
   const char *name;
   const char *define;
   bool opencl_c_3;
};
const LoadForm load_forms[] = {
   {"volatile", "FORM_VOLATILE", false},
   {"rmw", "FORM_RMW", false},
   {"relaxed", "FORM_RELAXED", true},
   {"acquire_release", "FORM_ACQUIRE", true},
   {"seq_cst", "FORM_SEQ_CST", true},
};

struct Variant {
   LoadForm form;
   bool uniform;
   bool cooperative;
};

std::string variant_name(const testing::TestParamInfo<Variant> &info)
{
   return std::string(info.param.form.name) + (info.param.uniform ? "_uniform" : "_divergent") +
          (info.param.cooperative ? "_cooperative" : "_ordinary");
}

std::vector<Variant> all_variants()
{
   std::vector<Variant> variants;
   for (const LoadForm &form : load_forms)
      for (bool uniform : {false, true})
         for (bool cooperative : {false, true})
            variants.push_back({form, uniform, cooperative});
   return variants;
}

class SpinWait : public testing::TestWithParam<Variant> {
protected:
   void SetUp() override
   {
      device_ = cl_host::first_device();
      const Variant &v = GetParam();
      if (v.form.opencl_c_3 &&
          cl_host::device_string(device_, CL_DEVICE_VERSION).find("OpenCL 3.") ==
             std::string::npos)
         GTEST_SKIP() << "the device has no OpenCL C 3.0 (Clover: 1.1)";
      if (v.cooperative &&
          cl_host::device_string(device_, CL_DEVICE_EXTENSIONS).find("cl_ext_cooperative_kernels") ==
             std::string::npos)
         GTEST_SKIP() << "the device has no cl_ext_cooperative_kernels";
      if (cl_host::device_uint(device_, CL_DEVICE_MAX_COMPUTE_UNITS) < groups)
         GTEST_SKIP() << "fewer compute units than the " << groups << " work-groups";
      context_ = cl_host::create_context(device_);
      queue_ = cl_host::create_queue(context_.get(), device_);
      std::string options = std::string("-D") + v.form.define + "=1 -DUNIFORM=" +
                            (v.uniform ? "1" : "0") + " -DCOOPERATIVE=" +
                            (v.cooperative ? "1" : "0");
      if (v.form.opencl_c_3)
         options += " -cl-std=CL3.0";
      program_ = cl_host::build_or_throw(context_.get(), device_, source, options);
      if (cl_host::kernel_names(program_.get()) ==
          std::vector<std::string>{"order_unsupported"})
         GTEST_SKIP() << "the compiler lacks the memory order (no __opencl_c_atomic_order_*)";
   }

   cl_host::Buffer zeros(size_t words)
   {
      std::vector<cl_int> host(words, 0);
      return cl_host::create_buffer(context_.get(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                    words * sizeof(cl_int), host.data());
   }

   // Launches the kernel with `buffers`, then `scalars`, as its arguments,
   // and waits for it under the watchdog.
   void launch(const char *kernel_name, std::initializer_list<cl_mem> buffers,
               std::initializer_list<cl_uint> scalars = {})
   {
      kernel_ = cl_host::create_kernel(program_.get(), kernel_name);
      cl_uint index = 0;
      for (cl_mem buffer : buffers)
         cl_host::set_arg(kernel_.get(), index++, buffer);
      for (cl_uint scalar : scalars)
         cl_host::set_arg(kernel_.get(), index++, scalar);
      const size_t global = groups * local_size, local = local_size;
      const std::string what = std::string(kernel_name) + " (" + variant_name({GetParam(), 0}) +
                               "): a wait that never ended";
      cl_host::Watchdog watchdog(what, watchdog_limit);
      cl_host::check(clEnqueueNDRangeKernel(queue_.get(), kernel_.get(), 1, nullptr, &global,
                                            &local, 0, nullptr, nullptr),
                     "clEnqueueNDRangeKernel");
      cl_host::check(clFinish(queue_.get()), "clFinish");
   }

   std::vector<cl_int> read(cl_mem buffer, size_t words)
   {
      return cl_host::read_buffer<cl_int>(queue_.get(), buffer, words);
   }

   // The number of work-groups that took part: N for an ordinary launch,
   // the active ones of a cooperative launch (1 <= M <= N).
   cl_int participants(const std::vector<cl_int> &out)
   {
      const cl_int m = out[OUT_M];
      EXPECT_GE(m, 1);
      EXPECT_LE(m, static_cast<cl_int>(groups));
      if (!GetParam().cooperative) {
         EXPECT_EQ(m, static_cast<cl_int>(groups));
      }
      return m;
   }

   cl_device_id device_ = nullptr;
   cl_host::Context context_;
   cl_host::Queue queue_;
   cl_host::Program program_;
   cl_host::Kernel kernel_;
};

TEST_P(SpinWait, Flag)
{
   cl_host::Buffer sync = zeros(1), out = zeros(OUT_DATA);
   launch("flag", {sync.get(), out.get()});
   const std::vector<cl_int> o = read(out.get(), OUT_DATA);
   if (participants(o) > 1) {
      EXPECT_EQ(o[OUT_RESULT], 1) << "the waiter left without the flag";
   }
}

TEST_P(SpinWait, MessagePassing)
{
   cl_host::Buffer sync = zeros(1), data = zeros(local_size),
                   out = zeros(OUT_DATA + local_size);
   launch("message", {sync.get(), data.get(), out.get()});
   const std::vector<cl_int> o = read(out.get(), OUT_DATA + local_size);
   participants(o);
   for (size_t l = 0; l < local_size; l++)
      EXPECT_EQ(o[OUT_DATA + l], static_cast<cl_int>(7 * l + 1))
         << "work-item " << l << " read the message before it was written";
}

TEST_P(SpinWait, TicketLock)
{
   const cl_uint rounds = 2000;
   cl_host::Buffer lock = zeros(2), out = zeros(OUT_DATA);
   launch("ticket_lock", {lock.get(), out.get()}, {rounds});
   const std::vector<cl_int> o = read(out.get(), OUT_DATA);
   EXPECT_EQ(o[OUT_RESULT], participants(o) * static_cast<cl_int>(rounds))
      << "increments under the lock were lost";
}

TEST_P(SpinWait, XfBarrier)
{
   const cl_uint rounds = 1000;
   cl_host::Buffer flags = zeros(groups), slots = zeros(2 * groups), out = zeros(OUT_DATA);
   launch("xf_rounds", {flags.get(), slots.get(), out.get()}, {rounds});
   const std::vector<cl_int> o = read(out.get(), OUT_DATA);
   participants(o);
   EXPECT_EQ(o[OUT_RESULT], 0) << "work-groups read a slot of another round";
}

TEST_P(SpinWait, WorkQueue)
{
   const cl_uint tasks = 2000;
   cl_host::Buffer queue = zeros(4 + tasks), taken = zeros(tasks), out = zeros(OUT_DATA);
   launch("work_queue", {queue.get(), taken.get(), out.get()}, {tasks});
   participants(read(out.get(), OUT_DATA));
   const std::vector<cl_int> t = read(taken.get(), tasks);
   const auto wrong = std::count_if(t.begin(), t.end(), [](cl_int n) { return n != 1; });
   EXPECT_EQ(wrong, 0) << "tasks taken other than once";
}

INSTANTIATE_TEST_SUITE_P(Idioms, SpinWait, testing::ValuesIn(all_variants()), variant_name);

} // namespace
