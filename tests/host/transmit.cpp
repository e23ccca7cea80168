// Every transmitted type arrives whole in every work-item of every forked
// work-group: structs of several fields (mixed sizes, padding, nested
// structs, arrays and vectors inside), vectors, arrays, 64-bit scalars,
// fields at offsets that are not word-aligned, global and constant
// pointers, and a record of exactly the 248-byte limit. The fork point is in
// the kernel and, built with -DRESIZE_IN_HELPER, in a helper. Under a
// random:SEED policy (CK_POLICY) each kernel must see hundreds of forks.
//
// The source of the values (spec 10.2): every work-item of a new work-group
// gets the values of work-item 0 of the forker (request_fork) or of
// work-group 0 (resizing_global_barrier). transmit_sources and
// transmit_resize give every transmitted variable a different value in
// every work-item and work-group (float, bool, uchar, ushort, half where
// cl_khr_fp16 is supported, double where cl_khr_fp64 is, arrays of structs,
// of vectors and of global pointers, 2-, 8- and 16-component vectors, a
// struct holding a global pointer), so a copy from another work-item or
// work-group is caught; the forker and the work-groups that stay keep
// their own values.
// covers: 10.2-248-bytes 10.2-allowed-types 10.2-fork-copies-wi0 10.2-resize-copies-wg0
// covers: 10.3-never-wg0 10.4-forker-continues 10.4-start-state 10.4-workitem-functions
// covers: 10.6-survivors-intact 15-random 15-transmit-packing
#include "cl_host.hpp"
#include "watchdog.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

// Each round, every field is set from the round x and the forker's group id,
// both transmitted; a forked work-group recomputes what it must have got and
// ORs one bit per wrong field into its mismatch word.
const char *source = R"CLC(
typedef struct { uchar tag; ushort code; uint word; } mixed;
typedef struct { mixed m; float2 v; uchar bytes[5]; ulong wide; } nested;
typedef struct { uint a; uint b; uint c; } rec;

#ifdef RESIZE_IN_HELPER
void resize_point(void) { offer_kill(); request_fork(); }
#else
#define resize_point() do { offer_kill(); request_fork(); } while (0)
#endif

uint base(uint x, uint caller) { return x * 977u + caller * 131u; }

/* counts: forks seen, wrong work-items, last round; mismatch_bits: the
   fields that were wrong. */
void record_fork(uint bad, global uint *counts, global uint *mismatch_bits)
{
   if (get_local_id(0) == 0)
      atomic_inc(&counts[0]);
   if (bad) {
      atomic_inc(&counts[1]);
      atomic_or(mismatch_bits, bad);
   }
}
float small(uint v) { return (float)(v & 0xffffu); }

kernel void transmit_types(global uint *globals, constant uint *constants, uint rounds,
                           global uint *counts, global uint *mismatch_bits)
{
   transmit uint x;
   transmit char c;             /* the next fields are not word-aligned */
   transmit short h;
   transmit rec s;
   transmit nested n;
   transmit uchar3 u3;
   transmit float4 f4;
   transmit int arr[3];
   transmit ulong u64;
   transmit global uint *gp;
   transmit constant uint *cp;
   transmit uint caller;
   x = 0;
   while (x < rounds) {
      x++;
      caller = get_group_id(0);
      const uint b = base(x, caller);
      c = (char)(b + 1);
      h = (short)(b + 2);
      s.a = b + 3; s.b = b + 4; s.c = b + 5;
      n.m.tag = (uchar)(b + 6); n.m.code = (ushort)(b + 7); n.m.word = b + 8;
      n.v = (float2)(small(b + 9), small(b + 10));
      for (int i = 0; i < 5; ++i)
         n.bytes[i] = (uchar)(b + 11 + i);
      n.wide = ((ulong)(b + 16) << 32) | (b + 17);
      u3 = (uchar3)((uchar)(b + 18), (uchar)(b + 19), (uchar)(b + 20));
      f4 = (float4)(small(b + 21), small(b + 22), small(b + 23), small(b + 24));
      for (int i = 0; i < 3; ++i)
         arr[i] = (int)(b + 25 + i);
      u64 = ((ulong)(b + 28) << 32) | (b + 29);
      gp = globals + b % 64;
      cp = constants + b % 64;

      resize_point();

      if (caller != get_group_id(0)) {
         const uint e = base(x, caller);
         uint bad = 0;
         bad |= (c != (char)(e + 1)) << 0;
         bad |= (h != (short)(e + 2)) << 1;
         bad |= (s.a != e + 3 || s.b != e + 4 || s.c != e + 5) << 2;
         bad |= (n.m.tag != (uchar)(e + 6) || n.m.code != (ushort)(e + 7) ||
                 n.m.word != e + 8) << 3;
         bad |= (n.v.x != small(e + 9) || n.v.y != small(e + 10)) << 4;
         for (int i = 0; i < 5; ++i)
            bad |= (n.bytes[i] != (uchar)(e + 11 + i)) << 5;
         bad |= (n.wide != (((ulong)(e + 16) << 32) | (e + 17))) << 6;
         bad |= (u3.x != (uchar)(e + 18) || u3.y != (uchar)(e + 19) ||
                 u3.z != (uchar)(e + 20)) << 7;
         bad |= any(f4 != (float4)(small(e + 21), small(e + 22), small(e + 23),
                                   small(e + 24))) << 8;
         for (int i = 0; i < 3; ++i)
            bad |= (arr[i] != (int)(e + 25 + i)) << 9;
         bad |= (u64 != (((ulong)(e + 28) << 32) | (e + 29))) << 10;
         bad |= (gp != globals + e % 64 || *gp != 3 * (e % 64)) << 11;
         bad |= (cp != constants + e % 64 || *cp != 5 * (e % 64)) << 12;
         record_fork(bad, counts, mismatch_bits);
      }
   }
   if (get_local_id(0) == 0)
      atomic_max(&counts[2], x);
}

/* 248 bytes, the most a work-group slot holds: x@0, words@4, tail@240,
   last@243, caller@244. */
kernel void transmit_limit(uint rounds, global uint *counts, global uint *mismatch_bits)
{
   transmit uint x;
   transmit uint words[59];
   transmit uchar tail[3];
   transmit char last;
   transmit uint caller;
   x = 0;
   while (x < rounds) {
      x++;
      caller = get_group_id(0);
      const uint b = base(x, caller);
      for (int i = 0; i < 59; ++i)
         words[i] = b + i;
      for (int i = 0; i < 3; ++i)
         tail[i] = (uchar)(b + 59 + i);
      last = (char)(b + 62);

      resize_point();

      if (caller != get_group_id(0)) {
         const uint e = base(x, caller);
         uint bad = 0;
         for (int i = 0; i < 59; ++i)
            bad |= (words[i] != e + i) << 0;
         for (int i = 0; i < 3; ++i)
            bad |= (tail[i] != (uchar)(e + 59 + i)) << 1;
         bad |= (last != (char)(e + 62)) << 2;
         record_fork(bad, counts, mismatch_bits);
      }
   }
   if (get_local_id(0) == 0)
      atomic_max(&counts[2], x);
}
)CLC";

// Every transmitted variable holds a value of (round, work-group, local id):
// lane_value(x, g, lid) differs in every work-item. FIELDS_BAD(v) sets one
// bit per field that does not hold the values that FIELDS_FILL(v) wrote.
const char *sources_source = R"CLC(
#ifdef HAVE_FP16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#endif
#ifdef HAVE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
typedef struct { uint id; float w; } pair;
typedef struct { global uint *p; uint n; } holder;

uint lane_value(uint x, uint group, uint lid) { return x * 977u + group * 131u + lid * 101u; }
float exact_float(uint v) { return (float)(v & 0xffffu) + 0.5f; }

#ifdef HAVE_FP16
#define HALF_FIELD transmit half hv;
#define HALF_FILL(v) hv = (half)(float)((v) & 0x3ffu);
#define HALF_BAD(v) ((hv != (half)(float)((v) & 0x3ffu)) << 4)
#else
#define HALF_FIELD
#define HALF_FILL(v)
#define HALF_BAD(v) 0u
#endif
#ifdef HAVE_FP64
/* 40 significant bits: not a float. */
#define DOUBLE_FIELD transmit double d;
#define DOUBLE_VALUE(v) ((double)((((ulong)(v)) << 21) | 0x1ffffful))
#define DOUBLE_FILL(v) d = DOUBLE_VALUE(v);
#define DOUBLE_BAD(v) ((d != DOUBLE_VALUE(v)) << 5)
#else
#define DOUBLE_FIELD
#define DOUBLE_FILL(v)
#define DOUBLE_BAD(v) 0u
#endif

#define FIELDS                                                              \
   transmit float f;                                                        \
   transmit bool t;                                                         \
   transmit uchar uc;                                                       \
   transmit ushort us;                                                      \
   HALF_FIELD                                                               \
   DOUBLE_FIELD                                                             \
   transmit pair ps[3];                                                     \
   transmit float2 v2[2];                                                   \
   transmit int2 i2;                                                        \
   transmit short8 s8;                                                      \
   transmit uchar16 c16;                                                    \
   transmit global uint *gps[3];                                            \
   transmit holder hp;

#define FIELDS_FILL(v)                                                      \
   do {                                                                     \
      f = exact_float(v);                                                   \
      t = ((v) & 1u) != 0;                                                  \
      uc = (uchar)((v) + 1u);                                               \
      us = (ushort)((v) + 2u);                                              \
      HALF_FILL(v)                                                          \
      DOUBLE_FILL(v)                                                        \
      for (int i = 0; i < 3; ++i) {                                         \
         ps[i].id = (v) + 30u + i;                                          \
         ps[i].w = exact_float((v) + 40u + i);                              \
      }                                                                     \
      for (int i = 0; i < 2; ++i)                                           \
         v2[i] = (float2)(exact_float((v) + 50u + 2 * i),                   \
                          exact_float((v) + 51u + 2 * i));                  \
      i2 = (int2)((int)((v) + 60u), -(int)((v) + 61u));                     \
      s8 = (short8)(0, 1, 2, 3, 4, 5, 6, 7) + (short)((v) + 62u);           \
      c16 = (uchar16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) \
            + (uchar)((v) + 70u);                                           \
      for (int i = 0; i < 3; ++i)                                           \
         gps[i] = globals + ((v) + i) % 64u;                                \
      hp.p = globals + ((v) + 7u) % 64u;                                    \
      hp.n = (v) + 80u;                                                     \
   } while (0)

uint fields_bad(uint v, float f, bool t, uchar uc, ushort us, const pair *ps,
                const float2 *v2, int2 i2, short8 s8, uchar16 c16,
                global uint *const *gps, holder hp, global uint *globals)
{
   uint bad = 0;
   bad |= (f != exact_float(v)) << 0;
   bad |= (t != (((v) & 1u) != 0)) << 1;
   bad |= (uc != (uchar)(v + 1u)) << 2;
   bad |= (us != (ushort)(v + 2u)) << 3;
   for (int i = 0; i < 3; ++i)
      bad |= (ps[i].id != v + 30u + i || ps[i].w != exact_float(v + 40u + i)) << 6;
   for (int i = 0; i < 2; ++i)
      bad |= any(v2[i] != (float2)(exact_float(v + 50u + 2 * i),
                                   exact_float(v + 51u + 2 * i))) << 7;
   bad |= any(i2 != (int2)((int)(v + 60u), -(int)(v + 61u))) << 8;
   bad |= any(s8 != (short8)(0, 1, 2, 3, 4, 5, 6, 7) + (short)(v + 62u)) << 9;
   bad |= any(c16 != (uchar16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) +
                     (uchar)(v + 70u)) << 10;
   for (int i = 0; i < 3; ++i)
      bad |= (gps[i] != globals + (v + i) % 64u || *gps[i] != 3u * ((v + i) % 64u)) << 11;
   bad |= (hp.p != globals + (v + 7u) % 64u || *hp.p != 3u * ((v + 7u) % 64u) ||
           hp.n != v + 80u) << 12;
   return bad;
}

#define FIELDS_BAD(v)                                                       \
   (fields_bad((v), f, t, uc, us, ps, v2, i2, s8, c16, gps, hp, globals) |  \
    HALF_BAD(v) | DOUBLE_BAD(v))

void record_join(uint bad, global uint *counts, global uint *mismatch_bits)
{
   if (get_local_id(0) == 0)
      atomic_inc(&counts[0]);
   if (bad) {
      atomic_inc(&counts[1]);
      atomic_or(mismatch_bits, bad);
   }
}

/* request_fork: a forked work-group gets the values of work-item 0 of the
   forker; the forker keeps every work-item's own. */
kernel void transmit_sources(global uint *globals, uint rounds, global uint *counts,
                             global uint *mismatch_bits)
{
   transmit uint x;
   transmit uint caller;
   FIELDS
   x = 0;
   while (x < rounds) {
      x++;
      caller = get_group_id(0);
      {
         const uint v = lane_value(x, get_group_id(0), get_local_id(0));
         FIELDS_FILL(v);
      }
      offer_kill();
      request_fork();
      if (caller != get_group_id(0)) {
         record_join(FIELDS_BAD(lane_value(x, caller, 0)), counts, mismatch_bits);
      } else if (FIELDS_BAD(lane_value(x, get_group_id(0), get_local_id(0)))) {
         atomic_or(mismatch_bits, 1u << 14);
      }
   }
   if (get_local_id(0) == 0)
      atomic_max(&counts[2], x);
}

/* resizing_global_barrier: a work-group that joins gets the values of
   work-item 0 of work-group 0 (owner 0); those that stay keep their own. */
kernel void transmit_resize(global uint *globals, uint rounds, global uint *counts,
                            global uint *mismatch_bits)
{
   transmit uint x;
   transmit uint owner;
   FIELDS
   x = 0;
   while (x < rounds) {
      x++;
      owner = get_group_id(0) * 256u + get_local_id(0);
      {
         const uint v = lane_value(x, get_group_id(0), get_local_id(0));
         FIELDS_FILL(v);
      }
      resizing_global_barrier();
      if (owner / 256u != get_group_id(0)) {
         record_join(FIELDS_BAD(lane_value(x, 0, 0)) | (owner != 0) << 13, counts,
                     mismatch_bits);
      } else if (FIELDS_BAD(lane_value(x, get_group_id(0), get_local_id(0)))) {
         atomic_or(mismatch_bits, 1u << 14);
      }
   }
   if (get_local_id(0) == 0)
      atomic_max(&counts[2], x);
}
)CLC";

const char *const sources_fields[] = {
   "float", "bool", "uchar", "ushort", "half", "double", "pair[3] (array of structs)",
   "float2[2] (array of vectors)", "int2", "short8", "uchar16",
   "global uint *[3] (array of pointers)", "struct holding a global pointer",
   "source: not work-item 0 of work-group 0", "the forker's or a staying work-group's own values",
};

const char *const types_fields[] = {
   "char", "short", "struct of 3 uint", "nested struct (padding)", "float2 in a struct",
   "uchar array in a struct", "ulong in a struct", "uchar3", "float4", "int[3]", "ulong",
   "global pointer", "constant pointer",
};
const char *const limit_fields[] = {"uint[59]", "uchar[3]", "char at byte 243"};

struct Outcome {
   cl_uint forks = 0, wrong = 0, last_round = 0, bits = 0;
};

Outcome run(cl_context context, cl_command_queue queue, cl_program program,
            const std::string &name, cl_uint rounds, size_t groups, size_t local)
{
   cl_host::Kernel kernel = cl_host::create_kernel(program, name);
   std::vector<cl_uint> counts(3, 0), bits(1, 0);
   cl_host::Buffer counts_buffer = cl_host::create_buffer(
      context, CL_MEM_COPY_HOST_PTR, counts.size() * sizeof(cl_uint), counts.data());
   cl_host::Buffer bits_buffer =
      cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR, sizeof(cl_uint), bits.data());
   std::vector<cl_uint> globals(64), constants(64);
   for (cl_uint i = 0; i < 64; ++i) {
      globals[i] = 3 * i;
      constants[i] = 5 * i;
   }
   cl_host::Buffer globals_buffer = cl_host::create_buffer(
      context, CL_MEM_COPY_HOST_PTR, globals.size() * sizeof(cl_uint), globals.data());
   cl_host::Buffer constants_buffer =
      cl_host::create_buffer(context, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY,
                             constants.size() * sizeof(cl_uint), constants.data());
   cl_uint arg = 0;
   if (name != "transmit_limit")
      cl_host::set_arg(kernel, arg++, globals_buffer.get());
   if (name == "transmit_types")
      cl_host::set_arg(kernel, arg++, constants_buffer.get());
   cl_host::set_arg(kernel, arg++, rounds);
   cl_host::set_arg(kernel, arg++, counts_buffer.get());
   cl_host::set_arg(kernel, arg++, bits_buffer.get());
   const size_t global = groups * local;
   cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr,
                                         nullptr),
                  "clEnqueueNDRangeKernel");
   cl_host::check(clFinish(queue), "clFinish");
   counts = cl_host::read_buffer<cl_uint>(queue, counts_buffer, 3);
   bits = cl_host::read_buffer<cl_uint>(queue, bits_buffer, 1);
   return {counts[0], counts[1], counts[2], bits[0]};
}

template <size_t N>
std::string wrong_fields(cl_uint bits, const char *const (&fields)[N])
{
   std::string names;
   for (size_t i = 0; i < N; ++i)
      if (bits & (1u << i))
         names += std::string(names.empty() ? "" : ", ") + fields[i];
   return names.empty() ? "none" : names;
}

// The device, its context and queue and the programs (built once each),
// shared by the tests; as before, one watchdog spans them all.
class Transmit : public testing::Test {
protected:
   static void SetUpTestSuite()
   {
      const char *policy_env = std::getenv("CK_POLICY");
      policy = policy_env ? policy_env : "default";
      random = policy.rfind("random:", 0) == 0;
      shared = std::make_unique<Shared>();
      shared->device = cl_host::first_device();
      shared->context = cl_host::create_context(shared->device);
      shared->queue = cl_host::create_queue(shared->context, shared->device);
      shared->units = cl_host::device_uint(shared->device, CL_DEVICE_MAX_COMPUTE_UNITS);
   }
   static void TearDownTestSuite() { shared.reset(); }

   void SetUp() override { ASSERT_TRUE(shared->queue.get()) << "no OpenCL queue"; }

   static cl_program program(const char *text, const std::string &options)
   {
      cl_host::Program &built = shared->programs[{text, options}];
      if (!built.get())
         built = cl_host::build_or_throw(shared->context, shared->device, text, options);
      return built;
   }

   // transmit_types or transmit_limit, with the fork point in the kernel
   // or (-DRESIZE_IN_HELPER) in a helper.
   static void forks(const char *name, const char *options)
   {
      // Hundreds of forks per kernel under a random policy; the others fork
      // only when units come free, or never.
      const cl_uint minimum_forks = random ? 300 : 0;
      cl_program built = program(source, options);
      const std::string where = *options ? "fork point in a helper" : "fork point in the kernel";
      // 16 work-items: two SIMD chunks of llvmpipe, so every chunk's
      // copy is checked. How often a random policy forks depends on
      // timing too: launch again, each run checked, until enough.
      const cl_uint rounds = 400;
      const std::string what = std::string(name) + ", " + where;
      SCOPED_TRACE(what + ", " + policy);
      Outcome total;
      for (int run_index = 0; run_index < 8; ++run_index) {
         const Outcome outcome =
            run(shared->context, shared->queue, built, name, rounds, 4 * shared->units, 16);
         std::printf("%s, %s: %u forks, %u wrong (fields: %s), last round %u\n", what.c_str(),
                     policy.c_str(), outcome.forks, outcome.wrong,
                     name == std::string("transmit_types")
                        ? wrong_fields(outcome.bits, types_fields).c_str()
                        : wrong_fields(outcome.bits, limit_fields).c_str(),
                     outcome.last_round);
         total.forks += outcome.forks;
         total.wrong += outcome.wrong;
         total.bits |= outcome.bits;
         if (outcome.last_round != rounds)
            total.last_round = outcome.last_round;
         if (total.forks >= minimum_forks)
            break;
      }
      EXPECT_EQ(total.wrong, 0u) << "every forked work-item got every field whole";
      EXPECT_EQ(total.bits, 0u)
         << "every forked work-item got every field whole; wrong fields: "
         << (name == std::string("transmit_types") ? wrong_fields(total.bits, types_fields)
                                                   : wrong_fields(total.bits, limit_fields));
      EXPECT_EQ(total.last_round, 0u) << "every run ran all its rounds";
      EXPECT_GE(total.forks, minimum_forks) << "forks";
   }

   // The source of the values: work-item 0 of the forker (transmit_sources),
   // work-group 0 at a resizing barrier (transmit_resize). half and double
   // only where the device has them.
   static void sources(const char *name)
   {
      const std::string extensions =
         " " + cl_host::device_string(shared->device, CL_DEVICE_EXTENSIONS) + " ";
      std::string options;
      for (const char *extension : {"cl_khr_fp16", "cl_khr_fp64"}) {
         const bool supported = extensions.find(std::string(" ") + extension + " ") !=
                                std::string::npos;
         std::printf("%s: %s\n", extension,
                     supported ? "supported, transmitted" : "not supported, not transmitted");
         if (supported)
            options += std::string(options.empty() ? "" : " ") +
                       (extension == std::string("cl_khr_fp16") ? "-DHAVE_FP16" : "-DHAVE_FP64");
      }
      cl_program built = program(sources_source, options);
      const bool resize = name == std::string("transmit_resize");
      // A resizing barrier joins fewer work-groups per round than
      // request_fork forks, but every round resizes under random.
      const cl_uint minimum_joins = random ? (resize ? 100 : 300) : 0;
      const cl_uint rounds = resize ? 200 : 400;
      SCOPED_TRACE(std::string(name) + ", " + policy);
      Outcome total;
      for (int run_index = 0; run_index < 8; ++run_index) {
         const Outcome outcome =
            run(shared->context, shared->queue, built, name, rounds, 4 * shared->units, 16);
         std::printf("%s, %s: %u joined, %u wrong (fields: %s), last round %u\n", name,
                     policy.c_str(), outcome.forks, outcome.wrong,
                     wrong_fields(outcome.bits, sources_fields).c_str(), outcome.last_round);
         total.forks += outcome.forks;
         total.wrong += outcome.wrong;
         total.bits |= outcome.bits;
         if (outcome.last_round != rounds)
            total.last_round = outcome.last_round;
         if (total.forks >= minimum_joins)
            break;
      }
      const char *whole = resize ? "every work-item that joined at a resizing barrier got "
                                   "work-group 0's work-item 0's values, and those that "
                                   "stayed kept their own"
                                 : "every forked work-item got the forker's work-item 0's "
                                   "values, and the forker kept its own";
      EXPECT_EQ(total.wrong, 0u) << whole;
      EXPECT_EQ(total.bits, 0u) << whole << "; wrong fields: "
                                << wrong_fields(total.bits, sources_fields);
      EXPECT_EQ(total.last_round, 0u) << "every run ran all its rounds";
      EXPECT_GE(total.forks, minimum_joins) << "joined work-groups";
   }

   struct Shared {
      cl_device_id device = nullptr;
      cl_uint units = 0;
      cl_host::Context context;
      cl_host::Queue queue;
      std::map<std::pair<const char *, std::string>, cl_host::Program> programs;
      cl_host::Watchdog watchdog{"the transmit test", std::chrono::seconds(240)};
   };
   static std::unique_ptr<Shared> shared;
   static std::string policy;
   static bool random;
};

std::unique_ptr<Transmit::Shared> Transmit::shared;
std::string Transmit::policy;
bool Transmit::random = false;

} // namespace

TEST_F(Transmit, TypesForkPointInKernel) { forks("transmit_types", ""); }
TEST_F(Transmit, LimitForkPointInKernel) { forks("transmit_limit", ""); }
TEST_F(Transmit, TypesForkPointInHelper) { forks("transmit_types", "-DRESIZE_IN_HELPER"); }
TEST_F(Transmit, LimitForkPointInHelper) { forks("transmit_limit", "-DRESIZE_IN_HELPER"); }
TEST_F(Transmit, SourcesAtFork) { sources("transmit_sources"); }
TEST_F(Transmit, SourcesAtResizingBarrier) { sources("transmit_resize"); }
