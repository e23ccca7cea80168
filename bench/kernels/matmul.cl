// Dense matrix product C = A B of n x n floats, row-major, n a multiple of
// 16. One work-item per element of C (global size n x n, x the column).

// The textbook kernel: each work-item reads a row of A and a column of B
// from global memory.
__kernel void matmul_naive(__global const float *a, __global const float *b,
                           __global float *c, int n)
{
   int col = get_global_id(0), row = get_global_id(1);
   float sum = 0.0f;
   for (int k = 0; k < n; k++)
      sum += a[row * n + k] * b[k * n + col];
   c[row * n + col] = sum;
}

// Tiled in local memory (Kirk and Hwu, "Programming Massively Parallel
// Processors", ch. 4; the CUDA/OpenCL SDK's matrixMul): a 16 x 16
// work-group loads one tile of A and one of B per step, then each
// work-item multiplies them out of local memory.
#define TILE 16
__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void matmul_tiled(__global const float *a, __global const float *b, __global float *c, int n)
{
   __local float ta[TILE][TILE], tb[TILE][TILE];
   int tx = get_local_id(0), ty = get_local_id(1);
   int col = get_global_id(0), row = get_global_id(1);
   float sum = 0.0f;
   for (int t = 0; t < n; t += TILE) {
      ta[ty][tx] = a[row * n + t + tx];
      tb[ty][tx] = b[(t + ty) * n + col];
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int k = 0; k < TILE; k++)
         sum += ta[ty][k] * tb[k][tx];
      barrier(CLK_LOCAL_MEM_FENCE);
   }
   c[row * n + col] = sum;
}
