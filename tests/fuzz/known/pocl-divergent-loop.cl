/* PoCL 3.1 (Debian 12's pocl-opencl-icd 3.1-3+deb12u1, LLVM 15) runs the
 * loop below for the wrong work-items when it optimizes: with a local size
 * of 4 or 8, res[0] ends 0 (2 with a local size of 2) where only work-item
 * 0 runs the loop, once, so res[0] must end 1. Built with -cl-opt-disable,
 * PoCL gives 1, and so do Clover and rusticl. That is why the fuzzer's
 * reference builds with -cl-opt-disable (fuzz.py --pocl-options).
 *
 * f(0) = 77 (x becomes 1, then 77), and f(b) = 77 for b in 1..76, so
 * item % f(item) is 0 for work-item 0 only; the barrier before the loop
 * and the call (which PoCL inlines) are both needed for the bug.
 *
 * Reduced by hand from seed 60011 (generator at 6e5a9c2): every Mesa
 * configuration ended with res[11] = 0x53d5989b and PoCL with 0; the
 * loop `for (uint j0 = 0; j0 < (... item ...) & 3u; ++j0)
 * atomic_max(&res[11], ...)` ran once for item 0 only, and PoCL skipped
 * it. Reproduce:
 *
 *   OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd python3 tests/fuzz/fuzz.py \
 *      --run-file tests/fuzz/known/pocl-divergent-loop.cl 1 4 1
 *   (res[] all 0: wrong)
 *   OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd python3 tests/fuzz/fuzz.py \
 *      --run-file tests/fuzz/known/pocl-divergent-loop.cl 1 4 1 -cl-opt-disable
 *   (res[0] = 0x1: right)
 */
uint f(uint b)
{
   uint x = 0u;
   for (uint j = 0; j < 5u; ++j)
      x = (b == x) ? 1u : 77u;
   return x;
}

kernel void fuzz(global uint *res, global const uint *in, global uint *ctr, global uint *outb,
                 uint k0, uint k1)
{
   uint item = get_local_id(0);
   barrier(CLK_LOCAL_MEM_FENCE);
   for (uint j = 0; j < (item % f(item) != 0u ? 0u : 1u); ++j)
      atomic_add(&res[0], 1u);
}
