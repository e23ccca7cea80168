// Waiting on a CPU device: spin briefly, then yield, then sleep in growing
// steps, so that a waiter never starves the threads it waits for when
// threads outnumber cores.
#pragma once

#include <algorithm>
#include <chrono>
#include <thread>

namespace ck {

class Backoff {
public:
   void pause()
   {
      ++rounds_;
      if (rounds_ <= spin_rounds) {
         cpu_relax();
      } else if (rounds_ <= spin_rounds + yield_rounds) {
         std::this_thread::yield();
      } else {
         std::this_thread::sleep_for(sleep_);
         sleep_ = std::min(sleep_ * 2, max_sleep);
      }
   }

   void reset()
   {
      rounds_ = 0;
      sleep_ = min_sleep;
   }

private:
   static constexpr unsigned spin_rounds = 64, yield_rounds = 256;
   static constexpr std::chrono::microseconds min_sleep{10}, max_sleep{50};

   static void cpu_relax()
   {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
   }

   unsigned rounds_ = 0;
   std::chrono::microseconds sleep_ = min_sleep;
};

// Polls `ready` for about `budget`, yielding the CPU between polls; returns
// whether it became true. A thread about to block on a condition variable
// calls this first: waking a sleeping thread costs tens of microseconds on
// these machines, several times a launch's own work.
template <typename Ready>
bool poll_briefly(Ready &&ready, std::chrono::nanoseconds budget)
{
   const auto end = std::chrono::steady_clock::now() + budget;
   while (!ready()) {
      if (std::chrono::steady_clock::now() >= end)
         return false;
      std::this_thread::yield();
   }
   return true;
}

} // namespace ck
