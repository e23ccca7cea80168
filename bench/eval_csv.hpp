// The CSV file that each ck-eval subcommand writes, and its reader.
#pragma once

#include <charconv>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ck_eval {

// One long-format CSV per subcommand: every row is one value, named by the
// record type and the configuration it belongs to. A measuring subcommand
// writes only what it measured and ran with (meta, calibration, sample,
// paper); the report (eval_report.hpp) reads those back and writes what it
// computes from them (summary, table3) to a file of the same shape.
// bench/eval_plots.py and bench/table2_against.py read both.
class Csv {
public:
   struct Key {
      std::string app, input, kind, variant, barrier, load, k_label;
      int k = -1;
      int repeat = -1;
   };

   explicit Csv(const std::string &path) : path_(path), file_(path)
   {
      if (!file_)
         throw std::runtime_error("cannot write " + path);
      file_ << "record,app,input,kind,variant,barrier,load,k_label,k,repeat,index,metric,value\n";
   }

   const std::string &path() const { return path_; }

   // What was written so far, readable by read_records.
   void flush() { file_.flush(); }

   void row(const std::string &record, const Key &key, const std::string &metric, double value,
            long index = -1)
   {
      write(record, key, metric, std::isfinite(value) ? number(value) : std::string("n/a"), index);
   }

   void text(const std::string &record, const Key &key, const std::string &metric,
             const std::string &value)
   {
      write(record, key, metric, value, -1);
   }

private:
   // The shortest text that reads back as the same double, so that the
   // report computes from exactly what was measured.
   static std::string number(double value)
   {
      char text[64];
      const std::to_chars_result result = std::to_chars(text, text + sizeof text, value);
      return std::string(text, result.ptr);
   }

   static std::string quote(const std::string &field)
   {
      if (field.find_first_of(",\"\n") == std::string::npos)
         return field;
      std::string out = "\"";
      for (char c : field)
         out += c == '"' ? std::string("\"\"") : std::string(1, c);
      return out + "\"";
   }

   void write(const std::string &record, const Key &key, const std::string &metric,
              const std::string &value, long index)
   {
      file_ << quote(record) << ',' << quote(key.app) << ',' << quote(key.input) << ','
            << quote(key.kind) << ',' << quote(key.variant) << ',' << quote(key.barrier) << ','
            << quote(key.load) << ',' << quote(key.k_label) << ','
            << (key.k >= 0 ? std::to_string(key.k) : "") << ','
            << (key.repeat >= 0 ? std::to_string(key.repeat) : "") << ','
            << (index >= 0 ? std::to_string(index) : "") << ',' << quote(metric) << ','
            << quote(value) << '\n';
   }

   std::string path_;
   std::ofstream file_;
};

// One row of such a file, as read back.
struct Record {
   std::string record;
   Csv::Key key;
   long index = -1;
   std::string metric, value;

   // The value as a number; NaN for "n/a" or text.
   double number() const;
};

// The rows of a file Csv wrote, in order; throws on a file of another shape.
std::vector<Record> read_records(const std::string &path);

} // namespace ck_eval
