// What the host tests of launches that end with an error observe besides
// the event's status: what the implementation writes on stderr, and the
// status a CL_COMPLETE callback is called with.
#pragma once

#include <CL/cl.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <unistd.h>

namespace host_test {

// Collects what the process writes on stderr while it lives.
class StderrCapture {
public:
   StderrCapture() : file_(std::tmpfile()), saved_(dup(2))
   {
      std::fflush(stderr);
      dup2(fileno(file_), 2);
   }
   ~StderrCapture() { std::fclose(file_); }
   std::string finish()
   {
      std::fflush(stderr);
      dup2(saved_, 2);
      close(saved_);
      std::string text;
      std::rewind(file_);
      for (int c; (c = std::fgetc(file_)) != EOF;)
         text += char(c);
      std::fputs(text.c_str(), stderr); // still shown in the test's log
      return text;
   }

private:
   FILE *file_;
   int saved_;
};

// Whether a CL_COMPLETE callback ran, and with which status
// (clSetEventCallback(event, CL_COMPLETE, note_completion, &callback)).
struct CompletionCallback {
   std::atomic<bool> called{false};
   std::atomic<cl_int> status{1};
};

inline void CL_CALLBACK note_completion(cl_event, cl_int status, void *data)
{
   auto *callback = static_cast<CompletionCallback *>(data);
   callback->status = status;
   callback->called = true;
}

} // namespace host_test
