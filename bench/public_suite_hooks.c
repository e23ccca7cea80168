/* Output hooks that bench/public_suite.py links into Rodinia's sequential
 * references (never into the timed OpenCL programs), for references that
 * print nothing to compare. Built against a Rodinia checkout's headers with
 * -Wl,--wrap=SYMBOL; the checkout's code itself stays unchanged.
 *
 * backprop (openmp/backprop, -DCK_HOOK_BACKPROP
 * -Wl,--wrap=bpnn_train_kernel): around the one training step, writes to
 * CK_REFERENCE_FILE, as floats:
 *   - the forward pass's per-block sums that the OpenCL host reads back
 *     (hidden_partial_sum): for each block b of 16 input units and hidden
 *     unit j = 1..16, sum over the block's units k of weight[k][j] * input[k]
 *     (in double, before the step), at [b * 16 + j - 1];
 *   - the input layer's weights after the step, (input_n + 1) x
 *     (hidden_n + 1), row by row (the layout of the OpenCL host's
 *     input_weights_one_dim, its last read);
 *   - their last change (input_prev_weights), in the same layout.
 *
 * kmeans (openmp/kmeans/kmeans_serial, whose centroid output is commented
 * out; -DCK_HOOK_KMEANS -Wl,--wrap=cluster): after cluster(), writes the
 * centroids to CK_REFERENCE_FILE, nclusters x attributes floats.
 */
#include <stdio.h>
#include <stdlib.h>

#ifdef CK_HOOK_BACKPROP
#include "backprop.h"

void __real_bpnn_train_kernel(BPNN *net, float *eo, float *eh);

static void put(FILE *f, const float *values, size_t n)
{
   if (fwrite(values, sizeof(float), n, f) != n) {
      perror("public_suite_hooks: CK_REFERENCE_FILE");
      exit(1);
   }
}

void __wrap_bpnn_train_kernel(BPNN *net, float *eo, float *eh)
{
   const char *path = getenv("CK_REFERENCE_FILE");
   FILE *f = path ? fopen(path, "wb") : NULL;
   if (!f || net->hidden_n != 16 || net->input_n % 16) {
      fprintf(stderr, "public_suite_hooks: needs CK_REFERENCE_FILE, 16 hidden units and "
                      "input units in blocks of 16\n");
      exit(1);
   }
   int blocks = net->input_n / 16;
   float *sums = malloc(sizeof(float) * (size_t)blocks * 16);
   if (!sums) {
      perror("public_suite_hooks");
      exit(1);
   }
   for (int b = 0; b < blocks; b++)
      for (int j = 1; j <= 16; j++) {
         double sum = 0;
         for (int k = 16 * b + 1; k <= 16 * b + 16; k++)
            sum += (double)net->input_weights[k][j] * net->input_units[k];
         sums[b * 16 + j - 1] = (float)sum;
      }
   put(f, sums, (size_t)blocks * 16);
   free(sums);
   __real_bpnn_train_kernel(net, eo, eh);
   for (int k = 0; k <= net->input_n; k++)
      put(f, net->input_weights[k], (size_t)net->hidden_n + 1);
   for (int k = 0; k <= net->input_n; k++)
      put(f, net->input_prev_weights[k], (size_t)net->hidden_n + 1);
   fclose(f);
}
#endif

#ifdef CK_HOOK_KMEANS
int __real_cluster(int objects, int attributes, float **features, int nclusters, float threshold,
                   float ***centres);

int __wrap_cluster(int objects, int attributes, float **features, int nclusters, float threshold,
                   float ***centres)
{
   int r = __real_cluster(objects, attributes, features, nclusters, threshold, centres);
   const char *path = getenv("CK_REFERENCE_FILE");
   FILE *f = path ? fopen(path, "wb") : NULL;
   if (!f || fwrite((*centres)[0], sizeof(float), (size_t)nclusters * attributes, f) !=
                (size_t)nclusters * attributes) {
      fprintf(stderr, "public_suite_hooks: cannot write CK_REFERENCE_FILE\n");
      exit(1);
   }
   fclose(f);
   return r;
}
#endif
