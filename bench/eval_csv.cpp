#include "eval_csv.hpp"

#include <cstdlib>
#include <iterator>

namespace ck_eval {

namespace {

const char *const columns =
   "record,app,input,kind,variant,barrier,load,k_label,k,repeat,index,metric,value";

// The fields of the row starting at `at` (quotes as Csv::quote writes
// them); moves `at` past the row's newline.
std::vector<std::string> fields(const std::string &text, size_t &at)
{
   std::vector<std::string> out(1);
   bool quoted = false;
   for (; at < text.size(); ++at) {
      const char c = text[at];
      if (quoted) {
         if (c == '"' && at + 1 < text.size() && text[at + 1] == '"') {
            out.back() += '"';
            ++at;
         } else if (c == '"') {
            quoted = false;
         } else {
            out.back() += c;
         }
      } else if (c == '"') {
         quoted = true;
      } else if (c == ',') {
         out.emplace_back();
      } else if (c == '\n') {
         ++at;
         return out;
      } else if (c != '\r') {
         out.back() += c;
      }
   }
   if (quoted)
      throw std::runtime_error("unterminated quote");
   return out;
}

long integer(const std::string &field, const char *name)
{
   if (field.empty())
      return -1;
   char *end = nullptr;
   const long value = std::strtol(field.c_str(), &end, 10);
   if (*end || value < 0)
      throw std::runtime_error(std::string("bad ") + name + " '" + field + "'");
   return value;
}

} // namespace

double Record::number() const
{
   const char *begin = value.c_str();
   char *end = nullptr;
   const double parsed = std::strtod(begin, &end);
   return value.empty() || *end ? NAN : parsed;
}

std::vector<Record> read_records(const std::string &path)
{
   std::ifstream file(path, std::ios::binary);
   if (!file)
      throw std::runtime_error("cannot read " + path);
   const std::string text{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
   size_t at = 0;
   std::string header;
   for (const std::string &field : fields(text, at))
      header += (header.empty() ? "" : ",") + field;
   if (header != columns)
      throw std::runtime_error(path + " is no ck-eval CSV (its first line is not '" + columns +
                               "')");
   std::vector<Record> out;
   for (long line = 2; at < text.size(); ++line) {
      try {
         const std::vector<std::string> row = fields(text, at);
         if (row.size() == 1 && row[0].empty())
            continue;
         if (row.size() != 13)
            throw std::runtime_error(std::to_string(row.size()) + " fields, not 13");
         Record record;
         record.record = row[0];
         record.key.app = row[1];
         record.key.input = row[2];
         record.key.kind = row[3];
         record.key.variant = row[4];
         record.key.barrier = row[5];
         record.key.load = row[6];
         record.key.k_label = row[7];
         record.key.k = int(integer(row[8], "k"));
         record.key.repeat = int(integer(row[9], "repeat"));
         record.index = integer(row[10], "index");
         record.metric = row[11];
         record.value = row[12];
         out.push_back(std::move(record));
      } catch (const std::runtime_error &error) {
         throw std::runtime_error(path + ":" + std::to_string(line) + ": " + error.what());
      }
   }
   return out;
}

} // namespace ck_eval
