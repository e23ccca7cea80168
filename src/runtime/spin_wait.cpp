// The spin-wait hint: llvmpipe calls ck_spin_wait_hint() each time a
// work-group polls the launch context for another work-group (global
// barriers, resizing barriers, offers to be killed while a kill is wanted
// from another work-group). Every few polls it yields the CPU, so that the
// work-group waited for gets one if it has none; how few depends on whether
// compute units outnumber CPUs.

#include "spin_wait.hpp"

#include "ck/runtime.h"

#include <atomic>
#include <thread>

namespace {

std::atomic<unsigned> polls_per_yield{16};

} // namespace

namespace ck {

void set_polls_per_yield(unsigned polls)
{
   polls_per_yield.store(polls < 1 ? 1 : polls, std::memory_order_relaxed);
}

} // namespace ck

extern "C" void ck_spin_wait_hint(void)
{
   thread_local unsigned polls;
   if (++polls % polls_per_yield.load(std::memory_order_relaxed) == 0)
      std::this_thread::yield();
}
