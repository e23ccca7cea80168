#version 450
// Says it started, then waits until another dispatch (or the host) sets
// `flag`, and says it is done.
layout(local_size_x = 1) in;
layout(std430, binding = 0) coherent buffer Words {
   uint flag;
   uint started;
   uint done;
} words;

void main()
{
   atomicExchange(words.started, 1u);
   while (atomicAdd(words.flag, 0u) == 0u) {
   }
   atomicExchange(words.done, 1u);
}
