// Kernel arguments read at offsets that differ between work-items: an array
// in a struct passed by value, indexed with the work-item's id. llvmpipe
// loaded kernel arguments only at offsets the same in every invocation and
// left any other load without a value, so each of these kernels crashed the
// process at its first launch, on both frontends, unpatched too. The same
// happened to a constant offset that a loop-closing phi turned into a
// register (the fuzzer's seed 93006).
#include "cl_host.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

const char *source = R"CLC(
struct table {
   uint u[8];
   ulong l[4];
   uchar c[8];
};

/* At the top level, where every lane of a SIMD chunk is active. */
kernel void top_level(global ulong *out, struct table t)
{
   uint g = get_global_id(0);
   out[g] = t.u[g & 7] + t.l[(g >> 1) & 3] + t.c[7 - (g & 7)];
}

/* In a loop that work-items leave at different iterations, and in branches
 * whose inactive lanes hold indices out of range. */
kernel void in_control_flow(global ulong *out, struct table t, uint n)
{
   uint g = get_global_id(0);
   ulong sum = 0;
   for (uint i = 0; i <= (g % 5); i++)
      sum += t.u[(g + i) & 7] * (ulong)t.c[i & 7];
   uint far = g % 3 == 0 ? g & 7 : 1000000;
   if (g % 3 == 1)
      sum += t.l[g & 3];
   else if (g % 3 == 0)
      sum -= t.u[far];
   if (g < n)
      out[g] = sum;
}

/* An index the same in every work-item, checked before the load: NIR may
 * flatten the check and load anyway, which must not fault. */
kernel void guarded(global ulong *out, struct table t, uint i)
{
   uint g = get_global_id(0);
   ulong v = 5;
   if (i < 8)
      v = t.u[i];
   out[g] = v + g;
}
)CLC";

struct table {
   cl_uint u[8];
   cl_ulong l[4];
   cl_uchar c[8];
};

table example_table()
{
   table t{};
   for (unsigned i = 0; i < 8; ++i) {
      t.u[i] = 1000u * (i + 1) + i;
      t.c[i] = cl_uchar(3 * i + 1);
   }
   for (unsigned i = 0; i < 4; ++i)
      t.l[i] = (cl_ulong(i + 1) << 40) + 7 * i;
   return t;
}

cl_ulong top_level_reference(const table &t, unsigned g)
{
   return t.u[g & 7] + t.l[(g >> 1) & 3] + t.c[7 - (g & 7)];
}

cl_ulong guarded_reference(const table &t, unsigned g, cl_uint i)
{
   return (i < 8 ? t.u[i] : 5) + g;
}

cl_ulong in_control_flow_reference(const table &t, unsigned g)
{
   cl_ulong sum = 0;
   for (unsigned i = 0; i <= g % 5; ++i)
      sum += cl_ulong(t.u[(g + i) & 7]) * t.c[i & 7];
   if (g % 3 == 1)
      sum += t.l[g & 3];
   else if (g % 3 == 0)
      sum -= t.u[g & 7];
   return sum;
}

class StructArguments : public testing::TestWithParam<size_t>,
                        protected cl_host::ProgramOnDevice {
protected:
   StructArguments() : ProgramOnDevice(source) {}

   // Runs `name` over 4 work-groups with out, the table and `last` (if any)
   // as its arguments, and returns out.
   std::vector<cl_ulong> run(const char *name, const cl_uint *last = nullptr)
   {
      const size_t local = GetParam(), global = 4 * local;
      cl_host::Kernel kernel = cl_host::create_kernel(program, name);
      cl_host::Buffer out =
         cl_host::create_buffer(context, CL_MEM_READ_WRITE, global * sizeof(cl_ulong));
      cl_host::set_arg(kernel, 0, out.get());
      cl_host::set_arg(kernel, 1, t);
      if (last)
         cl_host::set_arg(kernel, 2, *last);
      cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0,
                                            nullptr, nullptr),
                     "clEnqueueNDRangeKernel");
      return cl_host::read_buffer<cl_ulong>(queue, out, global);
   }

   const table t = example_table();
};

TEST_P(StructArguments, IndexedPerWorkItem)
{
   const auto got = run("top_level");
   for (unsigned g = 0; g < got.size(); ++g)
      ASSERT_EQ(got[g], top_level_reference(t, g)) << "work-item " << g;
}

TEST_P(StructArguments, IndexedPerWorkItemInControlFlow)
{
   const cl_uint n = 4 * GetParam();
   const auto got = run("in_control_flow", &n);
   for (unsigned g = 0; g < got.size(); ++g)
      ASSERT_EQ(got[g], in_control_flow_reference(t, g)) << "work-item " << g;
}

TEST_P(StructArguments, IndexCheckedBeforeTheLoad)
{
   for (const cl_uint i : {3u, 8u, 1000000u}) {
      const auto got = run("guarded", &i);
      for (unsigned g = 0; g < got.size(); ++g)
         ASSERT_EQ(got[g], guarded_reference(t, g, i)) << "index " << i << ", work-item " << g;
   }
}

// Work-groups of 16 (whole SIMD chunks) and 13 (a partial chunk, whose
// missing lanes compute indices from ids that do not exist).
INSTANTIATE_TEST_SUITE_P(LocalSizes, StructArguments, testing::Values(16, 13));

} // namespace
