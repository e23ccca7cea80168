// The workgroup scheduler (ck/scheduler.h).
//
// One mutex guards the scheduler's state; units take it only between
// work-groups. The kernels' side of the protocol is lock-free atomics on the
// launch context (ck/context.h), which the scheduler reads and writes with
// std::atomic_ref. A parked unit polls its kernel's context without the lock.
//
// Units. Each unit is a thread with a task:
//   None      idle, on idle_: polls `assigned` briefly, then sleeps on `wake`
//   Ordinary  runs work-groups of an ordinary launch, one after the other:
//             each next one claimed without the lock (claim_ordinary_groups())
//             until none is left or the launch's `yield` asks the unit back
//   Group     runs one work-group of a cooperative launch (counted in its
//             `running`)
//   Park      holds a fork offer of a cooperative launch (counted in its
//             `parked`): polls the context until a fork is published, then
//             runs it as a Group, or leaves (withdraws) if it can take its
//             offer back before the kernel takes it
//   Exit      leaves the thread (scheduler destruction)
// Only dispatch() gives tasks (assign()), always to idle units, and every task
// ends with the unit idle again and dispatch() run.
//
// In-order launches (ck_scheduler_launch_after()). A launch made after one
// that has not completed is held: it is in no queue, only the other's
// `successor`, until the unit that completes the other queues it. Every
// state below then starts from queued.
//
// Cooperative launches. queued (cooperative_queue_; the context untouched)
// -> running (start_cooperative(): context initialised, M0 work-groups
// assigned, in cooperative_running_, live()) -> finished (no work-group runs
// and every published fork has started: `finished` set, requests and wanted
// withdrawals dropped, parked units leave) -> done (the last parked unit
// left: complete() fills the statistics, calls the completion callback and
// wakes the waiters) -> freed by ck_launch_wait(). Ordinary launches: queued
// while they have work-groups to hand out, done when the last one returned.
// Their work-groups are claimed in id order (claimed_groups only grows), so
// the started ones are always those below claimed_groups (LOBE), unless no
// work-group can wait for another (ck_launch_hints::independent): then
// unit u claims from the front of share u of the ids, the same share at
// every launch so that its data stay in the unit's cache, and when its own
// share is empty from the back of the largest one left; such a launch keeps
// no count of claims that every unit would write (unclaimed_groups()), and
// a unit claims several ids of its own share's front with one
// compare-and-swap: as many as run in about batch_budget (at most
// max_batch, and an eighth of what the share has left). A unit claims the
// next ids itself while the launch is what dispatch() would give it anyway:
// dispatch() sets the launch's `yield` when other waiting work comes first
// or the unit cap is exceeded, and the unit then returns once it has run
// what it claimed. A short launch whose caller waits for it
// (ck_launch_hints::caller_waits) takes no unit: the caller claims and runs
// its work-groups the same way (help()).
//
// Hints (ck_launch_hints). Every launch has a priority; waiting work is
// served and gathers units by priority (next_waiting(), balance(),
// gather()), and fork offers go to the highest priority (offer_idle_units()).
// A throttled launch counts the units its queue holds in queue_held_
// (assign() holds one, the unit's return releases it); queue_room() bounds
// what the queue's launches start with, are offered and are wanted for.
//
// Guards. mutex_ guards the scheduler and every field of every launch,
// with these exceptions: `done`, `finished`, `forks_started` and
// `withdrawals_wanted` are atomics written under the lock and read without
// it by waiters and parked units (as hints that they confirm under the
// lock, or as final states); an ordinary launch's work-groups are claimed
// with compare-and-swaps (claimed_groups, or a share's range) by units with
// or without the lock, and its
// `yield`, written under the lock, is read without it as a hint between
// work-groups; Unit::assigned is a polling hint. The context
// words belong to the kernel and the scheduler together: every access on
// both sides is sequentially consistent (ck/context.h).
//
// Invariants of a running launch, whenever the lock is held (M is
// CK_ACTIVE_GROUPS, N max_groups, offers CK_FORK_OFFERS, published
// CK_FORKS_PUBLISHED; check_invariants() asserts them in debug builds):
//   1 <= M <= N            work-group 0 is never killed; a fork takes at
//                          most N - M ids
//   M + offers <= N        a unit is offered only while M + parked < N, and
//                          a fork turns offers into ids one for one
//   forks_started <= published
//                          a unit claims only a ready slot, and the kernel
//                          counts a fork as published before its slot is
//                          ready
//   offers + (published - forks_started) <= parked
//                          behind every outstanding offer and every
//                          published fork not yet claimed is a parked unit
//   withdrawals_wanted <= parked (until finished)
//                          withdrawals are asked only of parked units, and
//                          a unit withdraws, or claims a fork and trims the
//                          wanted withdrawals to the units left, under the
//                          lock
//   CK_KILL_REQUESTS <= kills_asked (until finished)
//                          the kernel consumes requests or gives back those
//                          it could not use; the scheduler forgets a
//                          consumed one when the killed work-group's unit
//                          comes back (note_return)
// Requests are posted only within kill_room(): kills_asked stays within the
// M - 1 work-groups above work-group 0, and above the highest one that
// returned (it stays active but never offers again). Every unit taken is
// given back: a parked unit leaves when its launch has finished, and a
// launch completes only once none is parked.

#include "ck/scheduler.h"
#include "statistics.hpp"

#include "backoff.hpp"
#include "launch_stats.hpp"
#include "ck/context.h"
#include "ck/runtime.h"
#include "policy.hpp"
#include "protocol_check.hpp"
#include "spin_wait.hpp"
#include "trace.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <memory>
#include <mutex>
#include <new>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// How long an idle unit polls for work, and a host thread for its launch,
// before sleeping on a condition variable.
constexpr std::chrono::nanoseconds handoff_poll{CK_WAIT_POLL_NS};
// An ordinary launch foreseen to take less than this on one thread runs on
// the thread that waits for it (ck_launch_hints::caller_waits), if it can;
// CK_SHORT_LAUNCH_US sets another.
constexpr unsigned default_short_launch_us = 30;
// A unit claims at most this many ids of an independent launch at once,
// and only as many as its last claims suggest run in batch_budget: the
// claims' compare-and-swaps cost less, and `yield` waits for no longer.
constexpr unsigned max_batch = 16;
constexpr std::chrono::microseconds batch_budget{10};
// Kernels whose work-groups' time the scheduler keeps, at most: it forgets
// them all when there are more (a key may outlive its kernel).
constexpr size_t kernels_timed = 4096;
// Entries of a checked launch's protocol log (16 bytes each; mapped, so
// only what is written is touched).
constexpr uint32_t protocol_log_capacity = 1u << 22;

std::atomic_ref<uint32_t> header_word(uint32_t *context, ck_context_word word)
{
   return std::atomic_ref<uint32_t>(context[word]);
}

std::atomic_ref<uint32_t> slot_word(uint32_t *context, uint32_t group, unsigned byte_offset)
{
   return std::atomic_ref<uint32_t>(
      context[CK_HEADER_WORDS + (group * CK_SLOT_BYTES + byte_offset) / 4]);
}

uint64_t nanoseconds(Clock::duration duration)
{
   return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(duration).count());
}

// Takes up to `most` from an atomic counter (std::atomic or std::atomic_ref);
// returns how much it took.
template <typename Counter>
uint32_t take_up_to(Counter &&counter, uint32_t most)
{
   uint32_t value = counter.load();
   uint32_t taken;
   do
      taken = std::min(value, most);
   while (taken > 0 && !counter.compare_exchange_weak(value, value - taken));
   return taken;
}

} // namespace

struct ck_launch {
   ck_scheduler *scheduler;
   uint64_t id;
   bool cooperative;
   ck_run_fn run;
   void *data;
   Clock::time_point submitted, started, ended;
   bool has_started = false;
   std::atomic<bool> done{false}; // written under the scheduler's lock
   int priority = CK_PRIORITY_MEDIUM;
   const void *queue = nullptr;   // the throttle's key, when throttled
   unsigned throttle_units = 0;   // the queue's cap; 0: no throttle

   // Ordinary launches.
   unsigned groups = 0;
   std::atomic<unsigned> claimed_groups{0}; // launches in id order: only grows,
                                            // up to groups, the ids below it
   struct alignas(64) Share {              // [front, end) of ids left, packed as
      std::atomic<uint64_t> range{0};      // end << 32 | front
   };
   std::unique_ptr<Share[]> shares;        // independent launches: one per unit
   unsigned finished_groups = 0;
   std::atomic<bool> yield{false};      // its units should come back (dispatch())
   bool caller_runs = false;            // short: its caller runs it (help())
   const void *kernel_key = nullptr;    // ck_launch_hints::kernel
   Clock::duration busy{};              // spent running its work-groups

   // Cooperative launches.
   uint32_t *context = nullptr;
   uint32_t max_groups = 0;
   std::string kernel_name;                   // for messages; may be empty
   unsigned running = 0;                      // units running one of its work-groups
   unsigned parked = 0;                       // units parked with a fork offer
   std::atomic<uint32_t> withdrawals_wanted{0}; // parked units asked to come back
   std::atomic<uint32_t> forks_started{0};    // published forks claimed by parked units
   std::atomic<bool> finished{false};         // nothing left to run: parked units leave
   uint64_t last_offer = 0;                   // when it was last offered a unit (offers_made_)
   uint32_t kills_asked = 0;                  // kill requests not yet withdrawn or surrendered
   uint32_t kills_surrendered = 0;            // returns of killed work-groups seen
   std::optional<Clock::time_point> gather_start, last_surrender;
   uint32_t traced_active = UINT32_MAX;
   std::unique_ptr<ck::ProtocolLog> log;      // under CK_CHECK=1: the protocol
   std::unique_ptr<ck::ProtocolReplay> replay; // log and its replay so far
   // Its statistics. Their per-gather and per-fork times make them 16 KiB,
   // so ordinary launches, which have none to record, go without.
   std::unique_ptr<ck_launch_stats> stats;

   ck_complete_fn on_complete = nullptr; // set at most once (ck_launch_on_complete)
   void *on_complete_data = nullptr;
   ck_launch *successor = nullptr; // held until this launch completes
};

struct ck_scheduler {
public:
   ck_scheduler(unsigned units, const ck::Policy &policy, std::string trace_path,
                std::string cap_file, bool print_stats, bool check_protocol,
                unsigned fail_launches, std::chrono::microseconds short_launch);
   ~ck_scheduler();

   unsigned units() const { return unsigned(units_.size()); }
   void set_unit_cap(unsigned cap);
   unsigned max_active_groups();
   unsigned throttle_units(ck_throttle throttle) const;
   ck_launch *launch(ck_run_fn run, void *data, unsigned groups, const ck_launch_hints &hints,
                     ck_launch *after);
   ck_launch *launch_cooperative(ck_run_fn run, void *data, uint32_t *context,
                                 uint32_t max_groups, const char *kernel_name,
                                 const ck_launch_hints &hints, ck_launch *after);
   bool wait(ck_launch *launch, std::optional<Clock::duration> timeout, ck_launch_stats *stats);
   void help(ck_launch &launch);
   void on_complete(ck_launch *launch, ck_complete_fn fn, void *data);

private:
   struct Unit {
      enum class Task { None, Ordinary, Group, Park, Exit };
      unsigned index;
      Task task = Task::None;
      ck_launch *launch = nullptr;
      unsigned group = 0;
      Clock::time_point free_since; // when it last became idle while a cooperative launch ran
      std::atomic<bool> assigned{false}; // a task is waiting: stop polling
      bool sleeping = false;             // waits on `wake`
      std::condition_variable wake;
      std::thread thread;
   };
   using Lock = std::unique_lock<std::mutex>;

   void unit_main(Unit &unit);
   unsigned run_ordinary_groups(const Unit &unit, ck_launch &launch);
   void run_group(Lock &lock, Unit &unit, ck_launch &kernel, unsigned group);
   void serve_parked(Lock &lock, Unit &unit, ck_launch &kernel);
   std::optional<uint32_t> claim_published_group(ck_launch &kernel);
   struct GroupRange {
      unsigned first, end;
   };
   std::optional<GroupRange> claim_ordinary_groups(ck_launch &launch, unsigned unit,
                                                   unsigned most = 1);
   static std::optional<GroupRange> claim_from_share(ck_launch::Share &share, bool front,
                                                     unsigned most);
   unsigned unclaimed_groups(const ck_launch &launch) const;
   bool try_withdraw(ck_launch &kernel);
   void housekeeper_main();
   std::optional<unsigned> read_cap_file() const;

   // All below run with mutex_ held.
   unsigned in_use() const { return unsigned(units_.size() - idle_.size()); }
   void apply_file_cap(unsigned cap);
   void apply_hints(ck_launch &launch, const ck_launch_hints &hints);
   void submit(ck_launch &launch, ck_launch *after);
   void enqueue(ck_launch &launch);
   unsigned queue_room(const ck_launch &launch) const;
   void hold(const ck_launch &launch);
   void release(const void *queue);
   void assign(Unit::Task task, ck_launch &launch, unsigned group);
   void dispatch();
   ck_launch *next_waiting() const;
   bool takes_unit(const ck_launch &launch) const;
   bool foreseen_short(const ck_launch &launch) const;
   void start_cooperative(ck_launch &kernel);
   void balance();
   void gather(int64_t need, int priority);
   void request_every_kill();
   void offer_idle_units();
   void post_kill_requests(ck_launch &kernel, uint32_t count, bool gathering);
   void withdraw_parked(uint32_t surplus);
   void withdraw_unmeetable_kills(ck_launch &kernel);
   void note_return(ck_launch &kernel);
   void end_gather(ck_launch &kernel);
   void sample_active(ck_launch &kernel);
   void finish_if_done(ck_launch &kernel);
   void check_invariants(const ck_launch &kernel) const;
   void complete(ck_launch &launch);
   void print_stats(const ck_launch &launch) const;
   static void report_stuck_barrier(const ck_launch &launch);
   static void check_protocol(ck_launch &launch, bool completed);
   const ck_launch_stats &final_stats(ck_launch &launch);
   static void record_fork_latency(ck_launch_stats &stats, uint64_t elapsed);
   bool live(const ck_launch &kernel) const { return !kernel.finished.load(); }
   bool random_policy() const { return policy_.kind == ck::Policy::Kind::Random; }
   static int64_t killable(const ck_launch &kernel);
   static int64_t kill_room(const ck_launch &kernel);

   const ck::Policy policy_;
   const std::string cap_file_;
   const bool print_stats_, check_protocol_;
   const Clock::time_point origin_ = Clock::now();
   std::atomic<unsigned> launches_to_fail_;
   const std::chrono::microseconds short_launch_; // ck_launch_hints::caller_waits

   std::mutex mutex_;
   // What an ordinary launch reports at completion: only its times are
   // written, so the cooperative fields stay 0. Under mutex_.
   ck_launch_stats ordinary_stats_{};
   std::condition_variable launch_done_, housekeeper_wake_;
   std::vector<std::unique_ptr<Unit>> units_;
   std::vector<Unit *> idle_;
   unsigned unit_cap_;
   std::deque<ck_launch *> ordinary_queue_;    // launches with groups to hand out
   std::deque<ck_launch *> cooperative_queue_; // launches waiting for a first unit
   std::vector<ck_launch *> cooperative_running_;
   std::unordered_map<const void *, unsigned> queue_held_; // units of throttled queues
   // How long a work-group of each kernel's last ordinary launch ran.
   std::unordered_map<const void *, Clock::duration> group_time_;
   uint64_t next_launch_id_ = 1;
   uint32_t cooperative_launches_ = 0; // started so far
   uint64_t offers_made_ = 0;          // units offered to forks so far
   std::optional<ck::TraceRecorder> trace_; // written when destroyed, or at exit
   bool stopping_ = false;
   std::thread housekeeper_;
};

ck_scheduler::ck_scheduler(unsigned units, const ck::Policy &policy, std::string trace_path,
                           std::string cap_file, bool print_stats, bool check_protocol,
                           unsigned fail_launches, std::chrono::microseconds short_launch)
   : policy_(policy), cap_file_(std::move(cap_file)),
     print_stats_(print_stats), check_protocol_(check_protocol),
     launches_to_fail_(fail_launches), short_launch_(short_launch),
     unit_cap_(policy.unit_cap ? std::min(policy.unit_cap, units) : units)
{
   if (!trace_path.empty())
      trace_.emplace(std::move(trace_path), origin_);
   // With a CPU per unit, a work-group waits for one that runs: yielding
   // costs a system call per poll for nothing (a global barrier of 2 units
   // on 2 CPUs: 0.26 us yielding every 16th poll, 0.18 us every 256th).
   // With more units than CPUs, the one waited for may have no CPU.
   const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
   ck::set_polls_per_yield(units <= cpus ? 256 : 2);
   for (unsigned index = 0; index < units; ++index) {
      units_.push_back(std::make_unique<Unit>());
      units_.back()->index = index;
      units_.back()->free_since = Clock::now();
      idle_.push_back(units_.back().get());
   }
   // Units are handed out from the back: unit 0 first.
   std::reverse(idle_.begin(), idle_.end());
   for (auto &unit : units_)
      unit->thread = std::thread([this, &unit] { unit_main(*unit); });
   if (!cap_file_.empty())
      housekeeper_ = std::thread([this] { housekeeper_main(); });
}

ck_scheduler::~ck_scheduler()
{
   {
      Lock lock(mutex_);
      stopping_ = true;
      for (Unit *unit : idle_) {
         unit->task = Unit::Task::Exit;
         unit->assigned.store(true);
         unit->wake.notify_one();
      }
      housekeeper_wake_.notify_all();
   }
   for (auto &unit : units_)
      unit->thread.join();
   if (housekeeper_.joinable())
      housekeeper_.join();
}

void ck_scheduler::set_unit_cap(unsigned cap)
{
   Lock lock(mutex_);
   unit_cap_ = std::clamp(cap, 1u, units());
   dispatch();
}

// The query's value is the cap a launch would start under now, so a cap
// just written to the cap file counts without waiting for the next poll.
unsigned ck_scheduler::max_active_groups()
{
   const std::optional<unsigned> file_cap = read_cap_file();
   Lock lock(mutex_);
   if (file_cap)
      apply_file_cap(*file_cap);
   return unit_cap_;
}

unsigned ck_scheduler::throttle_units(ck_throttle throttle) const
{
   switch (throttle) {
   case CK_THROTTLE_LOW:
      return std::max(1u, units() / 4);
   case CK_THROTTLE_MEDIUM:
      return std::max(1u, units() / 2);
   case CK_THROTTLE_NONE:
   case CK_THROTTLE_HIGH:
      break;
   }
   return units();
}

// A throttle that leaves every unit needs no bookkeeping: the launch is
// then unthrottled.
void ck_scheduler::apply_hints(ck_launch &launch, const ck_launch_hints &hints)
{
   launch.priority = hints.priority;
   const unsigned cap = throttle_units(ck_throttle(hints.throttle));
   if (cap < units()) {
      launch.throttle_units = cap;
      launch.queue = hints.queue ? hints.queue : &launch;
   }
}

// With the lock held: queues the launch, or holds it behind `after`. The
// caller dispatches.
void ck_scheduler::submit(ck_launch &launch, ck_launch *after)
{
   launch.id = next_launch_id_++;
   launch.submitted = Clock::now();
   if (after && !after->done) {
      assert(!after->successor);
      after->successor = &launch;
      return;
   }
   enqueue(launch);
}

// With the lock held: the launch waits for units (an ordinary one without
// work-groups completes at once). The caller dispatches.
void ck_scheduler::enqueue(ck_launch &launch)
{
   if (launch.cooperative) {
      cooperative_queue_.push_back(&launch);
   } else if (launch.groups == 0) {
      launch.started = Clock::now();
      complete(launch);
   } else {
      ordinary_queue_.push_back(&launch);
   }
}

ck_launch *ck_scheduler::launch(ck_run_fn run, void *data, unsigned groups,
                                const ck_launch_hints &hints, ck_launch *after)
{
   auto *launch = new ck_launch{};
   launch->scheduler = this;
   launch->cooperative = false;
   launch->run = run;
   launch->data = data;
   launch->groups = groups;
   apply_hints(*launch, hints);
   if (hints.independent && units() > 1 && groups > 1) {
      launch->shares = std::make_unique<ck_launch::Share[]>(units());
      for (unsigned unit = 0; unit < units(); ++unit) {
         const uint64_t front = uint64_t(groups) * unit / units();
         const uint64_t end = uint64_t(groups) * (unit + 1) / units();
         launch->shares[unit].range.store(end << 32 | front, std::memory_order_relaxed);
      }
   }
   launch->kernel_key = hints.kernel;
   Lock lock(mutex_);
   // A short launch runs on its caller in place of a unit that it would
   // get at once, if nothing limits the units it may use: never beside
   // work that holds every unit (a cooperative kernel gives units back to
   // ordinary work through kills, which the caller's thread would bypass
   // by taking a CPU the kernel's work-groups run on). The caller runs the
   // work-groups one after the other, so only those that cannot wait for
   // each other (a work-group spinning until another starts would wait
   // for ever).
   launch->caller_runs = hints.caller_waits && hints.independent && !after &&
                         launch->throttle_units == 0 && unit_cap_ == units() &&
                         in_use() < units() && foreseen_short(*launch);
   if (launch->caller_runs) {
      launch->has_started = true;
      launch->started = Clock::now();
   }
   submit(*launch, after);
   dispatch();
   return launch;
}

// Whether an ordinary launch would take less than short_launch_ on one
// thread, going by its kernel's last launch: engaging units would cost
// more than it saves (on 2 CPUs, 2,000 launches of a 64 x 64 stencil in
// 16 work-groups took 22.6 ms on their caller, 41.6 ms on 2 units: the
// threads' handoffs, and the grid moving between the CPUs' caches at
// every launch).
bool ck_scheduler::foreseen_short(const ck_launch &launch) const
{
   if (!launch.kernel_key)
      return false;
   const auto known = group_time_.find(launch.kernel_key);
   return known != group_time_.end() && known->second * launch.groups < short_launch_;
}

ck_launch *ck_scheduler::launch_cooperative(ck_run_fn run, void *data, uint32_t *context,
                                            uint32_t max_groups, const char *kernel_name,
                                            const ck_launch_hints &hints, ck_launch *after)
{
   if (max_groups == 0)
      return nullptr;
   for (unsigned left = launches_to_fail_.load(); left != 0;) {
      if (launches_to_fail_.compare_exchange_weak(left, left - 1))
         return nullptr;
   }
   std::unique_ptr<ck_launch> kernel;
   try {
      kernel = std::make_unique<ck_launch>();
      kernel->stats = std::make_unique<ck_launch_stats>();
      kernel->kernel_name = kernel_name ? kernel_name : "";
   } catch (const std::bad_alloc &) {
      return nullptr;
   }
   kernel->scheduler = this;
   kernel->cooperative = true;
   kernel->run = run;
   kernel->data = data;
   kernel->context = context;
   kernel->max_groups = max_groups;
   apply_hints(*kernel, hints);
   Lock lock(mutex_);
   try {
      submit(*kernel, after);
   } catch (const std::bad_alloc &) {
      return nullptr;
   }
   dispatch();
   return kernel.release();
}

bool ck_scheduler::wait(ck_launch *launch, std::optional<Clock::duration> timeout,
                        ck_launch_stats *stats)
{
   if (!timeout || *timeout >= handoff_poll)
      ck::poll_briefly([launch] { return launch->done.load(); }, handoff_poll);
   Lock lock(mutex_);
   const auto is_done = [launch] { return launch->done.load(); };
   if (timeout)
      launch_done_.wait_for(lock, *timeout, is_done);
   else
      launch_done_.wait(lock, is_done);
   if (!launch->done)
      return false;
   if (stats)
      *stats = final_stats(*launch);
   delete launch;
   return true;
}

// The waiting caller of a short launch runs its work-groups, as a unit
// would (claimed without the lock, until none is left or `yield`); what
// `yield` made it leave goes to units.
void ck_scheduler::help(ck_launch &launch)
{
   {
      Lock lock(mutex_);
      if (!launch.caller_runs)
         return;
   }
   const Clock::time_point began = Clock::now();
   unsigned ran = 0;
   std::optional<GroupRange> group;
   while (!launch.yield.load(std::memory_order_relaxed) &&
          (group = claim_ordinary_groups(launch, CK_CALLER_UNIT))) {
      launch.run(launch.data, group->first, CK_CALLER_UNIT);
      ++ran;
   }
   const Clock::duration busy = Clock::now() - began;
   Lock lock(mutex_);
   launch.caller_runs = false;
   launch.busy += busy;
   launch.finished_groups += ran;
   if (launch.finished_groups == launch.groups)
      complete(launch);
   // Drops the launch from the queue before its waiter frees it, and
   // gives units what `yield` made the caller leave.
   dispatch();
}

void ck_scheduler::on_complete(ck_launch *launch, ck_complete_fn fn, void *data)
{
   Lock lock(mutex_);
   if (!launch->done) {
      launch->on_complete = fn;
      launch->on_complete_data = data;
      return;
   }
   fn(data, &final_stats(*launch));
}

// What a completed launch reports: a cooperative launch's own statistics,
// or ordinary_stats_. Valid while the lock is held.
const ck_launch_stats &ck_scheduler::final_stats(ck_launch &launch)
{
   ck_launch_stats &stats = launch.stats ? *launch.stats : ordinary_stats_;
   stats.queued_ns = nanoseconds(launch.started - launch.submitted);
   stats.run_ns = nanoseconds(launch.ended - launch.started);
   stats.start_ns = nanoseconds(launch.started.time_since_epoch());
   stats.end_ns = nanoseconds(launch.ended.time_since_epoch());
   return stats;
}

void ck_scheduler::unit_main(Unit &unit)
{
   Lock lock(mutex_);
   for (;;) {
      if (unit.task == Unit::Task::None) {
         lock.unlock();
         ck::poll_briefly([&] { return unit.assigned.load(); }, handoff_poll);
         lock.lock();
         unit.sleeping = true;
         unit.wake.wait(lock, [&] { return unit.task != Unit::Task::None; });
         unit.sleeping = false;
      }
      unit.assigned.store(false);
      if (unit.task == Unit::Task::Exit)
         return;
      ck_launch &launch = *unit.launch;
      const void *queue = launch.queue;
      switch (unit.task) {
      case Unit::Task::Ordinary: {
         lock.unlock();
         const Clock::time_point began = Clock::now();
         const unsigned ran = run_ordinary_groups(unit, launch);
         const Clock::duration busy = Clock::now() - began;
         lock.lock();
         launch.busy += busy;
         launch.finished_groups += ran;
         if (launch.finished_groups == launch.groups)
            complete(launch);
         break;
      }
      case Unit::Task::Group:
         run_group(lock, unit, launch, unit.group);
         break;
      case Unit::Task::Park:
         serve_parked(lock, unit, launch);
         break;
      case Unit::Task::None:
      case Unit::Task::Exit:
         break;
      }
      // The launch may be gone now (the lock was held since it completed).
      release(queue);
      unit.task = Unit::Task::None;
      unit.launch = nullptr;
      // Only a fork's latency reads it, and only a running cooperative
      // launch forks (the clock costs about as much as the rest of an
      // ordinary work-group's handoff).
      if (!cooperative_running_.empty())
         unit.free_since = Clock::now();
      idle_.push_back(&unit);
      dispatch();
   }
}

// Runs work-groups of the unit's ordinary launch, without the lock: the one
// dispatch() claimed for it, then those it claims itself until none is left
// or `yield`, and returns how many it ran. What it claimed at once it runs
// to the end; the next claim takes as many as the last ones' time says run
// in batch_budget.
unsigned ck_scheduler::run_ordinary_groups(const Unit &unit, ck_launch &launch)
{
   GroupRange batch{unit.group, unit.group + 1};
   Clock::time_point batch_began = Clock::now();
   unsigned ran = 0;
   for (;;) {
      for (unsigned group = batch.first; group < batch.end; ++group)
         launch.run(launch.data, group, unit.index);
      ran += batch.end - batch.first;
      if (launch.yield.load(std::memory_order_relaxed))
         return ran;
      unsigned most = 1;
      if (launch.shares) {
         const Clock::time_point now = Clock::now();
         const Clock::duration per_group = (now - batch_began) / (batch.end - batch.first);
         batch_began = now;
         most = per_group.count() > 0
                   ? unsigned(std::clamp<int64_t>(batch_budget / per_group, 1, max_batch))
                   : max_batch;
      }
      const std::optional<GroupRange> next = claim_ordinary_groups(launch, unit.index, most);
      if (!next)
         return ran;
      batch = *next;
   }
}

void ck_scheduler::run_group(Lock &lock, Unit &unit, ck_launch &kernel, unsigned group)
{
   lock.unlock();
   if (kernel.log)
      kernel.log->append(kernel.context, CK_EVENT_START, group);
   kernel.run(kernel.data, group, unit.index);
   if (kernel.log)
      kernel.log->append(kernel.context, CK_EVENT_EXIT, group);
   lock.lock();
   // Checked as each work-group exits, so that a step no rule allows is
   // reported even if the launch then never completes.
   if (kernel.log)
      check_protocol(kernel, false);
   --kernel.running;
   note_return(kernel);
}

// A parked unit polls its kernel's context without the lock until a fork
// is published for it or it may leave: the launch finished, or the
// scheduler wants a unit back. Leaving takes the lock, so that
// withdrawals_wanted and parked change together.
void ck_scheduler::serve_parked(Lock &lock, Unit &unit, ck_launch &kernel)
{
   lock.unlock();
   ck::Backoff backoff;
   std::optional<uint32_t> group;
   for (;;) {
      if ((group = claim_published_group(kernel))) {
         lock.lock();
         break;
      }
      if (!live(kernel) || kernel.withdrawals_wanted.load() > 0) {
         lock.lock();
         if (try_withdraw(kernel))
            break;
         lock.unlock();
      }
      backoff.pause();
   }
   --kernel.parked;
   if (!group) {
      check_invariants(kernel);
      finish_if_done(kernel);
      return;
   }
   // A withdrawal this unit can no longer make falls to the other parked
   // units; none stays pending beyond them (it would count as coming).
   kernel.withdrawals_wanted.store(
      std::min(kernel.withdrawals_wanted.load(), uint32_t(kernel.parked)));
   ++kernel.running;
   ++kernel.forks_started;
   record_fork_latency(*kernel.stats,
                       nanoseconds(Clock::now() - std::max(unit.free_since, kernel.started)));
   sample_active(kernel);
   // Fewer parked units, a higher M: room for more offers or kill requests.
   dispatch();
   run_group(lock, unit, kernel, *group);
}

// Work-groups of an ordinary launch for the unit, if any is left: the next
// one in id order, or for an independent launch up to `most` from the front
// of the unit's share, else one from the back of the share with the most
// left (the caller, CK_CALLER_UNIT, has no share).
std::optional<ck_scheduler::GroupRange>
ck_scheduler::claim_ordinary_groups(ck_launch &launch, unsigned unit, unsigned most)
{
   if (!launch.shares) {
      unsigned group = launch.claimed_groups.load();
      do {
         if (group >= launch.groups)
            return std::nullopt;
      } while (!launch.claimed_groups.compare_exchange_weak(group, group + 1));
      return GroupRange{group, group + 1};
   }
   std::optional<GroupRange> claimed;
   if (unit != CK_CALLER_UNIT)
      claimed = claim_from_share(launch.shares[unit], true, most);
   while (!claimed) {
      ck_launch::Share *largest = nullptr;
      uint64_t most_left = 0;
      for (unsigned other = 0; other < units(); ++other) {
         const uint64_t range = launch.shares[other].range.load(std::memory_order_relaxed);
         const uint64_t left = (range >> 32) - uint32_t(range);
         if (left > most_left) {
            most_left = left;
            largest = &launch.shares[other];
         }
      }
      if (!largest)
         return std::nullopt;
      claimed = claim_from_share(*largest, false, 1);
   }
   return claimed;
}

// The work-groups of an ordinary launch that no unit has claimed. Shares
// keep no common count, so that a unit's claims write only its share's
// cache line (a counter that every claim incremented moved between the
// units' caches at every work-group). Ranges only shrink, so a sum of stale
// loads is never below the true number: a launch read as unfinished may
// only have none left to hand out, which claiming finds.
unsigned ck_scheduler::unclaimed_groups(const ck_launch &launch) const
{
   if (!launch.shares)
      return launch.groups - launch.claimed_groups.load();
   unsigned left = 0;
   for (unsigned unit = 0; unit < units(); ++unit) {
      const uint64_t range = launch.shares[unit].range.load(std::memory_order_relaxed);
      left += unsigned(range >> 32) - std::min(uint32_t(range), uint32_t(range >> 32));
   }
   return left;
}

// Ids from the front or the back of a share, if it has any left: at most
// `most`, and no more than an eighth of what is left, so that the share's
// last ids are still there for the units that run out first.
std::optional<ck_scheduler::GroupRange>
ck_scheduler::claim_from_share(ck_launch::Share &share, bool front, unsigned most)
{
   uint64_t range = share.range.load();
   for (;;) {
      const uint32_t first = uint32_t(range), end = uint32_t(range >> 32);
      if (first >= end)
         return std::nullopt;
      const uint32_t take = std::clamp((end - first) / 8, 1u, most);
      const uint64_t rest =
         front ? uint64_t(end) << 32 | (first + take) : uint64_t(end - take) << 32 | first;
      if (share.range.compare_exchange_weak(range, rest))
         return front ? GroupRange{first, first + take} : GroupRange{end - take, end};
   }
}

std::optional<uint32_t> ck_scheduler::claim_published_group(ck_launch &kernel)
{
   if (header_word(kernel.context, CK_FORKS_PUBLISHED).load() <= kernel.forks_started.load())
      return std::nullopt;
   const uint32_t active =
      std::min(header_word(kernel.context, CK_ACTIVE_GROUPS).load(), kernel.max_groups);
   // Forks publish at the top of [0, M): look there first.
   for (uint32_t group = active; group-- > 0;) {
      auto ready = slot_word(kernel.context, group, CK_SLOT_READY);
      if (ready.load(std::memory_order_relaxed) != 0 && ready.exchange(0) != 0)
         return group;
   }
   return std::nullopt;
}

// With the lock held: a parked unit leaves if the launch finished or a
// withdrawal is wanted, and it can take its offer back first; if the
// kernel took the offer, the unit must serve the fork.
bool ck_scheduler::try_withdraw(ck_launch &kernel)
{
   const bool asked = live(kernel);
   if (asked && kernel.withdrawals_wanted.load() == 0)
      return false;
   if (take_up_to(header_word(kernel.context, CK_FORK_OFFERS), 1) == 0)
      return false;
   if (asked)
      kernel.withdrawals_wanted.fetch_sub(1);
   return true;
}

void ck_scheduler::assign(Unit::Task task, ck_launch &launch, unsigned group)
{
   Unit &unit = *idle_.back();
   idle_.pop_back();
   unit.task = task;
   unit.launch = &launch;
   unit.group = group;
   hold(launch);
   if (!launch.has_started) {
      launch.has_started = true;
      launch.started = Clock::now();
   }
   unit.assigned.store(true);
   if (unit.sleeping)
      unit.wake.notify_one();
}

// Hands free units to waiting work, the highest priority first and
// ordinary before cooperative among equals, then asks cooperative kernels
// for the units still wanted, then offers what is left to forks.
void ck_scheduler::dispatch()
{
   // Launches whose work-groups units claimed to the last without the lock.
   ordinary_queue_.erase(std::remove_if(ordinary_queue_.begin(), ordinary_queue_.end(),
                                        [this](const ck_launch *launch) {
                                           return unclaimed_groups(*launch) == 0;
                                        }),
                         ordinary_queue_.end());
   while (!idle_.empty() && in_use() < unit_cap_) {
      ck_launch *next = next_waiting();
      if (!next)
         break;
      if (!next->cooperative) {
         const std::optional<GroupRange> group = claim_ordinary_groups(*next, idle_.back()->index);
         if (group)
            assign(Unit::Task::Ordinary, *next, group->first);
         if (!group || unclaimed_groups(*next) == 0)
            ordinary_queue_.erase(std::find(ordinary_queue_.begin(), ordinary_queue_.end(), next));
      } else {
         cooperative_queue_.erase(
            std::find(cooperative_queue_.begin(), cooperative_queue_.end(), next));
         start_cooperative(*next);
      }
   }
   // Units that run an ordinary launch go on claiming its work-groups while
   // it is the waiting work that a free unit would get; a caller running its
   // short launch, while no waiting work has a higher priority.
   const ck_launch *first = next_waiting();
   const bool over_cap = in_use() > unit_cap_;
   for (ck_launch *launch : ordinary_queue_) {
      const bool behind = first && (launch->caller_runs ? first->priority > launch->priority
                                                        : first != launch);
      launch->yield.store(over_cap || behind, std::memory_order_relaxed);
   }
   // What follows takes units from cooperative kernels or offers them to
   // their forks.
   if (policy_.kind == ck::Policy::Kind::Never || cooperative_running_.empty())
      return;
   balance();
   if (random_policy())
      request_every_kill();
   offer_idle_units();
   for (const ck_launch *kernel : cooperative_running_)
      check_invariants(*kernel);
}

// The waiting launch that gets the next free unit: the first of the highest
// priority whose queue has room, ordinary before cooperative.
ck_launch *ck_scheduler::next_waiting() const
{
   ck_launch *next = nullptr;
   for (const auto *queue : {&ordinary_queue_, &cooperative_queue_})
      for (ck_launch *launch : *queue)
         if ((!next || launch->priority > next->priority) && takes_unit(*launch))
            next = launch;
   return next;
}

// Whether a free unit may go to the waiting launch: its queue has room,
// and its caller does not run it.
bool ck_scheduler::takes_unit(const ck_launch &launch) const
{
   return !launch.caller_runs && queue_room(launch) > 0;
}

// How many more units the launch's queue may hold.
unsigned ck_scheduler::queue_room(const ck_launch &launch) const
{
   if (launch.throttle_units == 0)
      return units();
   const auto held = queue_held_.find(launch.queue);
   const unsigned used = held == queue_held_.end() ? 0 : held->second;
   return launch.throttle_units - std::min(used, launch.throttle_units);
}

void ck_scheduler::hold(const ck_launch &launch)
{
   if (launch.throttle_units != 0)
      ++queue_held_[launch.queue];
}

// A unit of the queue's (a throttled launch's queue, or none) came back.
void ck_scheduler::release(const void *queue)
{
   if (!queue)
      return;
   const auto held = queue_held_.find(queue);
   if (--held->second == 0)
      queue_held_.erase(held);
}

void ck_scheduler::start_cooperative(ck_launch &kernel)
{
   const uint32_t initial = std::min<uint32_t>({kernel.max_groups, uint32_t(idle_.size()),
                                                uint32_t(unit_cap_ - in_use()),
                                                queue_room(kernel)});
   ck_context_init(kernel.context, kernel.max_groups, initial);
   if (check_protocol_) {
      kernel.log = std::make_unique<ck::ProtocolLog>(protocol_log_capacity);
      kernel.log->attach(kernel.context);
      kernel.replay = std::make_unique<ck::ProtocolReplay>(
         ck::LaunchShape{kernel.max_groups, initial});
   }
   if (random_policy()) {
      header_word(kernel.context, CK_RANDOM_SEED)
         .store(ck::launch_seed(policy_, cooperative_launches_));
   }
   ++cooperative_launches_;
   kernel.running = initial;
   kernel.stats->min_active = kernel.stats->max_active = initial;
   for (uint32_t group = 0; group < initial; ++group)
      assign(Unit::Task::Group, kernel, group);
   cooperative_running_.push_back(&kernel);
   sample_active(kernel);
}

// Units wanted, by the priority of the work that wants them: one per
// unassigned ordinary work-group and per waiting cooperative launch, as far
// as their queues have room, plus those over the cap, wanted at a priority
// above all. Units coming: parked units asked to withdraw and kill requests
// not yet surrendered (not under the random policy, where the kernel
// refuses kills at random). Coming units serve the highest priority first,
// as dispatch() hands them out; what a priority still needs is gathered
// from kernels of that priority or lower. A surplus withdraws only parked
// units' withdrawals: a kill request, once posted, stands (a kernel may
// have read it with query_kill_count and committed work-groups to
// offer_kill; FSE'17 4.2), and the unit it brings back is offered to forks
// again.
void ck_scheduler::balance()
{
   constexpr int over_cap = CK_PRIORITY_HIGH + 1;
   std::array<int64_t, over_cap - CK_PRIORITY_LOW + 1> wanted{}; // by priority - CK_PRIORITY_LOW
   wanted[over_cap - CK_PRIORITY_LOW] =
      std::max<int64_t>(0, int64_t(in_use()) - int64_t(unit_cap_));
   std::unordered_map<const void *, int64_t> rooms; // throttled queues' room left
   const auto within_room = [&](const ck_launch &launch, int64_t units) {
      if (launch.throttle_units == 0)
         return units;
      int64_t &room = rooms.try_emplace(launch.queue, queue_room(launch)).first->second;
      const int64_t taken = std::min(units, room);
      room -= taken;
      return taken;
   };
   for (const ck_launch *launch : ordinary_queue_)
      wanted[launch->priority - CK_PRIORITY_LOW] +=
         within_room(*launch, unclaimed_groups(*launch));
   for (const ck_launch *kernel : cooperative_queue_)
      wanted[kernel->priority - CK_PRIORITY_LOW] += within_room(*kernel, 1);
   int64_t coming = 0;
   for (const ck_launch *kernel : cooperative_running_)
      if (live(*kernel))
         coming += kernel->withdrawals_wanted.load() + (random_policy() ? 0 : kernel->kills_asked);
   const int64_t surplus = coming - std::accumulate(wanted.begin(), wanted.end(), int64_t(0));
   if (surplus > 0) {
      if (policy_.kind == ck::Policy::Kind::Default)
         withdraw_parked(uint32_t(surplus));
      return;
   }
   for (int priority = over_cap; priority >= CK_PRIORITY_LOW; --priority) {
      const int64_t need = wanted[priority - CK_PRIORITY_LOW];
      const int64_t served = std::min(coming, need);
      coming -= served;
      gather(need - served, priority);
   }
}

// Asks the cooperative kernels of at most `priority` for `need` units, the
// lowest priority first; within a priority, parked units' withdrawals
// before kill requests.
void ck_scheduler::gather(int64_t need, int priority)
{
   for (int level = CK_PRIORITY_LOW; level <= std::min<int>(priority, CK_PRIORITY_HIGH); ++level) {
      for (ck_launch *kernel : cooperative_running_) {
         if (need == 0 || !live(*kernel) || kernel->priority != level)
            continue;
         const int64_t withdrawable = int64_t(kernel->parked) - kernel->withdrawals_wanted.load();
         const int64_t withdrawals = std::clamp<int64_t>(withdrawable, 0, need);
         kernel->withdrawals_wanted.fetch_add(uint32_t(withdrawals));
         need -= withdrawals;
      }
      if (random_policy())
         continue; // every kill is requested already
      for (ck_launch *kernel : cooperative_running_) {
         if (need == 0 || !live(*kernel) || kernel->priority != level)
            continue;
         const int64_t kills = std::clamp<int64_t>(kill_room(*kernel), 0, need);
         post_kill_requests(*kernel, uint32_t(kills), /*gathering=*/true);
         need -= kills;
      }
   }
}

// How many active work-groups can still be killed: kills come from the top
// down and stop at work-group 0 and at the highest work-group that returned
// from the kernel (it stays active but never offers again).
int64_t ck_scheduler::killable(const ck_launch &kernel)
{
   const uint32_t floor = std::max(1u, header_word(kernel.context, CK_RETURNED_END).load());
   return std::max<int64_t>(0, int64_t(header_word(kernel.context, CK_ACTIVE_GROUPS).load()) -
                                  int64_t(floor));
}

// How many more kills the kernel can be asked for.
int64_t ck_scheduler::kill_room(const ck_launch &kernel)
{
   return killable(kernel) - kernel.kills_asked;
}

// The random policy asks every kernel for all M-1 work-groups it may give
// back, all the time; the kernel accepts or refuses each offer at random
// (ck/context.h). These requests gather nothing: no gather time is kept.
void ck_scheduler::request_every_kill()
{
   for (ck_launch *kernel : cooperative_running_) {
      if (!live(*kernel))
         continue;
      const int64_t room = kill_room(*kernel);
      if (room > 0)
         post_kill_requests(*kernel, uint32_t(room), /*gathering=*/false);
   }
}

// Cooperative kernels share the idle units: each goes, one at a time, to
// a kernel of the highest priority whose queue has room: the one with the
// fewest work-groups active or offered, the one that was offered a unit
// longest ago among equals.
void ck_scheduler::offer_idle_units()
{
   while (!idle_.empty() && in_use() < unit_cap_) {
      ck_launch *neediest = nullptr;
      std::tuple<int, uint32_t, uint64_t> neediest_rank; // the lowest goes first
      for (ck_launch *kernel : cooperative_running_) {
         if (!live(*kernel) || kernel->running == 0 || queue_room(*kernel) == 0)
            continue;
         const uint32_t claimed =
            header_word(kernel->context, CK_ACTIVE_GROUPS).load() + kernel->parked;
         // Offers never exceed N - M, so forks never take M past N, nor
         // past a throttle: returned work-groups stay active without a unit.
         const uint32_t most = kernel->throttle_units
                                  ? std::min(kernel->max_groups, kernel->throttle_units)
                                  : kernel->max_groups;
         if (claimed >= most)
            continue;
         const auto rank = std::make_tuple(-kernel->priority, claimed, kernel->last_offer);
         if (!neediest || rank < neediest_rank) {
            neediest = kernel;
            neediest_rank = rank;
         }
      }
      if (!neediest)
         return;
      ++neediest->parked;
      neediest->last_offer = ++offers_made_;
      header_word(neediest->context, CK_FORK_OFFERS).fetch_add(1);
      assign(Unit::Task::Park, *neediest, 0);
   }
}

void ck_scheduler::post_kill_requests(ck_launch &kernel, uint32_t count, bool gathering)
{
   if (count == 0)
      return;
   if (gathering && !kernel.gather_start) {
      kernel.gather_start = Clock::now();
      kernel.last_surrender.reset();
   }
   kernel.kills_asked += count;
   header_word(kernel.context, CK_KILL_REQUESTS).fetch_add(count);
}

void ck_scheduler::withdraw_parked(uint32_t surplus)
{
   for (ck_launch *kernel : cooperative_running_)
      if (live(*kernel))
         surplus -= take_up_to(kernel->withdrawals_wanted, surplus);
}

// The only requests the scheduler takes back: those that no active
// work-group can meet any more, once work-groups at the top have returned.
void ck_scheduler::withdraw_unmeetable_kills(ck_launch &kernel)
{
   const int64_t unmeetable =
      int64_t(header_word(kernel.context, CK_KILL_REQUESTS).load()) - killable(kernel);
   if (unmeetable <= 0)
      return;
   const uint32_t withdrawn =
      take_up_to(header_word(kernel.context, CK_KILL_REQUESTS), uint32_t(unmeetable));
   kernel.kills_asked -= withdrawn;
   if (withdrawn > 0 && kernel.kills_asked == 0)
      end_gather(kernel);
}

// A work-group of the kernel returned; if the kernel killed more work-groups
// than have come back, count this unit as surrendered.
void ck_scheduler::note_return(ck_launch &kernel)
{
   if (header_word(kernel.context, CK_KILLS).load() > kernel.kills_surrendered) {
      ++kernel.kills_surrendered;
      if (kernel.kills_asked > 0) {
         kernel.last_surrender = Clock::now();
         if (--kernel.kills_asked == 0)
            end_gather(kernel);
      }
   }
   if (live(kernel))
      withdraw_unmeetable_kills(kernel);
   sample_active(kernel);
   check_invariants(kernel);
   finish_if_done(kernel);
}

// A gather lasts from the request for units to the last unit surrendered
// for it; one whose requests were all cancelled before any unit came back
// is not a gather.
void ck_scheduler::end_gather(ck_launch &kernel)
{
   if (kernel.gather_start && kernel.last_surrender) {
      ck::record_gather(*kernel.stats,
                        nanoseconds(*kernel.last_surrender - *kernel.gather_start));
      if (trace_)
         trace_->gather(kernel.id, *kernel.gather_start, *kernel.last_surrender);
   }
   kernel.gather_start.reset();
   kernel.last_surrender.reset();
}

// From a unit becoming free to a work-group forked onto it starting.
void ck_scheduler::record_fork_latency(ck_launch_stats &stats, uint64_t elapsed)
{
   if (stats.forks_timed < CK_STATS_FORK_TIMES)
      stats.fork_ns[stats.forks_timed] = elapsed;
   ++stats.forks_timed;
}

void ck_scheduler::sample_active(ck_launch &kernel)
{
   const uint32_t active = header_word(kernel.context, CK_ACTIVE_GROUPS).load();
   kernel.stats->min_active = std::min(kernel.stats->min_active, active);
   kernel.stats->max_active = std::max(kernel.stats->max_active, active);
   if (trace_ && active != kernel.traced_active) {
      trace_->active_groups(kernel.id, Clock::now(), active);
      kernel.traced_active = active;
   }
}

// Invariants of a running cooperative launch that hold whenever the lock is
// held (the top of this file explains them); asserted in debug builds. The
// kernel changes the context words concurrently, only in ways that keep
// each inequality true for a later read of its right-hand word: read in
// this order, the words cannot make a true invariant look false.
void ck_scheduler::check_invariants(const ck_launch &kernel) const
{
#ifndef NDEBUG
   uint32_t *context = kernel.context;
   const uint32_t published = header_word(context, CK_FORKS_PUBLISHED).load();
   const uint32_t active = header_word(context, CK_ACTIVE_GROUPS).load();
   const uint32_t offers = header_word(context, CK_FORK_OFFERS).load();
   assert(active >= 1 && active <= kernel.max_groups);
   assert(active + offers <= kernel.max_groups);
   assert(kernel.forks_started.load() <= published);
   assert(offers + (published - kernel.forks_started.load()) <= kernel.parked);
   if (live(kernel)) {
      assert(kernel.withdrawals_wanted.load() <= kernel.parked);
      assert(header_word(context, CK_KILL_REQUESTS).load() <= kernel.kills_asked);
   }
#else
   (void)kernel;
#endif
}

// Only a running work-group publishes forks, so once none runs and every
// published fork has started, nothing more can happen.
void ck_scheduler::finish_if_done(ck_launch &kernel)
{
   if (live(kernel) && kernel.running == 0 &&
       header_word(kernel.context, CK_FORKS_PUBLISHED).load() == kernel.forks_started.load()) {
      kernel.finished.store(true);
      kernel.withdrawals_wanted.store(0);
      kernel.kills_asked = 0;
      end_gather(kernel);
   }
   // Parked units still read the context until they have withdrawn.
   if (!live(kernel) && kernel.parked == 0 && !kernel.done)
      complete(kernel);
}

void ck_scheduler::print_stats(const ck_launch &launch) const
{
   ck::print_launch_stats(launch.id, launch.max_groups, *launch.stats,
                          nanoseconds(launch.ended - launch.started));
}

// The launch ended early: its work-groups left a global barrier that a
// returned work-group could never reach, or that another work-group did not
// reach because it had reached a different barrier call (CK_STUCK_BARRIER,
// CK_MISMATCH_SITE).
void ck_scheduler::report_stuck_barrier(const ck_launch &launch)
{
   const auto call = [](uint32_t site, uint32_t line) {
      return std::string(site & CK_STUCK_RESIZING ? "resizing_global_barrier" : "global_barrier") +
             " call " + std::to_string(site & CK_STUCK_INDEX_MASK) +
             (line ? " (line " + std::to_string(line) + ")" : "");
   };
   const uint32_t site = launch.stats->stuck_barrier;
   const std::string kernel =
      launch.kernel_name.empty() ? "a cooperative kernel" : "kernel '" + launch.kernel_name + "'";
   const uint32_t other = header_word(launch.context, CK_MISMATCH_SITE).load();
   if (other != 0 && other != site) {
      const uint32_t other_line = header_word(launch.context, CK_MISMATCH_LINE).load();
      std::fprintf(stderr,
                   "ck: %s: work-groups reached different barrier calls at once: %s while "
                   "others waited at %s; every active work-group must reach the same barrier "
                   "call, so neither can complete; the launch ended early and its event "
                   "reports an error\n",
                   kernel.c_str(), call(site, launch.stats->stuck_line).c_str(),
                   call(other, other_line).c_str());
      return;
   }
   const uint32_t returned = header_word(launch.context, CK_RETURNED_END).load();
   std::fprintf(stderr,
                "ck: %s: %s can never complete: work-group %u returned from the "
                "kernel without reaching it, and every active work-group must; the launch "
                "ended early and its event reports an error\n",
                kernel.c_str(), call(site, launch.stats->stuck_line).c_str(),
                returned ? returned - 1 : 0);
}

// Replays what the launch logged since the last call; at completion, also
// checks how it ended.
void ck_scheduler::check_protocol(ck_launch &launch, bool completed)
{
   const std::optional<std::vector<ck::ProtocolEvent>> events = launch.log->take(launch.context);
   std::optional<std::string> error;
   if (!events)
      error = "the protocol log lost events past its capacity of " +
              std::to_string(launch.log->capacity()) + " (" +
              std::to_string(launch.log->appended()) + " appended)";
   for (std::size_t index = 0; events && !error && index < events->size(); ++index)
      error = launch.replay->step((*events)[index]);
   if (!error && completed)
      error = launch.replay->finish(launch.stats->stuck_barrier != 0);
   if (!error)
      return;
   std::fprintf(stderr,
                "ck scheduler: cooperative launch %" PRIu64
                "%s%s%s broke the FSE'17 rules (CK_CHECK=1): %s\n",
                launch.id, launch.kernel_name.empty() ? "" : " of '", launch.kernel_name.c_str(),
                launch.kernel_name.empty() ? "" : "'", error->c_str());
   std::fflush(stderr);
   std::abort();
}

void ck_scheduler::complete(ck_launch &launch)
{
   launch.ended = Clock::now();
   launch.done = true;
   if (launch.kernel_key && launch.groups > 0) {
      if (group_time_.size() >= kernels_timed)
         group_time_.clear();
      group_time_[launch.kernel_key] = launch.busy / launch.groups;
   }
   if (launch.cooperative) {
      ck_launch_stats &stats = *launch.stats;
      stats.kills = header_word(launch.context, CK_KILLS).load();
      stats.forks = header_word(launch.context, CK_FORKS).load();
      stats.stuck_barrier = header_word(launch.context, CK_STUCK_BARRIER).load();
      stats.stuck_line = header_word(launch.context, CK_STUCK_LINE).load();
      if (stats.stuck_barrier)
         report_stuck_barrier(launch);
      if (launch.log)
         check_protocol(launch, true);
      if (print_stats_)
         print_stats(launch);
      cooperative_running_.erase(
         std::find(cooperative_running_.begin(), cooperative_running_.end(), &launch));
   }
   if (trace_) {
      trace_->launch(launch.id, launch.cooperative,
                     ck::launch_name(launch.cooperative, launch.id, launch.kernel_name,
                                     launch.cooperative ? launch.max_groups : launch.groups,
                                     launch.shares != nullptr),
                     launch.started, launch.ended);
      if (launch.cooperative)
         trace_->active_groups(launch.id, launch.ended, 0);
   }
   if (launch.on_complete)
      launch.on_complete(launch.on_complete_data, &final_stats(launch));
   // The units dispatch the launch held behind this one, as they return.
   if (ck_launch *successor = std::exchange(launch.successor, nullptr))
      enqueue(*successor);
   launch_done_.notify_all();
}

// Re-reads the cap file every 50 ms.
void ck_scheduler::housekeeper_main()
{
   const auto cap_period = std::chrono::milliseconds(50);
   Lock lock(mutex_);
   while (!stopping_) {
      lock.unlock();
      const std::optional<unsigned> cap = read_cap_file();
      lock.lock();
      if (cap)
         apply_file_cap(*cap);
      housekeeper_wake_.wait_for(lock, cap_period, [this] { return stopping_; });
   }
}

// The cap the cap file holds; nullopt without a file or a positive number.
std::optional<unsigned> ck_scheduler::read_cap_file() const
{
   if (cap_file_.empty())
      return std::nullopt;
   unsigned cap = 0;
   std::ifstream(cap_file_) >> cap;
   return cap > 0 ? std::optional<unsigned>(cap) : std::nullopt;
}

void ck_scheduler::apply_file_cap(unsigned cap)
{
   if (std::clamp(cap, 1u, units()) == unit_cap_)
      return;
   unit_cap_ = std::clamp(cap, 1u, units());
   dispatch();
}

namespace {

ck_scheduler *create(unsigned units, const ck::Policy &policy, const char *trace_path,
                     const char *cap_file, bool print_stats, bool check_protocol,
                     unsigned fail_launches, unsigned short_launch_us)
{
   return new ck_scheduler(units, policy, trace_path ? trace_path : "",
                           cap_file ? cap_file : "", print_stats, check_protocol, fail_launches,
                           std::chrono::microseconds(short_launch_us));
}

constexpr ck_launch_hints default_hints{nullptr, CK_PRIORITY_MEDIUM, CK_THROTTLE_NONE, 0, 0, nullptr};

bool valid(const ck_launch_hints &hints)
{
   return hints.priority >= CK_PRIORITY_LOW && hints.priority <= CK_PRIORITY_HIGH &&
          hints.throttle >= CK_THROTTLE_NONE && hints.throttle <= CK_THROTTLE_HIGH;
}

} // namespace

extern "C" {

ck_scheduler *ck_scheduler_create(unsigned units)
{
   const ck::Policy policy = ck::policy_from_env();
   const auto enabled = [](const char *name) {
      const char *value = std::getenv(name);
      return value && std::string(value) == "1";
   };
   const auto number = [](const char *name, unsigned otherwise) {
      const char *value = std::getenv(name);
      return value ? unsigned(std::strtoul(value, nullptr, 10)) : otherwise;
   };
   return create(std::max(units, 1u), policy, std::getenv("CK_TRACE"), std::getenv("CK_CAP_FILE"),
                 enabled("CK_STATS"), enabled("CK_CHECK"), number("CK_FAIL_LAUNCHES", 0),
                 number("CK_SHORT_LAUNCH_US", default_short_launch_us));
}

ck_scheduler *ck_scheduler_create_with_options(const ck_scheduler_options *options)
{
   const auto policy = ck::parse_policy(options->policy ? options->policy : "default");
   if (!policy || options->units == 0)
      return nullptr;
   return create(options->units, *policy, options->trace_path, options->cap_file,
                 options->print_stats != 0, options->check_protocol != 0,
                 options->fail_launches, options->short_launch_us);
}

void ck_scheduler_destroy(ck_scheduler *scheduler)
{
   delete scheduler;
}

unsigned ck_scheduler_units(const ck_scheduler *scheduler)
{
   return scheduler->units();
}

void ck_scheduler_set_unit_cap(ck_scheduler *scheduler, unsigned cap)
{
   scheduler->set_unit_cap(cap);
}

unsigned ck_scheduler_max_active_groups(ck_scheduler *scheduler)
{
   return scheduler->max_active_groups();
}

unsigned ck_throttle_units(const ck_scheduler *scheduler, ck_throttle throttle)
{
   return scheduler->throttle_units(throttle);
}

ck_launch *ck_scheduler_launch(ck_scheduler *scheduler, ck_run_fn run, void *data, unsigned groups)
{
   return scheduler->launch(run, data, groups, default_hints, nullptr);
}

ck_launch *ck_scheduler_launch_cooperative(ck_scheduler *scheduler, ck_run_fn run, void *data,
                                           uint32_t *context, uint32_t max_groups,
                                           const char *kernel_name)
{
   return scheduler->launch_cooperative(run, data, context, max_groups, kernel_name,
                                        default_hints, nullptr);
}

ck_launch *ck_scheduler_launch_hinted(ck_scheduler *scheduler, ck_run_fn run, void *data,
                                      unsigned groups, const ck_launch_hints *hints)
{
   return ck_scheduler_launch_after(scheduler, run, data, groups, hints, nullptr);
}

ck_launch *ck_scheduler_launch_cooperative_hinted(ck_scheduler *scheduler, ck_run_fn run,
                                                  void *data, uint32_t *context,
                                                  uint32_t max_groups, const char *kernel_name,
                                                  const ck_launch_hints *hints)
{
   return ck_scheduler_launch_cooperative_after(scheduler, run, data, context, max_groups,
                                                kernel_name, hints, nullptr);
}

ck_launch *ck_scheduler_launch_after(ck_scheduler *scheduler, ck_run_fn run, void *data,
                                     unsigned groups, const ck_launch_hints *hints,
                                     ck_launch *after)
{
   if (hints && !valid(*hints))
      return nullptr;
   return scheduler->launch(run, data, groups, hints ? *hints : default_hints, after);
}

ck_launch *ck_scheduler_launch_cooperative_after(ck_scheduler *scheduler, ck_run_fn run,
                                                 void *data, uint32_t *context,
                                                 uint32_t max_groups, const char *kernel_name,
                                                 const ck_launch_hints *hints, ck_launch *after)
{
   if (hints && !valid(*hints))
      return nullptr;
   return scheduler->launch_cooperative(run, data, context, max_groups, kernel_name,
                                        hints ? *hints : default_hints, after);
}

void ck_launch_wait(ck_launch *launch, ck_launch_stats *stats)
{
   launch->scheduler->help(*launch);
   launch->scheduler->wait(launch, std::nullopt, stats);
}

int ck_launch_wait_for(ck_launch *launch, uint64_t timeout_ns, ck_launch_stats *stats)
{
   launch->scheduler->help(*launch);
   return launch->scheduler->wait(launch, std::chrono::nanoseconds(timeout_ns), stats);
}

void ck_launch_on_complete(ck_launch *launch, ck_complete_fn fn, void *data)
{
   launch->scheduler->on_complete(launch, fn, data);
}

} // extern "C"
