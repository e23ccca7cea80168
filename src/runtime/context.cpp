#include "ck/context.h"
#include "ck/runtime.h"

#include <cstring>

extern "C" void ck_context_init(uint32_t *context, uint32_t max_groups, uint32_t active_groups)
{
   std::memset(context, 0, ck_context_bytes(max_groups));
   context[CK_MAX_GROUPS] = max_groups;
   context[CK_ACTIVE_GROUPS] = active_groups;
}

extern "C" void ck_context_init_discovery(uint32_t *context, uint32_t max_groups)
{
   ck_context_init(context, max_groups, 0);
   context[CK_DISCOVERY_POLL] = CK_POLL_DISCOVER | CK_POLL_OPEN;
}
