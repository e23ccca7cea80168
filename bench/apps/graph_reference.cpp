// Sequential references for the graph applications: every device run is
// compared with these, element by element. They follow graph.hpp's
// definitions (which the kernels in kernels/apps/ implement in parallel),
// edge by edge along the CSR rows (out-edges), self-loops ignored.
#include "graph.hpp"

#include <functional>
#include <queue>
#include <utility>

namespace ck_apps {

namespace {

void check_source(const Graph &graph, uint32_t source)
{
   if (source >= graph.nodes)
      throw std::invalid_argument("source node " + std::to_string(source) + " not in " +
                                  graph.name + " (" + std::to_string(graph.nodes) + " nodes)");
}

void check_random(const Graph &graph, const std::vector<uint32_t> &random)
{
   if (random.size() != graph.nodes)
      throw std::invalid_argument("random values for " + std::to_string(random.size()) +
                                  " nodes, graph " + graph.name + " has " +
                                  std::to_string(graph.nodes));
}

} // namespace

std::vector<uint32_t> reference_bfs(const Graph &graph, uint32_t source)
{
   check_source(graph, source);
   std::vector<uint32_t> level(graph.nodes, unreached);
   std::vector<uint32_t> frontier{source}, next;
   level[source] = 0;
   for (uint32_t depth = 1; !frontier.empty(); ++depth) {
      next.clear();
      for (uint32_t u : frontier)
         for (uint32_t e = graph.row_offsets[u]; e < graph.row_offsets[u + 1]; ++e) {
            const uint32_t v = graph.columns[e];
            if (level[v] == unreached) {
               level[v] = depth;
               next.push_back(v);
            }
         }
      frontier.swap(next);
   }
   return level;
}

std::vector<uint32_t> reference_sssp(const Graph &graph, uint32_t source)
{
   check_source(graph, source);
   // Distances are 32-bit as on the device; the inputs keep them far below
   // the "unreached" value (weights <= 255 on generated graphs).
   std::vector<uint32_t> dist(graph.nodes, unreached);
   using Entry = std::pair<uint32_t, uint32_t>; // distance, node
   std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
   dist[source] = 0;
   queue.push({0, source});
   while (!queue.empty()) {
      const auto [d, u] = queue.top();
      queue.pop();
      if (d != dist[u])
         continue; // stale entry
      for (uint32_t e = graph.row_offsets[u]; e < graph.row_offsets[u + 1]; ++e) {
         const uint32_t v = graph.columns[e];
         const uint32_t candidate = d + graph.weights[e];
         if (candidate < dist[v]) {
            dist[v] = candidate;
            queue.push({candidate, v});
         }
      }
   }
   return dist;
}

std::vector<uint32_t> reference_color(const Graph &graph, const std::vector<uint32_t> &random)
{
   check_random(graph, random);
   // Colours are the round numbers, from 0. The global maximum of the
   // uncoloured nodes always wins, so every round colours at least one node.
   std::vector<uint32_t> colour(graph.nodes, unreached);
   std::vector<uint32_t> left(graph.nodes), winners, losers;
   for (uint32_t u = 0; u < graph.nodes; ++u)
      left[u] = u;
   for (uint32_t round = 0; !left.empty(); ++round) {
      winners.clear();
      losers.clear();
      for (uint32_t u : left) {
         bool wins = true;
         for (uint32_t e = graph.row_offsets[u]; wins && e < graph.row_offsets[u + 1]; ++e) {
            const uint32_t v = graph.columns[e];
            if (v != u && colour[v] == unreached &&
                (random[v] > random[u] || (random[v] == random[u] && v > u)))
               wins = false;
         }
         (wins ? winners : losers).push_back(u);
      }
      for (uint32_t u : winners)
         colour[u] = round;
      left.swap(losers);
   }
   return colour;
}

std::vector<uint32_t> reference_mis(const Graph &graph, const std::vector<uint32_t> &random)
{
   check_random(graph, random);
   enum : uint32_t { out = 0, in = 1, undecided = 2 };
   // The global minimum of the undecided nodes always joins, so every round
   // decides at least one node.
   std::vector<uint32_t> state(graph.nodes, undecided);
   std::vector<uint32_t> left(graph.nodes), winners, still;
   for (uint32_t u = 0; u < graph.nodes; ++u)
      left[u] = u;
   while (!left.empty()) {
      winners.clear();
      for (uint32_t u : left) {
         bool wins = true;
         for (uint32_t e = graph.row_offsets[u]; wins && e < graph.row_offsets[u + 1]; ++e) {
            const uint32_t v = graph.columns[e];
            if (v != u && state[v] == undecided &&
                (random[v] < random[u] || (random[v] == random[u] && v < u)))
               wins = false;
         }
         if (wins)
            winners.push_back(u);
      }
      for (uint32_t u : winners)
         state[u] = in;
      for (uint32_t u : winners)
         for (uint32_t e = graph.row_offsets[u]; e < graph.row_offsets[u + 1]; ++e) {
            const uint32_t v = graph.columns[e];
            if (state[v] == undecided)
               state[v] = out;
         }
      still.clear();
      for (uint32_t u : left)
         if (state[u] == undecided)
            still.push_back(u);
      left.swap(still);
   }
   return state;
}

} // namespace ck_apps
