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
// graph files instead of the generated graphs.
#include "CL/cl_ext_cooperative_kernels.h"
#include "app.hpp"
#include "cl_host.hpp"
#include "expect.hpp"
#include "resize_probe.hpp"
#include "watchdog.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
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
   cl_host::expect(result.correct, describe(app, variant) + " matches the reference" +
                                      (result.correct ? "" : ": " + result.mismatch));
   if (options.variant != ck_apps::Variant::cooperative || !result.event.get())
      return 0;
   const cl_ulong kills =
      cl_host::profiling_ulong(result.event, CL_PROFILING_COOPERATIVE_KILLS_EXT);
   const cl_ulong forks =
      cl_host::profiling_ulong(result.event, CL_PROFILING_COOPERATIVE_FORKS_EXT);
   std::printf("  %s: %.1f ms, %llu kills, %llu forks\n", describe(app, variant).c_str(),
               result.seconds * 1e3, (unsigned long long)kills, (unsigned long long)forks);
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

} // namespace

int main(int argc, char **argv)
{
   if (argc < 3) {
      std::fprintf(stderr,
                   "usage: apps KERNELS_DIR INCLUDE_DIR [NAME|NAME:INPUT ...] [--graph PATH ...]\n");
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
   const std::string policy = policy_env ? policy_env : "default";
   const bool random_policy = policy.rfind("random:", 0) == 0;
   std::printf("CK_POLICY=%s\n", policy.c_str());
   try {
      cl_device_id device = cl_host::first_device();
      const cl_uint units = cl_host::device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);
      cl_host::Context context = cl_host::create_context(device);
      cl_host::Queue queue = cl_host::create_queue(context, device, true);
      cl_host::Watchdog watchdog("the application tests", std::chrono::seconds(500));

      ck_apps::AppConfig config;
      config.kernels_dir = argv[1];
      config.include_dir = argv[2];
      config.scale = "test";
      config.graph_files = graph_files;
      for (auto &app : ck_apps::all_applications(config)) {
         if (!selected(*app, only))
            continue;
         app->setup(context, device);
         ck_apps::RunOptions cooperative;
         cooperative.groups = 4 * units;
         ck_apps::RunOptions without_query = cooperative;
         without_query.barrier = ck_apps::Barrier::without_query;
         constexpr int max_rounds = 8;
         cl_ulong events = 0;
         for (int round = 0; round < max_rounds && (round == 0 || (random_policy && !events));
              ++round) {
            events += run_checked(*app, queue, cooperative, "cooperative");
            if (app->kind() == "barrier")
               events += run_checked(*app, queue, without_query, "cooperative without query");
         }
         if (random_policy)
            cl_host::expect(events > 0, describe(*app, "cooperative") +
                                           " was killed or forked by the random policy");
         ck_apps::RunOptions persistent;
         persistent.variant = ck_apps::Variant::persistent;
         persistent.groups = units;
         run_checked(*app, queue, persistent, "persistent threads");
      }
   } catch (const std::exception &error) {
      std::fprintf(stderr, "apps: %s\n", error.what());
      return 1;
   }
   return cl_host::expectations_status();
}
