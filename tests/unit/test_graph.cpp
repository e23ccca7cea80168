// Unit tests of the application graphs (bench/apps/graph.cpp): CSR
// construction, the file readers and their error messages, and the
// deterministic generators.

#include "graph.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <queue>
#include <random>
#include <utility>

namespace ck_apps {
namespace {

namespace fs = std::filesystem;

using Arc = std::pair<uint32_t, uint32_t>; // (target, weight)

std::vector<Arc> arcs_of(const Graph &graph, uint32_t node)
{
   std::vector<Arc> arcs;
   for (uint32_t i = graph.row_offsets[node]; i < graph.row_offsets[node + 1]; ++i)
      arcs.emplace_back(graph.columns[i], graph.weights[i]);
   return arcs;
}

uint32_t degree(const Graph &graph, uint32_t node)
{
   return graph.row_offsets[node + 1] - graph.row_offsets[node];
}

// FNV-1a over the CSR arrays.
uint64_t checksum(const Graph &graph)
{
   uint64_t hash = 0xcbf29ce484222325;
   auto add = [&](uint32_t value) {
      for (int byte = 0; byte < 4; ++byte) {
         hash ^= (value >> (8 * byte)) & 0xff;
         hash *= 0x100000001b3;
      }
   };
   add(graph.nodes);
   for (const auto *array : {&graph.row_offsets, &graph.columns, &graph.weights})
      for (uint32_t value : *array)
         add(value);
   return hash;
}

// BFS levels from source, UINT32_MAX where unreachable.
std::vector<uint32_t> bfs_levels(const Graph &graph, uint32_t source)
{
   std::vector<uint32_t> level(graph.nodes, UINT32_MAX);
   std::queue<uint32_t> frontier;
   level[source] = 0;
   frontier.push(source);
   while (!frontier.empty()) {
      const uint32_t node = frontier.front();
      frontier.pop();
      for (const auto &[target, weight] : arcs_of(graph, node))
         if (level[target] == UINT32_MAX) {
            level[target] = level[node] + 1;
            frontier.push(target);
         }
   }
   return level;
}

// Largest BFS level reached from source.
uint32_t eccentricity(const Graph &graph, uint32_t source)
{
   uint32_t result = 0;
   for (uint32_t level : bfs_levels(graph, source))
      if (level != UINT32_MAX)
         result = std::max(result, level);
   return result;
}

bool connected(const Graph &graph)
{
   const auto level = bfs_levels(graph, 0);
   return std::find(level.begin(), level.end(), UINT32_MAX) == level.end();
}

// Well-formed CSR; adjacency sorted by target without duplicates or self
// loops; weights in [min_weight, max_weight]; when undirected, every arc has
// its reverse with the same weight.
void expect_valid(const Graph &graph, bool undirected, uint32_t min_weight = 1,
                  uint32_t max_weight = UINT32_MAX)
{
   ASSERT_EQ(graph.row_offsets.size(), size_t(graph.nodes) + 1);
   ASSERT_EQ(graph.row_offsets.front(), 0u);
   ASSERT_EQ(graph.row_offsets.back(), graph.edges());
   ASSERT_EQ(graph.weights.size(), graph.columns.size());
   ASSERT_TRUE(std::is_sorted(graph.row_offsets.begin(), graph.row_offsets.end()));
   for (uint32_t node = 0; node < graph.nodes; ++node) {
      const auto arcs = arcs_of(graph, node);
      for (size_t i = 0; i < arcs.size(); ++i) {
         const auto [target, weight] = arcs[i];
         ASSERT_LT(target, graph.nodes);
         ASSERT_NE(target, node) << "self loop";
         ASSERT_TRUE(i == 0 || arcs[i - 1].first < target) << "unsorted or duplicate at " << node;
         ASSERT_GE(weight, min_weight);
         ASSERT_LE(weight, max_weight);
         if (undirected) {
            const auto back = arcs_of(graph, target);
            ASSERT_TRUE(std::binary_search(back.begin(), back.end(), Arc{node, weight}))
               << node << " -> " << target << " has no reverse";
         }
      }
   }
}

// ---------------------------------------------------------------- make_graph

TEST(MakeGraph, DropsSelfLoopsAndKeepsTheSmallestDuplicateWeight)
{
   const Graph graph =
      make_graph("g", 3, {{0, 2, 9}, {0, 0, 1}, {0, 1, 5}, {0, 2, 3}, {0, 2, 7}, {2, 1, 4}}, false);
   EXPECT_EQ(graph.name, "g");
   EXPECT_EQ(graph.nodes, 3u);
   EXPECT_EQ(graph.row_offsets, (std::vector<uint32_t>{0, 2, 2, 3}));
   EXPECT_EQ(arcs_of(graph, 0), (std::vector<Arc>{{1, 5}, {2, 3}}));
   EXPECT_EQ(arcs_of(graph, 2), (std::vector<Arc>{{1, 4}}));
   expect_valid(graph, false);
}

TEST(MakeGraph, UndirectedAddsBothDirections)
{
   // 1 -> 0 (weight 2) and 0 -> 1 (weight 6) are one undirected edge: weight 2.
   const Graph graph = make_graph("g", 4, {{3, 0, 1}, {1, 0, 2}, {0, 1, 6}, {2, 2, 1}}, true);
   EXPECT_EQ(arcs_of(graph, 0), (std::vector<Arc>{{1, 2}, {3, 1}}));
   EXPECT_EQ(arcs_of(graph, 1), (std::vector<Arc>{{0, 2}}));
   EXPECT_EQ(degree(graph, 2), 0u);
   EXPECT_EQ(arcs_of(graph, 3), (std::vector<Arc>{{0, 1}}));
   EXPECT_EQ(graph.edges(), 4u);
   expect_valid(graph, true);
}

TEST(MakeGraph, RejectsEdgesOutsideTheNodes)
{
   EXPECT_THROW(make_graph("g", 2, {{0, 2, 1}}, true), std::out_of_range);
}

// ------------------------------------------------------------------- readers

struct MalformedFile {
   const char *name;
   std::string content;
   unsigned line;      // 0: a file-level error, "path: reason"
   const char *reason; // a part of the message
};

// A temporary directory for the files a test writes, removed afterwards.
class GraphFiles : public ::testing::Test {
protected:
   void SetUp() override
   {
      std::string pattern = (fs::temp_directory_path() / "ck_graph_test.XXXXXX").string();
      ASSERT_NE(mkdtemp(pattern.data()), nullptr);
      dir_ = pattern;
   }
   void TearDown() override
   {
      std::error_code ignored;
      fs::remove_all(dir_, ignored);
   }

   std::string write(const std::string &name, const std::string &content) const
   {
      const std::string path = (dir_ / name).string();
      std::ofstream(path, std::ios::binary) << content;
      return path;
   }

   // Each file makes `read` throw an InputError "path:line: ..." that names
   // the reason.
   template <typename Read>
   void expect_errors(const std::vector<MalformedFile> &cases, Read read) const
   {
      for (const MalformedFile &malformed : cases) {
         SCOPED_TRACE(malformed.name);
         const std::string path = write(malformed.name, malformed.content);
         const std::string prefix =
            path + (malformed.line ? ":" + std::to_string(malformed.line) : std::string()) + ": ";
         try {
            read(path);
            ADD_FAILURE() << "no error";
         } catch (const InputError &error) {
            const std::string message = error.what();
            EXPECT_EQ(message.rfind(prefix, 0), 0u) << message;
            EXPECT_NE(message.find(malformed.reason), std::string::npos) << message;
         }
      }
   }

   fs::path dir_;
};

TEST_F(GraphFiles, MatrixMarketGeneralReal)
{
   const Graph graph = read_matrix_market(write("general.mtx",
                                                "%%MatrixMarket matrix coordinate real general\n"
                                                "% a comment\n"
                                                "\n"
                                                "3 3 5\n"
                                                "1 2 2.5\n"
                                                "2 1 0.2\n"
                                                "3 3 1.0\n"
                                                "3 1 1e2\n"
                                                "1 2 7\n"));
   EXPECT_EQ(graph.name, "general.mtx");
   EXPECT_EQ(graph.nodes, 3u);
   EXPECT_EQ(arcs_of(graph, 0), (std::vector<Arc>{{1, 3}})); // 2.5 rounds to 3, beats 7
   EXPECT_EQ(arcs_of(graph, 1), (std::vector<Arc>{{0, 1}})); // 0.2: at least 1
   EXPECT_EQ(arcs_of(graph, 2), (std::vector<Arc>{{0, 100}}));
   expect_valid(graph, false);
}

TEST_F(GraphFiles, MatrixMarketSymmetricPatternAndInteger)
{
   const Graph pattern = read_matrix_market(
      write("pattern.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\r\n"
                           "4 4 4\r\n"
                           "2 1\r\n"
                           "4 2\r\n"
                           "3 3\r\n"
                           "4 3\r\n"));
   EXPECT_EQ(pattern.nodes, 4u);
   EXPECT_EQ(pattern.edges(), 6u);
   EXPECT_EQ(arcs_of(pattern, 1), (std::vector<Arc>{{0, 1}, {3, 1}}));
   expect_valid(pattern, true);

   const Graph integer = read_matrix_market(write(
      "integer.mtx", "%%MatrixMarket MATRIX Coordinate INTEGER General\n2 2 2\n1 2 -4\n2 1 40\n"));
   EXPECT_EQ(arcs_of(integer, 0), (std::vector<Arc>{{1, 1}}));
   EXPECT_EQ(arcs_of(integer, 1), (std::vector<Arc>{{0, 40}}));
}

TEST_F(GraphFiles, MatrixMarketErrors)
{
   const std::string header = "%%MatrixMarket matrix coordinate integer general\n";
   expect_errors(
                 {
                    {"empty.mtx", "", 0, "empty file"},
                    {"no-header.mtx", "3 3 1\n1 2 1\n", 1, "header"},
                    {"array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1,
                     "array"},
                    {"complex.mtx", "%%MatrixMarket matrix coordinate complex general\n", 1,
                     "complex"},
                    {"skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n", 1,
                     "skew-symmetric"},
                    {"no-size.mtx", header + "% only comments\n", 0, "no size line"},
                    {"size-fields.mtx", header + "% c\n3 3\n", 3, "size line"},
                    {"size-garbage.mtx", header + "3 x3 1\n", 2, "'x3'"},
                    {"not-square.mtx", header + "3 4 1\n1 2 1\n", 2, "not square"},
                    {"huge.mtx", header + "2147483649 2147483649 0\n", 2, "too large"},
                    {"zero-index.mtx", header + "3 3 2\n1 2 1\n0 1 1\n", 4, "out of range"},
                    {"big-index.mtx", header + "3 3 2\n1 2 1\n1 4 1\n", 4, "out of range"},
                    {"garbage-index.mtx", header + "3 3 1\n1 2x 1\n", 3, "'2x'"},
                    {"garbage-weight.mtx", header + "3 3 1\n1 2 one\n", 3, "'one'"},
                    {"real-in-integer.mtx", header + "3 3 1\n1 2 1.5\n", 3, "'1.5'"},
                    {"nan-weight.mtx",
                     "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 nan\n", 3, "'nan'"},
                    {"huge-weight.mtx", header + "3 3 1\n1 2 4294967296\n", 3, "out of range"},
                    {"missing-weight.mtx", header + "3 3 1\n1 2\n", 3, "found 2 field(s)"},
                    {"too-few.mtx", header + "% c\n3 3 3\n1 2 1\n2 3 1\n", 3,
                     "declares 3 entries, the file has 2"},
                    {"too-many.mtx", header + "3 3 1\n1 2 1\n\n2 3 1\n", 5, "more entries"},
                 },
                 read_matrix_market);
}

TEST_F(GraphFiles, Dimacs)
{
   const Graph graph = read_dimacs(write("road.gr", "c a comment\n"
                                                    "p sp 4 5\n"
                                                    "c another\n"
                                                    "a 1 2 7\n"
                                                    "a 2 1 7\n"
                                                    "a 1 4 3\n"
                                                    "a 4 4 9\n"
                                                    "\n"
                                                    "a 3 2 0\n"));
   EXPECT_EQ(graph.name, "road.gr");
   EXPECT_EQ(graph.nodes, 4u);
   EXPECT_EQ(arcs_of(graph, 0), (std::vector<Arc>{{1, 7}, {3, 3}}));
   EXPECT_EQ(arcs_of(graph, 1), (std::vector<Arc>{{0, 7}}));
   EXPECT_EQ(arcs_of(graph, 2), (std::vector<Arc>{{1, 1}})); // weight 0: at least 1
   EXPECT_EQ(degree(graph, 3), 0u); // directed: 1 -> 4 only; self loop dropped
   expect_valid(graph, false);
}

TEST_F(GraphFiles, DimacsErrors)
{
   expect_errors(
                 {
                    {"empty.gr", "c nothing\n", 0, "no problem line"},
                    {"arc-first.gr", "a 1 2 3\np sp 2 1\n", 1, "before the problem line"},
                    {"two-problems.gr", "p sp 2 1\np sp 2 1\n", 2, "second problem line"},
                    {"not-sp.gr", "p max 2 1\n", 1, "'max'"},
                    {"problem-fields.gr", "p sp 2\n", 1, "problem line"},
                    {"huge.gr", "p sp 4294967296 0\n", 1, "too large"},
                    {"unknown.gr", "p sp 2 1\nx 1 2 3\n", 2, "unknown line type 'x'"},
                    {"arc-fields.gr", "p sp 2 1\na 1 2\n", 2, "arc"},
                    {"zero-node.gr", "p sp 2 1\na 0 2 3\n", 2, "out of range"},
                    {"big-node.gr", "p sp 2 1\na 1 3 3\n", 2, "out of range"},
                    {"garbage-node.gr", "p sp 2 1\na 1 two 3\n", 2, "'two'"},
                    {"real-weight.gr", "p sp 2 1\na 1 2 3.5\n", 2, "'3.5'"},
                    {"too-few.gr", "c\np sp 3 2\na 1 2 3\n", 2, "declares 2 arcs, the file has 1"},
                    {"too-many.gr", "p sp 3 1\na 1 2 3\na 2 3 3\n", 3, "more arcs"},
                 },
                 read_dimacs);
}

TEST_F(GraphFiles, EdgeList)
{
   const std::string path = write("edges.txt", "# SNAP style\n"
                                               "% KONECT style\n"
                                               "0 1\n"
                                               "1\t2 8\n"
                                               "  4 0 2.6\n"
                                               "2 2\n"
                                               "1 0 5\n");
   const Graph graph = read_edge_list(path);
   EXPECT_EQ(graph.name, "edges.txt");
   EXPECT_EQ(graph.nodes, 5u); // largest id + 1
   EXPECT_EQ(arcs_of(graph, 0), (std::vector<Arc>{{1, 1}, {4, 3}}));
   EXPECT_EQ(arcs_of(graph, 1), (std::vector<Arc>{{0, 1}, {2, 8}}));
   EXPECT_EQ(degree(graph, 3), 0u);
   expect_valid(graph, true);

   const Graph directed = read_edge_list(path, false);
   EXPECT_EQ(arcs_of(directed, 0), (std::vector<Arc>{{1, 1}}));
   EXPECT_EQ(arcs_of(directed, 1), (std::vector<Arc>{{0, 5}, {2, 8}}));
   EXPECT_EQ(arcs_of(directed, 4), (std::vector<Arc>{{0, 3}}));
}

TEST_F(GraphFiles, EdgeListErrors)
{
   expect_errors(
                 {
                    {"empty.txt", "# no edges\n\n", 0, "no edges"},
                    {"one-field.txt", "0 1\n3\n", 2, "found 1 field(s)"},
                    {"four-fields.txt", "0 1 2 3\n", 1, "found 4 field(s)"},
                    {"negative.txt", "0 -1\n", 1, "'-1'"},
                    {"garbage.txt", "0 1\n\n1 2 heavy\n", 3, "'heavy'"},
                    {"binary.txt", "0 1\n\x01\x02 3\n", 2, "'?\?'"},
                    {"huge-id.txt", "0 1\n2147483648 0\n", 2, "too large"},
                    {"overflow-id.txt", "18446744073709551616 0\n", 1, "out of range"},
                 },
                 [](const std::string &path) { return read_edge_list(path); });
}

TEST_F(GraphFiles, MissingFileOrDirectory)
{
   const std::string missing = (dir_ / "missing.mtx").string();
   for (auto read : {read_matrix_market, read_dimacs, read_graph}) {
      try {
         read(missing);
         ADD_FAILURE() << "no error";
      } catch (const InputError &error) {
         EXPECT_EQ(std::string(error.what()).rfind(missing + ": cannot open", 0), 0u)
            << error.what();
      }
   }
   try {
      read_edge_list(dir_.string());
      ADD_FAILURE() << "no error";
   } catch (const InputError &error) {
      EXPECT_EQ(std::string(error.what()), dir_.string() + ": is a directory");
   }
}

TEST_F(GraphFiles, ReadGraphChoosesTheReaderByExtension)
{
   const std::string mtx = "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n";
   EXPECT_EQ(read_graph(write("a.mtx", mtx)).edges(), 1u);
   EXPECT_EQ(read_graph(write("a.MTX", mtx)).edges(), 1u);
   EXPECT_EQ(read_graph(write("a.gr", "p sp 2 1\na 1 2 5\n")).edges(), 1u);
   EXPECT_EQ(read_graph(write("a.edges", "0 1 5\n")).edges(), 2u); // undirected
   EXPECT_THROW(read_graph(write("b.gr", "0 1 5\n")), InputError);
}

// Random byte edits of valid files are read or rejected with an InputError,
// never anything else.
TEST_F(GraphFiles, MutatedFilesAreReadOrRejected)
{
   const std::vector<std::pair<std::string, std::string>> valid = {
      {"m.mtx", "%%MatrixMarket matrix coordinate real symmetric\n% c\n4 4 3\n2 1 1.5\n3 2 "
                "2\n4 1 7e1\n"},
      {"m.gr", "c c\np sp 4 3\na 1 2 3\na 2 3 4\na 4 1 5\n"},
      {"m.txt", "# c\n0 1 3\n1 2\n3 0 5\n"},
   };
   std::mt19937_64 rng(42); // its output sequence is fixed by the standard
   const std::string alphabet = "0123456789 -.e%#\napcx\t";
   unsigned read = 0, rejected = 0;
   for (const auto &[name, text] : valid) {
      for (int trial = 0; trial < 100; ++trial) {
         std::string mutated = text;
         for (uint64_t edits = 1 + rng() % 3; edits > 0; --edits) {
            const size_t at = rng() % mutated.size();
            const char c = alphabet[rng() % alphabet.size()];
            switch (rng() % 3) {
            case 0: mutated[at] = c; break;
            case 1: mutated.insert(at, 1, c); break;
            default: mutated.erase(at, 1); break;
            }
         }
         const std::string path = write(name, mutated);
         try {
            expect_valid(read_graph(path), false);
            ++read;
         } catch (const InputError &) {
            ++rejected;
         }
      }
   }
   EXPECT_GT(read, 0u);
   EXPECT_GT(rejected, 0u);
}

TEST(SampleFiles, AllFormatsHoldTheSameGraph)
{
   const std::string dir = CK_GRAPH_DATA_DIR;
   const Graph mtx = read_graph(dir + "/small.mtx");
   const Graph gr = read_graph(dir + "/small.gr");
   const Graph txt = read_graph(dir + "/small.txt");
   EXPECT_EQ(mtx.nodes, 6u);
   EXPECT_EQ(mtx.edges(), 16u);
   expect_valid(mtx, true);
   for (const Graph *other : {&gr, &txt}) {
      EXPECT_EQ(other->nodes, mtx.nodes);
      EXPECT_EQ(other->row_offsets, mtx.row_offsets);
      EXPECT_EQ(other->columns, mtx.columns);
      EXPECT_EQ(other->weights, mtx.weights);
   }
   EXPECT_EQ(arcs_of(mtx, 1), (std::vector<Arc>{{0, 4}, {2, 5}, {3, 10}}));
}

// ---------------------------------------------------------------- generators

TEST(NodeRandomValues, AreTheHighHalvesOfSplitMix64)
{
   // splitmix64 seeded with 1234567: 6457827717110365317, 3203168211198807973,
   // 9817491932198370423, 4593380528125082431 (Vigna's reference splitmix64.c).
   EXPECT_EQ(node_random_values(4, 1234567),
             (std::vector<uint32_t>{uint32_t(6457827717110365317u >> 32),
                                    uint32_t(3203168211198807973u >> 32),
                                    uint32_t(9817491932198370423u >> 32),
                                    uint32_t(4593380528125082431u >> 32)}));
   EXPECT_NE(node_random_values(4, 1), node_random_values(4, 2));
}

TEST(Rmat, IsAnUndirectedPowerLawGraph)
{
   const Graph graph = generate_rmat(12, 8, 1);
   EXPECT_EQ(graph.name, "rmat-12");
   ASSERT_EQ(graph.nodes, 4096u);
   expect_valid(graph, true, 1, 255);
   EXPECT_LE(graph.edges(), 2u * 8 * 4096);
   EXPECT_GT(graph.edges(), 8u * 4096); // duplicates are few enough
   uint32_t max_degree = 0;
   for (uint32_t node = 0; node < graph.nodes; ++node)
      max_degree = std::max(max_degree, degree(graph, node));
   // a = 0.57 makes node 0 the hub, far above the average degree.
   EXPECT_EQ(degree(graph, 0), max_degree);
   EXPECT_GT(max_degree, 20u * graph.edges() / graph.nodes);
}

TEST(Rmat, IsDeterministic)
{
   const Graph graph = generate_rmat(10, 4, 7);
   EXPECT_EQ(checksum(graph), checksum(generate_rmat(10, 4, 7)));
   EXPECT_NE(checksum(graph), checksum(generate_rmat(10, 4, 8)));
   // Pins the generator: the same graph on every machine and build. Computed
   // once, after an independent reimplementation (Python: splitmix64, the
   // quadrant choice, CSR built from a dict per node) gave the same value.
   EXPECT_EQ(checksum(graph), 0x7dbedd7ba6faf8d8u);
}

TEST(Grid, IsAFourNeighbourGrid)
{
   const unsigned width = 13, height = 7;
   const Graph graph = generate_grid(width, height, 3);
   EXPECT_EQ(graph.name, "grid-13x7");
   ASSERT_EQ(graph.nodes, width * height);
   expect_valid(graph, true, 1, 255);
   EXPECT_EQ(graph.edges(), 2 * ((width - 1) * height + width * (height - 1)));
   // Connected, and BFS levels from a corner are Manhattan distances.
   const auto level = bfs_levels(graph, 0);
   for (uint32_t y = 0; y < height; ++y)
      for (uint32_t x = 0; x < width; ++x)
         EXPECT_EQ(level[y * width + x], x + y);
   EXPECT_EQ(checksum(graph), checksum(generate_grid(width, height, 3)));
   EXPECT_NE(graph.weights, generate_grid(width, height, 4).weights);
   EXPECT_EQ(checksum(graph), 0x70333923f5756f1au); // pinned, checked as for R-MAT
}

TEST(Road, IsAConnectedLowDegreeNetworkWithALongDiameter)
{
   const unsigned nodes = 4000; // 64 columns, 63 rows (the last one half full)
   const Graph graph = generate_road(nodes, 5);
   EXPECT_EQ(graph.name, "road-4000");
   ASSERT_EQ(graph.nodes, nodes);
   // Neighbours are 0.3 to 1.9 cells apart; weights are hundredths of a cell.
   expect_valid(graph, true, 30, 185);
   EXPECT_TRUE(connected(graph));
   const double average_degree = double(graph.edges()) / graph.nodes;
   EXPECT_GE(average_degree, 2.0);
   EXPECT_LE(average_degree, 4.0);
   for (uint32_t node = 0; node < graph.nodes; ++node) {
      EXPECT_GE(degree(graph, node), 1u);
      EXPECT_LE(degree(graph, node), 4u);
   }
   // Roads join grid neighbours, so the far corner is at least 2 * 62 hops
   // away; an R-MAT graph of the same size is a few hops across.
   const uint32_t road_hops = eccentricity(graph, 0);
   EXPECT_GE(road_hops, 2u * 62);
   EXPECT_GT(road_hops, 10 * eccentricity(generate_rmat(12, 2, 5), 0));

   EXPECT_EQ(checksum(graph), checksum(generate_road(nodes, 5)));
   EXPECT_NE(checksum(graph), checksum(generate_road(nodes, 6)));
   EXPECT_EQ(checksum(graph), 0x6a32ff738fbb6b0au); // pinned, checked as for R-MAT
}

TEST(Generators, RejectSizesBeyondTheLimits)
{
   EXPECT_THROW(generate_rmat(32, 1, 1), std::invalid_argument);
   EXPECT_THROW(generate_rmat(30, 4, 1), std::invalid_argument); // 2^33 arcs
   EXPECT_THROW(generate_grid(65536, 65536, 1), std::invalid_argument);
   EXPECT_THROW(generate_road(UINT32_MAX, 1), std::invalid_argument);
}

} // namespace
} // namespace ck_apps
