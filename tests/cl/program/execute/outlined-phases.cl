/*!
[config]
name: A kernel with work-group barriers and over 512 blocks of SIMD code: the code between its barriers is outlined (0081)
clc_version_min: 10

[test]
name: two phases of 64 loads each under divergent ifs, exchanged through local memory
kernel_name: phases
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[32] 3394122376 61925636 3788933060 2246908040 714750992 4242809348 1650146372 2356106512 532119176 3247198980 3400987076 2475541128 3867306000 2639343620 2893021764 2971553552 3073186440 699430148 3394831300 519840904 1902978064 4007740932 2990737476 1396021520 63590024 1871464196 3688934852 2050121352 728592400 2730765316 4041645636 2314144528
arg_in:  1 buffer uint[64] 12345 2654448106 1013916571 3668352332 2027820797 387289262 3041725023 1401193488 4055629249 2415097714 774566179 3429001940 1788470405 147938870 2802374631 1161843096 3816278857 2175747322 535215787 3189651548 1549120013 4203555774 2563024239 922492704 3576928465 1936396930 295865395 2950301156 1309769621 3964205382 2323673847 683142312 3337578073 1697046538 56515003 2710950764 1070419229 3724854990 2084323455 443791920 3098227681 1457696146 4112131907 2471600372 831068837 3485504598 1844973063 204441528 2858877289 1218345754 3872781515 2232249980 591718445 3246154206 1605622671 4260058432 2619526897 978995362 3633431123 1992899588 352368053 3006803814 1366272279 4020708040
!*/

/* acc = acc * 3 + in[...] where (lid + k) % 4 != 0: a quarter of the lanes
 * skip each load, so each is a load in control flow, a few blocks of SIMD
 * code (any lane active? consecutive addresses?). */
#define STEP(k) \
   if (((lid + (k)) & 3u) != 0u) \
      acc = acc * 3u + in[(gid * 5u + (k)) & 63u];
#define STEPS4(k) STEP(k) STEP((k) + 1) STEP((k) + 2) STEP((k) + 3)
#define STEPS16(k) STEPS4(k) STEPS4((k) + 4) STEPS4((k) + 8) STEPS4((k) + 12)
#define STEPS64(k) STEPS16(k) STEPS16((k) + 16) STEPS16((k) + 32) STEPS16((k) + 48)

kernel void phases(global uint *out, global const uint *in)
{
   local uint tmp[16];
   uint lid = get_local_id(0), gid = get_global_id(0), n = get_local_size(0);
   uint acc = gid;
   STEPS64(0)
   tmp[lid] = acc;
   barrier(CLK_LOCAL_MEM_FENCE);
   acc ^= tmp[(lid + 1) % n];
   STEPS64(64)
   barrier(CLK_LOCAL_MEM_FENCE);
   tmp[lid] = acc;
   barrier(CLK_LOCAL_MEM_FENCE);
   out[gid] = acc + tmp[(lid + 3) % n];
}
