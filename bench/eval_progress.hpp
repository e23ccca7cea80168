// ck-eval's progress line on stderr: the step, its count and the time left.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace ck_eval {

// One line rewritten in place on a terminal, one line per step otherwise.
class Progress {
public:
   explicit Progress(int total) : total_(total), tty_(isatty(STDERR_FILENO)) {}
   ~Progress() { done(); }

   void step(const std::string &what)
   {
      ++count_;
      const double elapsed =
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      std::string eta;
      if (count_ > 1) {
         const double left = elapsed / (count_ - 1) * (total_ - count_ + 1);
         eta = ", ~" + std::to_string(int(left / 60 + 0.5)) + " min left";
      }
      if (tty_)
         std::fprintf(stderr, "\r\033[K[%d/%d] %s%s", count_, total_, what.c_str(), eta.c_str());
      else
         std::fprintf(stderr, "[%d/%d] %s%s\n", count_, total_, what.c_str(), eta.c_str());
      std::fflush(stderr);
   }

   // A line that stays (failures), without breaking the progress line.
   void say(const std::string &line)
   {
      std::fprintf(stderr, "%s%s\n", tty_ ? "\r\033[K" : "", line.c_str());
      std::fflush(stderr);
   }

   void done()
   {
      if (tty_ && count_ && !finished_)
         std::fprintf(stderr, "\r\033[K");
      finished_ = true;
   }

private:
   int total_;
   int count_ = 0;
   bool tty_;
   bool finished_ = false;
   std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

} // namespace ck_eval
