/*!
[config]
name: cooperative kernels: resizing_global_barrier with transmitted state
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels

[test]
name: 4 work-groups of 16, 300 rounds, barrier in a helper function
kernel_name: ring_rounds_resizing
dimensions: 1
global_size: 64 0 0
local_size: 16 0 0
arg_in:  0 buffer uint[64] 0 1 2 3 4 5 6 7 8 9 10 11 \
                           12 13 14 15 16 17 18 19 20 21 22 23 \
                           24 25 26 27 28 29 30 31 32 33 34 35 \
                           36 37 38 39 40 41 42 43 44 45 46 47 \
                           48 49 50 51 52 53 54 55 56 57 58 59 \
                           60 61 62 63
arg_in:  1 buffer uint[64] repeat 0
arg_out: 0 buffer uint[64] 344 345 346 347 348 349 350 351 352 353 354 355 \
                           356 357 358 359 360 361 362 363 300 301 302 303 \
                           304 305 306 307 308 309 310 311 312 313 314 315 \
                           316 317 318 319 320 321 322 323 324 325 326 327 \
                           328 329 330 331 332 333 334 335 336 337 338 339 \
                           340 341 342 343
arg_in:  2 uint 300
!*/

// covers: 6-ndrange 10.2-resize-copies-wg0 10.6-barrier 10.6-resize 10.6-survivors-intact

/* The kernel of global-barrier.cl written the cooperative way (FSE'17,
 * Fig. 4): the round and the buffers are transmitted, work is redistributed
 * after every resizing barrier, and the barrier sits in a helper. */
void end_round(global uint **src, global uint **dst)
{
   global uint *t = *src;
   *src = *dst;
   *dst = t;
   resizing_global_barrier();
}

kernel void ring_rounds_resizing(global uint *a, global uint *b, uint rounds)
{
   transmit uint r = 0;
   transmit global uint *src = a;
   transmit global uint *dst = b;
   const uint n = 64;
   while (r < rounds) {
      for (uint i = get_global_id(0); i < n; i += get_global_size(0))
         dst[i] = src[(i + 1) % n] + 1;
      r++;
      end_round(&src, &dst);
   }
}
