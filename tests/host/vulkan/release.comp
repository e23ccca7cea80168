#version 450
// Sets the flag that spin.comp waits for.
layout(local_size_x = 1) in;
layout(std430, binding = 0) coherent buffer Words {
   uint flag;
   uint started;
   uint done;
} words;

void main()
{
   atomicExchange(words.flag, 1u);
}
