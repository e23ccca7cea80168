// ck-kernels: well-known ordinary OpenCL kernels (bench/kernels/*.cl),
// timed on whatever OpenCL implementation the ICD loader finds first, each
// result checked against a sequential host reference. Launched by
// bench/bench_pocl.py (`tools/ck bench pocl`), once per kernel and
// implementation.
//
// Per kernel: the inputs are made (fixed seed, the same on every
// implementation), one untimed run compiles the kernels and warms up, then
// --runs timed runs. A run is timed on the host clock from its first
// enqueue to clFinish; its inputs are restored before, untimed. Every run,
// the warm-up included, is checked. Prints, one line each:
//    device,PLATFORM,DEVICE
//    time,KERNEL,SECONDS,CPU_SECONDS   (CPU: user + system, all threads)
//    wrong,KERNEL,WHAT                 (a wrong result or an OpenCL error: no more runs)
// and exits 1 if any kernel printed 'wrong'.
#include "cl_host.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using cl_host::check;
using cl_host::set_arg;

struct Cl {
   cl_device_id device;
   cl_host::Context context;
   cl_host::Queue queue;
   std::string dir;

   cl_host::Program build(const std::string &file) const
   {
      return cl_host::build_or_throw(context, device, cl_host::read_file(dir + "/" + file));
   }

   template <typename T>
   cl_host::Buffer buffer(const std::vector<T> &data) const
   {
      return cl_host::create_buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                    data.size() * sizeof(T), const_cast<T *>(data.data()));
   }

   template <typename T>
   cl_host::Buffer buffer(size_t count) const
   {
      return cl_host::create_buffer(context, CL_MEM_READ_WRITE, count * sizeof(T));
   }

   template <typename T>
   void write(cl_mem buffer, const std::vector<T> &data) const
   {
      check(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, data.size() * sizeof(T),
                                 data.data(), 0, nullptr, nullptr),
            "clEnqueueWriteBuffer");
   }

   void launch(cl_kernel kernel, std::vector<size_t> global, std::vector<size_t> local) const
   {
      check(clEnqueueNDRangeKernel(queue, kernel, cl_uint(global.size()), nullptr, global.data(),
                                   local.data(), 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel");
   }
};

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// "" when got equals want (within tolerance, relative to max(1, |want|)),
// else the first difference and how many differ.
template <typename T>
std::string compare(const std::vector<T> &got, const std::vector<T> &want, double tolerance = 0)
{
   size_t wrong = 0, first = 0;
   for (size_t i = 0; i < want.size(); i++) {
      double g = double(got[i]), w = double(want[i]);
      if (!(std::fabs(g - w) <= tolerance * std::max(1.0, std::fabs(w))) && wrong++ == 0)
         first = i;
   }
   if (!wrong)
      return "";
   std::ostringstream out;
   out << wrong << " of " << want.size() << " elements wrong, first [" << first << "]: got "
       << got[first] << ", expected " << want[first];
   return out.str();
}

// One benchmark: reset() restores the inputs (untimed), run() enqueues the
// timed work (the caller finishes it), verify() returns "" or what is wrong.
class Case {
public:
   virtual ~Case() = default;
   virtual void reset() {}
   virtual void run() = 0;
   virtual std::string verify() = 0;
};

std::mt19937 random_engine() { return std::mt19937(20170904); }

// Integer-valued floats in [-2, 2]: every sum of products below is exact,
// whatever the order or contraction.
std::vector<float> small_floats(size_t count, std::mt19937 &rng)
{
   std::vector<float> out(count);
   for (float &v : out)
      v = float(int(rng() % 5) - 2);
   return out;
}

class Matmul : public Case {
public:
   Matmul(const Cl &cl, const char *kernel, int n) : cl_(cl), n_(n)
   {
      auto rng = random_engine();
      std::vector<float> a = small_floats(size_t(n) * n, rng), b = small_floats(size_t(n) * n, rng);
      want_.assign(size_t(n) * n, 0.0f);
      for (int i = 0; i < n; i++)
         for (int k = 0; k < n; k++)
            for (int j = 0; j < n; j++)
               want_[size_t(i) * n + j] += a[size_t(i) * n + k] * b[size_t(k) * n + j];
      program_ = cl.build("matmul.cl");
      kernel_ = cl_host::create_kernel(program_, kernel);
      a_ = cl.buffer(a);
      b_ = cl.buffer(b);
      c_ = cl.buffer<float>(want_.size());
      set_arg(kernel_, 0, a_.get());
      set_arg(kernel_, 1, b_.get());
      set_arg(kernel_, 2, c_.get());
      set_arg(kernel_, 3, n_);
   }
   void run() override { cl_.launch(kernel_, {size_t(n_), size_t(n_)}, {16, 16}); }
   std::string verify() override
   {
      return compare(cl_host::read_buffer<float>(cl_.queue, c_, want_.size()), want_);
   }

private:
   const Cl &cl_;
   int n_;
   std::vector<float> want_;
   cl_host::Program program_;
   cl_host::Kernel kernel_;
   cl_host::Buffer a_, b_, c_;
};

class Stencil : public Case {
public:
   Stencil(const Cl &cl, int w, int h, int sweeps) : cl_(cl), w_(w), h_(h), sweeps_(sweeps)
   {
      auto rng = random_engine();
      grid_.resize(size_t(w) * h);
      for (float &v : grid_)
         v = float(rng() % 1000) / 8.0f;
      std::vector<float> in = grid_, out(grid_.size());
      for (int s = 0; s < sweeps; s++) {
         for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
               size_t i = size_t(y) * w + x;
               out[i] = x == 0 || y == 0 || x == w - 1 || y == h - 1
                           ? in[i]
                           : 0.25f * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
            }
         std::swap(in, out);
      }
      want_ = in;
      program_ = cl.build("stencil.cl");
      kernel_ = cl_host::create_kernel(program_, "jacobi");
      grids_[0] = cl.buffer<float>(grid_.size());
      grids_[1] = cl.buffer<float>(grid_.size());
      set_arg(kernel_, 2, w_);
      set_arg(kernel_, 3, h_);
   }
   void reset() override { cl_.write(grids_[0], grid_); }
   void run() override
   {
      for (int s = 0; s < sweeps_; s++) {
         set_arg(kernel_, 0, grids_[s % 2].get());
         set_arg(kernel_, 1, grids_[1 - s % 2].get());
         cl_.launch(kernel_, {size_t(w_), size_t(h_)}, {16, 16});
      }
   }
   std::string verify() override
   {
      return compare(cl_host::read_buffer<float>(cl_.queue, grids_[sweeps_ % 2], want_.size()),
                     want_, 1e-5);
   }

private:
   const Cl &cl_;
   int w_, h_, sweeps_;
   std::vector<float> grid_, want_;
   cl_host::Program program_;
   cl_host::Kernel kernel_;
   cl_host::Buffer grids_[2];
};

std::vector<cl_uint> small_uints(size_t count, cl_uint below)
{
   auto rng = random_engine();
   std::vector<cl_uint> out(count);
   for (cl_uint &v : out)
      v = rng() % below;
   return out;
}

class Reduce : public Case {
public:
   Reduce(const Cl &cl, size_t n) : cl_(cl), n_(n)
   {
      std::vector<cl_uint> data = small_uints(n, 1u << 20);
      want_ = 0;
      for (cl_uint v : data)
         want_ += v;
      program_ = cl.build("reduce.cl");
      kernel_ = cl_host::create_kernel(program_, "reduce_sum");
      data_ = cl.buffer(data);
      for (size_t count = n; count > 1; count = (count + 511) / 512)
         levels_.push_back(cl.buffer<cl_uint>((count + 511) / 512));
   }
   void run() override
   {
      cl_mem in = data_;
      cl_uint count = cl_uint(n_);
      for (const cl_host::Buffer &out : levels_) {
         set_arg(kernel_, 0, in);
         set_arg(kernel_, 1, out.get());
         set_arg(kernel_, 2, count);
         count = (count + 511) / 512;
         cl_.launch(kernel_, {size_t(count) * 256}, {256});
         in = out;
      }
   }
   std::string verify() override
   {
      cl_uint got = cl_host::read_buffer<cl_uint>(cl_.queue, levels_.back(), 1)[0];
      return got == want_ ? "" : "sum " + std::to_string(got) + ", expected " +
                                    std::to_string(want_);
   }

private:
   const Cl &cl_;
   size_t n_;
   cl_uint want_;
   cl_host::Program program_;
   cl_host::Kernel kernel_;
   cl_host::Buffer data_;
   std::vector<cl_host::Buffer> levels_;
};

class Scan : public Case {
public:
   static constexpr size_t block = 512;

   Scan(const Cl &cl, size_t n) : cl_(cl)
   {
      data_ = small_uints(n, 16);
      want_.resize(n);
      cl_uint sum = 0;
      for (size_t i = 0; i < n; i++) {
         want_[i] = sum;
         sum += data_[i];
      }
      program_ = cl.build("scan.cl");
      scan_ = cl_host::create_kernel(program_, "scan_blocks");
      add_ = cl_host::create_kernel(program_, "add_block_sums");
      // Level 0 is the data; level l+1 holds level l's block sums, padded to
      // whole blocks (the padding's results are never read).
      for (size_t count = round_up(n, block);; count = round_up(count / block, block)) {
         sizes_.push_back(count);
         levels_.push_back(cl.buffer<cl_uint>(count));
         if (count == block)
            break;
      }
      levels_.push_back(cl.buffer<cl_uint>(1));
   }
   void reset() override
   {
      std::vector<cl_uint> padded = data_;
      padded.resize(sizes_[0], 0);
      cl_.write(levels_[0], padded);
      for (size_t l = 1; l < sizes_.size(); l++)
         cl_.write(levels_[l], std::vector<cl_uint>(sizes_[l], 0));
   }
   void run() override
   {
      for (size_t l = 0; l < sizes_.size(); l++) {
         set_arg(scan_, 0, levels_[l].get());
         set_arg(scan_, 1, levels_[l + 1].get());
         cl_.launch(scan_, {sizes_[l] / 2}, {256});
      }
      for (size_t l = sizes_.size() - 1; l-- > 0;) {
         set_arg(add_, 0, levels_[l].get());
         set_arg(add_, 1, levels_[l + 1].get());
         cl_.launch(add_, {sizes_[l] / 2}, {256});
      }
   }
   std::string verify() override
   {
      return compare(cl_host::read_buffer<cl_uint>(cl_.queue, levels_[0], want_.size()), want_);
   }

private:
   const Cl &cl_;
   std::vector<cl_uint> data_, want_;
   std::vector<size_t> sizes_;
   cl_host::Program program_;
   cl_host::Kernel scan_, add_;
   std::vector<cl_host::Buffer> levels_;
};

// A random CSR structure: each row (node) has 0..2*mean_degree-1 entries
// at uniformly random columns.
struct Csr {
   std::vector<cl_uint> row_ptr, cols;
};

Csr random_csr(size_t rows, unsigned mean_degree, std::mt19937 &rng)
{
   Csr csr;
   csr.row_ptr.push_back(0);
   for (size_t r = 0; r < rows; r++) {
      unsigned degree = rng() % (2 * mean_degree);
      for (unsigned e = 0; e < degree; e++)
         csr.cols.push_back(rng() % rows);
      csr.row_ptr.push_back(cl_uint(csr.cols.size()));
   }
   return csr;
}

class Spmv : public Case {
public:
   Spmv(const Cl &cl, size_t rows, unsigned mean_degree) : cl_(cl), rows_(cl_uint(rows))
   {
      auto rng = random_engine();
      Csr a = random_csr(rows, mean_degree, rng);
      std::vector<float> vals = small_floats(a.cols.size(), rng), x = small_floats(rows, rng);
      want_.assign(rows, 0.0f);
      for (size_t r = 0; r < rows; r++)
         for (cl_uint j = a.row_ptr[r]; j < a.row_ptr[r + 1]; j++)
            want_[r] += vals[j] * x[a.cols[j]];
      program_ = cl.build("spmv.cl");
      kernel_ = cl_host::create_kernel(program_, "spmv_csr_scalar");
      row_ptr_ = cl.buffer(a.row_ptr);
      cols_ = cl.buffer(a.cols);
      vals_ = cl.buffer(vals);
      x_ = cl.buffer(x);
      y_ = cl.buffer<float>(rows);
      set_arg(kernel_, 0, rows_);
      set_arg(kernel_, 1, row_ptr_.get());
      set_arg(kernel_, 2, cols_.get());
      set_arg(kernel_, 3, vals_.get());
      set_arg(kernel_, 4, x_.get());
      set_arg(kernel_, 5, y_.get());
   }
   void run() override { cl_.launch(kernel_, {round_up(rows_, 256)}, {256}); }
   std::string verify() override
   {
      return compare(cl_host::read_buffer<float>(cl_.queue, y_, rows_), want_);
   }

private:
   const Cl &cl_;
   cl_uint rows_;
   std::vector<float> want_;
   cl_host::Program program_;
   cl_host::Kernel kernel_;
   cl_host::Buffer row_ptr_, cols_, vals_, x_, y_;
};

class Histogram : public Case {
public:
   Histogram(const Cl &cl, const char *kernel, size_t n) : cl_(cl), n_(cl_uint(n))
   {
      std::vector<cl_uint> data = small_uints(n, 256);
      want_.assign(256, 0);
      for (cl_uint v : data)
         want_[v]++;
      program_ = cl.build("histogram.cl");
      kernel_ = cl_host::create_kernel(program_, kernel);
      data_ = cl.buffer(data);
      bins_ = cl.buffer<cl_uint>(256);
      set_arg(kernel_, 0, data_.get());
      set_arg(kernel_, 1, n_);
      set_arg(kernel_, 2, bins_.get());
   }
   void reset() override { cl_.write(bins_, std::vector<cl_uint>(256, 0)); }
   void run() override { cl_.launch(kernel_, {round_up(n_, 256)}, {256}); }
   std::string verify() override
   {
      return compare(cl_host::read_buffer<cl_uint>(cl_.queue, bins_, 256), want_);
   }

private:
   const Cl &cl_;
   cl_uint n_;
   std::vector<cl_uint> want_;
   cl_host::Program program_;
   cl_host::Kernel kernel_;
   cl_host::Buffer data_, bins_;
};

class Bfs : public Case {
public:
   Bfs(const Cl &cl, size_t nodes, unsigned mean_degree) : cl_(cl), nodes_(cl_uint(nodes))
   {
      auto rng = random_engine();
      Csr g = random_csr(nodes, mean_degree, rng);
      want_.assign(nodes, CL_UINT_MAX);
      want_[0] = 0;
      std::vector<cl_uint> frontier{0}, next;
      for (cl_uint depth = 0; !frontier.empty(); depth++, frontier.swap(next)) {
         next.clear();
         for (cl_uint v : frontier)
            for (cl_uint j = g.row_ptr[v]; j < g.row_ptr[v + 1]; j++)
               if (want_[g.cols[j]] == CL_UINT_MAX) {
                  want_[g.cols[j]] = depth + 1;
                  next.push_back(g.cols[j]);
               }
      }
      program_ = cl.build("bfs.cl");
      kernel_ = cl_host::create_kernel(program_, "bfs_level");
      row_ptr_ = cl.buffer(g.row_ptr);
      cols_ = cl.buffer(g.cols);
      level_ = cl.buffer<cl_uint>(nodes);
      changed_ = cl.buffer<cl_uint>(1);
      set_arg(kernel_, 0, nodes_);
      set_arg(kernel_, 1, row_ptr_.get());
      set_arg(kernel_, 2, cols_.get());
      set_arg(kernel_, 3, level_.get());
      set_arg(kernel_, 5, changed_.get());
   }
   void reset() override
   {
      std::vector<cl_uint> level(nodes_, CL_UINT_MAX);
      level[0] = 0;
      cl_.write(level_, level);
   }
   void run() override
   {
      const cl_uint zero = 0;
      cl_uint changed = 1;
      for (cl_uint depth = 0; changed && depth < nodes_; depth++) {
         check(clEnqueueWriteBuffer(cl_.queue, changed_, CL_FALSE, 0, sizeof zero, &zero, 0,
                                    nullptr, nullptr),
               "clEnqueueWriteBuffer");
         set_arg(kernel_, 4, depth);
         cl_.launch(kernel_, {round_up(nodes_, 256)}, {256});
         check(clEnqueueReadBuffer(cl_.queue, changed_, CL_TRUE, 0, sizeof changed, &changed, 0,
                                   nullptr, nullptr),
               "clEnqueueReadBuffer");
      }
   }
   std::string verify() override
   {
      return compare(cl_host::read_buffer<cl_uint>(cl_.queue, level_, nodes_), want_);
   }

private:
   const Cl &cl_;
   cl_uint nodes_;
   std::vector<cl_uint> want_;
   cl_host::Program program_;
   cl_host::Kernel kernel_;
   cl_host::Buffer row_ptr_, cols_, level_, changed_;
};

// The kernels, with sizes that take tens of milliseconds on PoCL on 2 CPUs.
struct Entry {
   const char *name;
   std::function<std::unique_ptr<Case>(const Cl &)> make;
};

const std::vector<Entry> &entries()
{
   static const std::vector<Entry> list = {
      {"matmul-naive", [](const Cl &cl) { return std::make_unique<Matmul>(cl, "matmul_naive", 512); }},
      {"matmul-tiled", [](const Cl &cl) { return std::make_unique<Matmul>(cl, "matmul_tiled", 512); }},
      {"stencil-jacobi", [](const Cl &cl) { return std::make_unique<Stencil>(cl, 1024, 1024, 40); }},
      // Many small launches: what a launch costs beside the kernel's work.
      {"stencil-small", [](const Cl &cl) { return std::make_unique<Stencil>(cl, 64, 64, 2000); }},
      {"reduce", [](const Cl &cl) { return std::make_unique<Reduce>(cl, size_t(1) << 23); }},
      {"scan", [](const Cl &cl) { return std::make_unique<Scan>(cl, size_t(1) << 22); }},
      {"spmv-csr", [](const Cl &cl) { return std::make_unique<Spmv>(cl, size_t(1) << 21, 8); }},
      {"histogram-global", [](const Cl &cl) {
          return std::make_unique<Histogram>(cl, "histogram_global", size_t(1) << 22); }},
      {"histogram-local", [](const Cl &cl) {
          return std::make_unique<Histogram>(cl, "histogram_local", size_t(1) << 22); }},
      {"bfs", [](const Cl &cl) { return std::make_unique<Bfs>(cl, size_t(1) << 20, 4); }},
   };
   return list;
}

using Clock = std::chrono::steady_clock;

// User and system time of all the process's threads.
double cpu_seconds()
{
   rusage usage;
   getrusage(RUSAGE_SELF, &usage);
   return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
          double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// Warm-up and runs of one kernel; false after a wrong result or an error.
bool measure(const Cl &cl, const Entry &entry, int runs)
{
   try {
      std::unique_ptr<Case> c = entry.make(cl);
      for (int run = -1; run < runs; run++) {
         c->reset();
         check(clFinish(cl.queue), "clFinish");
         Clock::time_point start = Clock::now();
         double cpu_start = cpu_seconds();
         c->run();
         check(clFinish(cl.queue), "clFinish");
         double seconds = std::chrono::duration<double>(Clock::now() - start).count();
         double cpu = cpu_seconds() - cpu_start;
         std::string wrong = c->verify();
         if (!wrong.empty()) {
            std::printf("wrong,%s,%s (%s)\n", entry.name, wrong.c_str(),
                        run < 0 ? "warm-up run" : ("run " + std::to_string(run + 1)).c_str());
            return false;
         }
         if (run >= 0)
            std::printf("time,%s,%.6f,%.6f\n", entry.name, seconds, cpu);
         std::fflush(stdout);
      }
   } catch (const std::exception &e) {
      std::printf("wrong,%s,error: %s\n", entry.name, e.what());
      return false;
   }
   return true;
}

[[noreturn]] void usage(int status)
{
   std::fprintf(status ? stderr : stdout,
                "usage: ck-kernels --dir DIR [--runs N] [--only NAME,...] [--list]\n"
                "  --dir DIR     the kernels' sources (bench/kernels)\n"
                "  --runs N      timed runs per kernel after the warm-up (default 3)\n"
                "  --only LIST   only these kernels (comma-separated)\n"
                "  --list        print the kernels' names and exit\n");
   std::exit(status);
}

} // namespace

int main(int argc, char **argv)
{
   std::string dir, only;
   int runs = 3;
   for (int i = 1; i < argc; i++) {
      std::string arg = argv[i];
      auto value = [&]() -> std::string {
         if (i + 1 >= argc)
            usage(2);
         return argv[++i];
      };
      if (arg == "--dir")
         dir = value();
      else if (arg == "--runs")
         runs = std::atoi(value().c_str());
      else if (arg == "--only")
         only = value();
      else if (arg == "--list") {
         for (const Entry &entry : entries())
            std::printf("%s\n", entry.name);
         return 0;
      } else if (arg == "-h" || arg == "--help")
         usage(0);
      else
         usage(2);
   }
   if (dir.empty() || runs < 1)
      usage(2);
   std::vector<const Entry *> chosen;
   std::istringstream names(only);
   for (std::string name; std::getline(names, name, ',');) {
      auto it = std::find_if(entries().begin(), entries().end(),
                             [&](const Entry &entry) { return name == entry.name; });
      if (it == entries().end()) {
         std::fprintf(stderr, "ck-kernels: no kernel '%s' (--list names them)\n", name.c_str());
         return 2;
      }
      chosen.push_back(&*it);
   }
   if (only.empty())
      for (const Entry &entry : entries())
         chosen.push_back(&entry);

   Cl cl{cl_host::first_device(), {}, {}, dir};
   cl.context = cl_host::create_context(cl.device);
   cl.queue = cl_host::create_queue(cl.context, cl.device);
   cl_platform_id platform;
   check(clGetDeviceInfo(cl.device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr),
         "clGetDeviceInfo");
   char platform_name[256] = {};
   check(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof platform_name - 1, platform_name,
                           nullptr),
         "clGetPlatformInfo");
   std::printf("device,%s,%s\n", platform_name,
               cl_host::device_string(cl.device, CL_DEVICE_NAME).c_str());
   bool ok = true;
   for (const Entry *entry : chosen)
      ok = measure(cl, *entry, runs) && ok;
   return ok ? 0 : 1;
}
