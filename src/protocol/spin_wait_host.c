/* On host threads (the scheduler's tests), the protocol's spin-wait is the
 * hint that llvmpipe's work-groups call (ck/runtime.h). */
#include "kernel_side.h"

#include "ck/runtime.h"

void
__ck_spin_wait(void)
{
   ck_spin_wait_hint();
}
