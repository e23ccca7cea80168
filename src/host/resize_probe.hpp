// One controlled resizing of a cooperative kernel on the patched Mesa: the
// kernel `yield_until_stopped` (kernels/bench.cl) runs on every compute
// unit, an ordinary kernel `fill_together` of `ordinary_groups` work-groups
// that must all run at once takes that many units from it, and once the
// ordinary kernel is done the units come back through forks. The launch
// statistics come from event profiling (CL_PROFILING_COOPERATIVE_*_EXT).
// Used by the launch statistics test and by 'tools/ck bench'.
#pragma once

#include "cl_host.hpp"

#include <vector>

namespace cl_host {

struct ResizeProbe {
   cl_ulong kills = 0, forks = 0, min_active = 0, max_active = 0;
   std::vector<cl_ulong> gather_ns, fork_ns;
   bool ordinary_right = false;          // fill_together computed its result
   Event cooperative_event, ordinary_event;
};

// `program` holds the kernels of kernels/bench.cl; 1 <= ordinary_groups < units.
ResizeProbe probe_resize(cl_context context, cl_device_id device, cl_program program,
                         cl_uint ordinary_groups);

// The cl_ulong[] value of a profiling query (e.g. the gather times).
std::vector<cl_ulong> profiling_times(cl_event event, cl_profiling_info param);

} // namespace cl_host
