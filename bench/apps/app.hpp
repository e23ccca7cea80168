// The FSE'17 applications, each runnable as a cooperative kernel and as the
// persistent-thread kernel programmers write today, on named inputs, with
// every run checked against a sequential reference. Used by the application
// tests and by the evaluation harness (tools/ck bench table2|fig5|fig6).
#pragma once

#include "cl_host.hpp"

#include <memory>
#include <string>
#include <vector>

namespace ck_apps {

enum class Variant {
   cooperative, // cl_ext_cooperative_kernels builtins, N work-groups asked for
   persistent,  // the same source with CK_DEFINE_AWAY: occupancy-bound barriers,
                // launched with no more work-groups than run at once
};

// How a cooperative variant's resizing barriers are built (FSE'17 §4.2).
enum class Barrier {
   query,         // resizing_global_barrier as the extension provides it
   without_query, // offer_kill + global_barrier + request_fork + global_barrier
                  // (-DCK_RESIZING_WITHOUT_QUERY)
};

struct RunOptions {
   Variant variant = Variant::cooperative;
   Barrier barrier = Barrier::query;
   unsigned groups = 0;     // work-groups to launch; 0: the device's compute units
   size_t local_size = 64;
};

struct RunResult {
   double seconds = 0;      // enqueue to completion of the kernel launch(es)
   bool correct = false;    // result equals the sequential reference
   std::string mismatch;    // first difference, when not correct
   cl_host::Event event;    // the (last) kernel launch, on a profiling queue
};

class Application {
public:
   virtual ~Application() = default;
   // "color", "mis", "sssp-pannotia", "bfs", "sssp-lonestar", "octree", "game".
   virtual std::string name() const = 0;
   // The input's name, e.g. "rmat-16" or a file name.
   virtual std::string input() const = 0;
   // "barrier" (graph) or "work-stealing".
   virtual std::string kind() const = 0;
   // Builds the programs for every variant and uploads the input; once.
   virtual void setup(cl_context context, cl_device_id device) = 0;
   // One complete run on `queue` (same context as setup): resets state,
   // launches, waits, verifies against the reference.
   virtual RunResult run(cl_command_queue queue, const RunOptions &options) = 0;
};

struct AppConfig {
   std::string kernels_dir = "kernels";
   std::string include_dir = "include";
   // Input scale: "test" (small, for tests/CI: well under a second per run),
   // "bench" (the harness: ~0.2-2 s per run on 2 compute units).
   std::string scale = "bench";
   // Graph files (Matrix Market .mtx, DIMACS .gr, or edge lists) for the
   // graph applications to run on instead of the generated graphs.
   std::vector<std::string> graph_files;
};

// The five graph applications on their inputs (graph_apps.cpp): the
// generated graphs of the scale, or each of config.graph_files.
std::vector<std::unique_ptr<Application>> graph_applications(const AppConfig &config);
// octree and game (work_stealing_apps.cpp).
std::vector<std::unique_ptr<Application>> work_stealing_applications(const AppConfig &config);

// Every application on its built-in inputs, in a fixed order (11 pairs, as in
// FSE'17: the graph applications on two generated graphs each, the
// work-stealing ones on one input each).
std::vector<std::unique_ptr<Application>> all_applications(const AppConfig &config);

} // namespace ck_apps
