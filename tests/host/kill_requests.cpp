// Kill requests as query_kill_count() shows them, through OpenCL, under the
// default policy's real gathers (the spec's 10.7 and 10.1, and the gather
// times of section 8, numbered as in docs/spec-coverage.md). Ordinary
// kernels launched from other host threads take compute units from a
// cooperative kernel that runs on every unit and does what the host tells
// it through global memory: watch (query only), return, offer the last W
// work-groups to kills, fork, or give a unit back and fork it again.
//
// - promise: a request stands after the demand behind it went away (the
//   ordinary kernel ran on a unit that a returned work-group freed), the
//   last W work-groups that keep offering are all killed, and the units
//   they bring back are offered to forks again;
// - capped: with a returned work-group below the top, requests stop at
//   the work-groups above it, and drop when another one returns;
// - gather times: 1030 gathers record the first 1024 times, in order.
//
// It tests the default policy (the only one that gathers), so meson runs it
// under that policy alone, with 4 compute units.
// covers: 8-prof-gather-times 10.1-returned-blocks-kills 10.7-eventually-killed 10.7-promise
// covers: 10.7-unit-reoffered 10.7-withdrawn-at-returned
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

const char *source = R"CLC(
enum { CMD, STARTED, JOINED, EXITED, MAX_QUERY, SEEN = 8, QUERY = 72, ACTIVE = 136 };
enum { WATCH = 1, RETURN, OFFER, FORK, CYCLE, STOP };

// Every work-group reads the host's command (phase << 8 | argument << 4 |
// op: one word, since two relaxed atomic reads may be reordered), calls
// query_kill_count() and records the command, the count and M in its
// slots, then acts: WATCH does nothing more, RETURN returns the work-group
// that the argument names, OFFER calls offer_kill() in the last W
// work-groups (W as query_kill_count() just said), FORK has work-group 0
// call request_fork(), CYCLE has every work-group offer and fork (as
// yield_until_stopped in kernels/bench.cl).
kernel void obey(volatile global uint *s)
{
   local uint cmd_l, m_l;
   transmit uint origin = 0;
   if (get_local_id(0) == 0)
      atomic_inc(&s[STARTED]);
   for (;;) {
      if (get_local_id(0) == 0) {
         cmd_l = atomic_add(&s[CMD], 0);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      const uint cmd = cmd_l, arg = (cmd >> 4) & 15;
      barrier(CLK_LOCAL_MEM_FENCE);
      const uint q = query_kill_count();
      // M decides an offer_kill: read once and broadcast (each work-item
      // would read it at its own time).
      if (get_local_id(0) == 0)
         m_l = get_num_groups(0);
      barrier(CLK_LOCAL_MEM_FENCE);
      const uint m = m_l;
      const uint g = get_group_id(0);
      if (get_local_id(0) == 0) {
         atomic_max(&s[MAX_QUERY], q);
         atomic_xchg(&s[QUERY + g], q);
         atomic_xchg(&s[ACTIVE + g], m);
         atomic_xchg(&s[SEEN + g], cmd);
      }
      const uint op = cmd & 15;
      if (op == STOP)
         break;
      if (op == RETURN && g == arg)
         return;
      if (op == OFFER && g + q >= m)
         offer_kill();
      if (op == CYCLE)
         offer_kill();
      if ((op == FORK && g == 0) || op == CYCLE) {
         origin = get_group_id(0);
         request_fork();
         if (origin != get_group_id(0) && get_local_id(0) == 0)
            atomic_inc(&s[JOINED]);
      }
   }
   if (get_local_id(0) == 0)
      atomic_inc(&s[EXITED]);
}

// An ordinary kernel whose work-groups need one unit each, one after another.
kernel void one_group(global uint *out)
{
   out[get_global_id(0)] = get_global_id(0) + 1;
}
)CLC";

enum { CMD, STARTED, JOINED, EXITED, MAX_QUERY, SEEN = 8, QUERY = 72, ACTIVE = 136,
       WORDS = 200 };
enum { WATCH = 1, RETURN, OFFER, FORK, CYCLE, STOP };
constexpr size_t local = 8;
constexpr size_t recorded_times = 1024; // section 8: Mesa records the first 1024

// The cooperative kernel `obey` on every unit, and the host's side of it.
class Obey {
public:
   Obey(cl_context context, cl_device_id device, cl_program program, cl_uint units)
      : context_(context), units_(units), queue_(cl_host::create_queue(context, device, true)),
        control_(cl_host::create_queue(context, device)),
        kernel_(cl_host::create_kernel(program, "obey")),
        state_(make_state(context))
   {
      cl_host::set_arg(kernel_, 0, state_.get());
      launch_.reset(new cl_host::BackgroundLaunch(queue_, kernel_, units * local, local));
   }
   ~Obey()
   {
      if (launch_) {
         command(STOP);
         launch_.reset();
      }
   }

   // Posts a command; returns its word.
   cl_uint command(cl_uint op, cl_uint arg = 0)
   {
      const cl_uint cmd = (++phase_ << 8) | (arg << 4) | op;
      write(CMD, cmd);
      return cmd;
   }

   // Waits until each of `groups` recorded `cmd` (after acting on the last one).
   std::vector<cl_uint> wait_seen(cl_uint cmd, const std::vector<cl_uint> &groups)
   {
      return wait_until([&](const std::vector<cl_uint> &got) {
         return std::all_of(groups.begin(), groups.end(),
                            [&](cl_uint g) { return got[SEEN + g] == cmd; });
      });
   }

   // Waits until pred(state) holds; throws, with the state, after 20 s.
   template <typename Pred> std::vector<cl_uint> wait_until(Pred pred)
   {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      for (;;) {
         const std::vector<cl_uint> got = read();
         if (pred(got))
            return got;
         if (std::chrono::steady_clock::now() > deadline) {
            std::string what = "waited 20 s for the kernel: started " +
                               std::to_string(got[STARTED]) + ", joined " +
                               std::to_string(got[JOINED]) + ", exited " +
                               std::to_string(got[EXITED]) + "; per work-group (seen, query, M):";
            for (cl_uint g = 0; g < units_; ++g)
               what += " " + std::to_string(got[SEEN + g]) + "," + std::to_string(got[QUERY + g]) +
                       "," + std::to_string(got[ACTIVE + g]);
            // The kernel cannot be stopped if it is stuck: leave at once.
            std::fprintf(stderr, "kill_requests: %s\n", what.c_str());
            std::fflush(stdout);
            std::_Exit(1);
         }
         std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
   }

   std::vector<cl_uint> read() { return cl_host::read_buffer<cl_uint>(control_, state_, WORDS); }

   // Stops the kernel and returns its event.
   cl_host::Event finish()
   {
      command(STOP);
      cl_host::Event event = launch_->join();
      launch_.reset();
      return event;
   }

private:
   static cl_host::Buffer make_state(cl_context context)
   {
      std::vector<cl_uint> zeros(WORDS, 0);
      return cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, WORDS * sizeof(cl_uint),
                                    zeros.data());
   }
   void write(size_t index, cl_uint value)
   {
      cl_host::check(clEnqueueWriteBuffer(control_, state_, CL_TRUE, index * sizeof(cl_uint),
                                          sizeof(value), &value, 0, nullptr, nullptr),
                     "clEnqueueWriteBuffer");
   }

   cl_context context_;
   cl_uint units_;
   cl_host::Queue queue_, control_;
   cl_host::Kernel kernel_;
   cl_host::Buffer state_;
   cl_uint phase_ = 0;
   std::unique_ptr<cl_host::BackgroundLaunch> launch_;
};

std::vector<cl_uint> range(cl_uint from, cl_uint to)
{
   std::vector<cl_uint> out;
   for (cl_uint g = from; g < to; ++g)
      out.push_back(g);
   return out;
}

// 10.7: the promise. N = M = units. An ordinary kernel of two work-groups
// makes the scheduler request two kills; work-group 1 then returns, and the
// ordinary kernel runs both its work-groups on the unit that freed: the
// demand is gone, but the request stands (nothing at or below work-group 1
// is killable, and two are above it). The last two work-groups then keep
// offering: both are killed, and the two units are offered to forks again,
// so that work-group 0's request_fork() brings M back to N.
void promise(cl_context context, cl_device_id device, cl_program program, cl_uint units)
{
   cl_host::Queue ordinary_queue = cl_host::create_queue(context, device);
   cl_host::Kernel ordinary = cl_host::create_kernel(program, "one_group");
   cl_host::Buffer out = cl_host::create_buffer(context, CL_MEM_READ_WRITE,
                                                2 * local * sizeof(cl_uint));
   cl_host::set_arg(ordinary, 0, out.get());
   const std::vector<cl_uint> all = range(0, units), live = [&] {
      std::vector<cl_uint> v = all;
      v.erase(v.begin() + 1);
      return v;
   }();

   Obey obey(context, device, program, units);
   obey.wait_seen(obey.command(WATCH), all);
   std::vector<cl_uint> got;
   {
      cl_host::BackgroundLaunch demand(ordinary_queue, ordinary, 2 * local, local);
      got = obey.wait_until([&](const std::vector<cl_uint> &s) {
         return std::all_of(all.begin(), all.end(), [&](cl_uint g) { return s[QUERY + g] >= 2; });
      });
      EXPECT_EQ(got[MAX_QUERY], 2u) << "an ordinary kernel of 2 work-groups makes "
                                       "query_kill_count() 2 in every work-group";
      obey.command(RETURN, 1);
      demand.join(); // ran on work-group 1's unit
   }
   // Every live work-group queries after the scheduler balanced without
   // the demand: a launch takes the scheduler's lock after the unit that
   // completed the demand went idle and balanced, and this one-group
   // launch runs on that unit at once.
   cl_host::BackgroundLaunch(ordinary_queue, ordinary, local, local).join();
   got = obey.wait_seen(obey.command(WATCH), live);
   for (cl_uint g : live) {
      EXPECT_EQ(got[QUERY + g], 2u)
         << "work-group " << g << ": once the ordinary kernel completed on the unit of a "
            "returned work-group, query_kill_count() still says 2 (the request stands)";
      EXPECT_EQ(got[ACTIVE + g], units) << "work-group " << g << ": M = N, nothing killed yet";
   }
   // The last W = 2 (ids units-2, units-1) offer until killed.
   obey.command(OFFER);
   got = obey.wait_until([&](const std::vector<cl_uint> &s) {
      return s[ACTIVE + 0] == units - 2 && s[QUERY + 0] == 0;
   });
   // (Reached: the last 2 work-groups that kept offering were both killed,
   // M = N - 2, and query_kill_count() is 0.)
   const cl_uint fork = obey.command(FORK);
   got = obey.wait_until([&](const std::vector<cl_uint> &s) {
      return s[SEEN + 0] == fork && s[ACTIVE + 0] == units && s[JOINED] == 2;
   });
   // (Reached: the 2 units came back to forks, work-group 0's request_fork()
   // brought M back to N, 2 joined.)
   const cl_host::Event event = obey.finish();
   got = obey.read();
   const cl_ulong kills = cl_host::profiling_ulong(event, CL_PROFILING_COOPERATIVE_KILLS_EXT);
   const cl_ulong forks = cl_host::profiling_ulong(event, CL_PROFILING_COOPERATIVE_FORKS_EXT);
   const auto gathers = cl_host::profiling_times(event, CL_PROFILING_COOPERATIVE_GATHER_TIMES_EXT);
   std::printf("promise: KILLS %llu, FORKS %llu, %zu gathers, started %u joined %u exited %u, "
               "most queried %u\n",
               (unsigned long long)kills, (unsigned long long)forks, gathers.size(), got[STARTED],
               got[JOINED], got[EXITED], got[MAX_QUERY]);
   EXPECT_EQ(kills, 2u) << "exactly the 2 requested kills";
   EXPECT_EQ(forks, 2u) << "exactly 2 forks";
   EXPECT_EQ(got[MAX_QUERY], 2u) << "never more than 2 kills requested";
   EXPECT_EQ(gathers.size(), 1u) << "the outlived request was one gather, ended by the kills";
}

// 10.1, 10.7: a returned work-group below the top. Work-group 1 returns
// first; an ordinary kernel of 16 work-groups then wants more units than
// the kernel has, but requests stop at the 2 work-groups above work-group
// 1 (M - 1 = 3 would be the bound without it). When work-group 2 returns
// too, the request that only it could have met is withdrawn (1 left), and
// once the top work-group is killed none is left.
void capped(cl_context context, cl_device_id device, cl_program program, cl_uint units)
{
   cl_host::Queue ordinary_queue = cl_host::create_queue(context, device);
   cl_host::Kernel ordinary = cl_host::create_kernel(program, "one_group");
   const size_t groups = 16;
   cl_host::Buffer out = cl_host::create_buffer(context, CL_MEM_READ_WRITE,
                                                groups * local * sizeof(cl_uint));
   cl_host::set_arg(ordinary, 0, out.get());

   Obey obey(context, device, program, units);
   obey.wait_seen(obey.command(WATCH), range(0, units));
   // Work-group 1 acknowledges RETURN just before it returns; the demand
   // must come after the scheduler saw the return (otherwise a request for
   // 3, withdrawn to 2 at the return, would be right). No work-group offers
   // a kill, so one ordinary work-group can only run on the unit that the
   // return frees: once it completed, the return was seen. (A request it
   // made before that stands, and stays below the limit checked here.)
   obey.wait_seen(obey.command(RETURN, 1), {1});
   cl_host::BackgroundLaunch(ordinary_queue, ordinary, local, local).join();
   std::vector<cl_uint> live = {0};
   for (cl_uint g = 2; g < units; ++g)
      live.push_back(g);
   obey.wait_seen(obey.command(WATCH), live);
   std::vector<cl_uint> got;
   {
      cl_host::BackgroundLaunch demand(ordinary_queue, ordinary, groups * local, local);
      // Every live work-group queries once the demand's requests are posted
      // (MAX_QUERY below tells if more were ever asked for).
      got = obey.wait_until([&](const std::vector<cl_uint> &s) {
         return std::all_of(live.begin(), live.end(),
                            [&](cl_uint g) { return s[QUERY + g] == units - 2; });
      });
      got = obey.wait_seen(obey.command(WATCH), live);
      for (cl_uint g : live)
         EXPECT_EQ(got[QUERY + g], units - 2)
            << "work-group " << g << ": with work-group 1 returned, query_kill_count() asks "
               "for the work-groups above it";
      EXPECT_EQ(got[MAX_QUERY], units - 2)
         << "never more kills requested than the work-groups above the returned one";
      obey.wait_seen(obey.command(RETURN, 2), {2});
      live.erase(live.begin() + 1);
      got = obey.wait_until([&](const std::vector<cl_uint> &s) {
         return std::all_of(live.begin(), live.end(),
                            [&](cl_uint g) { return s[QUERY + g] == units - 3; });
      });
      got = obey.wait_seen(obey.command(WATCH), live);
      for (cl_uint g : live)
         EXPECT_EQ(got[QUERY + g], units - 3)
            << "work-group " << g << ": once work-group 2 returned too, the request beyond "
               "the work-groups above it was withdrawn";
      obey.command(OFFER);
      got = obey.wait_until([&](const std::vector<cl_uint> &s) {
         return s[ACTIVE + 0] == 3 && s[QUERY + 0] == 0;
      });
      obey.wait_seen(obey.command(WATCH), {0});
      got = obey.read();
      EXPECT_EQ(got[QUERY + 0], 0u) << "nothing more is requested";
      EXPECT_EQ(got[ACTIVE + 0], 3u)
         << "the work-groups above the returned ones were killed (M = 3, the returned "
            "work-groups counted)";
      const cl_host::Event event = obey.finish();
      demand.join();
      const cl_ulong kills = cl_host::profiling_ulong(event, CL_PROFILING_COOPERATIVE_KILLS_EXT);
      EXPECT_EQ(kills, units - 3) << "KILLS: the work-groups above the returned ones";
   }
   const auto filled = cl_host::read_buffer<cl_uint>(ordinary_queue, out, groups * local);
   for (size_t i = 0; i < filled.size(); ++i)
      ASSERT_EQ(filled[i], i + 1) << "the ordinary kernel's result at " << i;
}

// Section 8: Mesa records the first 1024 gather times, in completion order.
// 1030 gathers: each an ordinary launch of one work-group that takes a unit
// from the kernel (on every unit, offering and forking), which forks it back
// before the next one. The first and the last gathers are long (the kernel
// offers 300 ms, and 1000 ms, after the launch); all others are short.
// GATHER_TIMES must hold 1024 times, the first long one first and not the
// last: the first 1024, in order. (A short gather can stall for hundreds of
// milliseconds on a loaded machine, so only the last one is that long.)
void gather_cap(cl_context context, cl_device_id device, cl_program program, cl_uint units)
{
   cl_host::Queue ordinary_queue = cl_host::create_queue(context, device);
   cl_host::Kernel ordinary = cl_host::create_kernel(program, "one_group");
   cl_host::Buffer out = cl_host::create_buffer(context, CL_MEM_READ_WRITE,
                                                local * sizeof(cl_uint));
   cl_host::set_arg(ordinary, 0, out.get());
   cl_host::check(clEnqueueNDRangeKernel(ordinary_queue, ordinary, 1, nullptr, &local, &local, 0,
                                         nullptr, nullptr),
                  "clEnqueueNDRangeKernel(one_group)");
   cl_host::check(clFinish(ordinary_queue), "clFinish");
   const std::vector<cl_uint> all = range(0, units);
   const size_t gathers_wanted = recorded_times + 6;

   Obey obey(context, device, program, units);
   cl_uint joined = 0;
   const auto long_gather = [&](std::chrono::milliseconds offer_after) {
      obey.wait_seen(obey.command(WATCH), all);
      cl_host::BackgroundLaunch demand(ordinary_queue, ordinary, local, local);
      std::this_thread::sleep_for(offer_after);
      obey.command(CYCLE);
      demand.join();
      ++joined;
      obey.wait_until([&](const std::vector<cl_uint> &s) { return s[JOINED] >= joined; });
   };
   long_gather(std::chrono::milliseconds(300));
   for (size_t i = 2; i < gathers_wanted; ++i) {
      cl_host::check(clEnqueueNDRangeKernel(ordinary_queue, ordinary, 1, nullptr, &local, &local,
                                            0, nullptr, nullptr),
                     "clEnqueueNDRangeKernel(one_group)");
      cl_host::check(clFinish(ordinary_queue), "clFinish(one_group)");
      ++joined;
      obey.wait_until([&](const std::vector<cl_uint> &s) { return s[JOINED] >= joined; });
   }
   long_gather(std::chrono::milliseconds(1000));
   const cl_host::Event event = obey.finish();
   const cl_ulong kills = cl_host::profiling_ulong(event, CL_PROFILING_COOPERATIVE_KILLS_EXT);
   const auto times = cl_host::profiling_times(event, CL_PROFILING_COOPERATIVE_GATHER_TIMES_EXT);
   size_t as_long_as_last = 0;
   std::string slow_ones;
   for (size_t i = 0; i < times.size(); ++i) {
      if (times[i] >= 250'000'000)
         slow_ones += " #" + std::to_string(i) + " " + std::to_string(times[i] / 1'000'000) + " ms";
      as_long_as_last += times[i] >= 900'000'000;
   }
   std::printf("gather_cap: KILLS %llu, %zu gather times, first %.3f ms, last %.3f ms, >= 250 "
               "ms:%s\n",
               (unsigned long long)kills, times.size(), times.empty() ? 0 : times[0] / 1e6,
               times.empty() ? 0 : times.back() / 1e6, slow_ones.c_str());
   EXPECT_GE(kills, gathers_wanted) << "one kill per gather at least";
   ASSERT_EQ(times.size(), recorded_times) << "GATHER_TIMES holds 1024 times after more gathers";
   EXPECT_GE(times[0], 250'000'000u)
      << "the first gather, long, is the first time: the first 1024 in completion order";
   EXPECT_EQ(as_long_as_last, 0u) << "the last gather, the longest, is not recorded (times >= 250 ms:"
                                  << slow_ones << ")";
}


// The device, the context and the program, shared by the tests.
class KillRequests : public testing::Test {
protected:
   struct Shared {
      cl_device_id device = nullptr;
      cl_uint units = 0;
      cl_host::Context context;
      cl_host::Program program;
   };

   static void SetUpTestSuite()
   {
      shared = std::make_unique<Shared>();
      shared->device = cl_host::first_device();
      shared->units = cl_host::device_uint(shared->device, CL_DEVICE_MAX_COMPUTE_UNITS);
      if (shared->units < 4 || shared->units > 15)
         return;
      shared->context = cl_host::create_context(shared->device);
      shared->program = cl_host::build_or_throw(shared->context, shared->device, source);
   }
   static void TearDownTestSuite() { shared.reset(); }

   void SetUp() override
   {
      if (shared->units < 4 || shared->units > 15)
         GTEST_SKIP() << "written for 4 to 15 compute units (has " << shared->units << ")";
      ASSERT_TRUE(shared->program.get()) << "the setup failed";
      device = shared->device;
      units = shared->units;
      context = shared->context;
      program = shared->program;
   }

   static std::unique_ptr<Shared> shared;
   cl_device_id device = nullptr;
   cl_uint units = 0;
   cl_context context = nullptr;
   cl_program program = nullptr;
   // A kernel that stops obeying cannot be stopped: fail loudly instead.
   cl_host::Watchdog watchdog{"a kill request test", std::chrono::seconds(100)};
};

std::unique_ptr<KillRequests::Shared> KillRequests::shared;

} // namespace

TEST_F(KillRequests, PromiseStandsAndUnitsGoBackToForks)
{
   promise(context, device, program, units);
}

TEST_F(KillRequests, CappedAboveAReturnedWorkGroup)
{
   capped(context, device, program, units);
}

TEST_F(KillRequests, GatherTimesKeepTheFirst1024InOrder)
{
   gather_cap(context, device, program, units);
}
