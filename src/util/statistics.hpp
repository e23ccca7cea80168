// Summary statistics of measured samples, one definition for the runtime's
// CK_STATS line, the applications' calibration and the benchmarks. Empty
// input gives NaN.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace ck_statistics {

// The middle value; the mean of the two middle ones for an even count.
inline double median(std::vector<double> values)
{
   if (values.empty())
      return NAN;
   const size_t half = values.size() / 2;
   std::nth_element(values.begin(), values.begin() + half, values.end());
   const double upper = values[half];
   if (values.size() % 2)
      return upper;
   return (*std::max_element(values.begin(), values.begin() + half) + upper) / 2;
}

// Nearest-rank percentile, fraction in (0, 1].
inline double percentile(std::vector<double> values, double fraction)
{
   if (values.empty())
      return NAN;
   std::sort(values.begin(), values.end());
   const size_t rank = size_t(std::ceil(fraction * values.size()));
   return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

inline double min_of(const std::vector<double> &values)
{
   return values.empty() ? NAN : *std::min_element(values.begin(), values.end());
}

inline double max_of(const std::vector<double> &values)
{
   return values.empty() ? NAN : *std::max_element(values.begin(), values.end());
}

inline double geomean(const std::vector<double> &values)
{
   if (values.empty())
      return NAN;
   double sum = 0;
   for (double value : values)
      sum += std::log(value);
   return std::exp(sum / values.size());
}

// The finite values, in order (a run that measured nothing records NaN).
inline std::vector<double> finite(const std::vector<double> &values)
{
   std::vector<double> out;
   for (double value : values)
      if (std::isfinite(value))
         out.push_back(value);
   return out;
}

// How a benchmark reports repeated samples: median, minimum and maximum.
struct Spread {
   double median, min, max;
};

inline Spread spread_of(const std::vector<double> &samples)
{
   return {median(samples), min_of(samples), max_of(samples)};
}

} // namespace ck_statistics
