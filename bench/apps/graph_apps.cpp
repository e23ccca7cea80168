// The five FSE'17 graph applications (Table 1: color, mis and p-sssp after
// Pannotia, bfs and l-sssp after Lonestar GPU) as cooperative kernels, each
// on two generated graphs. One GraphApplication base does everything that
// is not the algorithm: inputs, the three builds of a kernel, buffers,
// launches, timing and verification. The subclasses only say which arrays
// their kernel takes after the graph and what the sequential reference is.
//
// Every kernel in kernels/apps/ takes (uint n, row_offsets, columns,
// weights, <the application's arrays>), then, in the persistent build, the
// two words of the occupancy-bound barrier (CK_SYNC_PARAM).
//
// bfs and both sssp run from the graph's highest-degree node (the smallest
// id among equals): on R-MAT graphs that node is in the giant component
// (node 0 may be isolated), and on grids and road graphs it is a node of
// the one component.
#include "app.hpp"
#include "graph.hpp"
#include "watchdog.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace ck_apps {

namespace {

// Seed of node_random_values for color and mis.
constexpr uint64_t random_values_seed = 0x5eed'c010;

// A generated graph, made on first use and shared by the applications that
// run on it.
class GraphInput {
public:
   GraphInput(std::string name, std::function<Graph()> make)
      : name_(std::move(name)), make_(std::move(make))
   {
   }

   const std::string &name() const { return name_; }

   const Graph &graph()
   {
      std::call_once(made_, [this] {
         graph_ = make_();
         make_ = nullptr;
      });
      return graph_;
   }

private:
   std::string name_;
   std::function<Graph()> make_;
   Graph graph_;
   std::once_flag made_;
};

// One array argument of a graph kernel, after the graph's own arrays.
struct Array {
   std::vector<cl_uint> initial; // the contents each run starts from
   bool constant = false;        // the kernel only reads it: uploaded once
};

// An application's view of one graph: its kernel arguments and the answer.
struct Problem {
   std::vector<Array> arrays;      // arrays[0] holds the result at the end
   std::vector<uint32_t> expected; // the sequential reference's result
};

uint32_t highest_degree_node(const Graph &graph)
{
   uint32_t best = 0;
   for (uint32_t u = 1; u < graph.nodes; ++u)
      if (graph.row_offsets[u + 1] - graph.row_offsets[u] >
          graph.row_offsets[best + 1] - graph.row_offsets[best])
         best = u;
   return best;
}

std::vector<cl_uint> filled(size_t count, cl_uint value)
{
   return std::vector<cl_uint>(count, value);
}

// A worklist seeded with `source`: two lists of n entries, sizes {1, 0, 0}.
void add_worklist(Problem &problem, uint32_t nodes, uint32_t source)
{
   std::vector<cl_uint> lists(2 * static_cast<size_t>(nodes), 0);
   lists[0] = source;
   problem.arrays.push_back({std::move(lists)});
   problem.arrays.push_back({{1, 0, 0}});
}

// The device copy of a graph and of an application's arrays.
struct DeviceProblem {
   cl_uint nodes = 0;
   cl_host::Buffer row_offsets, columns, weights;
   std::vector<cl_host::Buffer> arrays;
};

cl_host::Buffer upload(cl_context context, const std::vector<uint32_t> &data)
{
   // A zero-sized buffer is invalid (a graph without edges): round up to a word.
   std::vector<uint32_t> copy = data;
   if (copy.empty())
      copy.push_back(0);
   return cl_host::create_buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                 copy.size() * sizeof(uint32_t), copy.data());
}

class GraphApplication : public Application {
public:
   std::string name() const override { return name_; }
   std::string input() const override { return input_->name(); }
   std::string kind() const override { return "barrier"; }

   void setup(cl_context context, cl_device_id device) override;
   RunResult run(cl_command_queue queue, const RunOptions &options) override;

protected:
   // `kernel` names both kernels/apps/<kernel>.cl and its kernel function.
   GraphApplication(std::string name, std::string kernel, std::shared_ptr<GraphInput> input,
                    const AppConfig &config)
      : name_(std::move(name)), kernel_(std::move(kernel)), input_(std::move(input)),
        config_(config)
   {
   }

   virtual Problem problem(const Graph &graph) const = 0;
   // The result array as the reference states it.
   virtual std::vector<uint32_t> decode(std::vector<uint32_t> result) const { return result; }

private:
   DeviceProblem upload_problem(cl_context context, const Graph &graph, const Problem &problem);
   void bind(cl_kernel kernel, const DeviceProblem &device);
   void reset(cl_command_queue queue);
   cl_kernel pick(const RunOptions &options) const;

   std::string name_, kernel_;
   std::shared_ptr<GraphInput> input_;
   AppConfig config_;

   cl_uint units_ = 0;
   cl_host::Program programs_[3];
   cl_host::Kernel cooperative_, without_query_, persistent_;
   Problem problem_;
   DeviceProblem device_;
   cl_host::Buffer sync_; // the occupancy-bound barrier's words (CK_SYNC_PARAM)
};

DeviceProblem GraphApplication::upload_problem(cl_context context, const Graph &graph,
                                               const Problem &problem)
{
   DeviceProblem device;
   device.nodes = graph.nodes;
   device.row_offsets = upload(context, graph.row_offsets);
   device.columns = upload(context, graph.columns);
   device.weights = upload(context, graph.weights);
   for (const Array &array : problem.arrays)
      device.arrays.push_back(upload(context, array.initial));
   return device;
}

void GraphApplication::bind(cl_kernel kernel, const DeviceProblem &device)
{
   cl_uint index = 0;
   cl_host::set_arg(kernel, index++, device.nodes);
   cl_host::set_arg(kernel, index++, device.row_offsets.get());
   cl_host::set_arg(kernel, index++, device.columns.get());
   cl_host::set_arg(kernel, index++, device.weights.get());
   for (const cl_host::Buffer &array : device.arrays)
      cl_host::set_arg(kernel, index++, array.get());
   // The occupancy-bound barrier's words: the persistent build's, and any
   // build's where the device lacks the extension (CK_SYNC_PARAM).
   if (cl_host::kernel_arg_count(kernel) > index)
      cl_host::set_arg(kernel, index++, sync_.get());
}

void GraphApplication::setup(cl_context context, cl_device_id device)
{
   units_ = cl_host::device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS);

   const std::string source = cl_host::read_file(config_.include_dir + "/cooperative_kernels.cl.h") +
                              cl_host::read_file(config_.kernels_dir + "/apps/" + kernel_ + ".cl");
   const char *prefixes[3] = {"", "#define CK_RESIZING_WITHOUT_QUERY\n", "#define CK_DEFINE_AWAY\n"};
   for (int i = 0; i < 3; ++i)
      programs_[i] = cl_host::build_or_throw(context, device, prefixes[i] + source);
   cooperative_ = cl_host::create_kernel(programs_[0], kernel_);
   without_query_ = cl_host::create_kernel(programs_[1], kernel_);
   persistent_ = cl_host::create_kernel(programs_[2], kernel_);

   const std::vector<cl_uint> zeros(2, 0);
   sync_ = cl_host::create_buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                  sizeof(cl_uint) * zeros.size(),
                                  const_cast<cl_uint *>(zeros.data()));

   const Graph &graph = input_->graph();
   problem_ = problem(graph);
   device_ = upload_problem(context, graph, problem_);
   for (cl_kernel kernel : {cooperative_.get(), without_query_.get(), persistent_.get()})
      bind(kernel, device_);
}

void GraphApplication::reset(cl_command_queue queue)
{
   for (size_t i = 0; i < problem_.arrays.size(); ++i) {
      const Array &array = problem_.arrays[i];
      if (array.constant)
         continue;
      cl_host::check(clEnqueueWriteBuffer(queue, device_.arrays[i], CL_FALSE, 0,
                                          array.initial.size() * sizeof(cl_uint),
                                          array.initial.data(), 0, nullptr, nullptr),
                     "clEnqueueWriteBuffer");
   }
   const cl_uint zeros[2] = {0, 0};
   cl_host::check(clEnqueueWriteBuffer(queue, sync_, CL_FALSE, 0, sizeof(zeros), zeros, 0,
                                       nullptr, nullptr),
                  "clEnqueueWriteBuffer");
   cl_host::check(clFinish(queue), "clFinish");
}

cl_kernel GraphApplication::pick(const RunOptions &options) const
{
   if (options.variant == Variant::persistent)
      return persistent_;
   return options.barrier == Barrier::query ? cooperative_.get() : without_query_.get();
}

RunResult GraphApplication::run(cl_command_queue queue, const RunOptions &options)
{
   if (!cooperative_)
      throw std::logic_error(name_ + " on " + input() + ": run before setup");
   const size_t groups = options.groups ? options.groups : units_;
   if (options.variant == Variant::persistent && groups > units_)
      throw std::invalid_argument(name_ + ": the persistent variant runs at most " +
                                  std::to_string(units_) + " work-groups (one per compute unit), not " +
                                  std::to_string(groups));
   if (options.local_size == 0)
      throw std::invalid_argument(name_ + ": local size 0");

   reset(queue);

   RunResult result;
   const size_t local = options.local_size, global = groups * local;
   cl_event event = nullptr;
   {
      cl_host::Watchdog watchdog(name_ + " on " + input(), std::chrono::minutes(5));
      const auto start = std::chrono::steady_clock::now();
      cl_host::check(clEnqueueNDRangeKernel(queue, pick(options), 1, nullptr, &global, &local, 0,
                                            nullptr, &event),
                     "clEnqueueNDRangeKernel");
      result.event = cl_host::Event(event);
      cl_host::check(clFinish(queue), "clFinish");
      result.seconds =
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
   }

   const std::vector<uint32_t> got =
      decode(cl_host::read_buffer<cl_uint>(queue, device_.arrays[0], problem_.expected.size()));
   result.correct = got == problem_.expected;
   if (!result.correct) {
      size_t first = got.size(), differences = 0;
      for (size_t i = 0; i < got.size(); ++i)
         if (got[i] != problem_.expected[i]) {
            first = std::min(first, i);
            ++differences;
         }
      result.mismatch = "node " + std::to_string(first) + ": got " + std::to_string(got[first]) +
                        ", expected " + std::to_string(problem_.expected[first]) + " (" +
                        std::to_string(differences) + " of " + std::to_string(got.size()) +
                        " nodes differ)";
   }
   return result;
}

// --- the applications -------------------------------------------------------

// color.cl: colour (the result), random values, three termination flags.
class Color : public GraphApplication {
public:
   Color(std::shared_ptr<GraphInput> input, const AppConfig &config)
      : GraphApplication("color", "color", std::move(input), config)
   {
   }

protected:
   Problem problem(const Graph &graph) const override
   {
      std::vector<uint32_t> random = node_random_values(graph.nodes, random_values_seed);
      Problem problem;
      problem.expected = reference_color(graph, random);
      problem.arrays.push_back({filled(graph.nodes, unreached)});
      problem.arrays.push_back({std::move(random), true});
      problem.arrays.push_back({filled(3, 0)});
      return problem;
   }
};

// mis.cl: state (the result: undecided, out, or the round the node joined
// in), random values, two termination flags.
class Mis : public GraphApplication {
public:
   Mis(std::shared_ptr<GraphInput> input, const AppConfig &config)
      : GraphApplication("mis", "mis", std::move(input), config)
   {
   }

protected:
   static constexpr cl_uint undecided = 0xffffffffu, out = 0xfffffffeu;

   Problem problem(const Graph &graph) const override
   {
      std::vector<uint32_t> random = node_random_values(graph.nodes, random_values_seed);
      Problem problem;
      problem.expected = reference_mis(graph, random);
      problem.arrays.push_back({filled(graph.nodes, undecided)});
      problem.arrays.push_back({std::move(random), true});
      problem.arrays.push_back({filled(2, 0)});
      return problem;
   }

   std::vector<uint32_t> decode(std::vector<uint32_t> state) const override
   {
      // Members hold the round they joined in; an undecided node is an error
      // and stays visible as such.
      for (uint32_t &s : state)
         s = s == out ? 0 : s == undecided ? undecided : 1;
      return state;
   }
};

// sssp_pannotia.cl: distances (the result), round stamps, three
// termination flags.
class SsspPannotia : public GraphApplication {
public:
   SsspPannotia(std::shared_ptr<GraphInput> input, const AppConfig &config)
      : GraphApplication("sssp-pannotia", "sssp_pannotia", std::move(input), config)
   {
   }

protected:
   Problem problem(const Graph &graph) const override
   {
      const uint32_t source = highest_degree_node(graph);
      Problem problem;
      problem.expected = reference_sssp(graph, source);
      problem.arrays.push_back({filled(graph.nodes, unreached)});
      problem.arrays[0].initial[source] = 0;
      problem.arrays.push_back({filled(graph.nodes, 0)});
      problem.arrays[1].initial[source] = 1;
      problem.arrays.push_back({filled(3, 0)});
      return problem;
   }
};

// bfs.cl: levels (the result), the worklists.
class Bfs : public GraphApplication {
public:
   Bfs(std::shared_ptr<GraphInput> input, const AppConfig &config)
      : GraphApplication("bfs", "bfs", std::move(input), config)
   {
   }

protected:
   Problem problem(const Graph &graph) const override
   {
      const uint32_t source = highest_degree_node(graph);
      Problem problem;
      problem.expected = reference_bfs(graph, source);
      problem.arrays.push_back({filled(graph.nodes, unreached)});
      problem.arrays[0].initial[source] = 0;
      add_worklist(problem, graph.nodes, source);
      return problem;
   }
};

// sssp_lonestar.cl: distances (the result), the worklists, the round each
// node was last pushed for.
class SsspLonestar : public GraphApplication {
public:
   SsspLonestar(std::shared_ptr<GraphInput> input, const AppConfig &config)
      : GraphApplication("sssp-lonestar", "sssp_lonestar", std::move(input), config)
   {
   }

protected:
   Problem problem(const Graph &graph) const override
   {
      const uint32_t source = highest_degree_node(graph);
      Problem problem;
      problem.expected = reference_sssp(graph, source);
      problem.arrays.push_back({filled(graph.nodes, unreached)});
      problem.arrays[0].initial[source] = 0;
      add_worklist(problem, graph.nodes, source);
      problem.arrays.push_back({filled(graph.nodes, 0)});
      return problem;
   }
};

// Which graph an application runs on, and how big, per AppConfig::scale.
// Graphs are R-MAT (edge factor 8), square grids (`size` is the side) or
// road-like (`size` is the node count). "test" inputs run in well under a
// second on llvmpipe; "bench" inputs were sized so that one cooperative run
// takes roughly 0.3-1 s on 2 compute units (LP_NUM_THREADS=2), long enough
// to span several periods of the graphics loads of Figure 6.
enum class Shape { rmat, grid, road };

struct InputSize {
   Shape shape;
   unsigned test, bench;
};

constexpr unsigned rmat_edge_factor = 8;
constexpr uint64_t rmat_seed = 1, grid_seed = 2, road_seed = 3;

std::shared_ptr<GraphInput> make_input(Shape shape, unsigned size)
{
   switch (shape) {
   case Shape::rmat:
      return std::make_shared<GraphInput>("rmat-" + std::to_string(size), [size] {
         return generate_rmat(size, rmat_edge_factor, rmat_seed);
      });
   case Shape::grid:
      return std::make_shared<GraphInput>(
         "grid-" + std::to_string(size) + "x" + std::to_string(size),
         [size] { return generate_grid(size, size, grid_seed); });
   case Shape::road:
      return std::make_shared<GraphInput>("road-" + std::to_string(size), [size] {
         return generate_road(size, road_seed);
      });
   }
   throw std::logic_error("unknown graph shape");
}

template <typename App>
void add(std::vector<std::unique_ptr<Application>> &apps,
         std::map<std::string, std::shared_ptr<GraphInput>> &inputs, const AppConfig &config,
         std::initializer_list<InputSize> sizes)
{
   for (const InputSize &size : sizes) {
      std::shared_ptr<GraphInput> input =
         make_input(size.shape, config.scale == "test" ? size.test : size.bench);
      // Applications on the same graph share it (generated once).
      input = inputs.emplace(input->name(), input).first->second;
      apps.push_back(std::make_unique<App>(std::move(input), config));
   }
}

} // namespace

std::vector<std::unique_ptr<Application>> graph_applications(const AppConfig &config)
{
   if (config.scale != "test" && config.scale != "bench")
      throw std::invalid_argument("unknown application scale '" + config.scale +
                                  "' (test, bench)");
   std::vector<std::unique_ptr<Application>> apps;
   if (!config.graph_files.empty()) {
      // Read once, on first use: a malformed file fails setup with the
      // reader's message (file, line, what is wrong).
      std::vector<std::shared_ptr<GraphInput>> files;
      for (const std::string &path : config.graph_files)
         files.push_back(std::make_shared<GraphInput>(
            path.substr(path.find_last_of('/') + 1), [path] { return read_graph(path); }));
      for (const std::shared_ptr<GraphInput> &file : files) {
         apps.push_back(std::make_unique<Color>(file, config));
         apps.push_back(std::make_unique<Mis>(file, config));
         apps.push_back(std::make_unique<SsspPannotia>(file, config));
         apps.push_back(std::make_unique<Bfs>(file, config));
         apps.push_back(std::make_unique<SsspLonestar>(file, config));
      }
      return apps;
   }
   std::map<std::string, std::shared_ptr<GraphInput>> inputs;
   add<Color>(apps, inputs, config, {{Shape::rmat, 10, 17}, {Shape::grid, 64, 1280}});
   add<Mis>(apps, inputs, config, {{Shape::rmat, 10, 21}, {Shape::grid, 64, 1792}});
   add<SsspPannotia>(apps, inputs, config, {{Shape::rmat, 10, 19}, {Shape::road, 4096, 1 << 18}});
   add<Bfs>(apps, inputs, config, {{Shape::rmat, 10, 21}, {Shape::road, 4096, 1 << 22}});
   add<SsspLonestar>(apps, inputs, config, {{Shape::rmat, 10, 19}, {Shape::road, 4096, 1 << 21}});
   return apps;
}

} // namespace ck_apps
