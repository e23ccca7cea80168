#include "eval_report.hpp"

#include "eval_options.hpp"
#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace ck_eval {

namespace {

using ck_statistics::finite;
using ck_statistics::geomean;
using ck_statistics::max_of;
using ck_statistics::median;
using ck_statistics::min_of;
using ck_statistics::percentile;

// "median (min-max)" of the finite samples.
std::string spread(const std::vector<double> &samples, int decimals = 2)
{
   std::vector<double> values = finite(samples);
   if (values.empty())
      return "n/a";
   return fixed(median(values), decimals) + " (" + fixed(min_of(values), decimals) + "-" +
          fixed(max_of(values), decimals) + ")";
}

struct Load {
   std::string name;
   double period_ms = NAN, work_ms = NAN;
};

struct KChoice {
   std::string label; // "1", "1=N/4" when two coincide
   unsigned k;
};

// One run of an application: its sample records with the same key.
struct Run {
   Csv::Key key;
   double seconds = NAN;           // seconds (table2, persistent) or coop_s (fig5, fig6)
   std::vector<double> gathers_ms; // the scheduler's gathers during the run
   std::string gathers_error;      // non-empty: the driver gave no gather times
   std::vector<double> matmul_ms;  // the matmul frames that overlapped the run
   std::vector<double> starts_ms;  // ... and when they started

   std::string app_label() const { return key.app + " " + key.input; }

   // The matmul's achieved period: the median start-to-start interval.
   double period_ms() const
   {
      std::vector<double> intervals;
      for (size_t i = 1; i < starts_ms.size(); ++i)
         intervals.push_back(starts_ms[i] - starts_ms[i - 1]);
      return median(intervals);
   }
};

// What a report needs of the records.
struct Eval {
   std::map<std::string, std::string> meta;
   std::vector<Load> loads; // those the run used, in its order
   std::vector<KChoice> ks;
   std::vector<Run> runs; // in the order of their first record
   std::vector<const Record *> calibration, paper;

   std::string text(const std::string &metric) const
   {
      const auto found = meta.find(metric);
      if (found == meta.end())
         throw std::runtime_error("no meta record '" + metric + "'");
      return found->second;
   }

   double number(const std::string &metric) const
   {
      Record record;
      record.value = text(metric);
      return record.number();
   }

   unsigned units() const { return unsigned(number("units")); }
   int repeats() const { return int(number("repeats")); }
   std::string command() const { return text("command"); }

   size_t k_index(const std::string &label) const
   {
      for (size_t ki = 0; ki < ks.size(); ++ki)
         if (ks[ki].label == label)
            return ki;
      throw std::runtime_error("no meta record for k=" + label);
   }
};

std::string run_id(const Csv::Key &key)
{
   return key.app + '\x1f' + key.input + '\x1f' + key.kind + '\x1f' + key.variant + '\x1f' +
          key.barrier + '\x1f' + key.load + '\x1f' + key.k_label + '\x1f' +
          std::to_string(key.k) + '\x1f' + std::to_string(key.repeat);
}

Eval parse(const std::vector<Record> &records)
{
   Eval eval;
   std::map<std::string, Load> shapes;
   std::map<std::string, size_t> run_index;
   for (const Record &record : records) {
      if (record.record == "meta") {
         if (!record.key.load.empty()) {
            Load &load = shapes[record.key.load];
            load.name = record.key.load;
            if (record.metric == "load_period_ms")
               load.period_ms = record.number();
            else if (record.metric == "load_work_ms")
               load.work_ms = record.number();
         } else if (record.metric == "k") {
            eval.ks.push_back({record.key.k_label, unsigned(record.key.k)});
         } else {
            eval.meta[record.metric] = record.value;
         }
      } else if (record.record == "calibration") {
         eval.calibration.push_back(&record);
      } else if (record.record == "paper") {
         eval.paper.push_back(&record);
      } else if (record.record == "sample") {
         const std::string id = run_id(record.key);
         auto [found, added] = run_index.emplace(id, eval.runs.size());
         if (added) {
            eval.runs.emplace_back();
            eval.runs.back().key = record.key;
         }
         Run &run = eval.runs[found->second];
         const std::string &metric = record.metric;
         if (metric == "seconds" || metric == "coop_s")
            run.seconds = record.number();
         else if (metric == "gather_ms")
            run.gathers_ms.push_back(record.number());
         else if (metric == "gathers" && record.value.rfind("n/a (", 0) == 0)
            run.gathers_error = record.value.substr(5, record.value.size() - 6);
         else if (metric == "matmul_ms")
            run.matmul_ms.push_back(record.number());
         else if (metric == "matmul_start_ms")
            run.starts_ms.push_back(record.number());
      }
   }
   const auto loads = eval.meta.find("loads");
   if (loads != eval.meta.end())
      for (const std::string &name : split(loads->second, ',')) {
         const auto shape = shapes.find(name);
         if (shape == shapes.end())
            throw std::runtime_error("no meta records for the load '" + name + "'");
         eval.loads.push_back(shape->second);
      }
   return eval;
}

// The element of `items` that `matches`, or `make()` appended when none
// does: records grouped by a key, in the order in which keys first appear.
template <typename T, typename Matches, typename Make>
T &find_or_append(std::vector<T> &items, Matches matches, Make make)
{
   const auto found = std::find_if(items.begin(), items.end(), matches);
   if (found != items.end())
      return *found;
   items.push_back(make());
   return items.back();
}

// The applications in the order of their first run, with their runs.
std::vector<std::pair<std::string, std::vector<const Run *>>>
by_application(const std::vector<Run> &runs)
{
   std::vector<std::pair<std::string, std::vector<const Run *>>> out;
   for (const Run &run : runs) {
      auto &same = find_or_append(
         out, [&](const auto &entry) { return entry.first == run.app_label(); },
         [&] { return std::make_pair(run.app_label(), std::vector<const Run *>{}); });
      same.second.push_back(&run);
   }
   return out;
}

// Writes summaries, or nothing.
class Summary {
public:
   explicit Summary(Csv *csv) : csv_(csv) {}
   void row(const std::string &record, const Csv::Key &key, const std::string &metric,
            double value)
   {
      if (csv_)
         csv_->row(record, key, metric, value);
   }
   void text(const std::string &record, const Csv::Key &key, const std::string &metric,
             const std::string &value)
   {
      if (csv_)
         csv_->text(record, key, metric, value);
   }

private:
   Csv *csv_;
};

Csv::Key app_key(const Run &run)
{
   Csv::Key key;
   key.app = run.key.app;
   key.input = run.key.input;
   key.kind = run.key.kind;
   return key;
}

// ---------------------------------------------------------------- persistent

void persistent(const Eval &eval, Summary &summary)
{
   const unsigned n = unsigned(eval.number("groups"));
   const int repeats = eval.repeats();
   std::printf("\npersistent-thread builds: %u work-groups, %d runs each\n\n", n, repeats);
   std::printf("%-32s %s\n", "application input", "persistent s");
   for (const auto &[label, runs] : by_application(eval.runs)) {
      std::vector<double> seconds;
      for (const Run *run : runs)
         seconds.push_back(run->seconds);
      std::printf("%-32s %s\n", label.c_str(), spread(seconds, 4).c_str());
      Csv::Key key = app_key(*runs.front());
      key.variant = "persistent";
      key.k = n;
      summary.row("summary", key, "median_s", median(seconds));
      summary.row("summary", key, "min_s", min_of(seconds));
      summary.row("summary", key, "max_s", max_of(seconds));
   }
   std::printf("\n(seconds: median (min-max) over %d runs)\n", repeats);
}

// ---------------------------------------------------------------- table 2

void table2(const Eval &eval, Summary &summary)
{
   const unsigned n = eval.units();
   const int repeats = eval.repeats();
   std::printf("\nTable 2: cooperative kernel slowdown without multitasking "
               "(CK_POLICY=never, %u work-groups for both versions, %d runs each, "
               "alternating)\n\n",
               n, repeats);
   struct Row {
      std::string label, kind;
      std::vector<double> cooperative, persistent;
      double slowdown;
   };
   std::vector<Row> rows;
   for (const auto &[label, runs] : by_application(eval.runs)) {
      Row row{label, runs.front()->key.kind, {}, {}, NAN};
      for (const Run *run : runs)
         (run->key.variant == "cooperative" ? row.cooperative : row.persistent)
            .push_back(run->seconds);
      row.slowdown = median(row.cooperative) / median(row.persistent);
      Csv::Key key = app_key(*runs.front());
      key.k = n;
      for (int which = 0; which < 2; ++which) {
         key.variant = which == 0 ? "cooperative" : "persistent";
         const std::vector<double> &samples = which == 0 ? row.cooperative : row.persistent;
         summary.row("summary", key, "median_s", median(samples));
         summary.row("summary", key, "min_s", min_of(samples));
         summary.row("summary", key, "max_s", max_of(samples));
      }
      key.variant = "";
      summary.row("summary", key, "slowdown", row.slowdown);
      rows.push_back(row);
   }

   std::printf("%-32s %-13s %-24s %-24s %s\n", "application input", "kind", "cooperative s",
               "persistent s", "slowdown (range)");
   for (const Row &row : rows) {
      std::vector<double> ratios;
      for (size_t i = 0; i < row.cooperative.size() && i < row.persistent.size(); ++i)
         ratios.push_back(row.cooperative[i] / row.persistent[i]);
      std::printf("%-32s %-13s %-24s %-24s %s (%s-%s)\n", row.label.c_str(), row.kind.c_str(),
                  spread(row.cooperative, 4).c_str(), spread(row.persistent, 4).c_str(),
                  fixed(row.slowdown, 3).c_str(), fixed(min_of(ratios), 2).c_str(),
                  fixed(max_of(ratios), 2).c_str());
   }
   std::printf("\n(seconds: median (min-max) over %d runs; slowdown: ratio of the medians, "
               "range of the per-pair ratios)\n\n",
               repeats);

   // The paper's groups of applications, by kind ("all": every one).
   struct Group {
      std::string kind, name;
      double mean = NAN, max = NAN;
   };
   std::vector<Group> groups;
   for (const Record *record : eval.paper) {
      Group &group = find_or_append(
         groups, [&](const Group &g) { return g.kind == record->key.kind; },
         [&] { return Group{record->key.kind, record->key.kind, NAN, NAN}; });
      if (record->metric == "group")
         group.name = record->value;
      else if (record->metric == "geomean_slowdown")
         group.mean = record->number();
      else if (record->metric == "max_slowdown")
         group.max = record->number();
   }

   std::printf("%-10s %10s %10s  %-30s %12s %12s\n", "", "geo.mean", "max", "(max: which)",
               "paper mean", "paper max");
   double overall_mean = NAN, overall_max = NAN;
   for (const Group &group : groups) {
      const bool all = group.kind == "all";
      std::vector<double> slowdowns;
      std::string worst = "-";
      double worst_value = -1;
      for (const Row &row : rows)
         if (all || row.kind == group.kind) {
            slowdowns.push_back(row.slowdown);
            if (row.slowdown > worst_value) {
               worst_value = row.slowdown;
               worst = row.label;
            }
         }
      const double mean = geomean(finite(slowdowns)), max = max_of(finite(slowdowns));
      if (all) {
         overall_mean = mean;
         overall_max = max;
      }
      std::printf("%-10s %10s %10s  %-30s %12.2f %12.2f\n", group.name.c_str(),
                  fixed(mean, 3).c_str(), fixed(max, 3).c_str(),
                  slowdowns.empty() ? "(no applications)" : worst.c_str(), group.mean, group.max);
      Csv::Key key;
      key.app = "*";
      key.kind = group.kind;
      summary.row("summary", key, "geomean_slowdown", mean);
      summary.row("summary", key, "max_slowdown", max);
      summary.text("summary", key, "max_slowdown_app", worst);
   }
   std::printf("\ntarget (issue 5): geometric mean <= 1.02 and worst <= 1.05: %s\n",
               !std::isfinite(overall_mean) ? "n/a"
               : overall_mean <= 1.02 && overall_max <= 1.05
                  ? "met"
                  : ("missed (geo.mean " + fixed(overall_mean, 3) + ", worst " +
                     fixed(overall_max, 3) + ")")
                       .c_str());
}

// ---------------------------------------------------------------- figure 5

// fig5 --priority: per application, barrier, load and k, the frames'
// latency (enqueue to completion, pooled over the runs) and the cooperative
// kernel's slowdown against its runs alone, with every queue at the default
// priority and with the frames' queue high and the kernel's low.
void fig5_priority(const Eval &eval, Summary &summary)
{
   struct Row { // one app, barrier, load, k
      const Run *first = nullptr;
      std::map<std::string, std::vector<double>> frames_ms, seconds; // per variant
   };
   std::map<std::string, std::vector<double>> alone; // per app and barrier
   std::vector<std::pair<std::string, Row>> rows;
   for (const Run &run : eval.runs) {
      const std::string config = run.app_label() + " " + run.key.barrier;
      if (run.key.load == "alone") {
         alone[config].push_back(run.seconds);
         continue;
      }
      const std::string label = config + " " + run.key.load + " " + run.key.k_label;
      Row &row = find_or_append(
                    rows, [&](const auto &entry) { return entry.first == label; },
                    [&] { return std::make_pair(label, Row{&run, {}, {}}); })
                    .second;
      auto &frames = row.frames_ms[run.key.variant];
      frames.insert(frames.end(), run.matmul_ms.begin(), run.matmul_ms.end());
      row.seconds[run.key.variant].push_back(run.seconds);
   }
   std::map<std::string, double> paper; // the paper's cooperative slowdown per load
   for (const Record *record : eval.paper)
      if (record->metric == "cooperative_slowdown")
         paper[record->key.load] = record->number();

   std::printf("\nPriority mode: frame latency (matmul enqueue to completion, pooled over %d "
               "runs) and the cooperative kernel's slowdown (median against its median alone), "
               "with every queue at the default priority / with the frames' queue high and the "
               "kernel's low\n\n",
               eval.repeats());
   std::printf("%-30s %-13s %-7s %-6s %21s %21s %15s %11s\n", "application input", "barrier",
               "load", "k", "default med/p99 ms", "priority med/p99 ms", "slowdown d/p",
               "paper coop");
   for (const auto &[label, row] : rows) {
      const Run &first = *row.first;
      const double alone_s =
         median(finite(alone[first.app_label() + " " + first.key.barrier]));
      const auto paper_slowdown = paper.find(first.key.load);
      std::string latencies[2], slowdowns[2];
      Csv::Key key = app_key(first);
      key.barrier = first.key.barrier;
      key.load = first.key.load;
      key.k_label = first.key.k_label;
      key.k = first.key.k;
      for (int mode = 0; mode < 2; ++mode) {
         key.variant = mode == 0 ? "cooperative" : "priority";
         const auto frames = row.frames_ms.find(key.variant);
         const auto seconds = row.seconds.find(key.variant);
         const std::vector<double> ms =
            frames == row.frames_ms.end() ? std::vector<double>{} : finite(frames->second);
         const double slowdown =
            seconds == row.seconds.end() ? NAN : median(finite(seconds->second)) / alone_s;
         latencies[mode] = fixed(median(ms), 2) + " / " + fixed(percentile(ms, 0.99), 2);
         slowdowns[mode] = fixed(slowdown, 2);
         summary.row("summary", key, "frame_median_ms", median(ms));
         summary.row("summary", key, "frame_p99_ms", percentile(ms, 0.99));
         summary.row("summary", key, "frames", double(ms.size()));
         summary.row("summary", key, "slowdown_median", slowdown);
      }
      std::printf("%-30s %-13s %-7s %-6s %21s %21s %15s %11s\n", first.app_label().c_str(),
                  first.key.barrier.c_str(), first.key.load.c_str(),
                  (first.key.k_label + "=" + std::to_string(first.key.k)).c_str(),
                  latencies[0].c_str(), latencies[1].c_str(),
                  (slowdowns[0] + " / " + slowdowns[1]).c_str(),
                  paper_slowdown == paper.end() ? "-"
                                                : fixed(paper_slowdown->second, 2).c_str());
   }
   std::printf("\n(paper coop: FSE'17 Table 3, the cooperative kernels' slowdown under that "
               "load at the paper's k, on Iris 6100; the paper has no queue priorities)\n");
}

void fig5(const Eval &eval, Summary &summary)
{
   const std::vector<Load> &loads = eval.loads;
   const std::vector<KChoice> &ks = eval.ks;
   const unsigned units = eval.units();
   const auto apps = by_application(eval.runs);

   struct Cell { // one app, barrier, k
      const Run *first = nullptr;
      std::vector<double> gathers;
      std::string gathers_error;
      std::map<std::string, std::vector<double>> matmul_medians; // per load, per run
      std::map<std::string, std::vector<double>> periods;        // per load, per run
   };
   // key: app index, barrier label, k index
   std::map<std::tuple<size_t, std::string, size_t>, Cell> cells;
   for (size_t a = 0; a < apps.size(); ++a)
      for (const Run *run : apps[a].second) {
         if (run->key.variant != "cooperative" || run->key.load == "alone")
            continue; // --priority's runs: fig5_priority()
         Cell &cell = cells[{a, run->key.barrier, eval.k_index(run->key.k_label)}];
         if (!cell.first)
            cell.first = run;
         if (run->gathers_error.empty())
            cell.gathers.insert(cell.gathers.end(), run->gathers_ms.begin(),
                                run->gathers_ms.end());
         else
            cell.gathers_error = run->gathers_error;
         cell.matmul_medians[run->key.load].push_back(median(run->matmul_ms));
         cell.periods[run->key.load].push_back(run->period_ms());
      }

   std::printf("\nFigure 5: gather time (scheduler, per cooperative launch) and matmul time "
               "(enqueue to completion) with k of N = %u units given to the matmul\n",
               units);
   std::string periods;
   for (const Load &load : loads)
      periods += (periods.empty() ? "" : ", ") + load.name + " " + fixed(load.period_ms, 0) +
                 "/" + fixed(load.work_ms, 0) + " ms";
   std::printf("gathers pooled over loads and %d runs; matmul: median of the per-run "
               "medians (min-max); periods %s\n\n",
               eval.repeats(), periods.c_str());
   std::printf("%-30s %-13s %-9s %7s %9s %9s", "application input", "barrier", "k", "gathers",
               "median ms", "p99 ms");
   for (const Load &load : loads)
      std::printf("  %-22s", (load.name + " matmul ms").c_str());
   std::printf("\n");

   auto per_load = [](const std::map<std::string, std::vector<double>> &values,
                      const std::string &load) {
      const auto found = values.find(load);
      return found == values.end() ? std::vector<double>{} : finite(found->second);
   };
   bool any_gathers = false;
   std::string gathers_error;
   bool target_met = true, target_known = false;
   std::string worst;
   double worst_p99 = -1;
   for (const auto &[index, cell] : cells) {
      const auto &[a, blabel, ki] = index;
      const std::string &label = apps[a].first;
      const KChoice &choice = ks[ki];
      const bool available = cell.gathers_error.empty();
      if (!available)
         gathers_error = cell.gathers_error;
      const double med = available ? median(cell.gathers) : NAN;
      const double p99 = available ? percentile(cell.gathers, 0.99) : NAN;
      std::printf("%-30s %-13s %-9s %7s %9s %9s", label.c_str(), blabel.c_str(),
                  (choice.label + "=" + std::to_string(choice.k)).c_str(),
                  available ? std::to_string(cell.gathers.size()).c_str() : "n/a",
                  fixed(med, 3).c_str(), fixed(p99, 3).c_str());
      Csv::Key key = app_key(*cell.first);
      key.variant = "cooperative";
      key.barrier = blabel;
      key.k_label = choice.label;
      key.k = choice.k;
      summary.row("summary", key, "gather_count", available ? cell.gathers.size() : NAN);
      summary.row("summary", key, "gather_median_ms", med);
      summary.row("summary", key, "gather_p99_ms", p99);
      summary.row("summary", key, "gather_max_ms", available ? max_of(cell.gathers) : NAN);
      for (const Load &load : loads) {
         const std::vector<double> medians = per_load(cell.matmul_medians, load.name);
         std::printf("  %-22s", spread(medians).c_str());
         key.load = load.name;
         summary.row("summary", key, "matmul_median_ms", median(medians));
         summary.row("summary", key, "matmul_min_ms", min_of(medians));
         summary.row("summary", key, "matmul_max_ms", max_of(medians));
         summary.row("summary", key, "period_median_ms", median(per_load(cell.periods, load.name)));
      }
      std::printf("\n");
      if (available && !cell.gathers.empty())
         any_gathers = true;
      if (available && blabel != "without-query" && !cell.gathers.empty()) {
         target_known = true;
         if (!(med < 1.0 && p99 < 5.0))
            target_met = false;
         if (p99 > worst_p99) {
            worst_p99 = p99;
            worst = label + " k=" + choice.label + ": median " + fixed(med, 3) + " ms, p99 " +
                    fixed(p99, 3) + " ms";
         }
      }
   }
   // The matmul over both barrier kinds, as the paper's Figure 5 draws it.
   for (size_t a = 0; a < apps.size(); ++a)
      for (size_t ki = 0; ki < ks.size(); ++ki)
         for (const Load &load : loads) {
            std::vector<double> medians;
            for (const auto &[index, cell] : cells)
               if (std::get<0>(index) == a && std::get<2>(index) == ki)
                  for (double value : per_load(cell.matmul_medians, load.name))
                     medians.push_back(value);
            Csv::Key key = app_key(*apps[a].second.front());
            key.variant = "cooperative";
            key.barrier = "*";
            key.load = load.name;
            key.k_label = ks[ki].label;
            key.k = ks[ki].k;
            summary.row("summary", key, "matmul_median_ms", median(medians));
         }

   std::printf("\n");
   if (!any_gathers && !gathers_error.empty())
      std::printf("gather times: n/a: CL_PROFILING_COOPERATIVE_GATHER_TIMES_EXT failed (%s); "
                  "the driver does not report them yet\n",
                  gathers_error.c_str());
   std::printf("paper (FSE'17 Figure 5, Iris 6100): gather times far below the matmul's, the "
               "query barrier's nearly flat in k; the matmul meets 70 ms from N/4 and 40 ms "
               "(heavy) from N/2\n");
   std::printf("target (issue 5): gather median < 1 ms and p99 < 5 ms for every application "
               "with the query barrier: %s\n",
               !target_known ? "n/a"
               : target_met  ? ("met (largest p99: " + worst + ")").c_str()
                             : ("missed (largest p99: " + worst + ")").c_str());
   if (eval.meta.count("priority"))
      fig5_priority(eval, summary);
}

// ---------------------------------------------------------------- figure 6, table 3

// Per load name and k index: the median slowdown and period over applications.
using Overall = std::map<std::pair<std::string, size_t>, std::pair<double, double>>;

void table3(const Eval &eval, const Overall &overall, Summary &summary)
{
   const std::vector<Load> &loads = eval.loads;
   const std::vector<KChoice> &ks = eval.ks;
   std::printf("\nTable 3: overhead of kernel-level preemption (model P/(P-D)) against "
               "cooperative kernels, median over applications\n\n");
   std::printf("%-8s %-8s %12s %12s %10s %10s   %-32s %14s %14s\n", "load", "k", "kernel-lvl",
               "cooperative", "period ms", "met", "smallest k meeting the period",
               "paper kernel", "paper coop");

   // The paper's rows: a load, the k it chose, its two slowdowns.
   struct PaperRow {
      std::string load, k;
      double kernel_level = NAN, cooperative = NAN;
   };
   std::vector<PaperRow> rows;
   for (const Record *record : eval.paper) {
      PaperRow &row = find_or_append(
         rows, [&](const PaperRow &r) { return r.load == record->key.load; },
         [&] { return PaperRow{record->key.load, record->key.k_label, NAN, NAN}; });
      if (record->metric == "kernel_level_slowdown")
         row.kernel_level = record->number();
      else if (record->metric == "cooperative_slowdown")
         row.cooperative = record->number();
   }

   bool target_met = true, target_known = false;
   std::string target_notes;
   for (const PaperRow &row : rows) {
      const auto load_it = std::find_if(loads.begin(), loads.end(),
                                        [&](const Load &l) { return l.name == row.load; });
      if (load_it == loads.end())
         continue;
      const Load &load = *load_it;
      const double model = load.period_ms / (load.period_ms - load.work_ms);
      // The paper's k for this load, where --k kept it.
      std::optional<size_t> at;
      for (size_t ki = 0; ki < ks.size(); ++ki)
         for (const std::string &part : split(ks[ki].label, '='))
            if (part == row.k)
               at = ki;
      double slowdown = NAN, period = NAN;
      if (at)
         std::tie(slowdown, period) = overall.at({load.name, *at});
      const bool met = std::isfinite(period) && period <= load.period_ms * 1.05;
      // The paper's rule: the smallest k whose median period meets the goal.
      std::string smallest = "none";
      for (size_t ki = 0; ki < ks.size(); ++ki) {
         auto [s, p] = overall.at({load.name, ki});
         if (std::isfinite(p) && p <= load.period_ms * 1.05) {
            smallest = "k=" + ks[ki].label + ": " + fixed(s, 3) + ", " + fixed(p, 1) + " ms";
            break;
         }
      }
      std::printf("%-8s %-8s %12.3f %12s %10s %10s   %-32s %14.2f %14.2f\n", row.load.c_str(),
                  (row.k + (at ? "=" + std::to_string(ks[*at].k) : "")).c_str(), model,
                  fixed(slowdown, 3).c_str(), fixed(period, 1).c_str(),
                  !at || !std::isfinite(period) ? "n/a" : met ? "yes" : "no", smallest.c_str(),
                  row.kernel_level, row.cooperative);
      Csv::Key key;
      key.app = "*";
      key.kind = "all";
      key.load = load.name;
      key.k_label = row.k;
      key.k = at ? int(ks[*at].k) : -1;
      summary.row("table3", key, "kernel_level_model", model);
      summary.row("table3", key, "cooperative_slowdown", slowdown);
      summary.row("table3", key, "period_median_ms", period);
      summary.row("table3", key, "period_met", at && std::isfinite(period) ? double(met) : NAN);
      summary.text("table3", key, "smallest_k_meeting_period", smallest);
      summary.row("table3", key, "paper_kernel_level", row.kernel_level);
      summary.row("table3", key, "paper_cooperative", row.cooperative);
      if (at && std::isfinite(slowdown)) {
         target_known = true;
         if (!(met && slowdown <= model)) {
            target_met = false;
            target_notes += " " + row.load + ": " + fixed(slowdown, 3) + " vs " +
                            fixed(model, 3) +
                            (met                     ? ""
                             : std::isfinite(period) ? ", period " + fixed(period, 1) + " ms"
                                                     : ", period n/a") +
                            ";";
         }
      }
   }
   std::printf("\n(kernel-level: P/(P-D), preemption assumed free; cooperative: our median "
               "slowdown at the k the paper's Table 3 used)\n");
   std::printf("target (issue 5): slowdown at or below the model for every load, each "
               "meeting its period: %s\n",
               !target_known ? "n/a"
               : target_met  ? "met"
                             : ("missed:" + target_notes).c_str());
}

void fig6(const Eval &eval, Summary &summary)
{
   const std::vector<Load> &loads = eval.loads;
   const std::vector<KChoice> &ks = eval.ks;
   const int repeats = eval.repeats();

   struct Config { // one app and barrier
      std::string label;
      const Run *first;
      std::vector<double> alone;
      // per load name, per k index: per-run coop seconds and periods
      std::map<std::pair<std::string, size_t>, std::vector<double>> seconds, periods;

      // Per run, against the median alone time of the same app and barrier.
      std::vector<double> slowdowns(const std::string &load, size_t ki) const
      {
         const double alone_s = median(alone);
         std::vector<double> out;
         const auto found = seconds.find({load, ki});
         if (found != seconds.end())
            for (double value : found->second)
               out.push_back(value / alone_s);
         return out;
      }

      std::vector<double> finite_periods(const std::string &load, size_t ki) const
      {
         const auto found = periods.find({load, ki});
         return found == periods.end() ? std::vector<double>{} : finite(found->second);
      }
   };
   std::vector<Config> configs;
   for (const Run &run : eval.runs) {
      const std::string label =
         run.app_label() + (run.key.kind == "barrier" ? " " + run.key.barrier : "");
      Config &config = find_or_append(
         configs, [&](const Config &c) { return c.label == label; },
         [&] { return Config{label, &run, {}, {}, {}}; });
      if (run.key.load == "alone") {
         config.alone.push_back(run.seconds);
      } else {
         const std::pair<std::string, size_t> where{run.key.load, eval.k_index(run.key.k_label)};
         config.seconds[where].push_back(run.seconds);
         config.periods[where].push_back(run.period_ms());
      }
   }

   for (const Config &config : configs) {
      Csv::Key key = app_key(*config.first);
      key.variant = "cooperative";
      key.barrier = config.first->key.barrier;
      key.load = "alone";
      key.k = 0;
      summary.row("summary", key, "alone_median_s", median(config.alone));
      for (const Load &load : loads)
         for (size_t ki = 0; ki < ks.size(); ++ki) {
            key.load = load.name;
            key.k_label = ks[ki].label;
            key.k = ks[ki].k;
            const std::vector<double> slowdowns = config.slowdowns(load.name, ki);
            const std::vector<double> periods = config.finite_periods(load.name, ki);
            summary.row("summary", key, "slowdown_median", median(slowdowns));
            summary.row("summary", key, "slowdown_min", min_of(slowdowns));
            summary.row("summary", key, "slowdown_max", max_of(slowdowns));
            summary.row("summary", key, "period_median_ms", median(periods));
            summary.row("summary", key, "period_min_ms", min_of(periods));
            summary.row("summary", key, "period_max_ms", max_of(periods));
         }
   }

   // Per application: slowdown median (min-max over runs) per load and k.
   std::printf("\nFigure 6 per application: cooperative kernel slowdown against running "
               "alone (median (min-max) over %d runs) / achieved matmul period, median ms\n\n",
               repeats);
   std::printf("%-40s %-7s", "application input barrier", "load");
   for (const KChoice &choice : ks)
      std::printf("  %-26s", ("k=" + choice.label + "=" + std::to_string(choice.k)).c_str());
   std::printf("\n");
   for (const Config &config : configs)
      for (const Load &load : loads) {
         std::printf("%-40s %-7s", config.label.c_str(), load.name.c_str());
         for (size_t ki = 0; ki < ks.size(); ++ki) {
            const double period = median(config.finite_periods(load.name, ki));
            std::printf("  %-26s",
                        (spread(config.slowdowns(load.name, ki)) + " / " + fixed(period, 0))
                           .c_str());
         }
         std::printf("\n");
      }

   // Over applications: the medians of the per-application medians.
   std::printf("\nFigure 6: median over the %zu application configurations (min-max over "
               "them)\n\n",
               configs.size());
   std::printf("%-8s %-12s %-24s %-26s %s\n", "load", "k", "slowdown", "period ms",
               "goal period");
   Overall overall;
   for (const Load &load : loads)
      for (size_t ki = 0; ki < ks.size(); ++ki) {
         std::vector<double> slowdowns, periods;
         for (const Config &config : configs) {
            slowdowns.push_back(median(config.slowdowns(load.name, ki)));
            periods.push_back(median(config.finite_periods(load.name, ki)));
         }
         slowdowns = finite(slowdowns);
         periods = finite(periods);
         const double slowdown = median(slowdowns), period = median(periods);
         overall[{load.name, ki}] = {slowdown, period};
         std::printf("%-8s %-12s %-24s %-26s %.0f ms (%s)\n", load.name.c_str(),
                     (ks[ki].label + "=" + std::to_string(ks[ki].k)).c_str(),
                     spread(slowdowns).c_str(), spread(periods, 1).c_str(), load.period_ms,
                     !std::isfinite(period)            ? "n/a"
                     : period <= load.period_ms * 1.05 ? "met"
                                                       : "missed");
         Csv::Key key;
         key.app = "*";
         key.kind = "all";
         key.load = load.name;
         key.k_label = ks[ki].label;
         key.k = ks[ki].k;
         summary.row("summary", key, "slowdown_median", slowdown);
         summary.row("summary", key, "slowdown_min", min_of(slowdowns));
         summary.row("summary", key, "slowdown_max", max_of(slowdowns));
         summary.row("summary", key, "period_median_ms", period);
         summary.row("summary", key, "period_min_ms", min_of(periods));
         summary.row("summary", key, "period_max_ms", max_of(periods));
         summary.row("summary", key, "goal_period_ms", load.period_ms);
      }
   std::printf("(a period is met when its median is within 5%% of the goal; the paper's "
               "Figure 6: light and medium meet theirs from N/4, heavy from N/2, with a "
               "heavy period of 939 ms at k=1)\n");
   for (const auto &[where, values] : overall)
      if (!std::isfinite(values.second)) {
         std::printf("(period n/a: fewer than two matmul frames started while the cooperative "
                     "kernel ran; its runs are shorter than a period, as at --scale test)\n");
         break;
      }

   table3(eval, overall, summary);
}

} // namespace

std::string fixed(double value, int decimals)
{
   if (!std::isfinite(value))
      return "n/a";
   char text[64];
   std::snprintf(text, sizeof text, "%.*f", decimals, value);
   return text;
}

void print_header(const std::vector<Record> &records)
{
   const Eval eval = parse(records);
   std::printf("ck-eval %s: %s, N = %u compute units (LP_NUM_THREADS=%s, %u CPUs), "
               "CK_POLICY=%s\n",
               eval.command().c_str(), eval.text("device").c_str(), eval.units(),
               eval.text("lp_num_threads").c_str(), unsigned(eval.number("cpus")),
               eval.text("ck_policy").c_str());
   std::printf("scale %s, %d repeats, %s\n", eval.text("scale").c_str(), eval.repeats(),
               eval.text("date").c_str());
}

void print_calibration(const std::vector<Record> &records)
{
   const Eval eval = parse(records);
   if (eval.command() != "fig5" && eval.command() != "fig6")
      return;
   const unsigned units = eval.units();
   if (units < 4)
      std::printf("note: N = %u < 4, so some of 1, N/4, N/2, N-1 coincide or vanish; set "
                  "LP_NUM_THREADS >= 4 for the paper's four points\n",
                  units);
   std::printf("\nmatmul (the graphics stand-in), calibrated on the idle device with all %u "
               "units; time per launch with k work-groups, idle device:\n",
               units);
   // Per matmul (named by its target duration): its size, its time with all
   // units, and the launches with each k.
   struct Matmul {
      std::string name;
      double size = NAN, target_ms = NAN, all_units_ms = NAN;
      std::vector<std::pair<KChoice, std::vector<double>>> launches_ms;
   };
   std::vector<Matmul> matmuls;
   for (const Record *record : eval.calibration) {
      Matmul &matmul = find_or_append(
         matmuls, [&](const Matmul &m) { return m.name == record->key.load; },
         [&] { return Matmul{record->key.load, NAN, NAN, NAN, {}}; });
      if (record->metric == "matmul_n") {
         matmul.size = record->number();
      } else if (record->metric == "matmul_target_ms") {
         matmul.target_ms = record->number();
      } else if (record->metric == "matmul_idle_ms" && record->index < 0) {
         matmul.all_units_ms = record->number();
      } else if (record->metric == "matmul_idle_ms") {
         auto &same = find_or_append(
            matmul.launches_ms,
            [&](const auto &entry) { return entry.first.label == record->key.k_label; },
            [&] {
               return std::make_pair(KChoice{record->key.k_label, unsigned(record->key.k)},
                                     std::vector<double>{});
            });
         same.second.push_back(record->number());
      }
   }
   for (const Matmul &matmul : matmuls) {
      std::printf("  target %4.0f ms: %dx%d, k=N=%u: %.2f ms", matmul.target_ms, int(matmul.size),
                  int(matmul.size), units, matmul.all_units_ms);
      for (const auto &[choice, times] : matmul.launches_ms)
         std::printf(", k=%s=%u: %.2f ms", choice.label.c_str(), choice.k, median(times));
      std::printf("\n");
   }
}

void print_tables(const std::vector<Record> &records, Csv *csv)
{
   const Eval eval = parse(records);
   Summary summary(csv);
   const std::string command = eval.command();
   if (command == "persistent")
      persistent(eval, summary);
   else if (command == "table2")
      table2(eval, summary);
   else if (command == "fig5")
      fig5(eval, summary);
   else if (command == "fig6")
      fig6(eval, summary);
   else
      throw std::runtime_error("no report for the command '" + command + "'");
}

int report(const std::string &csv, const std::string &summary_path)
{
   const std::vector<Record> records = read_records(csv);
   std::unique_ptr<Csv> summary;
   if (!summary_path.empty())
      summary = std::make_unique<Csv>(summary_path);
   print_header(records);
   print_calibration(records);
   print_tables(records, summary.get());
   return 0;
}

} // namespace ck_eval
