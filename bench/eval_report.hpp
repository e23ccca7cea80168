// ck-eval's report: every table and summary of an evaluation, computed from
// the raw records of its CSV (eval_csv.hpp) and nothing else, with the
// medians and percentiles of src/util/statistics.hpp. 'ck-eval report
// FILE.csv' runs it on a file; each measuring subcommand runs it on the file
// it has just written, so that there is one way a table comes about.
#pragma once

#include "eval_csv.hpp"

#include <string>
#include <vector>

namespace ck_eval {

// "1.23" with `decimals` decimals, or "n/a" for a value that is not finite.
std::string fixed(double value, int decimals = 2);

// The run's first two lines: command, device, units, policy, scale, date.
void print_header(const std::vector<Record> &records);

// fig5 and fig6: the matmul's calibration on the idle device (nothing for
// the other commands).
void print_calibration(const std::vector<Record> &records);

// The command's tables. With `summary`, also writes there every summary the
// tables show (records summary and table3) for bench/eval_plots.py.
void print_tables(const std::vector<Record> &records, Csv *summary);

// 'ck-eval report CSV [--summary PATH]': the three above on one file.
int report(const std::string &csv, const std::string &summary);

} // namespace ck_eval
