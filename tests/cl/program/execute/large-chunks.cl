/*!
[config]
name: A kernel without barriers too large to inline runs its SIMD chunks as calls
clc_version_min: 10

[test]
name: 72 rounds of integer mixing, the last 8 on the lanes whose value is odd
kernel_name: mix
dimensions: 1
global_size: 20 0 0
local_size: 10 0 0
arg_out: 0 buffer uint[20] 4280140736 947906068 3594292456 102439252 694365044 2732856956 2124219484 856455740 2178862640 13672724 4286027112 3340993724 353556400 138875360 3216742408 1903092760 3688987740 1367326368 2508248036 2489475016
!*/

/* Over llvmpipe's 256-instruction bound for inlining a kernel's SIMD chunk
 * into the loop over the chunks (run-program-test.sh --chunks called checks
 * that it stays a function). Work-groups of 10 leave lanes of the second
 * chunk without a work-item. */
#define ROUND(k)                                                               \
   x ^= x >> 13;                                                               \
   x *= 0x5bd1e995u + (k);                                                     \
   x ^= x << 7;

kernel void mix(global uint *out)
{
   uint x = get_global_id(0) + 1;
   ROUND(0) ROUND(1) ROUND(2) ROUND(3) ROUND(4) ROUND(5) ROUND(6) ROUND(7)
   ROUND(8) ROUND(9) ROUND(10) ROUND(11) ROUND(12) ROUND(13) ROUND(14) ROUND(15)
   ROUND(16) ROUND(17) ROUND(18) ROUND(19) ROUND(20) ROUND(21) ROUND(22) ROUND(23)
   ROUND(24) ROUND(25) ROUND(26) ROUND(27) ROUND(28) ROUND(29) ROUND(30) ROUND(31)
   ROUND(32) ROUND(33) ROUND(34) ROUND(35) ROUND(36) ROUND(37) ROUND(38) ROUND(39)
   ROUND(40) ROUND(41) ROUND(42) ROUND(43) ROUND(44) ROUND(45) ROUND(46) ROUND(47)
   ROUND(48) ROUND(49) ROUND(50) ROUND(51) ROUND(52) ROUND(53) ROUND(54) ROUND(55)
   ROUND(56) ROUND(57) ROUND(58) ROUND(59) ROUND(60) ROUND(61) ROUND(62) ROUND(63)
   if (x & 1) {
      ROUND(64) ROUND(65) ROUND(66) ROUND(67) ROUND(68) ROUND(69) ROUND(70) ROUND(71)
   }
   out[get_global_id(0)] = x;
}
