// The scheduler's occupancy trace, written as Chrome trace-event JSON
// (chrome://tracing, Perfetto).
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace ck {

// A launch's name in the trace: "cooperative launch 3 of 'relax' (8
// groups)"; `kernel` may be empty, and `any_order` says that an ordinary
// launch's work-groups started in any order.
std::string launch_name(bool cooperative, std::uint64_t launch, const std::string &kernel,
                        std::uint32_t groups, bool any_order);

class Trace {
public:
   using Clock = std::chrono::steady_clock;

   explicit Trace(Clock::time_point origin) : origin_(origin) {}

   // Counter "active work-groups" of a cooperative launch.
   void active_groups(std::uint64_t launch, Clock::time_point when, std::uint32_t active);
   // A whole launch. Gathers belong to a launch and lie within it.
   void launch(std::uint64_t launch, bool cooperative, std::string name, Clock::time_point start,
               Clock::time_point end);
   void gather(std::uint64_t launch, Clock::time_point start, Clock::time_point end);

   // False if the file cannot be written.
   bool write(const std::string &path) const;

private:
   struct Counter {
      std::uint64_t launch;
      Clock::time_point when;
      std::uint32_t active;
   };
   struct Span {
      std::uint64_t launch;
      bool cooperative;
      std::string name;
      Clock::time_point start, end;
   };

   double microseconds(Clock::time_point when) const;

   Clock::time_point origin_;
   std::vector<Counter> counters_;
   std::vector<Span> launches_, gathers_;
};

// A Trace that reaches its file whichever ends first, its owner or the
// process: a frontend that never destroys its screen (rusticl keeps it
// until the process ends) never destroys the scheduler or dispatch policy
// that owns this. Thread-safe.
class TraceRecorder {
public:
   TraceRecorder(std::string path, Trace::Clock::time_point origin);
   ~TraceRecorder(); // writes the file, and no longer at exit
   TraceRecorder(const TraceRecorder &) = delete;
   TraceRecorder &operator=(const TraceRecorder &) = delete;

   void active_groups(std::uint64_t launch, Trace::Clock::time_point when, std::uint32_t active);
   void launch(std::uint64_t launch, bool cooperative, std::string name,
               Trace::Clock::time_point start, Trace::Clock::time_point end);
   void gather(std::uint64_t launch, Trace::Clock::time_point start,
               Trace::Clock::time_point end);

   // Writes the file now (a message on stderr if it cannot).
   void write();

private:
   std::mutex mutex_;
   Trace trace_;
   const std::string path_;
};

} // namespace ck
