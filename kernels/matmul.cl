// The non-cooperative "graphics" stand-in of FSE'17 section 5.2: a square
// matrix product whose size sets how long one frame takes.
kernel void matmul(global const float *a, global const float *b, global float *c, int n)
{
   const int row = get_global_id(1);
   const int col = get_global_id(0);
   float sum = 0.0f;
   for (int k = 0; k < n; ++k)
      sum += a[row * n + k] * b[k * n + col];
   c[row * n + col] = sum;
}
