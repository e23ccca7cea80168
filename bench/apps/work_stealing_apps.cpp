// The FSE'17 work-stealing applications, octree (kernels/apps/octree.cl) and
// game (kernels/apps/game.cl), on one built-in input each, checked exactly
// against sequential references computed once in setup.
//
// Both kernels share the task-queue layout that WorkStealingApp owns: one
// queue per work-group asked for (N, passed as `queues`, since
// get_num_groups() changes under kills and forks), each a ring of
// `capacity` uint4 tasks with a spin lock, a head (thieves take from it)
// and a tail (the owner pushes and pops there), and a counters buffer whose
// first words count outstanding tasks and lost pushes and say when the work
// is done. The first task goes into queue 0.
#include "app.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace ck_apps {
namespace {

// The counters both kernels keep (octree.cl, game.cl).
enum Counter : size_t {
   outstanding = 0, // tasks pushed and not finished
   overflows = 1,   // pushes that found their queue full
   finished = 2,    // set once no task is left
   first_app_counter = 3,
};
constexpr size_t counter_words = 8;
constexpr cl_uint queue_capacity = 1024; // tasks per queue (a power of two); LIFO pops need < 100

// splitmix64 (Steele, Lea and Flood): a fixed, portable stream for the inputs.
class SplitMix64 {
public:
   explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
   std::uint64_t next()
   {
      std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      return z ^ (z >> 31);
   }

private:
   std::uint64_t state_;
};

template <typename T>
void write_buffer(cl_command_queue queue, cl_mem buffer, const std::vector<T> &data,
                  size_t offset = 0)
{
   cl_host::check(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, offset * sizeof(T),
                                       data.size() * sizeof(T), data.data(), 0, nullptr, nullptr),
                  "clEnqueueWriteBuffer");
}

// What octree and game share: the programs of both variants, the queues,
// the counters, the launch and the timing.
class WorkStealingApp : public Application {
public:
   WorkStealingApp(const AppConfig &config, std::string name, std::string input)
       : config_(config), name_(std::move(name)), input_(std::move(input))
   {}

   std::string name() const override { return name_; }
   std::string input() const override { return input_; }
   std::string kind() const override { return "work-stealing"; }

   void setup(cl_context context, cl_device_id device) override
   {
      context_ = context;
      units_ = cl_host::device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);
      const std::string source =
         cl_host::read_file(config_.include_dir + "/cooperative_kernels.cl.h") +
         cl_host::read_file(config_.kernels_dir + "/apps/" + name_ + ".cl");
      cooperative_program_ = cl_host::build_or_throw(context, device, source);
      persistent_program_ =
         cl_host::build_or_throw(context, device, "#define CK_DEFINE_AWAY\n" + source);
      cooperative_kernel_ = cl_host::create_kernel(cooperative_program_, name_);
      persistent_kernel_ = cl_host::create_kernel(persistent_program_, name_);
      counters_ = cl_host::create_buffer(context, CL_MEM_READ_WRITE, counter_words * sizeof(cl_uint));
      sync_ = cl_host::create_buffer(context, CL_MEM_READ_WRITE, 2 * sizeof(cl_uint));
      prepare(context);
   }

   RunResult run(cl_command_queue queue, const RunOptions &options) override
   {
      if (!cooperative_kernel_)
         throw std::logic_error(name_ + ": run before setup");
      // Barrier::without_query changes nothing here: these kernels have no
      // global barriers.
      const bool persistent = options.variant == Variant::persistent;
      const cl_uint groups = options.groups ? options.groups : units_;
      if (persistent && groups > units_)
         throw std::invalid_argument(name_ + ": the persistent variant runs at most " +
                                     std::to_string(units_) +
                                     " work-groups (one per compute unit), not " +
                                     std::to_string(groups));
      cl_kernel kernel = persistent ? persistent_kernel_.get() : cooperative_kernel_.get();

      allocate_queues(groups);
      std::vector<cl_uint> zeros(groups, 0), tails(groups, 0);
      tails[0] = 1;
      write_buffer(queue, locks_, zeros);
      write_buffer(queue, heads_, zeros);
      write_buffer(queue, tails_, tails);
      write_buffer(queue, tasks_, std::vector<cl_uint4>{first_task()});
      std::vector<cl_uint> counters(counter_words, 0);
      counters[outstanding] = 1;
      reset(queue, counters);
      write_buffer(queue, counters_, counters);
      write_buffer(queue, sync_, std::vector<cl_uint>(2, 0));

      cl_host::set_arg(kernel, 0, locks_.get());
      cl_host::set_arg(kernel, 1, heads_.get());
      cl_host::set_arg(kernel, 2, tails_.get());
      cl_host::set_arg(kernel, 3, tasks_.get());
      cl_host::set_arg(kernel, 4, groups);
      cl_host::set_arg(kernel, 5, queue_capacity);
      cl_host::set_arg(kernel, 6, counters_.get());
      const cl_uint next = set_args(kernel, 7);
      // The occupancy-bound barrier's words: the persistent build's, and any
      // build's where the device lacks the extension (CK_SYNC_PARAM).
      if (cl_host::kernel_arg_count(kernel) > next)
         cl_host::set_arg(kernel, next, sync_.get());
      cl_host::check(clFinish(queue), "clFinish");

      RunResult result;
      const size_t local = options.local_size, global = groups * options.local_size;
      cl_event event = nullptr;
      const auto start = std::chrono::steady_clock::now();
      cl_host::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0,
                                            nullptr, &event),
                     ("clEnqueueNDRangeKernel(" + name_ + ")").c_str());
      result.event = cl_host::Event(event);
      cl_host::check(clWaitForEvents(1, &event), ("clWaitForEvents(" + name_ + ")").c_str());
      result.seconds =
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

      counters = cl_host::read_buffer<cl_uint>(queue, counters_, counter_words);
      if (counters[overflows] != 0)
         result.mismatch = std::to_string(counters[overflows]) + " tasks lost to full queues";
      else if (counters[outstanding] != 0)
         result.mismatch = std::to_string(counters[outstanding]) + " tasks still outstanding";
      else
         result.mismatch = verify(queue, counters);
      result.correct = result.mismatch.empty();
      return result;
   }

protected:
   // Builds the input and its reference, and the input's buffers.
   virtual void prepare(cl_context context) = 0;
   // The task that queue 0 starts with.
   virtual cl_uint4 first_task() const = 0;
   // Resets the application's buffers and its counters (from
   // first_app_counter on) for a run.
   virtual void reset(cl_command_queue queue, std::vector<cl_uint> &counters) = 0;
   // Sets the application's kernel arguments from index `first`; returns
   // the index after the last one.
   virtual cl_uint set_args(cl_kernel kernel, cl_uint first) = 0;
   // The first difference from the reference, or "" when there is none.
   virtual std::string verify(cl_command_queue queue, const std::vector<cl_uint> &counters) = 0;

   const AppConfig config_;

private:
   void allocate_queues(cl_uint groups)
   {
      if (groups == queue_groups_)
         return;
      locks_ = cl_host::create_buffer(context_, CL_MEM_READ_WRITE, groups * sizeof(cl_uint));
      heads_ = cl_host::create_buffer(context_, CL_MEM_READ_WRITE, groups * sizeof(cl_uint));
      tails_ = cl_host::create_buffer(context_, CL_MEM_READ_WRITE, groups * sizeof(cl_uint));
      tasks_ = cl_host::create_buffer(context_, CL_MEM_READ_WRITE,
                                      size_t(groups) * queue_capacity * sizeof(cl_uint4));
      queue_groups_ = groups;
   }

   std::string name_, input_;
   cl_context context_ = nullptr;
   cl_uint units_ = 0;
   cl_host::Program cooperative_program_, persistent_program_;
   cl_host::Kernel cooperative_kernel_, persistent_kernel_;
   cl_host::Buffer counters_, sync_;
   cl_uint queue_groups_ = 0;
   cl_host::Buffer locks_, heads_, tails_, tasks_;
};

// ---------------------------------------------------------------------------
// octree

// Cell codes as in octree.cl: a 1, then three bits (x | y << 1 | z << 2) per level.
unsigned cell_depth(cl_uint code)
{
   unsigned bits = 0;
   while (code >> (bits + 1))
      ++bits;
   return bits / 3;
}

float pow2_neg(unsigned e)
{
   return std::ldexp(1.0f, -int(e));
}

std::array<cl_uint, 3> cell_coordinates(cl_uint code)
{
   std::array<cl_uint, 3> xyz{0, 0, 0};
   for (unsigned level = cell_depth(code); level > 0; --level) {
      const cl_uint k = (code >> (3 * (level - 1))) & 7;
      for (int axis = 0; axis < 3; ++axis)
         xyz[axis] = xyz[axis] * 2 + ((k >> axis) & 1);
   }
   return xyz;
}

cl_uint octant(const cl_float4 &p, cl_uint code)
{
   const unsigned depth = cell_depth(code);
   const std::array<cl_uint, 3> c = cell_coordinates(code);
   const float scale = pow2_neg(depth + 1);
   cl_uint k = 0;
   for (int axis = 0; axis < 3; ++axis)
      if (p.s[axis] >= float(2 * c[axis] + 1) * scale)
         k |= 1u << axis;
   return k;
}

std::string describe_cell(cl_uint code)
{
   if (code == 0)
      return "no leaf";
   const std::array<cl_uint, 3> c = cell_coordinates(code);
   std::ostringstream out;
   out << "cell (" << c[0] << ", " << c[1] << ", " << c[2] << ") at depth " << cell_depth(code);
   return out.str();
}

class Octree : public WorkStealingApp {
public:
   Octree(const AppConfig &config, cl_uint points, cl_uint threshold)
       : WorkStealingApp(config, "octree", "uniform-" + std::to_string(points)),
         count_(points), threshold_(threshold)
   {}

protected:
   void prepare(cl_context context) override
   {
      SplitMix64 random(0x0c7a11ee5eedull);
      points_.resize(count_);
      for (cl_float4 &p : points_) {
         // 24-bit fractions: exact floats in [0, 1).
         for (int axis = 0; axis < 3; ++axis)
            p.s[axis] = float(random.next() >> 40) * pow2_neg(24);
         p.s[3] = 0;
      }
      reference_.assign(count_, 0);
      reference_leaves_ = 0;
      std::vector<cl_uint> all(count_);
      for (cl_uint i = 0; i < count_; ++i)
         all[i] = i;
      partition(1, all);

      points_buffer_ = cl_host::create_buffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                              count_ * sizeof(cl_float4), points_.data());
      idx_a_ = cl_host::create_buffer(context, CL_MEM_READ_WRITE, count_ * sizeof(cl_uint));
      idx_b_ = cl_host::create_buffer(context, CL_MEM_READ_WRITE, count_ * sizeof(cl_uint));
      leaf_of_ = cl_host::create_buffer(context, CL_MEM_READ_WRITE, count_ * sizeof(cl_uint));
   }

   cl_uint4 first_task() const override { return cl_uint4{{1, 0, count_, 0}}; }

   void reset(cl_command_queue queue, std::vector<cl_uint> &) override
   {
      std::vector<cl_uint> indices(count_);
      for (cl_uint i = 0; i < count_; ++i)
         indices[i] = i;
      write_buffer(queue, idx_a_, indices);
      write_buffer(queue, leaf_of_, std::vector<cl_uint>(count_, 0));
   }

   cl_uint set_args(cl_kernel kernel, cl_uint i) override
   {
      cl_host::set_arg(kernel, i++, points_buffer_.get());
      cl_host::set_arg(kernel, i++, idx_a_.get());
      cl_host::set_arg(kernel, i++, idx_b_.get());
      cl_host::set_arg(kernel, i++, leaf_of_.get());
      cl_host::set_arg(kernel, i++, threshold_);
      cl_host::set_arg(kernel, i++, max_depth);
      return i;
   }

   std::string verify(cl_command_queue queue, const std::vector<cl_uint> &counters) override
   {
      const std::vector<cl_uint> leaf_of = cl_host::read_buffer<cl_uint>(queue, leaf_of_, count_);
      // Every point in a valid cell that contains it.
      std::unordered_map<cl_uint, cl_uint> leaf_sizes;
      for (cl_uint i = 0; i < count_; ++i) {
         const cl_uint code = leaf_of[i];
         const unsigned depth = cell_depth(code);
         if (code == 0 || (code >> (3 * depth)) != 1 || depth > max_depth)
            return "point " + std::to_string(i) + " has no leaf (code " + std::to_string(code) +
                   ")";
         const std::array<cl_uint, 3> c = cell_coordinates(code);
         const float size = pow2_neg(depth);
         for (int axis = 0; axis < 3; ++axis) {
            const float x = points_[i].s[axis];
            if (x < float(c[axis]) * size || x >= float(c[axis] + 1) * size)
               return "point " + std::to_string(i) + " lies outside its leaf, " +
                      describe_cell(code);
         }
         ++leaf_sizes[code];
      }
      // Leaves no larger than the threshold above the maximum depth.
      for (const auto &[code, size] : leaf_sizes)
         if (size > threshold_ && cell_depth(code) < max_depth)
            return "leaf " + describe_cell(code) + " holds " + std::to_string(size) +
                   " points, above the threshold " + std::to_string(threshold_);
      // Each point in exactly one leaf: the leaves' sizes add up to the points.
      if (counters[leaf_points] != count_)
         return "the leaves hold " + std::to_string(counters[leaf_points]) + " points, not " +
                std::to_string(count_);
      // The octree is unique: the same cell for every point as the reference.
      for (cl_uint i = 0; i < count_; ++i)
         if (leaf_of[i] != reference_[i])
            return "point " + std::to_string(i) + ": " + describe_cell(leaf_of[i]) +
                   ", reference " + describe_cell(reference_[i]);
      if (counters[leaves] != reference_leaves_)
         return std::to_string(counters[leaves]) + " leaves, reference " +
                std::to_string(reference_leaves_);
      return "";
   }

private:
   static constexpr cl_uint max_depth = 10; // cell codes fit 31 bits
   enum : size_t { leaves = first_app_counter, leaf_points };

   void partition(cl_uint code, const std::vector<cl_uint> &indices)
   {
      if (indices.size() <= threshold_ || cell_depth(code) >= max_depth) {
         for (cl_uint i : indices)
            reference_[i] = code;
         ++reference_leaves_;
         return;
      }
      std::array<std::vector<cl_uint>, 8> children;
      for (cl_uint i : indices)
         children[octant(points_[i], code)].push_back(i);
      for (cl_uint k = 0; k < 8; ++k)
         if (!children[k].empty())
            partition(code * 8 + k, children[k]);
   }

   cl_uint count_, threshold_;
   std::vector<cl_float4> points_;
   std::vector<cl_uint> reference_;
   cl_uint reference_leaves_ = 0;
   cl_host::Buffer points_buffer_, idx_a_, idx_b_, leaf_of_;
};

// ---------------------------------------------------------------------------
// game: Connect Four bitboards as in game.cl

constexpr int game_width = 7, game_height = 6, game_cells = 42, game_win = 1000;

// Lines of four through each cell (row 0 at the bottom; symmetric anyway).
constexpr int cell_weight[game_height][game_width] = {
   {3, 4, 5, 7, 5, 4, 3}, {4, 6, 8, 10, 8, 6, 4}, {5, 8, 11, 13, 11, 8, 5},
   {5, 8, 11, 13, 11, 8, 5}, {4, 6, 8, 10, 8, 6, 4}, {3, 4, 5, 7, 5, 4, 3},
};

// Bit b of plane[b] is set for the cells whose weight has bit b.
cl_ulong4 weight_planes()
{
   cl_ulong4 planes{{0, 0, 0, 0}};
   for (int column = 0; column < game_width; ++column)
      for (int row = 0; row < game_height; ++row)
         for (int b = 0; b < 4; ++b)
            if (cell_weight[row][column] & (1 << b))
               planes.s[b] |= 1ull << (column * 7 + row);
   return planes;
}

bool can_play(std::uint64_t mask, int column)
{
   return !(mask & (1ull << (column * 7 + game_height - 1)));
}

void play(std::uint64_t &cur, std::uint64_t &mask, int column)
{
   cur ^= mask;
   mask |= mask + (1ull << (column * 7));
}

bool four_in_a_row(std::uint64_t stones)
{
   for (int shift : {7, 6, 8, 1}) {
      const std::uint64_t m = stones & (stones >> shift);
      if (m & (m >> (2 * shift)))
         return true;
   }
   return false;
}

int popcount(std::uint64_t x)
{
   return __builtin_popcountll(x);
}

class Game : public WorkStealingApp {
public:
   Game(const AppConfig &config, cl_uint depth, cl_uint split)
       : WorkStealingApp(config, "game", "connect4-depth" + std::to_string(depth)),
         max_depth_(depth), split_(split), planes_(weight_planes())
   {
      if (split_ + 2 > max_depth_ || max_depth_ - split_ - 2 > 16)
         throw std::invalid_argument("game: need split + 2 <= depth <= split + 18");
   }

protected:
   void prepare(cl_context context) override
   {
      reference_ = Totals{};
      reference_.root_value = negamax(0, 0, 0, reference_);
      const size_t pool = reference_.pool_nodes;
      node_cur_ = cl_host::create_buffer(context, CL_MEM_READ_WRITE, pool * sizeof(cl_ulong));
      node_mask_ = cl_host::create_buffer(context, CL_MEM_READ_WRITE, pool * sizeof(cl_ulong));
      node_parent_ = cl_host::create_buffer(context, CL_MEM_READ_WRITE, pool * sizeof(cl_uint));
      node_pending_ = cl_host::create_buffer(context, CL_MEM_READ_WRITE, pool * sizeof(cl_uint));
      node_best_ = cl_host::create_buffer(context, CL_MEM_READ_WRITE, pool * sizeof(cl_int));
   }

   cl_uint4 first_task() const override { return cl_uint4{{0, 0, 0, 0}}; }

   void reset(cl_command_queue queue, std::vector<cl_uint> &counters) override
   {
      write_buffer(queue, node_cur_, std::vector<cl_ulong>{0});
      write_buffer(queue, node_mask_, std::vector<cl_ulong>{0});
      counters[root_value] = no_value;
      counters[pool_used] = 1; // the root
   }

   cl_uint set_args(cl_kernel kernel, cl_uint i) override
   {
      cl_host::set_arg(kernel, i++, node_cur_.get());
      cl_host::set_arg(kernel, i++, node_mask_.get());
      cl_host::set_arg(kernel, i++, node_parent_.get());
      cl_host::set_arg(kernel, i++, node_pending_.get());
      cl_host::set_arg(kernel, i++, node_best_.get());
      cl_host::set_arg(kernel, i++, cl_uint(reference_.pool_nodes));
      cl_host::set_arg(kernel, i++, split_);
      cl_host::set_arg(kernel, i++, max_depth_);
      cl_host::set_arg(kernel, i++, planes_);
      return i;
   }

   std::string verify(cl_command_queue, const std::vector<cl_uint> &counters) override
   {
      if (counters[pool_overflows] != 0)
         return "the node pool overflowed";
      if (counters[pool_used] != reference_.pool_nodes)
         return std::to_string(counters[pool_used]) + " task nodes, reference " +
                std::to_string(reference_.pool_nodes);
      if (counters[leaves] != reference_.leaves)
         return std::to_string(counters[leaves]) + " leaves, reference " +
                std::to_string(reference_.leaves);
      if (counters[leaf_sum] != reference_.leaf_sum)
         return "sum of leaf values " + std::to_string(cl_int(counters[leaf_sum])) +
                ", reference " + std::to_string(cl_int(reference_.leaf_sum));
      if (counters[root_value] == no_value)
         return "the root got no value";
      if (cl_int(counters[root_value]) != reference_.root_value)
         return "root value " + std::to_string(cl_int(counters[root_value])) + ", reference " +
                std::to_string(reference_.root_value);
      return "";
   }

private:
   enum : size_t { leaves = first_app_counter, leaf_sum, root_value, pool_used, pool_overflows };
   static constexpr cl_uint no_value = 0x80000000u;

   struct Totals {
      std::uint64_t leaves = 0;
      cl_uint leaf_sum = 0;    // mod 2^32, as the kernel adds them
      cl_uint pool_nodes = 1;  // the root and every other node that becomes a task
      int root_value = 0;
   };

   int heuristic(std::uint64_t cur, std::uint64_t opp) const
   {
      int value = 0;
      for (int b = 0; b < 4; ++b)
         value += (popcount(cur & planes_.s[b]) - popcount(opp & planes_.s[b])) << b;
      return value;
   }

   // The node's negamax value, as game.cl defines it; counts leaves and task
   // nodes below it.
   int negamax(std::uint64_t cur, std::uint64_t mask, cl_uint depth, Totals &totals) const
   {
      int value;
      if (four_in_a_row(cur ^ mask))
         value = -game_win;
      else if (popcount(mask) == game_cells)
         value = 0;
      else if (depth == max_depth_)
         value = heuristic(cur, cur ^ mask);
      else {
         if (depth > 0 && depth <= split_)
            ++totals.pool_nodes;
         int best = -1000000;
         for (int column = 0; column < game_width; ++column) {
            if (!can_play(mask, column))
               continue;
            std::uint64_t c = cur, m = mask;
            play(c, m, column);
            best = std::max(best, -negamax(c, m, depth + 1, totals));
         }
         return best;
      }
      ++totals.leaves;
      totals.leaf_sum += cl_uint(value);
      return value;
   }

   cl_uint max_depth_, split_;
   cl_ulong4 planes_;
   Totals reference_;
   cl_host::Buffer node_cur_, node_mask_, node_parent_, node_pending_, node_best_;
};

} // namespace

std::vector<std::unique_ptr<Application>> work_stealing_applications(const AppConfig &config)
{
   const bool test = config.scale == "test";
   if (!test && config.scale != "bench")
      throw std::invalid_argument("unknown input scale '" + config.scale + "'");
   std::vector<std::unique_ptr<Application>> apps;
   apps.push_back(std::make_unique<Octree>(config, test ? 20000 : 2000000, 32));
   apps.push_back(std::make_unique<Game>(config, test ? 7 : 9, 3));
   return apps;
}

} // namespace ck_apps
