#include "eval_options.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace ck_eval {

namespace {

void usage(FILE *out)
{
   std::fprintf(
      out,
      "usage: ck-eval table2|fig5|fig6|persistent [options]\n"
      "       ck-eval report FILE.csv [--summary PATH]\n"
      "\n"
      "  persistent  the persistent-thread builds alone (no extension needed:\n"
      "           runs on any OpenCL implementation); 'tools/ck bench runtime'\n"
      "           compares them on patched and unpatched Mesa\n"
      "  table2   cooperative vs persistent-thread slowdown, no multitasking\n"
      "           (needs CK_POLICY=never); FSE'17 Table 2\n"
      "  fig5     gather time and matmul time per work-groups k given to the\n"
      "           matmul, query and without-query barriers; FSE'17 Figure 5\n"
      "  fig6     slowdown and achieved period under light/medium/heavy loads,\n"
      "           and Table 3 against kernel-level preemption; FSE'17 Figure 6\n"
      "           (fig5 and fig6 need CK_POLICY unset or 'default'; fig5 also runs\n"
      "           under 'never', for the matmul's latency without kills)\n"
      "  report   the tables of a CSV that one of the above wrote, computed\n"
      "           from its raw samples, as that command printed them;\n"
      "           --summary PATH also writes their summaries there (each\n"
      "           command writes NAME.summary.csv beside NAME.csv)\n"
      "\n"
      "options:\n"
      "  --apps NAME[,NAME...]   applications (name or name:input); default all\n"
      "  --graph PATH[,PATH...]  run the graph applications on these files (Matrix\n"
      "                          Market .mtx, DIMACS .gr, or 'from to [weight]' edge\n"
      "                          lists) instead of the generated graphs\n"
      "  --scale test|bench      input sizes (default bench)\n"
      "  --repeats N             runs per configuration (default: table2 5, fig5/fig6 3)\n"
      "  --out DIR               where the CSV goes (default _build/eval)\n"
      "  --loads L[,L...]        graphics loads: light, medium, heavy\n"
      "                          (default: fig5 light,heavy; fig6 all three)\n"
      "  --barriers B[,B...]     query, without-query (default: fig5 both, fig6 query)\n"
      "  --k K[,K...]            matmul work-groups: 1, N/4, N/2, N-1 or a number\n"
      "                          (default 1,N/4,N/2,N-1; duplicates and k < 1 dropped)\n"
      "  --groups N              persistent: work-groups (default: compute units)\n"
      "  --units N               N, the work-groups of each cooperative launch (default:\n"
      "                          the device's compute units; zink's Vulkan device tells\n"
      "                          none, and reports 1: give lavapipe's LP_NUM_THREADS)\n"
      "  --timeout S             watchdog per run, seconds (default 600)\n"
      "  --priority              fig5: every run also with the matmul on a high-priority\n"
      "                          queue and the cooperative kernel on a low-priority one\n"
      "                          (cl_khr_priority_hints), and a run alone for the\n"
      "                          kernel's slowdown\n"
      "  --kernels DIR --include DIR   where kernels/ and include/ are\n"
      "\n"
      "N is the device's compute units (LP_NUM_THREADS on llvmpipe), or --units.\n");
}

int parse_int(const std::string &flag, const std::string &text, int min)
{
   char *end = nullptr;
   long value = std::strtol(text.c_str(), &end, 10);
   if (text.empty() || *end || value < min || value > 1000000)
      usage_error(flag + " needs an integer >= " + std::to_string(min) + ", got '" + text + "'");
   return int(value);
}

} // namespace

[[noreturn]] void usage_error(const std::string &message)
{
   std::fprintf(stderr, "ck-eval: %s\n", message.c_str());
   usage(stderr);
   std::exit(2);
}

std::vector<std::string> split(const std::string &text, char separator)
{
   std::vector<std::string> parts;
   std::stringstream stream(text);
   std::string part;
   while (std::getline(stream, part, separator))
      if (!part.empty())
         parts.push_back(part);
   return parts;
}

Options parse_options(int argc, char **argv)
{
   Options options;
   if (argc < 2)
      usage_error("no subcommand");
   options.command = argv[1];
   if (options.command == "-h" || options.command == "--help" || options.command == "help") {
      usage(stdout);
      std::exit(0);
   }
   if (options.command != "table2" && options.command != "fig5" && options.command != "fig6" &&
       options.command != "persistent" && options.command != "report")
      usage_error("unknown subcommand '" + options.command + "'");
   int first = 2;
   if (options.command == "report") {
      if (argc < 3 || argv[2][0] == '-') {
         if (argc >= 3 && (std::string(argv[2]) == "-h" || std::string(argv[2]) == "--help")) {
            usage(stdout);
            std::exit(0);
         }
         usage_error("report needs a CSV file");
      }
      options.csv = argv[2];
      first = 3;
   }
   for (int i = first; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "-h" || arg == "--help") {
         usage(stdout);
         std::exit(0);
      }
      if (arg == "--priority") {
         if (options.command != "fig5")
            usage_error("--priority is for fig5");
         options.priority = true;
         continue;
      }
      if (i + 1 >= argc)
         usage_error(arg + " needs a value");
      const std::string value = argv[++i];
      if (options.command == "report" && arg != "--summary")
         usage_error("report takes only --summary, got '" + arg + "'");
      if (arg == "--summary") {
         if (options.command != "report")
            usage_error("--summary is for report");
         options.summary = value;
      } else if (arg == "--apps")
         options.apps = split(value, ',');
      else if (arg == "--graph")
         options.graphs = split(value, ',');
      else if (arg == "--scale") {
         if (value != "test" && value != "bench")
            usage_error("--scale is test or bench, got '" + value + "'");
         options.scale = value;
      } else if (arg == "--repeats")
         options.repeats = parse_int(arg, value, 1);
      else if (arg == "--out")
         options.out = value;
      else if (arg == "--loads") {
         options.loads = split(value, ',');
         for (const std::string &load : options.loads)
            if (load != "light" && load != "medium" && load != "heavy")
               usage_error("unknown load '" + load + "' (light, medium, heavy)");
      } else if (arg == "--barriers") {
         options.barriers = split(value, ',');
         for (const std::string &barrier : options.barriers)
            if (barrier != "query" && barrier != "without-query")
               usage_error("unknown barrier '" + barrier + "' (query, without-query)");
      } else if (arg == "--k")
         options.ks = split(value, ',');
      else if (arg == "--groups")
         options.groups = parse_int(arg, value, 1);
      else if (arg == "--units")
         options.units = parse_int(arg, value, 1);
      else if (arg == "--timeout")
         options.timeout_s = parse_int(arg, value, 1);
      else if (arg == "--kernels")
         options.kernels = value;
      else if (arg == "--include")
         options.include = value;
      else
         usage_error("unknown option '" + arg + "'");
   }
   if (!options.repeats)
      options.repeats = options.command == "table2" ? 5 : 3;
   if (options.loads.empty())
      options.loads = options.command == "fig5" ? std::vector<std::string>{"light", "heavy"}
                                                : std::vector<std::string>{"light", "medium", "heavy"};
   if (options.barriers.empty())
      options.barriers = options.command == "fig5"
                            ? std::vector<std::string>{"query", "without-query"}
                            : std::vector<std::string>{"query"};
   return options;
}

} // namespace ck_eval
