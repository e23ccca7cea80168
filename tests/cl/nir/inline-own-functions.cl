// The program's own functions are inlined wherever they are called,
// whatever their size (patch 0035): llvmpipe sets driver_functions, and
// nir_inline_functions would keep 'score' (more than two blocks, 45 SSA
// values) as a call in the kernel's loop. tests/host/nir_check.sh prints
// the kernel's NIR (RUSTICL_DEBUG=nir) and checks the NIR directives.
//
// NIR-LABEL: === Printing nir variant 'Default' for 'search' after driver finalization
// NIR-NOT: decl_function score
// NIR: impl __wrapped_search {
// NIR-NOT: {{^ *}}call

static int score(global const int *board, int from)
{
   int best = 0;
   for (int i = 0; i < 7; ++i) {
      int run = 0;
      for (int j = 0; j < 4; ++j)
         run += board[(from + i * 7 + j) & 63] * (j + 1);
      best = max(best, run ^ (run >> 3));
   }
   return best;
}

kernel void search(global const int *board, global int *out)
{
   int sum = 0;
   for (int depth = 0; depth < 8; ++depth)
      sum += score(board, depth + (int)get_global_id(0));
   out[get_global_id(0)] = sum;
}
