/*!
[config]
name: cooperative kernels: every builtin in helpers and nested helpers, in loops
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels

[test]
name: 8 work-groups of 8, 200 rounds of a ring shift, resizing through helpers
kernel_name: ring_helpers
dimensions: 1
global_size: 64 0 0
local_size: 8 0 0
arg_in:  0 buffer uint[64] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 \
                           24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 \
                           44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
arg_out: 0 buffer uint[64] 208 209 210 211 212 213 214 215 216 217 218 219 220 221 222 \
                           223 224 225 226 227 228 229 230 231 232 233 234 235 236 237 \
                           238 239 240 241 242 243 244 245 246 247 248 249 250 251 252 \
                           253 254 255 256 257 258 259 260 261 262 263 200 201 202 203 \
                           204 205 206 207
arg_in:  1 buffer uint[64] repeat 0
arg_in:  2 uint 200
arg_in:  3 uint 64
arg_in:  4 buffer uint[2] repeat 0
arg_out: 4 buffer uint[2] 0 0
arg_in:  5 buffer uint[1] repeat 0
!*/

// covers: 6-ndrange 10.1-global-size 10.1-size-change-points 10.7-value

/* The ring shift of global-barrier.cl, resized every round the way FSE'17
 * §4.2 first describes (include/cooperative_kernels.cl.h,
 * CK_RESIZING_WITHOUT_QUERY), with every builtin reached through a helper
 * and a nested helper, each inside loops: global_barrier (sync_all ->
 * wait_all), query_kill_count (kills_wanted -> query), offer_kill
 * (shrink_if_asked -> give_back, in a loop of its own), request_fork
 * (grow -> take_more). Once every work-group has arrived (none still
 * works with the old M), each offers to be killed while the scheduler
 * wants kills, the survivors meet, work-group 0 forks, and the new
 * work-groups join at the third barrier. The work-items share the len
 * elements among the get_global_size(0) active ones, so the result is the
 * same whatever M is, and wrong if a barrier let a work-group through
 * early or a work-group worked with a stale M. errors[]:
 *   0  query_kill_count() above get_num_groups(0) - 1 (read before it):
 *      work-group 0 is never killed, so more kills than that cannot be
 *      met, and the count is a promise that they will be
 *   1  after the round's last barrier, get_num_groups(0) is not the M that
 *      work-group 0 saw after its request_fork (published in forked_m)
 * Under CK_POLICY=random:SEED kills are always wanted, so offer_kill runs
 * only if query_kill_count returns nonzero values; the profile requires
 * every launch to kill and fork. */

void wait_all(void)
{
   global_barrier();
}

void sync_all(void)
{
   wait_all();
}

uint query(void)
{
   return query_kill_count();
}

uint kills_wanted(global uint *errors)
{
   const uint m = get_num_groups(0);
   const uint wanted = query();
   if (wanted > m - 1 && get_local_id(0) == 0)
      atomic_inc(&errors[0]);
   return wanted;
}

void give_back(void)
{
   offer_kill();
}

void shrink_if_asked(global uint *errors)
{
   for (uint tries = 0; tries < 3 && kills_wanted(errors) > 0; ++tries)
      give_back();
}

void take_more(void)
{
   request_fork();
}

void grow(void)
{
   if (get_group_id(0) == 0)
      take_more();
}

/* A helper's parameters are private variables: a work-group that joins at
 * a fork point inside the helper would read them undefined, so the fork
 * point's helpers take none, and the kernel body does what follows it. */
void shrink_round(global uint *errors)
{
   sync_all();
   shrink_if_asked(errors);
   sync_all();
}

kernel void ring_helpers(global uint *a, global uint *b, uint rounds, uint len,
                         global uint *errors, global uint *forked_m)
{
   transmit uint r;
   r = 0;
   while (r < rounds) {
      global uint *src = (r & 1) ? b : a;
      global uint *dst = (r & 1) ? a : b;
      for (uint i = get_global_id(0); i < len; i += get_global_size(0))
         dst[i] = src[(i + 1) % len] + 1;
      r++;
      shrink_round(errors);
      grow();
      if (get_group_id(0) == 0 && get_local_id(0) == 0)
         *forked_m = get_num_groups(0);
      sync_all();
      if (get_num_groups(0) != *forked_m && get_local_id(0) == 0)
         atomic_inc(&errors[1]);
   }
}
