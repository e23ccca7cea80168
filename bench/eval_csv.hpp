// The CSV file that each ck-eval subcommand writes.
#pragma once

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

namespace ck_eval {

// One long-format CSV per subcommand: every row is one value, named by the
// record type (meta, calibration, sample, summary, table3, ...) and the
// configuration it belongs to. bench/eval_plots.py reads these.
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
   static std::string number(double value)
   {
      char text[64];
      std::snprintf(text, sizeof text, "%.9g", value);
      return text;
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

} // namespace ck_eval
