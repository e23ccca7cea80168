/* PoCL 3.1 (Debian 12's pocl-opencl-icd 3.1-3+deb12u1) built with
 * -cl-opt-disable, the fuzzer's reference options (pocl-divergent-loop.cl
 * says why), loses or repeats work-items when two work-groups run the work
 * loop below at once: each round hands out items 0..39 through its own
 * counter, so each res[r] must end 40 (0x28). With 2 work-groups of 4
 * items, about one launch in 100 ends with a res[r] of 0x24; with 8 items,
 * 0x20; with 2, it has ended 0x2a (an item of 40 or more counted). One
 * work-group gives 0x28 always, and so does PoCL built with optimizations,
 * and Clover and rusticl. No global barrier is involved: the other
 * work-group only has to be inside the same loop at the same time, which
 * the spin between the two barriers makes likely. Without the enclosing
 * round loop the bug does not show.
 *
 * Reduced by hand from seed 97150 (generator at 060fda4): PoCL with N = 2
 * ended with res[9] one, two or three times 0x07c01a95 short, the sum of
 * the items 32..39 of one round of its `for (tl0 ...)` loop, which no
 * work-item had processed although the round's counter had handed them
 * out; every Mesa configuration and PoCL with N = 1 agreed. The fuzzer now
 * reports such a disagreement apart (fuzz.py, "reference disagreements").
 * Reproduce:
 *
 *   OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd POCL_MAX_PTHREAD_COUNT=2 \
 *      python3 tests/fuzz/fuzz.py \
 *      --run-file tests/fuzz/known/pocl-concurrent-groups.cl 2 4 300 -cl-opt-disable
 *   (launch K differs from the first: wrong)
 *   ... the same without -cl-opt-disable, or with GROUPS 1:
 *   (300 launches, the same memory: res[0] = 0x28, res[1] = 0x28, res[2] = 0x28)
 */
kernel void fuzz(global uint *res, global const uint *in, global uint *ctr, global uint *outb,
                 uint k0, uint k1)
{
   for (uint r = 0; r < 3u; ++r) {
      for (;;) {
         uint item = atomic_inc(&ctr[r]);
         if (item >= 40u)
            break;
         atomic_inc(&res[r]);
      }
      barrier(CLK_GLOBAL_MEM_FENCE);
      for (uint j = 0; j < 1000u; ++j)
         atomic_add(&ctr[60], 0u);
      barrier(CLK_GLOBAL_MEM_FENCE);
   }
}
