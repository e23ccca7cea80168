// The non-cooperative "graphics" stand-in of FSE'17 section 5.2 and 5.4: a
// square matrix product c = a * b, launched as an ordinary kernel with
// exactly k work-groups. Work-group g computes rows g, g + k, g + 2k, ...;
// its work-items share each row's columns. The whole product is computed
// whatever k is, so a launch with k of the N compute units takes about N/k
// times as long as one with all of them (the host sizes n so that the latter
// takes the workload's duration: 3 ms or 10 ms).
//
// Every loop runs alike in all work-items of a work-group, and only the
// store depends on the work-item: llvmpipe reads kernel arguments such as n
// correctly only where the whole work-group runs (it warns otherwise).
kernel void matmul(global const float *a, global const float *b, global float *c, int n)
{
   const int groups = get_num_groups(0);
   const int lid = get_local_id(0);
   const int lsize = get_local_size(0);
   for (int row = get_group_id(0); row < n; row += groups) {
      global const float *a_row = a + row * n;
      for (int first = 0; first < n; first += lsize) {
         const int col = min(first + lid, n - 1);
         float sum = 0.0f;
         for (int k = 0; k < n; ++k)
            sum += a_row[k] * b[k * n + col];
         global float *out = c + row * n + col;
         if (first + lid < n)
            *out = sum;
      }
   }
}
