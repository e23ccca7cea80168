// A deadline for blocking OpenCL calls: if the guarded scope does not end in
// time, the process reports what hung and exits with status 3. A deadlock in
// a test then fails loudly instead of hanging CI.
#pragma once

#include <chrono>
#include <condition_variable>
#include <initializer_list>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

namespace cl_host {

class Watchdog {
public:
   Watchdog(std::string what, std::chrono::milliseconds limit)
      : what_(std::move(what)), thread_([this, limit] { watch(limit); })
   {
   }
   Watchdog(const Watchdog &) = delete;
   Watchdog &operator=(const Watchdog &) = delete;
   ~Watchdog()
   {
      {
         std::lock_guard<std::mutex> lock(mutex_);
         done_ = true;
      }
      cv_.notify_one();
      thread_.join();
   }

private:
   void watch(std::chrono::milliseconds limit)
   {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!cv_.wait_for(lock, limit, [this] { return done_; })) {
         // On stdout as well: a test may have redirected stderr.
         for (FILE *out : {stdout, stderr}) {
            std::fprintf(out, "DEADLOCK: %s did not finish within %lld ms\n", what_.c_str(),
                         static_cast<long long>(limit.count()));
            std::fflush(out);
         }
         std::_Exit(3);
      }
   }

   std::string what_;
   std::mutex mutex_;
   std::condition_variable cv_;
   bool done_ = false;
   std::thread thread_;
};

} // namespace cl_host
