// A trace file (CK_TRACE) for a test to read, shared by the scheduler's and
// the dispatch policy's tests.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace ck::test {

// A trace file in a directory of its own, parsed (discarded JSON if it is
// missing or not JSON) and removed with its directory.
struct TraceFile {
   TraceFile()
   {
      if (!mkdtemp(directory))
         throw std::runtime_error("mkdtemp failed");
      path = std::string(directory) + "/trace.json";
   }
   nlohmann::json read_and_remove()
   {
      std::stringstream text;
      text << std::ifstream(path).rdbuf();
      std::remove(path.c_str());
      rmdir(directory);
      contents = text.str();
      return nlohmann::json::parse(contents, nullptr, false);
   }
   char directory[21] = "/tmp/ck-trace-XXXXXX";
   std::string path, contents;
};

} // namespace ck::test
