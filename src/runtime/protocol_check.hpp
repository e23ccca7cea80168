// The protocol log of a checked launch (CK_CHECK=1; ck/context.h) and its
// replay against the operational rules of FSE'17 (the appendix of the
// cooperative kernels paper): Kill, Fork, Barrier and Resizing-Barrier.
// Kill-No-Op and Fork-No-Op change nothing and are not logged.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ck {

struct ProtocolEvent {
   uint32_t event; // ck_log_event
   uint32_t a, b, c;
};

std::string describe(const ProtocolEvent &event);

// A launch's log: host memory that the kernel side reaches through the
// context's CK_LOG_ADDRESS words.
class ProtocolLog {
public:
   explicit ProtocolLog(uint32_t capacity);

   // Points the context, initialised for the launch, at this log.
   void attach(uint32_t *context);
   // Appends an entry under the context's log lock, as the kernel side does.
   void append(uint32_t *context, uint32_t event, uint32_t a, uint32_t b = 0, uint32_t c = 0);

   // The entries appended since the last call, read under the lock;
   // nullopt once some were lost past the capacity.
   std::optional<std::vector<ProtocolEvent>> take(uint32_t *context);
   uint32_t appended() const;
   uint32_t capacity() const;

private:
   // The log is an anonymous mapping of its own: its pages stay untouched
   // until an entry is written, whatever the allocator's debugging options
   // (MALLOC_PERTURB_ makes calloc write every byte of a large block).
   struct Unmap {
      std::size_t bytes;
      void operator()(uint32_t *words) const;
   };
   static void lock(uint32_t *context);
   static void unlock(uint32_t *context);
   static std::unique_ptr<uint32_t, Unmap> map_zeroed_words(std::size_t words);
   std::unique_ptr<uint32_t, Unmap> words_;
   uint32_t taken_ = 0;
};

struct LaunchShape {
   uint32_t max_groups;     // N
   uint32_t initial_groups; // M0
};

// Replays a launch's events, in their order, as they come: each step must
// be one that a rule allows. Errors name the event and show those before it.
class ProtocolReplay {
public:
   explicit ProtocolReplay(const LaunchShape &launch);
   ~ProtocolReplay();

   std::optional<std::string> step(const ProtocolEvent &event);
   // After the last event: every work-group left properly, and a stuck
   // barrier was found if and only if the launch reports one.
   std::optional<std::string> finish(bool stuck_reported);

private:
   class State;
   std::unique_ptr<State> state_;
   std::vector<ProtocolEvent> recent_; // the last few, for reports
   std::size_t steps_ = 0;
};

// The whole replay of a completed launch's events.
std::optional<std::string> check_protocol(const std::vector<ProtocolEvent> &events,
                                          const LaunchShape &launch, bool stuck_reported);

} // namespace ck
