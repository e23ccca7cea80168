// Graphs for the FSE'17 graph applications: compressed sparse rows, built-in
// deterministic generators, readers for the formats real graphs come in, and
// the sequential references every run is checked against.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ck_apps {

// Directed graph in CSR form. Undirected inputs store both directions.
// weights is parallel to columns (1 for unweighted inputs).
struct Graph {
   std::string name;
   uint32_t nodes = 0;
   std::vector<uint32_t> row_offsets; // nodes + 1 entries
   std::vector<uint32_t> columns;
   std::vector<uint32_t> weights;

   uint32_t edges() const { return static_cast<uint32_t>(columns.size()); }
};

// A malformed or unreadable input file; what() is "path:line: reason".
class InputError : public std::runtime_error {
public:
   using std::runtime_error::runtime_error;
};

struct Edge {
   uint32_t from, to, weight;
};

// CSR from an edge list: self-loops and duplicate edges (keeping the
// smallest weight) removed; both directions added when undirected.
Graph make_graph(std::string name, uint32_t nodes, std::vector<Edge> edges, bool undirected);

// Matrix Market coordinate format (pattern/integer/real, general/symmetric);
// entry (i, j, w) is the edge i -> j, real weights rounded to >= 1.
Graph read_matrix_market(const std::string &path);
// DIMACS shortest-path format (.gr): "p sp N M", "a u v w" lines, 1-based.
Graph read_dimacs(const std::string &path);
// Plain edge list: "u v [w]" per line, 0-based, '#' or '%' comments.
Graph read_edge_list(const std::string &path, bool undirected = true);
// By extension: .mtx, .gr, anything else as an edge list.
Graph read_graph(const std::string &path);

// R-MAT power-law graph (a=0.57, b=c=0.19): 2^scale nodes,
// edge_factor * 2^scale undirected edges, weights in [1, 255].
Graph generate_rmat(unsigned scale, unsigned edge_factor, uint64_t seed);
// width x height 4-neighbour grid, weights in [1, 255].
Graph generate_grid(unsigned width, unsigned height, uint64_t seed);
// Road-like: nodes on a jittered grid, each joined to its near neighbours
// (degree 2-4, long diameter), weights proportional to distance.
Graph generate_road(unsigned nodes, uint64_t seed);

constexpr uint32_t unreached = UINT32_MAX;

// BFS levels from source (unreached where not reachable).
std::vector<uint32_t> reference_bfs(const Graph &graph, uint32_t source);
// Shortest-path distances from source (Dijkstra; unreached where not reachable).
std::vector<uint32_t> reference_sssp(const Graph &graph, uint32_t source);
// Pannotia's colouring (max variant): in round r, every uncoloured node whose
// random value is larger than that of every uncoloured neighbour (ties broken
// by the larger node id) gets colour r.
std::vector<uint32_t> reference_color(const Graph &graph, const std::vector<uint32_t> &random);
// Pannotia's maximal independent set: in each round, every undecided node
// whose random value is smaller than that of every undecided neighbour (ties
// by the smaller id) joins the set (1) and its undecided neighbours leave it
// (0). Returns 1/0 per node.
std::vector<uint32_t> reference_mis(const Graph &graph, const std::vector<uint32_t> &random);

// Deterministic per-node random values for color and mis.
std::vector<uint32_t> node_random_values(uint32_t nodes, uint64_t seed);

} // namespace ck_apps
