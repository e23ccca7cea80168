#include "graph.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <utility>

namespace ck_apps {

namespace {

// Node ids must be below 2^31: larger ones are far more likely a corrupt
// file than a real graph, and would make the CSR arrays absurdly large.
constexpr uint64_t max_nodes = uint64_t(1) << 31;

// splitmix64 (Vigna): the same stream on every machine, unlike the standard
// library's distributions.
class SplitMix64 {
public:
   explicit SplitMix64(uint64_t seed) : state_(seed) {}

   uint64_t next()
   {
      uint64_t z = (state_ += 0x9e3779b97f4a7c15);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
      z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
      return z ^ (z >> 31);
   }

   // Uniform in [0, bound); the modulo bias is negligible for the small
   // bounds used here.
   uint64_t below(uint64_t bound) { return next() % bound; }

private:
   uint64_t state_;
};

uint32_t random_weight(SplitMix64 &rng) { return uint32_t(1 + rng.below(255)); }

std::string lowercase(std::string_view text)
{
   std::string result(text);
   for (char &c : result)
      c = char(std::tolower(static_cast<unsigned char>(c)));
   return result;
}

// A token as shown in error messages: quoted, truncated, printable.
std::string quote(std::string_view token)
{
   constexpr size_t max_shown = 32;
   std::string shown(token.substr(0, max_shown));
   for (char &c : shown)
      if (!std::isprint(static_cast<unsigned char>(c)))
         c = '?';
   return "'" + shown + (token.size() > max_shown ? "...'" : "'");
}

// Reads a text file line by line, splitting each line into whitespace
// separated tokens and making errors that name the file and the line.
class LineReader {
public:
   explicit LineReader(std::string path) : path_(std::move(path))
   {
      std::error_code ignored;
      if (std::filesystem::is_directory(path_, ignored))
         throw error_at(0, "is a directory");
      in_.open(path_);
      if (!in_)
         throw error_at(0, std::string("cannot open: ") + std::strerror(errno));
   }

   // The next line that is neither blank nor a comment (a line whose first
   // token starts with one of comment_chars); false at the end of the file.
   bool next(std::string_view comment_chars)
   {
      while (std::getline(in_, text_)) {
         ++line_;
         split();
         if (!tokens_.empty() && comment_chars.find(tokens_[0][0]) == std::string_view::npos)
            return true;
      }
      if (in_.bad())
         throw error_at(0, "read error");
      tokens_.clear();
      return false;
   }

   const std::vector<std::string_view> &tokens() const { return tokens_; }
   uint64_t line() const { return line_; }

   InputError error(const std::string &reason) const { return error_at(line_, reason); }
   InputError error_at(uint64_t line, const std::string &reason) const
   {
      return InputError(path_ + (line ? ":" + std::to_string(line) : std::string()) + ": " +
                        reason);
   }

   // Exactly `count` tokens on the current line, else an error naming `what`.
   void expect_tokens(size_t count, const std::string &what) const
   {
      if (tokens_.size() != count)
         throw error("expected " + what + ", found " + std::to_string(tokens_.size()) +
                     " field(s)");
   }

   uint64_t unsigned_number(std::string_view token, const char *what) const
   {
      uint64_t value = 0;
      const auto [end, status] = std::from_chars(token.data(), token.data() + token.size(), value);
      if (status == std::errc::result_out_of_range)
         throw error("number " + quote(token) + " is out of range");
      if (status != std::errc() || end != token.data() + token.size())
         throw error(std::string("expected ") + what + ", found " + quote(token));
      return value;
   }

   // A node count declared in a header.
   uint32_t node_count(std::string_view token) const
   {
      const uint64_t count = unsigned_number(token, "a node count");
      if (count > max_nodes)
         throw error("node count " + std::to_string(count) + " is too large (at most 2^31)");
      return uint32_t(count);
   }

   // A 1-based node id in [1, nodes], returned 0-based.
   uint32_t one_based_node(std::string_view token, uint32_t nodes) const
   {
      const uint64_t id = unsigned_number(token, "a node id");
      if (id < 1 || id > nodes)
         throw error("node id " + std::to_string(id) + " is out of range 1.." +
                     std::to_string(nodes));
      return uint32_t(id - 1);
   }

   // A 0-based node id below 2^31.
   uint32_t zero_based_node(std::string_view token) const
   {
      const uint64_t id = unsigned_number(token, "a node id");
      if (id >= max_nodes)
         throw error("node id " + std::to_string(id) + " is too large (at most 2^31 - 1)");
      return uint32_t(id);
   }

   // A weight, integer or (when allow_fraction) real, rounded; values below 1
   // become 1, as the applications need positive weights.
   uint32_t weight(std::string_view token, bool allow_fraction) const
   {
      const char *first = token.data(), *last = token.data() + token.size();
      double value = 0;
      std::from_chars_result result;
      if (allow_fraction) {
         result = std::from_chars(first, last, value);
      } else {
         int64_t integer = 0;
         result = std::from_chars(first, last, integer);
         value = double(integer);
      }
      if (result.ec == std::errc::result_out_of_range)
         throw error("weight " + quote(token) + " is out of range");
      if (result.ec != std::errc() || result.ptr != last || !std::isfinite(value))
         throw error("expected a weight, found " + quote(token));
      if (value >= 4294967295.5)
         throw error("weight " + quote(token) + " is out of range");
      return uint32_t(std::max<long long>(1, std::llround(value)));
   }

private:
   void split()
   {
      constexpr std::string_view blanks = " \t\r\v\f";
      tokens_.clear();
      const std::string_view text = text_;
      size_t start = text.find_first_not_of(blanks);
      while (start != std::string_view::npos) {
         const size_t end = std::min(text.find_first_of(blanks, start), text.size());
         tokens_.push_back(text.substr(start, end - start));
         start = text.find_first_not_of(blanks, end);
      }
   }

   std::string path_;
   std::ifstream in_;
   std::string text_;
   std::vector<std::string_view> tokens_;
   uint64_t line_ = 0;
};

std::string file_name(const std::string &path)
{
   return std::filesystem::path(path).filename().string();
}

// Disjoint sets with path halving, for the spanning tree of generate_road.
class DisjointSets {
public:
   explicit DisjointSets(uint32_t count) : parent_(count)
   {
      for (uint32_t i = 0; i < count; ++i)
         parent_[i] = i;
   }

   // Joins the sets of a and b; false when they were already one.
   bool unite(uint32_t a, uint32_t b)
   {
      a = find(a);
      b = find(b);
      if (a == b)
         return false;
      parent_[a] = b;
      return true;
   }

private:
   uint32_t find(uint32_t x)
   {
      while (parent_[x] != x)
         x = parent_[x] = parent_[parent_[x]];
      return x;
   }

   std::vector<uint32_t> parent_;
};

} // namespace

Graph make_graph(std::string name, uint32_t nodes, std::vector<Edge> edges, bool undirected)
{
   uint64_t arcs = 0;
   for (const Edge &edge : edges) {
      if (edge.from >= nodes || edge.to >= nodes)
         throw std::out_of_range(name + ": edge " + std::to_string(edge.from) + " -> " +
                                 std::to_string(edge.to) + " outside " +
                                 std::to_string(nodes) + " nodes");
      if (edge.from != edge.to)
         arcs += undirected ? 2 : 1;
   }
   if (arcs > UINT32_MAX)
      throw std::length_error(name + ": more than 2^32 - 1 edges");

   // Bucket the arcs by source, then sort each row by (target, weight) so
   // that the first of each run of duplicates has the smallest weight.
   std::vector<uint32_t> offsets(size_t(nodes) + 1, 0);
   auto for_each_arc = [&](auto &&visit) {
      for (const Edge &edge : edges) {
         if (edge.from == edge.to)
            continue;
         visit(edge.from, edge.to, edge.weight);
         if (undirected)
            visit(edge.to, edge.from, edge.weight);
      }
   };
   for_each_arc([&](uint32_t from, uint32_t, uint32_t) { ++offsets[from + 1]; });
   for (uint32_t node = 0; node < nodes; ++node)
      offsets[node + 1] += offsets[node];
   std::vector<std::pair<uint32_t, uint32_t>> targets(arcs); // (to, weight)
   std::vector<uint32_t> fill(offsets.begin(), offsets.end() - 1);
   for_each_arc([&](uint32_t from, uint32_t to, uint32_t weight) {
      targets[fill[from]++] = {to, weight};
   });
   edges = {};

   Graph graph;
   graph.name = std::move(name);
   graph.nodes = nodes;
   graph.row_offsets.assign(size_t(nodes) + 1, 0);
   graph.columns.reserve(arcs);
   graph.weights.reserve(arcs);
   for (uint32_t node = 0; node < nodes; ++node) {
      const auto begin = targets.begin() + offsets[node], end = targets.begin() + offsets[node + 1];
      std::sort(begin, end);
      for (auto arc = begin; arc != end; ++arc) {
         if (arc != begin && arc->first == (arc - 1)->first)
            continue;
         graph.columns.push_back(arc->first);
         graph.weights.push_back(arc->second);
      }
      graph.row_offsets[node + 1] = uint32_t(graph.columns.size());
   }
   return graph;
}

Graph read_matrix_market(const std::string &path)
{
   LineReader in(path);
   if (!in.next(""))
      throw in.error_at(0, "empty file");
   const auto &banner = in.tokens();
   if (banner.size() != 5 || lowercase(banner[0]) != "%%matrixmarket" ||
       lowercase(banner[1]) != "matrix")
      throw in.error("expected a '%%MatrixMarket matrix <format> <field> <symmetry>' header");
   const std::string format = lowercase(banner[2]), field = lowercase(banner[3]),
                     symmetry = lowercase(banner[4]);
   if (format != "coordinate")
      throw in.error("unsupported format " + quote(format) + " (only coordinate)");
   if (field != "pattern" && field != "integer" && field != "real")
      throw in.error("unsupported field " + quote(field) + " (pattern, integer or real)");
   if (symmetry != "general" && symmetry != "symmetric")
      throw in.error("unsupported symmetry " + quote(symmetry) + " (general or symmetric)");
   const bool pattern = field == "pattern";

   if (!in.next("%"))
      throw in.error_at(0, "no size line");
   in.expect_tokens(3, "a size line 'rows columns entries'");
   const uint32_t rows = in.node_count(in.tokens()[0]);
   const uint32_t columns = in.node_count(in.tokens()[1]);
   const uint64_t declared = in.unsigned_number(in.tokens()[2], "an entry count");
   if (rows != columns)
      throw in.error("the matrix is " + std::to_string(rows) + " x " + std::to_string(columns) +
                     ", not square");
   const uint64_t size_line = in.line();

   std::vector<Edge> edges;
   while (in.next("%")) {
      if (edges.size() == declared)
         throw in.error("more entries than the " + std::to_string(declared) + " declared");
      in.expect_tokens(pattern ? 2 : 3,
                       pattern ? "an entry 'row column'" : "an entry 'row column value'");
      const auto &tokens = in.tokens();
      const uint32_t from = in.one_based_node(tokens[0], rows);
      const uint32_t to = in.one_based_node(tokens[1], columns);
      edges.push_back({from, to, pattern ? 1 : in.weight(tokens[2], field == "real")});
   }
   if (edges.size() != declared)
      throw in.error_at(size_line, "declares " + std::to_string(declared) +
                                      " entries, the file has " + std::to_string(edges.size()));
   return make_graph(file_name(path), rows, std::move(edges), symmetry == "symmetric");
}

Graph read_dimacs(const std::string &path)
{
   LineReader in(path);
   uint32_t nodes = 0;
   uint64_t declared = 0, problem_line = 0;
   std::vector<Edge> edges;
   while (in.next("")) {
      const auto &tokens = in.tokens();
      if (tokens[0] == "c")
         continue;
      if (tokens[0] == "p") {
         if (problem_line)
            throw in.error("second problem line (the first is line " +
                           std::to_string(problem_line) + ")");
         in.expect_tokens(4, "a problem line 'p sp nodes arcs'");
         if (tokens[1] != "sp")
            throw in.error("unsupported problem " + quote(tokens[1]) + " (only 'sp')");
         nodes = in.node_count(tokens[2]);
         declared = in.unsigned_number(tokens[3], "an arc count");
         problem_line = in.line();
      } else if (tokens[0] == "a") {
         if (!problem_line)
            throw in.error("arc before the problem line 'p sp nodes arcs'");
         if (edges.size() == declared)
            throw in.error("more arcs than the " + std::to_string(declared) + " declared");
         in.expect_tokens(4, "an arc 'a from to weight'");
         const uint32_t from = in.one_based_node(tokens[1], nodes);
         const uint32_t to = in.one_based_node(tokens[2], nodes);
         edges.push_back({from, to, in.weight(tokens[3], false)});
      } else {
         throw in.error("unknown line type " + quote(tokens[0]) + " (expected c, p or a)");
      }
   }
   if (!problem_line)
      throw in.error_at(0, "no problem line 'p sp nodes arcs'");
   if (edges.size() != declared)
      throw in.error_at(problem_line, "declares " + std::to_string(declared) +
                                         " arcs, the file has " + std::to_string(edges.size()));
   return make_graph(file_name(path), nodes, std::move(edges), false);
}

Graph read_edge_list(const std::string &path, bool undirected)
{
   LineReader in(path);
   uint32_t nodes = 0;
   std::vector<Edge> edges;
   while (in.next("#%")) {
      const auto &tokens = in.tokens();
      if (tokens.size() != 2 && tokens.size() != 3)
         throw in.error("expected an edge 'from to [weight]', found " +
                        std::to_string(tokens.size()) + " field(s)");
      const uint32_t from = in.zero_based_node(tokens[0]);
      const uint32_t to = in.zero_based_node(tokens[1]);
      const uint32_t weight = tokens.size() == 3 ? in.weight(tokens[2], true) : 1;
      nodes = std::max({nodes, from + 1, to + 1});
      edges.push_back({from, to, weight});
   }
   if (edges.empty())
      throw in.error_at(0, "no edges");
   return make_graph(file_name(path), nodes, std::move(edges), undirected);
}

Graph read_graph(const std::string &path)
{
   const std::string extension = lowercase(std::filesystem::path(path).extension().string());
   if (extension == ".mtx")
      return read_matrix_market(path);
   if (extension == ".gr")
      return read_dimacs(path);
   return read_edge_list(path);
}

Graph generate_rmat(unsigned scale, unsigned edge_factor, uint64_t seed)
{
   const uint64_t count = uint64_t(edge_factor) << std::min(scale, 32u);
   if (scale > 31 || 2 * count > UINT32_MAX)
      throw std::invalid_argument("rmat: scale " + std::to_string(scale) + ", edge factor " +
                                  std::to_string(edge_factor) + " is too large");
   SplitMix64 rng(seed);
   std::vector<Edge> edges(count);
   for (Edge &edge : edges) {
      // One quadrant per bit, with probabilities a, b, c, d in percent.
      uint32_t from = 0, to = 0;
      for (unsigned bit = 0; bit < scale; ++bit) {
         const uint64_t percent = rng.below(100);
         from = from << 1 | (percent >= 76);
         to = to << 1 | ((percent >= 57 && percent < 76) || percent >= 95);
      }
      edge = {from, to, random_weight(rng)};
   }
   return make_graph("rmat-" + std::to_string(scale), uint32_t(1) << scale, std::move(edges),
                     true);
}

Graph generate_grid(unsigned width, unsigned height, uint64_t seed)
{
   const uint64_t nodes = uint64_t(width) * height;
   if (nodes > max_nodes)
      throw std::invalid_argument("grid: " + std::to_string(width) + " x " +
                                  std::to_string(height) + " is too large");
   SplitMix64 rng(seed);
   std::vector<Edge> edges;
   edges.reserve(2 * nodes);
   for (uint32_t y = 0; y < height; ++y) {
      for (uint32_t x = 0; x < width; ++x) {
         const uint32_t node = y * width + x;
         if (x + 1 < width)
            edges.push_back({node, node + 1, random_weight(rng)});
         if (y + 1 < height)
            edges.push_back({node, node + width, random_weight(rng)});
      }
   }
   return make_graph("grid-" + std::to_string(width) + "x" + std::to_string(height),
                     uint32_t(nodes), std::move(edges), true);
}

Graph generate_road(unsigned nodes, uint64_t seed)
{
   if (nodes > max_nodes)
      throw std::invalid_argument("road: " + std::to_string(nodes) + " nodes is too many");
   SplitMix64 rng(seed);

   // Node i sits in cell (i % side, i / side) of a side x side grid (the last
   // row partly filled), moved by up to 0.35 cells each way; positions are in
   // thousandths of a cell.
   uint32_t side = 1;
   while (uint64_t(side) * side < nodes)
      ++side;
   std::vector<std::pair<int64_t, int64_t>> position(nodes);
   for (uint32_t node = 0; node < nodes; ++node) {
      const int64_t x = node % side * 1000 + int64_t(rng.below(701)) - 350;
      const int64_t y = node / side * 1000 + int64_t(rng.below(701)) - 350;
      position[node] = {x, y};
   }

   // Candidate roads join grid neighbours, in random order (Fisher-Yates).
   std::vector<Edge> candidates;
   for (uint32_t node = 0; node < nodes; ++node) {
      if (node % side + 1 < side && node + 1 < nodes)
         candidates.push_back({node, node + 1, 0});
      if (uint64_t(node) + side < nodes)
         candidates.push_back({node, node + side, 0});
   }
   for (size_t i = candidates.size(); i > 1; --i)
      std::swap(candidates[i - 1], candidates[rng.below(i)]);

   // A random spanning tree keeps the network connected (Kruskal); a quarter
   // of the other candidates add loops, and dead ends get a second road
   // where they can: degree 2-4, like streets.
   DisjointSets sets(nodes);
   std::vector<Edge> roads, spare;
   std::vector<uint32_t> degree(nodes, 0);
   for (const Edge &candidate : candidates) {
      if (sets.unite(candidate.from, candidate.to)) {
         roads.push_back(candidate);
         ++degree[candidate.from];
         ++degree[candidate.to];
      } else {
         spare.push_back(candidate);
      }
   }
   for (const Edge &candidate : spare) {
      if (rng.below(4) == 0 || degree[candidate.from] < 2 || degree[candidate.to] < 2) {
         roads.push_back(candidate);
         ++degree[candidate.from];
         ++degree[candidate.to];
      }
   }

   // Weight: the euclidean distance in hundredths of a cell (about 100).
   for (Edge &road : roads) {
      const int64_t dx = position[road.from].first - position[road.to].first;
      const int64_t dy = position[road.from].second - position[road.to].second;
      const double distance = std::sqrt(double(dx * dx + dy * dy)); // exact input, IEEE sqrt
      road.weight = uint32_t(std::max<long>(1, std::lround(distance / 10)));
   }
   return make_graph("road-" + std::to_string(nodes), nodes, std::move(roads), true);
}

std::vector<uint32_t> node_random_values(uint32_t nodes, uint64_t seed)
{
   SplitMix64 rng(seed);
   std::vector<uint32_t> values(nodes);
   for (uint32_t &value : values)
      value = uint32_t(rng.next() >> 32);
   return values;
}

} // namespace ck_apps
