kernel void k(global uint *out, uint n)
{
   {
      transmit uint level;
      level = n;
      resizing_global_barrier();
      out[get_global_id(0)] = level;
   }
}
