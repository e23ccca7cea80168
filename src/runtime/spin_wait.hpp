// The spin-wait hint's policy (ck_spin_wait_hint in ck/runtime.h).
#pragma once

namespace ck {

// How many times a work-group polls for another one per yield of the CPU.
// The scheduler sets it from how many compute units share how many CPUs.
void set_polls_per_yield(unsigned polls);

} // namespace ck
