#include "protocol_check.hpp"

#include "ck/context.h"
#include "ck/runtime.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <set>

namespace ck {

namespace {

std::atomic_ref<uint32_t> word(uint32_t *words, std::size_t index)
{
   return std::atomic_ref<uint32_t>(words[index]);
}

const char *event_name(uint32_t event)
{
   switch (event) {
   case CK_EVENT_START: return "start";
   case CK_EVENT_EXIT: return "exit";
   case CK_EVENT_KILL: return "kill";
   case CK_EVENT_FORK: return "fork";
   case CK_EVENT_ARRIVE: return "arrive";
   case CK_EVENT_RELEASE: return "release";
   case CK_EVENT_PASS: return "pass";
   case CK_EVENT_STUCK: return "stuck";
   case CK_EVENT_RETURN: return "return";
   case CK_EVENT_MISMATCH: return "mismatch";
   default: return nullptr;
   }
}

// A work-group id's state. Absent: not active (above M, or killed). Ready:
// active, not yet started (an initial work-group, or a fork whose id was
// reserved). Returned: returned from the kernel function, still active.
// Left: left the kernel at a stuck barrier. Exited: its unit is back.
enum class GroupState { Absent, Ready, Running, Returned, Left, Exited };

} // namespace

class ProtocolReplay::State {
public:
   explicit State(const LaunchShape &launch)
      : launch_(launch), active_(launch.initial_groups),
        states_(launch.max_groups, GroupState::Absent), zombies_(launch.max_groups, 0)
   {
      for (uint32_t group = 0; group < active_; ++group)
         states_[group] = GroupState::Ready;
   }

   // Empty if a rule allows the step, else why none does.
   std::string step(const ProtocolEvent &e)
   {
      if (!event_name(e.event))
         return "unknown event";
      if (e.event != CK_EVENT_FORK && e.event != CK_EVENT_RELEASE && e.a >= launch_.max_groups)
         return "work-group id out of [0, N)";
      switch (e.event) {
      case CK_EVENT_START: return start(e.a);
      case CK_EVENT_EXIT: return exit(e.a);
      case CK_EVENT_KILL: return kill(e.a, e.b);
      case CK_EVENT_FORK: return fork(e.a, e.b);
      case CK_EVENT_ARRIVE: return arrive(e.a, e.b, e.c);
      case CK_EVENT_RELEASE: return release(e.a, e.b);
      case CK_EVENT_PASS: return pass(e.a, e.b);
      case CK_EVENT_STUCK: return stuck(e.a, e.b);
      case CK_EVENT_RETURN: return return_(e.a);
      case CK_EVENT_MISMATCH: return mismatch(e.a, e.b, e.c);
      }
      return {};
   }

   // Empty if the launch may end here.
   std::string end(bool stuck_reported) const
   {
      if (stuck_reported != stuck_seen_)
         return stuck_reported ? "the launch reports a stuck barrier that no work-group found"
                               : "a work-group found a stuck barrier the launch does not report";
      for (uint32_t group = 0; group < launch_.max_groups; ++group) {
         if (zombies_[group] != 0)
            return "killed work-group " + std::to_string(group) + " never exited";
         if (group < active_ && states_[group] != GroupState::Exited)
            return "active work-group " + std::to_string(group) + " never exited";
      }
      return {};
   }

private:
   bool waiting(uint32_t group) const
   {
      return arrived_.count(group) != 0 || to_pass_.count(group) != 0;
   }

   std::string start(uint32_t group)
   {
      if (states_[group] != GroupState::Ready)
         return "started a work-group that was neither initial nor forked, or twice";
      states_[group] = GroupState::Running;
      return {};
   }

   // A killed work-group's unit may come back after its id was forked and
   // started again: the exit is the killed one's first.
   std::string exit(uint32_t group)
   {
      if (zombies_[group] != 0) {
         --zombies_[group];
         return {};
      }
      if (states_[group] != GroupState::Returned && states_[group] != GroupState::Left)
         return "exited without returning, being killed or finding a stuck barrier";
      states_[group] = GroupState::Exited;
      return {};
   }

   // Kill: the top active work-group, never work-group 0, at offer_kill.
   std::string kill(uint32_t group, uint32_t active)
   {
      if (active != active_)
         return "the kill read M = " + std::to_string(active) + ", but M is " +
                std::to_string(active_);
      if (group + 1 != active_)
         return "killed a work-group that is not the top one, M - 1 = " +
                std::to_string(active_ - 1);
      if (group == 0)
         return "killed work-group 0";
      if (states_[group] != GroupState::Running)
         return "killed a work-group that is not running (or returned)";
      if (waiting(group))
         return "killed a work-group that waits at a barrier";
      states_[group] = GroupState::Absent;
      ++zombies_[group];
      --active_;
      return {};
   }

   // Fork: k in [1, N - M] new work-groups with ids [M, M + k).
   std::string fork(uint32_t first, uint32_t count)
   {
      if (first != active_)
         return "forked ids from " + std::to_string(first) + ", but M is " +
                std::to_string(active_);
      if (count == 0 || count > launch_.max_groups - active_)
         return "forked " + std::to_string(count) + " work-groups with room for " +
                std::to_string(launch_.max_groups - active_);
      for (uint32_t group = first; group < first + count; ++group)
         states_[group] = GroupState::Ready;
      active_ += count;
      return {};
   }

   std::string arrive(uint32_t group, uint32_t generation, uint32_t site)
   {
      if (group >= active_ || states_[group] != GroupState::Running)
         return "a work-group that is not running and active arrived at a barrier";
      if (waiting(group))
         return "arrived at a barrier before passing the previous one";
      if (!arrived_.empty() && generation != open_generation_)
         return "arrived at barrier generation " + std::to_string(generation) +
                " while generation " + std::to_string(open_generation_) + " is open";
      if (arrived_.empty() && generation != next_generation_)
         return "arrived at barrier generation " + std::to_string(generation) + ", expected " +
                std::to_string(next_generation_);
      if (!arrived_.empty() && site != open_site_)
         return "work-groups meet at different barrier calls (sites " +
                std::to_string(open_site_ & CK_STUCK_INDEX_MASK) + " and " +
                std::to_string(site & CK_STUCK_INDEX_MASK) +
                "): no rule lets them proceed together";
      open_generation_ = generation;
      open_site_ = site;
      arrived_.insert(group);
      return {};
   }

   // Barrier, Resizing-Barrier: every active work-group is there.
   std::string release(uint32_t generation, uint32_t counted)
   {
      if (arrived_.empty() || generation != open_generation_)
         return "released a barrier generation that no work-group waits at";
      if (counted != active_)
         return "the releaser counted " + std::to_string(counted) + " arrived, but M is " +
                std::to_string(active_);
      if (arrived_.size() != active_ || *arrived_.rbegin() >= active_)
         return "released with " + std::to_string(arrived_.size()) + " of M = " +
                std::to_string(active_) + " work-groups arrived";
      for (uint32_t group : arrived_)
         to_pass_[group] = generation;
      arrived_.clear();
      next_generation_ = (generation + 1) & CK_BARRIER_COUNT_MASK;
      return {};
   }

   std::string pass(uint32_t group, uint32_t generation)
   {
      const auto waiting = to_pass_.find(group);
      if (waiting == to_pass_.end() || waiting->second != generation)
         return "passed a barrier that was not released";
      to_pass_.erase(waiting);
      return {};
   }

   // A barrier that a work-group which returned can never reach.
   std::string stuck(uint32_t group, uint32_t generation)
   {
      if (arrived_.count(group) == 0 || generation != open_generation_)
         return "found a barrier stuck that it does not wait at";
      if (returned_ == 0 && !mismatched_)
         return "found a barrier stuck while no work-group has returned or reached another "
                "barrier call";
      arrived_.erase(group);
      states_[group] = GroupState::Left;
      stuck_seen_ = true;
      return {};
   }

   // A work-group reached barrier call `site` while those arrived wait at
   // `other`: it does not arrive, and leaves; the barrier is stuck.
   std::string mismatch(uint32_t group, uint32_t site, uint32_t other)
   {
      if (group >= active_ || states_[group] != GroupState::Running)
         return "a work-group that is not running and active reached a barrier";
      if (waiting(group))
         return "reached a barrier before passing the previous one";
      // The barrier keeps its call after the work-groups that waited there
      // found it stuck and left.
      if (arrived_.empty() && !stuck_seen_)
         return "found another barrier call where no work-group waits";
      if (other != open_site_ || site == open_site_)
         return "reported a mismatch of barrier calls " + std::to_string(site) + " and " +
                std::to_string(other) + " while the work-groups wait at " +
                std::to_string(open_site_);
      states_[group] = GroupState::Left;
      mismatched_ = true;
      stuck_seen_ = true;
      return {};
   }

   std::string return_(uint32_t group)
   {
      if (states_[group] != GroupState::Running)
         return "returned without running";
      if (waiting(group))
         return "returned while waiting at a barrier";
      states_[group] = GroupState::Returned;
      ++returned_;
      return {};
   }

   const LaunchShape launch_;
   uint32_t active_; // M
   std::vector<GroupState> states_;
   std::vector<uint32_t> zombies_; // killed work-groups whose unit is not back
   uint32_t returned_ = 0;
   bool stuck_seen_ = false;
   bool mismatched_ = false; // a work-group reached another barrier call
   // The open barrier: its generation, call site and who arrived.
   uint32_t open_generation_ = 0, open_site_ = 0, next_generation_ = 0;
   std::set<uint32_t> arrived_;
   std::map<uint32_t, uint32_t> to_pass_; // released, not yet passed: generation
};

std::string describe(const ProtocolEvent &e)
{
   const char *name = event_name(e.event);
   if (!name)
      return "event " + std::to_string(e.event);
   std::string text = name;
   switch (e.event) {
   case CK_EVENT_KILL:
      return text + " work-group " + std::to_string(e.a) + " (M " + std::to_string(e.b) + ")";
   case CK_EVENT_FORK:
      return text + " [" + std::to_string(e.a) + ", " + std::to_string(e.a + e.b) + ")";
   case CK_EVENT_ARRIVE:
      return text + " work-group " + std::to_string(e.a) + " at generation " +
             std::to_string(e.b) +
             ((e.c & CK_STUCK_RESIZING) ? " (resizing barrier " : " (barrier ") +
             std::to_string(e.c & CK_STUCK_INDEX_MASK) + ")";
   case CK_EVENT_RELEASE:
      return text + " generation " + std::to_string(e.a) + " (" + std::to_string(e.b) +
             " arrived)";
   case CK_EVENT_MISMATCH:
      return text + " work-group " + std::to_string(e.a) + " at " +
             ((e.b & CK_STUCK_RESIZING) ? "resizing barrier " : "barrier ") +
             std::to_string(e.b & CK_STUCK_INDEX_MASK) + ", others at " +
             ((e.c & CK_STUCK_RESIZING) ? "resizing barrier " : "barrier ") +
             std::to_string(e.c & CK_STUCK_INDEX_MASK);
   case CK_EVENT_PASS:
   case CK_EVENT_STUCK:
      return text + " work-group " + std::to_string(e.a) + " at generation " +
             std::to_string(e.b);
   default:
      return text + " work-group " + std::to_string(e.a);
   }
}

ProtocolReplay::ProtocolReplay(const LaunchShape &launch)
   : state_(std::make_unique<State>(launch))
{
}

ProtocolReplay::~ProtocolReplay() = default;

std::optional<std::string> ProtocolReplay::step(const ProtocolEvent &event)
{
   constexpr std::size_t reported_before = 12;
   const std::string error = state_->step(event);
   if (!error.empty()) {
      std::string report = "event " + std::to_string(steps_) + " (" + describe(event) + "): " +
                           error + "; the events before it:";
      for (std::size_t back = recent_.size(); back > 0; --back)
         report += "\n  " + std::to_string(steps_ - back) + ": " +
                   describe(recent_[recent_.size() - back]);
      return report;
   }
   if (recent_.size() == reported_before)
      recent_.erase(recent_.begin());
   recent_.push_back(event);
   ++steps_;
   return std::nullopt;
}

std::optional<std::string> ProtocolReplay::finish(bool stuck_reported)
{
   const std::string error = state_->end(stuck_reported);
   if (error.empty())
      return std::nullopt;
   return "at the end of the launch (" + std::to_string(steps_) + " events): " + error;
}

std::optional<std::string> check_protocol(const std::vector<ProtocolEvent> &events,
                                          const LaunchShape &launch, bool stuck_reported)
{
   ProtocolReplay replay(launch);
   for (const ProtocolEvent &event : events)
      if (auto error = replay.step(event))
         return error;
   return replay.finish(stuck_reported);
}

void ProtocolLog::Unmap::operator()(uint32_t *words) const
{
   munmap(words, bytes);
}

std::unique_ptr<uint32_t, ProtocolLog::Unmap> ProtocolLog::map_zeroed_words(std::size_t words)
{
   const std::size_t bytes = words * sizeof(uint32_t);
   void *mapping = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
   if (mapping == MAP_FAILED)
      throw std::bad_alloc();
   return {static_cast<uint32_t *>(mapping), Unmap{bytes}};
}

ProtocolLog::ProtocolLog(uint32_t capacity)
   : words_(map_zeroed_words(CK_LOG_ENTRIES + std::size_t(capacity) * CK_LOG_ENTRY_WORDS))
{
   words_.get()[CK_LOG_CAPACITY] = capacity;
}

void ProtocolLog::attach(uint32_t *context)
{
   const auto address = reinterpret_cast<uintptr_t>(words_.get());
   word(context, CK_LOG_ADDRESS_LOW).store(uint32_t(address));
   word(context, CK_LOG_ADDRESS_HIGH).store(uint32_t(uint64_t(address) >> 32));
   word(context, CK_LOG_STATE).store(CK_LOG_FREE);
}

void ProtocolLog::lock(uint32_t *context)
{
   auto state = word(context, CK_LOG_STATE);
   for (uint32_t expected = CK_LOG_FREE; !state.compare_exchange_strong(expected, CK_LOG_HELD);
        expected = CK_LOG_FREE)
      ck_spin_wait_hint();
}

void ProtocolLog::unlock(uint32_t *context)
{
   word(context, CK_LOG_STATE).store(CK_LOG_FREE);
}

void ProtocolLog::append(uint32_t *context, uint32_t event, uint32_t a, uint32_t b, uint32_t c)
{
   lock(context);
   const uint32_t index = word(words_.get(), CK_LOG_COUNT).fetch_add(1);
   if (index < words_.get()[CK_LOG_CAPACITY]) {
      const std::size_t entry = CK_LOG_ENTRIES + std::size_t(index) * CK_LOG_ENTRY_WORDS;
      const uint32_t values[CK_LOG_ENTRY_WORDS] = {event, a, b, c};
      for (unsigned operand = 0; operand < CK_LOG_ENTRY_WORDS; ++operand)
         word(words_.get(), entry + operand).store(values[operand]);
   }
   unlock(context);
}

uint32_t ProtocolLog::appended() const
{
   return word(words_.get(), CK_LOG_COUNT).load();
}

uint32_t ProtocolLog::capacity() const
{
   return words_.get()[CK_LOG_CAPACITY];
}

std::optional<std::vector<ProtocolEvent>> ProtocolLog::take(uint32_t *context)
{
   lock(context);
   const uint32_t count = appended();
   std::optional<std::vector<ProtocolEvent>> events;
   if (count <= capacity()) {
      events.emplace();
      for (uint32_t index = taken_; index < count; ++index) {
         const std::size_t entry = CK_LOG_ENTRIES + std::size_t(index) * CK_LOG_ENTRY_WORDS;
         events->push_back({word(words_.get(), entry).load(), word(words_.get(), entry + 1).load(),
                            word(words_.get(), entry + 2).load(),
                            word(words_.get(), entry + 3).load()});
      }
      taken_ = count;
   }
   unlock(context);
   return events;
}

} // namespace ck
