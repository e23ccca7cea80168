// One Jacobi sweep of the 2-D Laplace equation on a w x h grid (5-point
// stencil): every interior point becomes the mean of its four neighbours,
// boundary points keep their values. The host ping-pongs two grids.
__kernel void jacobi(__global const float *in, __global float *out, int w, int h)
{
   int x = get_global_id(0), y = get_global_id(1);
   int i = y * w + x;
   if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
      out[i] = in[i];
   else
      out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
}
