#version 450
// values[i] = i * scale + offset, over 64-item work-groups.
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Values {
   uint values[];
};
layout(push_constant) uniform Push {
   uint scale;
   uint offset;
};

void main()
{
   const uint i = gl_GlobalInvocationID.x;
   values[i] = i * scale + offset;
}
