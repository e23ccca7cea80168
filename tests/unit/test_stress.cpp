// Stress tests: blocking kernels on host threads (host_work_group.hpp) under
// the random policy, alone and next to host threads that keep launching
// short ordinary kernels.
// covers: 8-prof-forks 10.1-active-ids 10.5-no-early-leave

#include "test_kernels.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace ck::test {
namespace {

constexpr unsigned units = 6;
constexpr uint32_t max_groups = 8;
constexpr uint64_t seeds[] = {1, 2, 3, 4};
constexpr uint64_t min_events_per_kernel_type = 1000;

// Host threads launching short ordinary kernels until destroyed.
class OrdinaryLoad {
public:
   OrdinaryLoad(ck_scheduler *scheduler, unsigned threads)
   {
      for (unsigned thread = 0; thread < threads; ++thread)
         hosts_.emplace_back([this, scheduler, thread] { launch_until_stopped(scheduler, thread); });
   }

   ~OrdinaryLoad() { stop(); }

   void stop()
   {
      stopping_.store(true);
      for (auto &host : hosts_)
         if (host.joinable())
            host.join();
   }

   unsigned launches() const { return launches_.load(); }
   unsigned failures() const { return failures_.load(); }
   double max_latency_ms() const { return max_latency_us_.load() / 1e3; }

private:
   void launch_until_stopped(ck_scheduler *scheduler, unsigned thread)
   {
      for (unsigned round = 0; !stopping_.load(); ++round) {
         const unsigned groups = 1 + (round + thread) % 8;
         CountingKernel kernel(groups);
         const auto start = std::chrono::steady_clock::now();
         wait_or_die(ck_scheduler_launch(scheduler, run_kernel<CountingKernel>, &kernel, groups));
         const auto latency = std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::steady_clock::now() - start);
         uint64_t longest = max_latency_us_.load();
         while (uint64_t(latency.count()) > longest &&
                !max_latency_us_.compare_exchange_weak(longest, latency.count())) {
         }
         for (const auto &runs : kernel.runs)
            if (runs.load() != 1)
               failures_.fetch_add(1);
         launches_.fetch_add(1);
         std::this_thread::sleep_for(std::chrono::microseconds(200 * (1 + round % 4)));
      }
   }

   std::vector<std::thread> hosts_;
   std::atomic<bool> stopping_{false};
   std::atomic<unsigned> launches_{0}, failures_{0};
   std::atomic<uint64_t> max_latency_us_{0};
};

// Runs `kernel` on a fresh random:SEED scheduler; returns its stats.
template <typename Kernel>
ck_launch_stats run_under_random_policy(Kernel &kernel, uint64_t seed, bool with_ordinary_load,
                                        const char *label)
{
   const std::string policy = "random:" + std::to_string(seed);
   auto scheduler = make_scheduler(units, policy.c_str());
   std::optional<OrdinaryLoad> load;
   if (with_ordinary_load)
      load.emplace(scheduler.get(), 4);
   const ck_launch_stats stats = wait_or_die(ck_scheduler_launch_cooperative(
      scheduler.get(), run_kernel<Kernel>, &kernel, kernel.context.data(), max_groups, nullptr));
   std::printf("%s seed %llu: %.0f ms, %llu kills, %llu forks, M in [%u, %u], %u gathers "
               "(max %.2f ms)",
               label, (unsigned long long)seed, stats.run_ns / 1e6, (unsigned long long)stats.kills,
               (unsigned long long)stats.forks, stats.min_active, stats.max_active, stats.gathers,
               stats.gather_ns_max / 1e6);
   if (load) {
      load->stop();
      std::printf(", %u ordinary launches (max latency %.2f ms)", load->launches(),
                  load->max_latency_ms());
      EXPECT_EQ(load->failures(), 0u);
      EXPECT_GT(load->launches(), 0u);
   }
   std::printf("\n");
   return stats;
}

void relaxation(bool with_ordinary_load)
{
   uint64_t events = 0;
   for (const uint64_t seed : seeds) {
      Relaxation kernel(max_groups, 96, 1500, 2);
      const ck_launch_stats stats =
         run_under_random_policy(kernel, seed, with_ordinary_load, "relaxation");
      EXPECT_TRUE(kernel.result() == kernel.expected()) << "seed " << seed;
      EXPECT_EQ(kernel.tracker.violations(), 0u) << "seed " << seed;
      EXPECT_EQ(kernel.tracker.forked_starts(), stats.forks) << "seed " << seed;
      events += stats.kills + stats.forks;
   }
   EXPECT_GE(events, min_events_per_kernel_type);
}

void work_stealing(bool with_ordinary_load)
{
   uint64_t events = 0;
   for (const uint64_t seed : seeds) {
      // At least 400 events per seed; at most 2M tasks.
      WorkStealing kernel(max_groups, 20000, 400, 2000000);
      const ck_launch_stats stats =
         run_under_random_policy(kernel, seed, with_ordinary_load, "work stealing");
      EXPECT_TRUE(kernel.every_task_done_once()) << "seed " << seed;
      EXPECT_EQ(kernel.tracker.violations(), 0u) << "seed " << seed;
      EXPECT_EQ(kernel.tracker.forked_starts(), stats.forks) << "seed " << seed;
      events += stats.kills + stats.forks;
   }
   EXPECT_GE(events, min_events_per_kernel_type);
}

TEST(Stress, RelaxationUnderRandomPolicy) { relaxation(false); }
TEST(Stress, RelaxationUnderRandomPolicyWithOrdinaryLoad) { relaxation(true); }
TEST(Stress, WorkStealingUnderRandomPolicy) { work_stealing(false); }
TEST(Stress, WorkStealingUnderRandomPolicyWithOrdinaryLoad) { work_stealing(true); }

} // namespace
} // namespace ck::test
