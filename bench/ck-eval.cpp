// ck-eval: the evaluation of FSE'17 §5 reproduced on the patched Mesa, with
// the paper's figures printed beside ours. Launched by `tools/ck bench
// table2|fig5|fig6|all`, which sets LP_NUM_THREADS and CK_POLICY.
//
//  table2  slowdown of every application's cooperative kernel against its
//          persistent-thread version with no multitasking (CK_POLICY=never),
//          both launched with one work-group per compute unit.
//  fig5    responsiveness: the cooperative kernel runs while another host
//          thread launches the matmul "graphics" kernel with k work-groups
//          every period; per k, the scheduler's gather times (query and
//          without-query resizing barriers) and the matmul's time. With
//          --priority, each run also once with the matmul on a
//          high-priority queue and the cooperative kernel on a low-priority
//          one, and once alone: frame latency and the kernel's slowdown
//          with and without the priorities.
//  fig6    performance: the cooperative kernel's slowdown under light,
//          medium and heavy graphics loads against running alone, the period
//          the loads achieve, and Table 3 (kernel-level preemption model).
//
// Every run of an application is checked against its sequential reference,
// and sampled matmul frames against theirs; any wrong result fails the run
// loudly and the exit status. Each subcommand writes one CSV file (long
// format: the raw samples and the run's metadata) to --out, then prints its
// tables with the report (eval_report.hpp), which computes them from that
// file alone, as 'ck-eval report FILE.csv' does, and writes their summaries
// beside it (NAME.summary.csv).
#include "app.hpp"
#include "graphics.hpp"
#include "watchdog.hpp"
#include "eval_csv.hpp"
#include "eval_options.hpp"
#include "eval_progress.hpp"
#include "eval_report.hpp"
#include "paper.hpp"

#include <CL/cl_ext_cooperative_kernels.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using ck_apps::Application;
using ck_apps::Barrier;
using ck_apps::GraphicsLoad;
using ck_apps::Variant;
using ck_eval::Csv;
using ck_eval::Options;
using ck_eval::usage_error;
using ck_eval::Progress;

// ---------------------------------------------------------------- setup

struct Device {
   cl_device_id id;
   unsigned units;
   std::string name;
};

struct AppEntry {
   std::unique_ptr<Application> app;
   std::string name, input, kind;
};

// The k values (work-groups given to the matmul), in the order asked for,
// without duplicates or values outside [1, N-1]... except that k = N-1 = 0
// on a one-unit device leaves nothing, which the caller reports.
struct KChoice {
   std::string label; // "1", "N/4", "1=N/4" when two coincide
   unsigned k;
};

std::vector<KChoice> k_choices(const std::vector<std::string> &specs, unsigned units)
{
   std::vector<KChoice> out;
   for (const std::string &spec : specs) {
      long k;
      if (spec == "N/4")
         k = units / 4;
      else if (spec == "N/2")
         k = units / 2;
      else if (spec == "N-1")
         k = long(units) - 1;
      else if (spec == "N")
         k = units;
      else {
         char *end = nullptr;
         k = std::strtol(spec.c_str(), &end, 10);
         if (spec.empty() || *end)
            usage_error("--k takes 1, N/4, N/2, N-1, N or numbers, got '" + spec + "'");
      }
      if (k < 1 || k > long(units))
         continue;
      auto same = std::find_if(out.begin(), out.end(),
                               [&](const KChoice &choice) { return choice.k == unsigned(k); });
      if (same != out.end())
         same->label += "=" + spec;
      else
         out.push_back({spec, unsigned(k)});
   }
   return out;
}

std::string barrier_name(Barrier barrier)
{
   return barrier == Barrier::query ? "query" : "without-query";
}

std::string utc_now()
{
   std::time_t now = std::time(nullptr);
   char text[64];
   std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
   return text;
}

std::string env_or(const char *name, const char *fallback)
{
   const char *value = std::getenv(name);
   return value && *value ? value : fallback;
}

class Eval {
public:
   explicit Eval(const Options &options) : options_(options)
   {
      device_.id = cl_host::first_device();
      device_.units = options.units ? options.units
                                    : cl_host::device_uint(device_.id, CL_DEVICE_MAX_COMPUTE_UNITS);
      device_.name = cl_host::device_string(device_.id, CL_DEVICE_NAME);
      config_.kernels_dir = options.kernels;
      config_.include_dir = options.include;
      config_.scale = options.scale;
      config_.graph_files = options.graphs;
   }

   int run()
   {
      check_policy();
      std::filesystem::create_directories(options_.out);
      const std::string path = options_.out + "/" + options_.command;
      csv_ = std::make_unique<Csv>(path + ".csv");
      write_meta();
      csv_->flush();
      ck_eval::print_header(ck_eval::read_records(csv_->path()));
      load_apps();
      if (options_.command == "table2")
         table2();
      else if (options_.command == "persistent")
         persistent();
      else if (options_.command == "fig5")
         fig5();
      else
         fig6();
      csv_->flush();
      {
         Csv summary(path + ".summary.csv");
         ck_eval::print_tables(ck_eval::read_records(csv_->path()), &summary);
      }
      std::printf("\nCSV: %s\n", csv_->path().c_str());
      if (!failures_.empty()) {
         std::printf("\nFAIL: %zu wrong result(s):\n", failures_.size());
         for (const std::string &failure : failures_)
            std::printf("  %s\n", failure.c_str());
         return 1;
      }
      std::printf("all %d application runs%s matched their references\n", checked_runs_,
                  checked_frames_ ? (" and " + std::to_string(checked_frames_) +
                                     " sampled matmul frames").c_str()
                                  : "");
      return 0;
   }

private:
   // ------------------------------------------------------------ common

   void check_policy()
   {
      const std::string policy = env_or("CK_POLICY", "default");
      if (options_.command == "table2" && policy != "never")
         throw std::runtime_error("table2 measures the cooperative kernels with no resizing: run "
                                  "it with CK_POLICY=never (got '" + policy + "')");
      // fig5 also runs under `never`: the matmul's latency without kills.
      if ((options_.command == "fig5" && policy != "default" && policy != "never") ||
          (options_.command == "fig6" && policy != "default"))
         throw std::runtime_error(options_.command +
                                  " needs the scheduler to lend units to the matmul: run it with "
                                  "CK_POLICY unset or 'default' (got '" + policy + "')" +
                                  (options_.command == "fig5" ? ", or 'never' for its latency "
                                                                "without kills"
                                                              : ""));
   }

   void write_meta()
   {
      const std::string threads = env_or("LP_NUM_THREADS", "unset");
      const std::string policy = env_or("CK_POLICY", "default");
      const unsigned cpus = std::thread::hardware_concurrency();
      Csv::Key key;
      csv_->text("meta", key, "command", options_.command);
      csv_->text("meta", key, "device", device_.name);
      csv_->row("meta", key, "units", device_.units);
      csv_->text("meta", key, "lp_num_threads", threads);
      csv_->row("meta", key, "cpus", cpus);
      csv_->text("meta", key, "ck_policy", policy);
      csv_->text("meta", key, "scale", options_.scale);
      csv_->row("meta", key, "repeats", options_.repeats);
      csv_->text("meta", key, "date", utc_now());
      if (options_.priority)
         csv_->row("meta", key, "priority", 1);
      // The graphics loads' shapes, so that the plots need no copy of them.
      for (const GraphicsLoad &load : ck_apps::graphics_loads()) {
         Csv::Key load_key;
         load_key.load = load.name;
         csv_->row("meta", load_key, "load_period_ms", load.period_ms);
         csv_->row("meta", load_key, "load_work_ms", load.work_ms);
      }
      if (options_.command == "persistent")
         csv_->row("meta", key, "groups", options_.groups ? options_.groups : device_.units);
      if (options_.command == "fig5" || options_.command == "fig6") {
         std::string names;
         for (const std::string &name : options_.loads)
            names += (names.empty() ? "" : ",") + name;
         csv_->text("meta", key, "loads", names);
      }
   }

   void load_apps()
   {
      std::vector<std::unique_ptr<Application>> all = ck_apps::all_applications(config_);
      std::set<std::string> wanted(options_.apps.begin(), options_.apps.end()), matched;
      std::string available;
      for (std::unique_ptr<Application> &app : all) {
         AppEntry entry{nullptr, app->name(), app->input(), app->kind()};
         const std::string full = entry.name + ":" + entry.input;
         available += " " + full;
         const bool take = wanted.empty() || wanted.count(entry.name) || wanted.count(full);
         if (wanted.count(entry.name))
            matched.insert(entry.name);
         if (wanted.count(full))
            matched.insert(full);
         if (take) {
            entry.app = std::move(app);
            apps_.push_back(std::move(entry));
         }
      }
      for (const std::string &name : wanted)
         if (!matched.count(name))
            throw std::runtime_error("no application '" + name + "'; there are:" + available);
      if (apps_.empty())
         throw std::runtime_error("no applications to run");
      context_ = cl_host::create_context(device_.id);
      queue_ = cl_host::create_queue(context_, device_.id, true);
      if (options_.priority)
         low_queue_ = cl_host::create_queue(context_, device_.id, true, CL_QUEUE_PRIORITY_LOW_KHR);
      for (AppEntry &entry : apps_) {
         std::fprintf(stderr, "setting up %s %s\n", entry.name.c_str(), entry.input.c_str());
         entry.app->setup(context_, device_.id);
      }
   }

   Csv::Key key_of(const AppEntry &entry) const
   {
      Csv::Key key;
      key.app = entry.name;
      key.input = entry.input;
      key.kind = entry.kind;
      return key;
   }

   std::string label_of(const AppEntry &entry) const { return entry.name + " " + entry.input; }

   // One checked run of an application under a watchdog, on `queue` (the
   // default queue when null).
   ck_apps::RunResult run_app(AppEntry &entry, const ck_apps::RunOptions &run_options,
                              const std::string &what, Progress *progress,
                              cl_command_queue queue = nullptr)
   {
      cl_host::Watchdog watchdog(label_of(entry) + " " + what,
                                 std::chrono::seconds(options_.timeout_s));
      ck_apps::RunResult result = entry.app->run(queue ? queue : queue_.get(), run_options);
      ++checked_runs_;
      if (!result.correct)
         fail(label_of(entry) + " " + what + ": " + result.mismatch, progress);
      return result;
   }

   void fail(const std::string &what, Progress *progress)
   {
      failures_.push_back(what);
      const std::string line = "FAIL: " + what;
      if (progress)
         progress->say(line);
      else
         std::fprintf(stderr, "%s\n", line.c_str());
   }

   // ------------------------------------------------------------ persistent

   // The persistent-thread builds alone, with a fixed number of work-groups
   // (no more than the device runs at once: their barriers are
   // occupancy-bound).
   void persistent()
   {
      const unsigned n = options_.groups ? options_.groups : device_.units;
      const int repeats = options_.repeats;
      Progress progress(int(apps_.size()) * (repeats + 1));
      for (AppEntry &entry : apps_) {
         ck_apps::RunOptions run;
         run.variant = Variant::persistent;
         run.groups = n;
         progress.step(label_of(entry) + " warm-up");
         run_app(entry, run, "persistent (warm-up)", &progress);
         for (int r = 0; r < repeats; ++r) {
            progress.step(label_of(entry) + " run " + std::to_string(r + 1));
            ck_apps::RunResult result = run_app(entry, run, "persistent", &progress);
            Csv::Key key = key_of(entry);
            key.variant = "persistent";
            key.k = n;
            key.repeat = r;
            csv_->row("sample", key, "seconds", result.seconds);
            csv_->row("sample", key, "correct", result.correct);
         }
      }
      progress.done();
   }

   // ------------------------------------------------------------ table 2

   void table2()
   {
      const unsigned n = device_.units;
      const int repeats = options_.repeats;
      // The paper's figures, for the report to print beside ours.
      for (const ck_paper::SlowdownGroup &group : ck_paper::table2) {
         Csv::Key key;
         key.app = "*";
         key.kind = group.kind ? group.kind : "all";
         csv_->text("paper", key, "group", group.name);
         csv_->row("paper", key, "geomean_slowdown", group.mean);
         csv_->row("paper", key, "max_slowdown", group.max);
      }
      Progress progress(int(apps_.size()) * (2 * repeats + 2));
      for (AppEntry &entry : apps_) {
         ck_apps::RunOptions cooperative, persistent;
         cooperative.variant = Variant::cooperative;
         cooperative.groups = n;
         persistent.variant = Variant::persistent;
         persistent.groups = n;
         // Untimed first runs: llvmpipe compiles each kernel at its first launch.
         progress.step(label_of(entry) + " warm-up");
         run_app(entry, cooperative, "cooperative (warm-up)", &progress);
         progress.step(label_of(entry) + " warm-up");
         run_app(entry, persistent, "persistent (warm-up)", &progress);
         for (int r = 0; r < repeats; ++r) {
            for (int which = 0; which < 2; ++which) {
               const bool coop = which == 0;
               progress.step(label_of(entry) + (coop ? " cooperative" : " persistent") +
                             " run " + std::to_string(r + 1));
               ck_apps::RunResult result = run_app(entry, coop ? cooperative : persistent,
                                                   coop ? "cooperative" : "persistent", &progress);
               Csv::Key key = key_of(entry);
               key.variant = coop ? "cooperative" : "persistent";
               key.barrier = coop ? "query" : "";
               key.k = n;
               key.repeat = r;
               csv_->row("sample", key, "seconds", result.seconds);
               csv_->row("sample", key, "correct", result.correct);
            }
         }
      }
      progress.done();
   }

   // ------------------------------------------------------------ multitasking

   struct Frames {
      std::vector<ck_apps::Frame> frames;
      std::string error;
   };

   struct LaunchStats {
      std::string gathers_error; // empty: gathers_ms is what the driver recorded
      std::vector<double> gathers_ms;
      std::optional<cl_ulong> kills, forks, min_active, max_active;
      std::vector<double> fork_ms; // unit free to forked work-group running, when reported
   };

   struct MultitaskRun {
      ck_apps::RunResult result;
      LaunchStats stats;
      std::vector<ck_apps::Frame> frames; // those that overlapped the cooperative kernel
      std::vector<double> starts_ms;      // their starts, from the kernel's
      size_t frames_outside = 0;
   };

   static std::optional<cl_ulong> query_ulong(cl_event event, cl_profiling_info param)
   {
      cl_ulong value = 0;
      if (!event ||
          clGetEventProfilingInfo(event, param, sizeof value, &value, nullptr) != CL_SUCCESS)
         return std::nullopt;
      return value;
   }

   static LaunchStats launch_stats(cl_event event)
   {
      LaunchStats stats;
      if (!event) {
         stats.gathers_error = "no event";
         return stats;
      }
      size_t bytes = 0;
      cl_int status = clGetEventProfilingInfo(event, CL_PROFILING_COOPERATIVE_GATHER_TIMES_EXT, 0,
                                              nullptr, &bytes);
      if (status == CL_SUCCESS && bytes % sizeof(cl_ulong) == 0) {
         std::vector<cl_ulong> times(bytes / sizeof(cl_ulong));
         if (!times.empty())
            status = clGetEventProfilingInfo(event, CL_PROFILING_COOPERATIVE_GATHER_TIMES_EXT,
                                             bytes, times.data(), nullptr);
         for (cl_ulong ns : times)
            stats.gathers_ms.push_back(ns / 1e6);
      }
      if (status != CL_SUCCESS) {
         stats.gathers_error = cl_host::error_name(status);
         stats.gathers_ms.clear();
      } else if (bytes % sizeof(cl_ulong)) {
         stats.gathers_error = "size " + std::to_string(bytes) + " is no multiple of 8";
      }
#ifdef CL_PROFILING_COOPERATIVE_FORK_TIMES_EXT
      size_t fork_bytes = 0;
      if (clGetEventProfilingInfo(event, CL_PROFILING_COOPERATIVE_FORK_TIMES_EXT, 0, nullptr,
                                  &fork_bytes) == CL_SUCCESS &&
          fork_bytes % sizeof(cl_ulong) == 0 && fork_bytes) {
         std::vector<cl_ulong> times(fork_bytes / sizeof(cl_ulong));
         if (clGetEventProfilingInfo(event, CL_PROFILING_COOPERATIVE_FORK_TIMES_EXT, fork_bytes,
                                     times.data(), nullptr) == CL_SUCCESS)
            for (cl_ulong ns : times)
               stats.fork_ms.push_back(ns / 1e6);
      }
#endif
      stats.kills = query_ulong(event, CL_PROFILING_COOPERATIVE_KILLS_EXT);
      stats.forks = query_ulong(event, CL_PROFILING_COOPERATIVE_FORKS_EXT);
      stats.min_active = query_ulong(event, CL_PROFILING_COOPERATIVE_MIN_ACTIVE_EXT);
      stats.max_active = query_ulong(event, CL_PROFILING_COOPERATIVE_MAX_ACTIVE_EXT);
      return stats;
   }

   static int64_t ns_of(Clock::time_point time)
   {
      return std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch())
         .count();
   }

   // The cooperative run on this thread (on `queue`, the default queue when
   // null); the matmul with `groups` work-groups every load.period_ms on
   // another thread and queue (its own context) until the run returns.
   MultitaskRun multitask(AppEntry &entry, Barrier barrier, ck_apps::Graphics &graphics,
                          const GraphicsLoad &load, unsigned groups, const std::string &what,
                          Progress &progress, cl_command_queue queue = nullptr)
   {
      std::mutex mutex;
      std::condition_variable wake;
      bool stop = false;
      Frames frames;
      std::thread frame_thread([&] {
         try {
            auto next = Clock::now();
            for (int i = 0;; ++i) {
               {
                  std::unique_lock<std::mutex> lock(mutex);
                  if (wake.wait_until(lock, next, [&] { return stop; }))
                     break;
               }
               // The first frame of every run and every tenth after it is checked.
               ck_apps::Frame frame = graphics.launch(groups, i % 10 == 0);
               next = std::max(frame.start + std::chrono::duration_cast<Clock::duration>(
                                                std::chrono::duration<double, std::milli>(
                                                   load.period_ms)),
                               Clock::now());
               frames.frames.push_back(std::move(frame));
            }
         } catch (const std::exception &error) {
            frames.error = error.what();
         }
      });

      ck_apps::RunOptions run_options;
      run_options.variant = Variant::cooperative;
      run_options.barrier = barrier;
      run_options.groups = device_.units;
      MultitaskRun out;
      const auto called = Clock::now();
      try {
         out.result = run_app(entry, run_options, what, &progress, queue);
      } catch (...) {
         {
            std::lock_guard<std::mutex> lock(mutex);
            stop = true;
         }
         wake.notify_one();
         frame_thread.join();
         throw;
      }
      const auto returned = Clock::now();
      {
         std::lock_guard<std::mutex> lock(mutex);
         stop = true;
      }
      wake.notify_one();
      {
         cl_host::Watchdog watchdog("the last matmul frame of " + label_of(entry) + " " + what,
                                    std::chrono::seconds(options_.timeout_s));
         frame_thread.join();
      }
      if (!frames.error.empty())
         throw std::runtime_error("matmul frames: " + frames.error);

      // The window the cooperative kernel ran in: its event's end on the
      // device clock, when that is the host's monotonic clock (llvmpipe), and
      // the run's enqueue-to-completion time before it; otherwise from the
      // call to the return of run().
      int64_t window_start = ns_of(called), window_end = ns_of(returned);
      if (std::optional<cl_ulong> end = query_ulong(out.result.event, CL_PROFILING_COMMAND_END)) {
         const int64_t end_ns = int64_t(*end);
         if (end_ns >= ns_of(called) && end_ns <= ns_of(returned)) {
            window_end = end_ns;
            window_start = std::max(ns_of(called), end_ns - int64_t(out.result.seconds * 1e9));
         }
      }
      for (ck_apps::Frame &frame : frames.frames) {
         if (frame.verified) {
            ++checked_frames_;
            if (!frame.correct)
               fail(label_of(entry) + " " + what + ": " + frame.mismatch, &progress);
         }
         const int64_t start = ns_of(frame.start);
         const int64_t end = start + int64_t(frame.host_ms * 1e6);
         if (end <= window_start || start >= window_end) {
            ++out.frames_outside;
            continue;
         }
         out.starts_ms.push_back((start - window_start) / 1e6);
         out.frames.push_back(std::move(frame));
      }
      out.stats = launch_stats(out.result.event);
      return out;
   }

   void record_multitask(const Csv::Key &key, const MultitaskRun &run)
   {
      csv_->row("sample", key, "coop_s", run.result.seconds);
      csv_->row("sample", key, "correct", run.result.correct);
      csv_->row("sample", key, "frames", run.frames.size());
      csv_->row("sample", key, "frames_outside", run.frames_outside);
      auto optional_row = [&](const char *metric, const std::optional<cl_ulong> &value) {
         csv_->row("sample", key, metric, value ? double(*value) : NAN);
      };
      optional_row("kills", run.stats.kills);
      optional_row("forks", run.stats.forks);
      optional_row("min_active", run.stats.min_active);
      optional_row("max_active", run.stats.max_active);
      if (run.stats.gathers_error.empty()) {
         csv_->row("sample", key, "gathers", run.stats.gathers_ms.size());
         for (size_t i = 0; i < run.stats.gathers_ms.size(); ++i)
            csv_->row("sample", key, "gather_ms", run.stats.gathers_ms[i], long(i));
      } else {
         csv_->text("sample", key, "gathers", "n/a (" + run.stats.gathers_error + ")");
      }
      for (size_t i = 0; i < run.stats.fork_ms.size(); ++i)
         csv_->row("sample", key, "fork_ms", run.stats.fork_ms[i], long(i));
      for (size_t i = 0; i < run.frames.size(); ++i) {
         csv_->row("sample", key, "matmul_ms", run.frames[i].host_ms, long(i));
         csv_->row("sample", key, "matmul_start_ms", run.starts_ms[i], long(i));
         csv_->row("sample", key, "matmul_exec_ms", run.frames[i].exec_ms, long(i));
      }
   }

   // One calibrated matmul per distinct work duration among the loads, and
   // three launches of it with each k on the idle device.
   std::map<double, std::unique_ptr<ck_apps::Graphics>>
   calibrate(const std::vector<GraphicsLoad> &loads, const std::vector<KChoice> &ks)
   {
      std::map<double, std::unique_ptr<ck_apps::Graphics>> out;
      for (const GraphicsLoad &load : loads) {
         if (out.count(load.work_ms))
            continue;
         auto graphics = std::make_unique<ck_apps::Graphics>(device_.id, config_);
         std::fprintf(stderr, "calibrating the matmul for %.0f ms\n", load.work_ms);
         const double ms = graphics->calibrate(load.work_ms, device_.units);
         Csv::Key key;
         key.load = ck_eval::fixed(load.work_ms, 0) + "ms";
         key.k = device_.units;
         key.k_label = "N";
         csv_->row("calibration", key, "matmul_n", graphics->size());
         csv_->row("calibration", key, "matmul_target_ms", load.work_ms);
         csv_->row("calibration", key, "matmul_idle_ms", ms);
         for (const KChoice &choice : ks) {
            key.k = choice.k;
            key.k_label = choice.label;
            for (int i = 0; i < 3; ++i) {
               ck_apps::Frame frame = graphics->launch(choice.k, i == 0);
               if (frame.verified) {
                  ++checked_frames_;
                  if (!frame.correct)
                     fail("idle matmul: " + frame.mismatch, nullptr);
               }
               csv_->row("calibration", key, "matmul_idle_ms", frame.host_ms, i);
            }
         }
         out[load.work_ms] = std::move(graphics);
      }
      csv_->flush();
      ck_eval::print_calibration(ck_eval::read_records(csv_->path()));
      return out;
   }

   std::vector<GraphicsLoad> loads() const
   {
      std::vector<GraphicsLoad> out;
      for (const std::string &name : options_.loads)
         out.push_back(ck_apps::graphics_load(name));
      return out;
   }

   std::vector<Barrier> barriers_for(const AppEntry &entry) const
   {
      if (entry.kind != "barrier")
         return {Barrier::query}; // work stealing has no resizing barrier to vary
      std::vector<Barrier> out;
      for (const std::string &name : options_.barriers)
         out.push_back(name == "query" ? Barrier::query : Barrier::without_query);
      return out;
   }

   std::string barrier_label(const AppEntry &entry, Barrier barrier) const
   {
      return entry.kind == "barrier" ? barrier_name(barrier) : "-";
   }

   // The k values, also written as meta records for the report.
   std::vector<KChoice> ks_or_die()
   {
      std::vector<KChoice> ks = k_choices(options_.ks, device_.units);
      if (ks.empty())
         throw std::runtime_error("no k in [1, N] among --k with N = " +
                                  std::to_string(device_.units) + " compute units");
      for (size_t i = 0; i < ks.size(); ++i) {
         Csv::Key key;
         key.k_label = ks[i].label;
         key.k = ks[i].k;
         csv_->row("meta", key, "k", ks[i].k, long(i));
      }
      return ks;
   }

   std::string run_label(const AppEntry &entry, Barrier barrier, const GraphicsLoad &load,
                         const KChoice &choice) const
   {
      return (entry.kind == "barrier" ? barrier_name(barrier) + " " : std::string()) +
             load.name + " k=" + choice.label;
   }

   // ------------------------------------------------------------ figure 5

   void fig5()
   {
      const std::vector<GraphicsLoad> loads = this->loads();
      const std::vector<KChoice> ks = ks_or_die();
      auto graphics = calibrate(loads, ks);
      const bool priority = options_.priority;
      // With --priority: the paper's Table 3 (its cooperative kernels'
      // slowdowns), and the same matmuls on a high-priority queue.
      std::map<double, std::unique_ptr<ck_apps::Graphics>> high_graphics;
      if (priority) {
         write_paper_table3();
         for (const auto &[work_ms, calibrated] : graphics) {
            auto high = std::make_unique<ck_apps::Graphics>(device_.id, config_, 64,
                                                            CL_QUEUE_PRIORITY_HIGH_KHR);
            high->set_size(calibrated->size());
            // llvmpipe compiles the kernel at its first launch in a context.
            const ck_apps::Frame frame = high->launch(device_.units, true);
            ++checked_frames_;
            if (!frame.correct)
               fail("idle matmul (high-priority queue): " + frame.mismatch, nullptr);
            high_graphics[work_ms] = std::move(high);
         }
      }
      const int repeats = options_.repeats;
      const int modes = priority ? 2 : 1;

      int total = 0;
      for (const AppEntry &entry : apps_)
         total += int(barriers_for(entry).size()) *
                  (1 + repeats * ((priority ? 1 : 0) + modes * int(loads.size() * ks.size())));
      Progress progress(total);
      for (AppEntry &entry : apps_) {
         for (Barrier barrier : barriers_for(entry)) {
            const std::string blabel = barrier_label(entry, barrier);
            ck_apps::RunOptions warm;
            warm.groups = device_.units;
            warm.barrier = barrier;
            progress.step(label_of(entry) + " " + blabel + " warm-up");
            run_app(entry, warm, blabel + " (warm-up)", &progress);
            Csv::Key key = key_of(entry);
            key.variant = "cooperative";
            key.barrier = blabel;
            for (int r = 0; r < repeats; ++r) {
               key.repeat = r;
               if (priority) {
                  progress.step(label_of(entry) + " " + blabel + " alone run " +
                                std::to_string(r + 1));
                  const ck_apps::RunResult result =
                     run_app(entry, warm, blabel + " alone", &progress);
                  key.variant = "cooperative";
                  key.load = "alone";
                  key.k_label = "";
                  key.k = 0;
                  csv_->row("sample", key, "coop_s", result.seconds);
                  csv_->row("sample", key, "correct", result.correct);
               }
               for (const GraphicsLoad &load : loads)
                  for (const KChoice &choice : ks)
                     for (int mode = 0; mode < modes; ++mode) {
                        const bool prioritised = mode == 1;
                        const std::string what = run_label(entry, barrier, load, choice) +
                                                 (prioritised ? " priority" : "");
                        progress.step(label_of(entry) + " " + what + " run " +
                                      std::to_string(r + 1));
                        ck_apps::Graphics &frames =
                           *(prioritised ? high_graphics : graphics).at(load.work_ms);
                        MultitaskRun run =
                           multitask(entry, barrier, frames, load, choice.k, what, progress,
                                     prioritised ? low_queue_.get() : nullptr);
                        key.variant = prioritised ? "priority" : "cooperative";
                        key.load = load.name;
                        key.k_label = choice.label;
                        key.k = choice.k;
                        record_multitask(key, run);
                     }
            }
         }
      }
      progress.done();
   }

   // The paper's Table 3, for the report to print beside ours.
   void write_paper_table3()
   {
      for (const ck_paper::PreemptionRow &row : ck_paper::table3) {
         Csv::Key key;
         key.load = row.load;
         key.k_label = row.k;
         csv_->row("paper", key, "kernel_level_slowdown", row.kernel_level);
         csv_->row("paper", key, "cooperative_slowdown", row.cooperative);
      }
   }

   // ------------------------------------------------------------ figure 6, table 3

   void fig6()
   {
      const std::vector<GraphicsLoad> loads = this->loads();
      const std::vector<KChoice> ks = ks_or_die();
      write_paper_table3();
      auto graphics = calibrate(loads, ks);
      const int repeats = options_.repeats;

      int total = 0;
      for (const AppEntry &entry : apps_)
         total += int(barriers_for(entry).size()) *
                  (1 + repeats * (1 + int(loads.size() * ks.size())));
      Progress progress(total);
      for (AppEntry &entry : apps_) {
         for (Barrier barrier : barriers_for(entry)) {
            const std::string blabel = barrier_label(entry, barrier);
            const std::string config =
               label_of(entry) + (entry.kind == "barrier" ? " " + blabel : "");
            ck_apps::RunOptions alone;
            alone.groups = device_.units;
            alone.barrier = barrier;
            progress.step(config + " warm-up");
            run_app(entry, alone, blabel + " (warm-up)", &progress);
            Csv::Key key = key_of(entry);
            key.variant = "cooperative";
            key.barrier = blabel;
            for (int r = 0; r < repeats; ++r) {
               progress.step(config + " alone run " + std::to_string(r + 1));
               ck_apps::RunResult result = run_app(entry, alone, blabel + " alone", &progress);
               key.load = "alone";
               key.k_label = "";
               key.k = 0;
               key.repeat = r;
               csv_->row("sample", key, "coop_s", result.seconds);
               csv_->row("sample", key, "correct", result.correct);
               for (const GraphicsLoad &load : loads)
                  for (const KChoice &choice : ks) {
                     const std::string what = run_label(entry, barrier, load, choice);
                     progress.step(label_of(entry) + " " + what + " run " + std::to_string(r + 1));
                     MultitaskRun run = multitask(entry, barrier, *graphics.at(load.work_ms),
                                                  load, choice.k, what, progress);
                     key.load = load.name;
                     key.k_label = choice.label;
                     key.k = choice.k;
                     record_multitask(key, run);
                  }
            }
         }
      }
      progress.done();
   }

   Options options_;
   Device device_;
   ck_apps::AppConfig config_;
   cl_host::Context context_;
   cl_host::Queue queue_;
   cl_host::Queue low_queue_; // --priority: the cooperative kernel's low-priority queue
   std::vector<AppEntry> apps_;
   std::unique_ptr<Csv> csv_;
   std::vector<std::string> failures_;
   int checked_runs_ = 0;
   int checked_frames_ = 0;
};

} // namespace

int main(int argc, char **argv)
{
   const Options options = ck_eval::parse_options(argc, argv);
   try {
      if (options.command == "report")
         return ck_eval::report(options.csv, options.summary);
      Eval eval(options);
      return eval.run();
   } catch (const std::exception &error) {
      std::fflush(stdout);
      std::fprintf(stderr, "ck-eval: %s\n", error.what());
      return 1;
   }
}
