// Every FSE'17 application on its test-scale inputs, checked against its
// sequential reference: the cooperative kernel with 4x more work-groups than
// compute units (with the query-based resizing barrier and, for the graph
// applications, without it) and the persistent-thread build on one
// work-group per unit. CK_POLICY is set by the test runner; under a random
// policy every cooperative kernel must actually have been killed or forked
// (event profiling tells), so the results are checked under resizing: an
// application on a small input makes few offers, so its cooperative runs
// are repeated (each one checked) until it was, within a few rounds.
// Optional arguments after the directories pick applications by name or
// name:input; `--graph PATH` (repeatable) runs the graph applications on
// graph files instead of the generated graphs. Each application on its
// input is a test of its own (Apps.NAME_on_INPUT).
// covers: 10.1-global-size 10.2-resize-copies-wg0 10.3-no-effect 10.4-workitem-functions
// covers: 10.5-no-early-leave 10.6-barrier 10.6-resize 10.6-survivors-intact 13-define-away
// covers: 13-header-noop 15-random
#include "CL/cl_ext_cooperative_kernels.h"
#include "app.hpp"
#include "cl_host.hpp"
#include "host_test.hpp"
#include "resize_probe.hpp"
#include "watchdog.hpp"

#include <chrono>
#include <cstdio>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

std::string describe(const ck_apps::Application &app, const char *variant)
{
   return app.name() + " on " + app.input() + ", " + variant;
}

// Runs once and checks the result; returns the kills and forks it saw.
cl_ulong run_checked(ck_apps::Application &app, cl_command_queue queue,
                     const ck_apps::RunOptions &options, const char *variant)
{
   const ck_apps::RunResult result = app.run(queue, options);
   EXPECT_TRUE(result.correct) << describe(app, variant) << " matches the reference: "
                               << result.mismatch;
   if (options.variant != ck_apps::Variant::cooperative || !result.event.get())
      return 0;
   const cl_ulong kills =
      cl_host::profiling_ulong(result.event, CL_PROFILING_COOPERATIVE_KILLS_EXT);
   const cl_ulong forks =
      cl_host::profiling_ulong(result.event, CL_PROFILING_COOPERATIVE_FORKS_EXT);
   const cl_ulong max_active =
      cl_host::profiling_ulong(result.event, CL_PROFILING_COOPERATIVE_MAX_ACTIVE_EXT);
   std::printf("  %s: %.1f ms, %llu kills, %llu forks, at most %llu work-groups active\n",
               describe(app, variant).c_str(), result.seconds * 1e3, (unsigned long long)kills,
               (unsigned long long)forks, (unsigned long long)max_active);
   return kills + forks;
}

bool selected(const ck_apps::Application &app, const std::vector<std::string> &only)
{
   if (only.empty())
      return true;
   for (const std::string &name : only)
      if (name == app.name() || name == app.name() + ":" + app.input())
         return true;
   return false;
}

// The device, its context and queue, shared by the applications' tests;
// the watchdog spans them all.
struct Shared {
   cl_device_id device = nullptr;
   cl_uint units = 0;
   cl_host::Context context;
   cl_host::Queue queue;
   cl_host::Watchdog watchdog{"the application tests", std::chrono::seconds(500)};
};

class Apps : public testing::Test {
public:
   explicit Apps(ck_apps::Application &app) : app_(app) {}

   static void SetUpTestSuite()
   {
      shared = std::make_unique<Shared>();
      shared->device = cl_host::first_device();
      shared->units = cl_host::device_uint(shared->device, CL_DEVICE_MAX_COMPUTE_UNITS);
      shared->context = cl_host::create_context(shared->device);
      shared->queue = cl_host::create_queue(shared->context, shared->device, true);
   }
   static void TearDownTestSuite() { shared.reset(); }

   void TestBody() override
   {
      ASSERT_TRUE(shared->queue.get()) << "no OpenCL queue";
      const char *policy_env = std::getenv("CK_POLICY");
      const bool random_policy = policy_env && std::string(policy_env).rfind("random:", 0) == 0;
      ck_apps::Application &app = app_;
      cl_command_queue queue = shared->queue;
      app.setup(shared->context, shared->device);
      ck_apps::RunOptions cooperative;
      cooperative.groups = 4 * shared->units;
      ck_apps::RunOptions without_query = cooperative;
      without_query.barrier = ck_apps::Barrier::without_query;
      constexpr int max_rounds = 8;
      cl_ulong events = 0;
      for (int round = 0; round < max_rounds && (round == 0 || (random_policy && !events));
           ++round) {
         events += run_checked(app, queue, cooperative, "cooperative");
         if (app.kind() == "barrier")
            events += run_checked(app, queue, without_query, "cooperative without query");
      }
      if (random_policy) {
         EXPECT_GT(events, 0u) << describe(app, "cooperative")
                               << " was killed or forked by the random policy";
      }
      ck_apps::RunOptions persistent;
      persistent.variant = ck_apps::Variant::persistent;
      persistent.groups = shared->units;
      run_checked(app, queue, persistent, "persistent threads");
   }

   static std::unique_ptr<Shared> shared;

private:
   ck_apps::Application &app_;
};

std::unique_ptr<Shared> Apps::shared;

// A gtest name for NAME on INPUT: letters, digits and '_'.
std::string test_name(const ck_apps::Application &app)
{
   std::string name = app.name() + "_on_" + app.input();
   for (char &c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)))
         c = '_';
   return name;
}

} // namespace

int main(int argc, char **argv)
{
   testing::InitGoogleTest(&argc, argv);
   if (argc < 3) {
      std::fprintf(stderr, "usage: apps [GTEST_OPTION...] KERNELS_DIR INCLUDE_DIR "
                           "[NAME|NAME:INPUT ...] [--graph PATH ...]\n");
      return 2;
   }
   std::vector<std::string> only, graph_files;
   for (int i = 3; i < argc; ++i) {
      if (std::string(argv[i]) == "--graph" && i + 1 < argc)
         graph_files.push_back(argv[++i]);
      else
         only.push_back(argv[i]);
   }
   const char *policy_env = std::getenv("CK_POLICY");
   std::printf("CK_POLICY=%s\n", policy_env ? policy_env : "default");

   ck_apps::AppConfig config;
   config.kernels_dir = argv[1];
   config.include_dir = argv[2];
   config.scale = "test";
   config.graph_files = graph_files;
   std::vector<std::unique_ptr<ck_apps::Application>> apps;
   try {
      apps = ck_apps::all_applications(config);
   } catch (const std::exception &error) {
      std::fprintf(stderr, "apps: %s\n", error.what());
      return 1;
   }
   for (auto &app : apps) {
      if (!selected(*app, only))
         continue;
      ck_apps::Application *the_app = app.get();
      testing::RegisterTest("Apps", test_name(*app).c_str(), nullptr, nullptr, __FILE__,
                            __LINE__, [the_app]() -> Apps * { return new Apps(*the_app); });
   }
   return host_test::run_all();
}
