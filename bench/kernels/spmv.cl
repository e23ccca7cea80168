// y = A x for a sparse matrix A in CSR form, one work-item per row (Bell
// and Garland, "Efficient Sparse Matrix-Vector Multiplication on CUDA",
// 2008: the scalar CSR kernel).
__kernel void spmv_csr_scalar(uint rows, __global const uint *row_ptr,
                              __global const uint *cols, __global const float *vals,
                              __global const float *x, __global float *y)
{
   uint row = get_global_id(0);
   if (row < rows) {
      float sum = 0.0f;
      for (uint j = row_ptr[row]; j < row_ptr[row + 1]; j++)
         sum += vals[j] * x[cols[j]];
      y[row] = sum;
   }
}
