kernel void k(global uint *out, uint n)
{
   for (uint i = 0; i < n; ++i)
      out[i] = i;
   transmit uint level;
   level = n;
   resizing_global_barrier();
   out[get_global_id(0)] = level;
}
