// The figures of FSE'17 (Sorensen, Evrard, Donaldson: "Cooperative Kernels:
// GPU Multitasking for Blocking Algorithms", §5) that ck-eval prints beside
// its own, as the paper gives them.
#pragma once

#include <array>

namespace ck_paper {

// Table 2: the cooperative kernels' slowdown against their persistent-thread
// versions, geometric mean and maximum per group of applications.
struct SlowdownGroup {
   const char *name;
   const char *kind; // an application kind, or nullptr for all of them
   double mean, max;
};
inline constexpr std::array<SlowdownGroup, 3> table2 = {{
   {"overall", nullptr, 1.07, 1.23},
   {"barrier", "barrier", 1.06, 1.20},
   {"wk.steal.", "work-stealing", 1.12, 1.23},
}};

// Table 3: the overhead of kernel-level preemption (the model P/(P-D)) and
// of cooperative kernels, per graphics load, at the k the paper chose.
struct PreemptionRow {
   const char *load;
   const char *k;
   double kernel_level, cooperative;
};
inline constexpr std::array<PreemptionRow, 3> table3 = {{
   {"light", "N/4", 1.04, 1.04},
   {"medium", "N/4", 1.08, 1.08},
   {"heavy", "N/2", 1.33, 1.47},
}};

} // namespace ck_paper
