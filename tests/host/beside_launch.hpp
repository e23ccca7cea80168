// Two kernels on two command queues of one context, as the zink tests of a
// cooperative launch beside other work run them (beside_cooperative.cpp,
// demand_kills.cpp).
#pragma once

#include "cl_host.hpp"

namespace host_test {

// Enqueues `cooperative` as `groups` work-groups of one work-item and
// flushes its queue, so that it is submitted first, then `ordinary` as one
// work-item on the other queue; waits for both, the ordinary one first.
// Returns the cooperative launch's event.
inline cl_host::Event launch_beside(cl_command_queue cooperative_queue, cl_kernel cooperative,
                                    size_t groups, cl_command_queue ordinary_queue,
                                    cl_kernel ordinary)
{
   const size_t one = 1;
   cl_event launched = nullptr;
   cl_host::check(clEnqueueNDRangeKernel(cooperative_queue, cooperative, 1, nullptr, &groups,
                                         &one, 0, nullptr, &launched),
                  "clEnqueueNDRangeKernel");
   cl_host::Event event(launched);
   cl_host::check(clFlush(cooperative_queue), "clFlush");
   cl_host::check(clEnqueueNDRangeKernel(ordinary_queue, ordinary, 1, nullptr, &one, &one, 0,
                                         nullptr, nullptr),
                  "clEnqueueNDRangeKernel");
   cl_host::check(clFinish(ordinary_queue), "clFinish");
   cl_host::check(clFinish(cooperative_queue), "clFinish");
   return event;
}

} // namespace host_test
