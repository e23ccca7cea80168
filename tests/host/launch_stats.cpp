// The scheduler's per-launch statistics reach the host through event
// profiling (CL_PROFILING_COOPERATIVE_*_EXT): a cooperative kernel that
// offers kills and requests forks in a loop gives units to an ordinary
// kernel whose units - 1 work-groups must run at once, gets them back
// through forks, and its event tells how often and how long.
//
// The tokens' types, sizes and errors, when they are not available, their
// values for an ordinary launch, exact kill and fork counts that the kernel
// counts itself, the order of the gather times and the cap on the recorded
// fork times are checked against the spec's section 8 (New API Enums) and
// 12 (Errors), numbered as in docs/spec-coverage.md.
// covers: 8-maxactive-all-start 8-prof-availability 8-prof-fork-times 8-prof-forks
// covers: 8-prof-gather-times 8-prof-kills 8-prof-max-active 8-prof-min-active
// covers: 8-prof-ordinary-zero 8-prof-size-errors 11-barrier 12-stuck-no-profiling
// covers: 13-header-noop 15-stats
#include "CL/cl_ext_cooperative_kernels.h"
#include "cl_host.hpp"
#include "host_test.hpp"
#include "resize_probe.hpp"
#include "watchdog.hpp"

#include <algorithm>
#include <memory>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Token {
   cl_profiling_info param;
   const char *name;
   bool array; // cl_ulong[] rather than cl_ulong
};

// Section 8: the six profiling tokens and their types.
const Token tokens[] = {
   {CL_PROFILING_COOPERATIVE_KILLS_EXT, "KILLS", false},
   {CL_PROFILING_COOPERATIVE_FORKS_EXT, "FORKS", false},
   {CL_PROFILING_COOPERATIVE_MIN_ACTIVE_EXT, "MIN_ACTIVE", false},
   {CL_PROFILING_COOPERATIVE_MAX_ACTIVE_EXT, "MAX_ACTIVE", false},
   {CL_PROFILING_COOPERATIVE_GATHER_TIMES_EXT, "GATHER_TIMES", true},
   {CL_PROFILING_COOPERATIVE_FORK_TIMES_EXT, "FORK_TIMES", true},
};

// Mesa records the first 1024 gather and fork times (section 8).
constexpr size_t recorded_times = 1024;

const char *counting_source = R"CLC(
enum { STOP, CONTROL, STARTED, JOINED, EXITED, REQUESTED, SEEN };

// Gives back a unit only while the host allows it: CONTROL holds the
// host's phase number above bit 0, which allows offer_kill. Each work-group
// acknowledges the CONTROL value it acts on in SEEN[its id], writes it to
// REQUESTED once query_kill_count() says the scheduler wants units, and counts
// itself in STARTED (at the top), JOINED (after a fork) and EXITED (at the
// end), so that kills = STARTED + JOINED - EXITED and forks = JOINED.
kernel void gather_on_signal(volatile global uint *state)
{
   local uint control;
   transmit uint origin = 0;
   if (get_local_id(0) == 0)
      atomic_inc(&state[STARTED]);
   for (;;) {
      if (get_local_id(0) == 0) {
         control = atomic_add(&state[CONTROL], 0);
         if (atomic_add(&state[STOP], 0))
            control = 0xffffffffu;
         atomic_xchg(&state[SEEN + get_group_id(0)], control);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      const uint c = control;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (c == 0xffffffffu)
         break;
      if (query_kill_count() != 0 && get_local_id(0) == 0)
         atomic_xchg(&state[REQUESTED], c);
      if (c & 1)
         offer_kill();
      origin = get_group_id(0);
      request_fork();
      if (origin != get_group_id(0) && get_local_id(0) == 0)
         atomic_inc(&state[JOINED]);
   }
   if (get_local_id(0) == 0)
      atomic_inc(&state[EXITED]);
}

// An ordinary kernel: one work-group takes one unit.
kernel void one_group(global uint *out)
{
   out[get_global_id(0)] = get_global_id(0) + 1;
}

// Every work-group but 0 returns at once, freeing its unit (it stays
// active); work-group 0 forks onto the freed units until M = n, and each
// forked work-group counts itself and returns: n - M0 forks.
kernel void fork_many(global uint *joined, uint n)
{
   transmit uint forker;
   local uint m;
   forker = get_group_id(0);
   if (get_group_id(0) != 0)
      return;
   for (;;) {
      // M decides a request_fork: read once and broadcast.
      if (get_local_id(0) == 0)
         m = get_num_groups(0);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (m >= n)
         break;
      request_fork();
      if (get_group_id(0) != forker) {
         if (get_local_id(0) == 0)
            atomic_inc(joined);
         return;
      }
   }
}

// The first work-group to count itself waits at a global barrier that the
// others, which return, never reach: the launch ends with
// CL_COOPERATIVE_BARRIER_STUCK_EXT (tests/host/stuck_barrier.cpp).
kernel void extra_barrier(global uint *counter)
{
   local uint ticket;
   if (get_local_id(0) == 0)
      ticket = atomic_inc(counter);
   barrier(CLK_LOCAL_MEM_FENCE);
   if (ticket == 0)
      global_barrier();
}
)CLC";

enum { STOP, CONTROL, STARTED, JOINED, EXITED, REQUESTED, SEEN };

void write_uint(cl_command_queue queue, cl_mem buffer, size_t index, cl_uint value)
{
   cl_host::check(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, index * sizeof(cl_uint),
                                       sizeof(value), &value, 0, nullptr, nullptr),
                  "clEnqueueWriteBuffer");
}

// Section 8: each token has its type's size. The size query (param_value
// NULL) gives 8 bytes for a cl_ulong and 8 bytes per recorded time for a
// cl_ulong[] (as the header says); a param_value_size below that is
// CL_INVALID_VALUE (OpenCL 3.0, clGetEventProfilingInfo); a read of that
// many bytes returns them.
void expect_sizes(cl_event event, const std::string &launch)
{
   for (const Token &token : tokens) {
      const std::string what = launch + ", " + token.name + ": ";
      size_t bytes = 0;
      cl_int status = clGetEventProfilingInfo(event, token.param, 0, nullptr, &bytes);
      const bool sized = status == CL_SUCCESS &&
                         (token.array ? bytes % sizeof(cl_ulong) == 0 : bytes == sizeof(cl_ulong));
      EXPECT_TRUE(sized) << what << "the size query gives "
                         << (token.array ? "8 bytes per time" : "8 bytes") << " (got "
                         << cl_host::error_name(status) << ", " << bytes << ")";
      if (!sized)
         continue;
      std::vector<cl_ulong> values(bytes / sizeof(cl_ulong) + 1);
      size_t read = 0;
      status = clGetEventProfilingInfo(event, token.param, bytes, values.data(), &read);
      EXPECT_EQ(status, CL_SUCCESS) << what << "a read of that size";
      EXPECT_EQ(read, bytes) << what << "a read of that size returns as many bytes";
      // With no time recorded there is no shorter size to try.
      if (bytes == 0)
         continue;
      const size_t short_size = token.array ? bytes - sizeof(cl_ulong) : sizeof(cl_uint);
      status = clGetEventProfilingInfo(event, token.param, short_size, values.data(), nullptr);
      EXPECT_EQ(status, CL_INVALID_VALUE)
         << what << "a param_value_size of " << short_size << " < " << bytes
         << " is CL_INVALID_VALUE (got " << cl_host::error_name(status) << ")";
   }
}

// Every token of the event is CL_PROFILING_INFO_NOT_AVAILABLE, whatever the
// size of the buffer.
void expect_not_available(cl_event event, const std::string &when)
{
   std::vector<cl_ulong> values(2 * recorded_times);
   for (const Token &token : tokens) {
      const cl_int status = clGetEventProfilingInfo(
         event, token.param, values.size() * sizeof(cl_ulong), values.data(), nullptr);
      EXPECT_EQ(status, CL_PROFILING_INFO_NOT_AVAILABLE)
         << token.name << " " << when << " is CL_PROFILING_INFO_NOT_AVAILABLE (got "
         << cl_host::error_name(status) << ")";
   }
}

// Section 8: profiling is available only once the event is CL_COMPLETE.
// A launch that waits for the host's stop is queried while it runs.
void expect_not_available_while_running(cl_context context, cl_device_id device,
                                        cl_program bench, cl_uint units)
{
   cl_host::Queue queue = cl_host::create_queue(context, device, true);
   cl_host::Queue control = cl_host::create_queue(context, device);
   cl_host::Kernel kernel = cl_host::create_kernel(bench, "yield_until_stopped");
   cl_uint zeros[3] = {0, 0, 0};
   cl_host::Buffer state =
      cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(zeros), zeros);
   cl_host::set_arg(kernel, 0, state.get());
   const size_t local = 8, global = units * local;
   cl_event raw_event = nullptr;
   cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr,
                                         &raw_event),
                  "clEnqueueNDRangeKernel(running)");
   cl_host::Event event(raw_event);
   cl_host::check(clFlush(queue), "clFlush");
   // It runs (a work-group counted itself) and cannot end before the stop.
   while (cl_host::read_buffer<cl_uint>(control, state, 3)[2] == 0)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
   const cl_int before = cl_host::event_status(event);
   expect_not_available(event, "of a running launch");
   const cl_int after = cl_host::event_status(event);
   EXPECT_NE(before, CL_COMPLETE) << "the launch was still running before it was queried";
   EXPECT_NE(after, CL_COMPLETE) << "the launch was still running after it was queried";
   write_uint(control, state, 0, 1);
   cl_host::check(clFinish(queue), "clFinish");
   bool available = true;
   for (const Token &token : tokens) {
      size_t bytes = 0;
      available &= clGetEventProfilingInfo(event, token.param, 0, nullptr, &bytes) == CL_SUCCESS;
   }
   EXPECT_TRUE(available) << "once the same launch is CL_COMPLETE every token is available";
}

// Section 12: a launch that ends with CL_COOPERATIVE_BARRIER_STUCK_EXT has
// no profiling information: neither the extension's tokens nor
// CL_PROFILING_COMMAND_END.
void expect_not_available_after_stuck(cl_context context, cl_device_id device, cl_program program,
                                      cl_uint units)
{
   cl_host::Queue queue = cl_host::create_queue(context, device, true);
   cl_host::Kernel kernel = cl_host::create_kernel(program, "extra_barrier");
   cl_uint zero = 0;
   cl_host::Buffer counter =
      cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(zero), &zero);
   cl_host::set_arg(kernel, 0, counter.get());
   const size_t local = 8, global = units * local;
   cl_event raw_event = nullptr;
   std::printf("(a stuck launch follows: its message on stderr is expected)\n");
   std::fflush(stdout);
   cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr,
                                         &raw_event),
                  "clEnqueueNDRangeKernel(stuck)");
   cl_host::Event event(raw_event);
   // Both may report the launch's error; the status is checked below.
   clFinish(queue);
   clWaitForEvents(1, &raw_event);
   const cl_int status = cl_host::event_status(event);
   EXPECT_EQ(status, CL_COOPERATIVE_BARRIER_STUCK_EXT)
      << "the launch ended with CL_COOPERATIVE_BARRIER_STUCK_EXT";
   expect_not_available(event, "after a stuck launch");
   cl_ulong end = 0;
   const cl_int end_status =
      clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr);
   EXPECT_EQ(end_status, CL_PROFILING_INFO_NOT_AVAILABLE)
      << "CL_PROFILING_COMMAND_END after a stuck launch is CL_PROFILING_INFO_NOT_AVAILABLE (got "
      << cl_host::error_name(end_status) << ")";
}

// Section 8: KILLS and FORKS are exact, and the gather times come in
// completion order, one per gather. Four ordinary launches of one
// work-group each take a unit from gather_on_signal, which runs on every
// unit: the first and third gathers are met at once, the second and fourth
// only once the host allows offer_kill, 500 ms after the kernel saw the
// request (timed from there, not from the launch, which a loaded machine
// may take hundreds of milliseconds to bring to the scheduler). The
// gather times are then short, long, short, long: no sorting or reversal
// of them keeps that order. Between launches the kernel forks back onto
// every unit, which the host sees in the acknowledgements.
void expect_exact_counts_and_gather_order(cl_context context, cl_device_id device,
                                          cl_program program, cl_uint units)
{
   cl_host::Queue cooperative_queue = cl_host::create_queue(context, device, true);
   cl_host::Queue ordinary_queue = cl_host::create_queue(context, device);
   cl_host::Queue control_queue = cl_host::create_queue(context, device);
   cl_host::Queue release_queue = cl_host::create_queue(context, device);
   cl_host::Kernel cooperative = cl_host::create_kernel(program, "gather_on_signal");
   cl_host::Kernel ordinary = cl_host::create_kernel(program, "one_group");
   std::vector<cl_uint> zeros(SEEN + units, 0);
   cl_host::Buffer state = cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR,
                                                  zeros.size() * sizeof(cl_uint), zeros.data());
   const size_t local = 8, global = units * local;
   cl_host::Buffer out = cl_host::create_buffer(context, CL_MEM_READ_WRITE,
                                                local * sizeof(cl_uint));
   cl_host::set_arg(cooperative, 0, state.get());
   cl_host::set_arg(ordinary, 0, out.get());
   // The ordinary kernel is compiled before the timings.
   cl_host::check(clEnqueueNDRangeKernel(ordinary_queue, ordinary, 1, nullptr, &local, &local, 0,
                                         nullptr, nullptr),
                  "clEnqueueNDRangeKernel(one_group)");
   cl_host::check(clFinish(ordinary_queue), "clFinish");

   // Waits until every one of the units work-groups acts on `control`.
   const auto wait_for_all = [&](cl_uint control) {
      for (;;) {
         const auto got = cl_host::read_buffer<cl_uint>(control_queue, state, SEEN + units);
         if (std::all_of(got.begin() + SEEN, got.end(), [&](cl_uint v) { return v == control; }))
            return;
         std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
   };

   cl_host::BackgroundLaunch cooperative_launch(cooperative_queue, cooperative, global, local);
   std::thread releaser;
   try {
      const bool long_gather[] = {false, true, false, true};
      const auto delay = std::chrono::milliseconds(500);
      cl_uint phase = 0;
      for (const bool slow : long_gather) {
         const cl_uint control = (++phase << 1) | (slow ? 0u : 1u);
         write_uint(control_queue, state, CONTROL, control);
         wait_for_all(control); // back on every unit, and acting on control
         if (slow)
            releaser = std::thread([&, control] {
               while (cl_host::read_buffer<cl_uint>(release_queue, state, SEEN)[REQUESTED] !=
                      control)
                  std::this_thread::sleep_for(std::chrono::microseconds(200));
               std::this_thread::sleep_for(delay);
               write_uint(release_queue, state, CONTROL, control | 1);
            });
         cl_host::check(clEnqueueNDRangeKernel(ordinary_queue, ordinary, 1, nullptr, &local,
                                               &local, 0, nullptr, nullptr),
                        "clEnqueueNDRangeKernel(one_group)");
         cl_host::check(clFinish(ordinary_queue), "clFinish(one_group)");
         if (releaser.joinable())
            releaser.join();
      }
      const cl_uint last = (++phase << 1) | 1u;
      write_uint(control_queue, state, CONTROL, last);
      wait_for_all(last);
   } catch (...) {
      if (releaser.joinable())
         releaser.join();
      write_uint(control_queue, state, STOP, 1);
      throw;
   }
   write_uint(control_queue, state, STOP, 1);
   const cl_host::Event event = cooperative_launch.join();

   const auto counted = cl_host::read_buffer<cl_uint>(control_queue, state, SEEN);
   const cl_ulong kills = cl_host::profiling_ulong(event, CL_PROFILING_COOPERATIVE_KILLS_EXT);
   const cl_ulong forks = cl_host::profiling_ulong(event, CL_PROFILING_COOPERATIVE_FORKS_EXT);
   const auto gathers = cl_host::profiling_times(event, CL_PROFILING_COOPERATIVE_GATHER_TIMES_EXT);
   const auto fork_times = cl_host::profiling_times(event, CL_PROFILING_COOPERATIVE_FORK_TIMES_EXT);
   const cl_ulong counted_kills =
      cl_ulong(counted[STARTED]) + counted[JOINED] - counted[EXITED];
   std::printf("gather_on_signal: started %u, joined %u, exited %u; KILLS %llu, FORKS %llu; "
               "gathers",
               counted[STARTED], counted[JOINED], counted[EXITED], (unsigned long long)kills,
               (unsigned long long)forks);
   for (cl_ulong ns : gathers)
      std::printf(" %.3f ms", ns / 1e6);
   std::printf("\n");
   EXPECT_GE(counted[JOINED], 1u) << "work-groups joined through request_fork";
   EXPECT_EQ(kills, counted_kills)
      << "KILLS is exactly the work-groups that started or joined and did not end";
   EXPECT_EQ(forks, counted[JOINED])
      << "FORKS is exactly the work-groups that joined through request_fork";
   EXPECT_EQ(fork_times.size(), forks) << "FORK_TIMES has one time per fork";
   ASSERT_EQ(gathers.size(), 4u) << "GATHER_TIMES has one time per gather (4)";
   EXPECT_LT(std::max(gathers[0], gathers[2]), std::min(gathers[1], gathers[3]))
      << "GATHER_TIMES is in completion order: short, long, short, long";
   // A gather lasts until its units are given back (>= 250 ms when the
   // kernel offers 500 ms after it saw the request).
   EXPECT_GE(gathers[1], 250'000'000u) << "the second gather lasts until its units come back";
   EXPECT_GE(gathers[3], 250'000'000u) << "the fourth gather lasts until its units come back";
}

// Section 8: Mesa records the first 1024 fork times. fork_many forks more
// than 1024 work-groups, each counted by the kernel: FORKS counts them all,
// FORK_TIMES holds 1024 times, and MAX_ACTIVE = n (work-groups that
// returned stay active). It needs the default policy, which offers every
// idle unit to forks (the test runs under it alone).
void expect_fork_times_capped(cl_context context, cl_device_id device, cl_program program,
                              cl_uint units)
{
   cl_host::Queue queue = cl_host::create_queue(context, device, true);
   cl_host::Kernel kernel = cl_host::create_kernel(program, "fork_many");
   cl_uint zero = 0;
   cl_host::Buffer joined =
      cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(zero), &zero);
   const cl_uint n = units + recorded_times + 100;
   cl_host::set_arg(kernel, 0, joined.get());
   cl_host::set_arg(kernel, 1, n);
   // Work-groups of 8, a whole SIMD chunk of llvmpipe: with work-groups of
   // a size that is not a multiple of 8 (1, 4 and 12 tried) this launch
   // never completes on llvmpipe, an implementation bug that section 10.4
   // does not allow and that this test does not check.
   const size_t local = 8, global = n * local;
   cl_event raw_event = nullptr;
   cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr,
                                         &raw_event),
                  "clEnqueueNDRangeKernel(fork_many)");
   cl_host::Event event(raw_event);
   cl_host::check(clFinish(queue), "clFinish");
   const cl_uint counted = cl_host::read_buffer<cl_uint>(queue, joined, 1)[0];
   const cl_ulong forks = cl_host::profiling_ulong(event, CL_PROFILING_COOPERATIVE_FORKS_EXT);
   const cl_ulong most = cl_host::profiling_ulong(event, CL_PROFILING_COOPERATIVE_MAX_ACTIVE_EXT);
   const auto fork_times = cl_host::profiling_times(event, CL_PROFILING_COOPERATIVE_FORK_TIMES_EXT);
   std::printf("fork_many (N = %u): joined %u, FORKS %llu, MAX_ACTIVE %llu, %zu fork times\n", n,
               counted, (unsigned long long)forks, (unsigned long long)most, fork_times.size());
   EXPECT_EQ(forks, counted) << "FORKS counts every fork";
   EXPECT_GT(forks, recorded_times) << "more than 1024 forks";
   EXPECT_EQ(most, n) << "MAX_ACTIVE reaches N with the returned work-groups";
   EXPECT_EQ(fork_times.size(), recorded_times)
      << "FORK_TIMES holds 1024 times (the cap), not one per fork";
}

// The directories given on the command line.
std::string kernels_dir, include_dir;

// The device, its context and the two programs, shared by the tests; as
// before, one 100 s watchdog spans them all (from the programs' build on).
class LaunchStats : public testing::Test {
protected:
   struct Shared {
      cl_device_id device = nullptr;
      cl_uint units = 0;
      cl_host::Context context;
      cl_host::Program program, own_program;
      std::unique_ptr<cl_host::Watchdog> watchdog;
   };

   static void SetUpTestSuite()
   {
      shared = std::make_unique<Shared>();
      shared->device = cl_host::first_device();
      shared->units = cl_host::device_uint(shared->device, CL_DEVICE_MAX_COMPUTE_UNITS);
      if (shared->units < 2)
         return;
      shared->context = cl_host::create_context(shared->device);
      const std::string source = cl_host::read_file(include_dir + "/cooperative_kernels.cl.h") +
                                 cl_host::read_file(kernels_dir + "/bench.cl");
      shared->program = cl_host::build_or_throw(shared->context, shared->device, source);
      shared->own_program =
         cl_host::build_or_throw(shared->context, shared->device, counting_source);
      shared->watchdog = std::make_unique<cl_host::Watchdog>("the launch statistics test",
                                                             std::chrono::seconds(100));
   }
   static void TearDownTestSuite() { shared.reset(); }

   void SetUp() override
   {
      if (shared->units != 0 && shared->units < 2)
         GTEST_SKIP() << "needs at least 2 compute units";
      ASSERT_TRUE(shared->own_program.get()) << "the setup failed";
      device = shared->device;
      units = shared->units;
      context = shared->context;
      program = shared->program;
      own_program = shared->own_program;
   }

   static std::unique_ptr<Shared> shared;
   cl_device_id device = nullptr;
   cl_uint units = 0;
   cl_context context = nullptr;
   cl_program program = nullptr, own_program = nullptr;
};

std::unique_ptr<LaunchStats::Shared> LaunchStats::shared;

} // namespace

// A resizing launch beside an ordinary one (cl_host::probe_resize): the
// statistics of both, and the sizes of every token.
TEST_F(LaunchStats, ResizingAndOrdinaryLaunch)
{
   const cl_host::ResizeProbe probe = cl_host::probe_resize(context, device, program, units - 1);
   std::printf("%u units: %llu kills, %llu forks, active %llu..%llu, %zu gathers", units,
               (unsigned long long)probe.kills, (unsigned long long)probe.forks,
               (unsigned long long)probe.min_active, (unsigned long long)probe.max_active,
               probe.gather_ns.size());
   for (cl_ulong ns : probe.gather_ns)
      std::printf(" %.3f ms", ns / 1e6);
   std::printf("; fork latencies");
   for (cl_ulong ns : probe.fork_ns)
      std::printf(" %.1f us", ns / 1e3);
   std::printf("\n");
   EXPECT_TRUE(probe.ordinary_right) << "the ordinary kernel computed the right result";
   EXPECT_GE(probe.kills, units - 1) << "the kernel gave back units - 1 work-groups";
   EXPECT_GE(probe.forks, 1u) << "units came back through forks";
   EXPECT_EQ(probe.max_active, units) << "the kernel started on every unit";
   EXPECT_EQ(probe.min_active, 1u) << "only work-group 0 stayed while the ordinary kernel ran";
   bool timed = !probe.gather_ns.empty();
   for (cl_ulong ns : probe.gather_ns)
      timed &= ns > 0 && ns < 10'000'000'000ull;
   EXPECT_TRUE(timed) << "every gather has a time between 0 and 10 s";
   EXPECT_EQ(probe.fork_ns.size(), probe.forks) << "every fork has a latency";

   cl_event ordinary = probe.ordinary_event;
   EXPECT_EQ(cl_host::profiling_ulong(ordinary, CL_PROFILING_COOPERATIVE_KILLS_EXT), 0u)
      << "an ordinary launch reports no kills";
   EXPECT_TRUE(
      cl_host::profiling_times(ordinary, CL_PROFILING_COOPERATIVE_GATHER_TIMES_EXT).empty())
      << "an ordinary launch reports no gathers";
   // Section 8: "every value is 0 (no gathers) for a kernel that is not
   // cooperative" - the other four tokens too.
   EXPECT_EQ(cl_host::profiling_ulong(ordinary, CL_PROFILING_COOPERATIVE_FORKS_EXT), 0u)
      << "an ordinary launch reports 0 forks";
   EXPECT_EQ(cl_host::profiling_ulong(ordinary, CL_PROFILING_COOPERATIVE_MIN_ACTIVE_EXT), 0u)
      << "an ordinary launch reports 0 as MIN_ACTIVE";
   EXPECT_EQ(cl_host::profiling_ulong(ordinary, CL_PROFILING_COOPERATIVE_MAX_ACTIVE_EXT), 0u)
      << "an ordinary launch reports 0 as MAX_ACTIVE";
   EXPECT_TRUE(
      cl_host::profiling_times(ordinary, CL_PROFILING_COOPERATIVE_FORK_TIMES_EXT).empty())
      << "an ordinary launch reports no fork times";
   expect_sizes(ordinary, "an ordinary launch");
   expect_sizes(probe.cooperative_event, "the resizing launch");
}

TEST_F(LaunchStats, NotAvailableWithoutQueueProfiling)
{
   // Without queue profiling there are no statistics.
   cl_host::Queue plain_queue = cl_host::create_queue(context, device);
   cl_host::Kernel kernel = cl_host::create_kernel(program, "yield_until_stopped");
   cl_uint stopped[3] = {1, 0, 0};
   cl_host::Buffer state = cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR,
                                                  sizeof(stopped), stopped);
   cl_host::set_arg(kernel, 0, state.get());
   const size_t local = 8, global = units * local;
   cl_event raw_event = nullptr;
   cl_host::check(clEnqueueNDRangeKernel(plain_queue, kernel, 1, nullptr, &global, &local, 0,
                                         nullptr, &raw_event),
                  "clEnqueueNDRangeKernel(no profiling)");
   cl_host::Event plain_event(raw_event);
   cl_host::check(clFinish(plain_queue), "clFinish");
   cl_ulong unused = 0;
   EXPECT_EQ(clGetEventProfilingInfo(plain_event, CL_PROFILING_COOPERATIVE_KILLS_EXT,
                                     sizeof(unused), &unused, nullptr),
             CL_PROFILING_INFO_NOT_AVAILABLE)
      << "without queue profiling the statistics are CL_PROFILING_INFO_NOT_AVAILABLE";
   // Section 8: every token, not only KILLS.
   expect_not_available(plain_event, "without queue profiling");
}

TEST_F(LaunchStats, NotAvailableWhileRunning)
{
   expect_not_available_while_running(context, device, program, units);
}

TEST_F(LaunchStats, NotAvailableAfterStuckLaunch)
{
   expect_not_available_after_stuck(context, device, own_program, units);
}

TEST_F(LaunchStats, ExactCountsAndGatherOrder)
{
   expect_exact_counts_and_gather_order(context, device, own_program, units);
}

TEST_F(LaunchStats, ForkTimesCapped)
{
   expect_fork_times_capped(context, device, own_program, units);
}

int main(int argc, char **argv)
{
   testing::InitGoogleTest(&argc, argv);
   if (argc != 3) {
      std::fprintf(stderr, "usage: launch_stats [GTEST_OPTION...] KERNELS_DIR INCLUDE_DIR\n");
      return 2;
   }
   kernels_dir = argv[1];
   include_dir = argv[2];
   return host_test::run_all();
}
