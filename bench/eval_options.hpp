// ck-eval's command line.
#pragma once

#include <string>
#include <vector>

namespace ck_eval {

struct Options {
   std::string command;
   std::string kernels = "kernels";
   std::string include = "include";
   std::string out = "_build/eval";
   std::string scale = "bench";
   std::vector<std::string> apps;     // empty: all
   std::vector<std::string> graphs;   // graph files; empty: the generated graphs
   int repeats = 0;                   // 0: the subcommand's default
   std::vector<std::string> loads;    // empty: the subcommand's default
   std::vector<std::string> barriers; // empty: the subcommand's default
   std::vector<std::string> ks = {"1", "N/4", "N/2", "N-1"};
   unsigned groups = 0;               // persistent: 0 for the compute units
   unsigned units = 0;                // N; 0: the device's compute units
   int timeout_s = 600;
   bool priority = false; // fig5: each run also with the frames on a high-priority queue
   std::string csv;     // report: the CSV file to report on
   std::string summary; // report: where its summaries go; empty: nowhere
};

// The options of argv; prints the usage and exits for --help or a bad one.
Options parse_options(int argc, char **argv);

// Prints message and the usage on stderr and exits with status 2.
[[noreturn]] void usage_error(const std::string &message);

// The parts of text between separators (empty parts dropped).
std::vector<std::string> split(const std::string &text, char separator);

} // namespace ck_eval
