// What the host tests of launches that end with an error observe besides
// the event's status: what the implementation writes on stderr (or a
// kernel's printf on stdout), and the
// status a CL_COMPLETE callback is called with.
#pragma once

#include <CL/cl.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <unistd.h>

namespace host_test {

// Collects what the process writes on a standard stream (stdout, stderr)
// while it lives; finish() restores the stream, writes the text to it again
// (so that it stays in the test's log) and returns it.
class StreamCapture {
public:
   explicit StreamCapture(FILE *stream)
      : stream_(stream), file_(std::tmpfile()), saved_(dup(fileno(stream)))
   {
      std::fflush(stream_);
      dup2(fileno(file_), fileno(stream_));
   }
   ~StreamCapture() { std::fclose(file_); }
   std::string finish()
   {
      std::fflush(stream_);
      dup2(saved_, fileno(stream_));
      close(saved_);
      std::string text;
      std::rewind(file_);
      for (int c; (c = std::fgetc(file_)) != EOF;)
         text += char(c);
      std::fputs(text.c_str(), stream_);
      return text;
   }

private:
   FILE *stream_;
   FILE *file_;
   int saved_;
};

// What the implementation writes on stderr while it lives.
class StderrCapture : public StreamCapture {
public:
   StderrCapture() : StreamCapture(stderr) {}
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
