#include "trace.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace ck {

namespace {

constexpr int process_id = 1;
// Launches overlap freely, but the slices of one track must nest: each
// launch goes on the first free "lane" track of its kind.
constexpr int ordinary_lane_base = 1000, cooperative_lane_base = 2000;

} // namespace

void Trace::active_groups(std::uint64_t launch, Clock::time_point when, std::uint32_t active)
{
   counters_.push_back({launch, when, active});
}

std::string launch_name(bool cooperative, std::uint64_t launch, const std::string &kernel,
                        std::uint32_t groups, bool any_order)
{
   return std::string(cooperative ? "cooperative" : "ordinary") + " launch " +
          std::to_string(launch) + (kernel.empty() ? "" : " of '" + kernel + "'") + " (" +
          std::to_string(groups) + " groups" + (any_order ? ", in any order)" : ")");
}

void Trace::launch(std::uint64_t launch, bool cooperative, std::string name,
                   Clock::time_point start, Clock::time_point end)
{
   launches_.push_back({launch, cooperative, std::move(name), start, end});
}

void Trace::gather(std::uint64_t launch, Clock::time_point start, Clock::time_point end)
{
   gathers_.push_back({launch, true, "gather", start, end});
}

double Trace::microseconds(Clock::time_point when) const
{
   return std::chrono::duration<double, std::micro>(when - origin_).count();
}

bool Trace::write(const std::string &path) const
{
   std::unique_ptr<FILE, int (*)(FILE *)> file(std::fopen(path.c_str(), "w"), std::fclose);
   if (!file)
      return false;
   FILE *out = file.get();
   std::fprintf(out, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
   std::fprintf(out, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
                     "\"args\":{\"name\":\"ck scheduler\"}}",
                process_id);

   std::vector<const Span *> by_start;
   for (const Span &span : launches_)
      by_start.push_back(&span);
   std::sort(by_start.begin(), by_start.end(),
             [](const Span *a, const Span *b) { return a->start < b->start; });
   std::vector<Clock::time_point> lane_ends[2];
   std::map<std::uint64_t, int> lane_of_launch;
   for (const Span *span : by_start) {
      std::vector<Clock::time_point> &ends = lane_ends[span->cooperative];
      const auto free_lane = std::find_if(ends.begin(), ends.end(),
                                          [&](Clock::time_point end) { return end <= span->start; });
      const int lane = int(free_lane - ends.begin());
      if (free_lane == ends.end())
         ends.push_back(span->end);
      else
         *free_lane = span->end;
      lane_of_launch[span->launch] =
         (span->cooperative ? cooperative_lane_base : ordinary_lane_base) + lane;
   }
   for (int cooperative = 0; cooperative < 2; ++cooperative)
      for (std::size_t lane = 0; lane < lane_ends[cooperative].size(); ++lane)
         std::fprintf(out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                           "\"args\":{\"name\":\"%s launches %zu\"}}",
                      process_id,
                      int(lane) + (cooperative ? cooperative_lane_base : ordinary_lane_base),
                      cooperative ? "cooperative" : "ordinary", lane);

   for (const std::vector<Span> *spans : {&launches_, &gathers_})
      for (const Span &span : *spans)
         std::fprintf(out, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,"
                           "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"launch\":%" PRIu64 "}}",
                      span.name.c_str(), spans == &gathers_ ? "gather" : "launch", process_id,
                      lane_of_launch[span.launch], microseconds(span.start),
                      microseconds(span.end) - microseconds(span.start), span.launch);
   for (const Counter &counter : counters_)
      std::fprintf(out, ",\n{\"name\":\"active work-groups\",\"ph\":\"C\",\"pid\":%d,"
                        "\"id\":\"launch %" PRIu64 "\",\"ts\":%.3f,\"args\":{\"active\":%u}}",
                   process_id, counter.launch, microseconds(counter.when), counter.active);
   std::fprintf(out, "\n]}\n");
   return std::ferror(out) == 0;
}

namespace {

// The recorders alive, whose traces the process writes when it exits.
struct LiveRecorders {
   std::mutex mutex;
   std::vector<TraceRecorder *> alive;
};

LiveRecorders &live_recorders()
{
   static LiveRecorders live;
   return live;
}

void write_traces_at_exit()
{
   LiveRecorders &live = live_recorders();
   std::lock_guard<std::mutex> lock(live.mutex);
   for (TraceRecorder *recorder : live.alive)
      recorder->write();
}

} // namespace

TraceRecorder::TraceRecorder(std::string path, Trace::Clock::time_point origin)
   : trace_(origin), path_(std::move(path))
{
   // The list first: statics are destroyed in the reverse order of their
   // construction and of the exit handlers' registration, so it outlives
   // the handler.
   LiveRecorders &live = live_recorders();
   static std::once_flag registered;
   std::call_once(registered, [] { std::atexit(write_traces_at_exit); });
   std::lock_guard<std::mutex> lock(live.mutex);
   live.alive.push_back(this);
}

TraceRecorder::~TraceRecorder()
{
   {
      LiveRecorders &live = live_recorders();
      std::lock_guard<std::mutex> lock(live.mutex);
      live.alive.erase(std::remove(live.alive.begin(), live.alive.end(), this), live.alive.end());
   }
   write();
}

void TraceRecorder::active_groups(std::uint64_t launch, Trace::Clock::time_point when,
                                  std::uint32_t active)
{
   std::lock_guard<std::mutex> lock(mutex_);
   trace_.active_groups(launch, when, active);
}

void TraceRecorder::launch(std::uint64_t launch, bool cooperative, std::string name,
                           Trace::Clock::time_point start, Trace::Clock::time_point end)
{
   std::lock_guard<std::mutex> lock(mutex_);
   trace_.launch(launch, cooperative, std::move(name), start, end);
}

void TraceRecorder::gather(std::uint64_t launch, Trace::Clock::time_point start,
                           Trace::Clock::time_point end)
{
   std::lock_guard<std::mutex> lock(mutex_);
   trace_.gather(launch, start, end);
}

void TraceRecorder::write()
{
   std::lock_guard<std::mutex> lock(mutex_);
   if (!trace_.write(path_))
      std::fprintf(stderr, "ck: cannot write the trace to %s\n", path_.c_str());
}

} // namespace ck
