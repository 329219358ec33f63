// mmtests summary statistics over the samples of one operation (one kernel / config column).
// The formulas follow gormanm/mmtests bin/lib/MMTests/Stat.pm as described in
// docs/reports.md.
#pragma once

#include <vector>

namespace numasim {

// Which direction is an improvement. mmtests defaults to Lower (times); throughputs are Higher.
enum class Better { Lower, Higher };

// Which mean mmtests uses for an operation: Amean when lower is better, Hmean when higher is.
enum class MeanKind { Arithmetic, Harmonic };

MeanKind mean_kind_for(Better better);

// Copy of the samples ordered best-first (ascending for Lower, descending for Higher).
std::vector<double> sort_best_first(std::vector<double> samples, Better better);

double amean(const std::vector<double>& samples);  // NaN when empty
double hmean(const std::vector<double>& samples);  // n / sum(1/x); NaN if empty or any x <= 0
// Sample standard deviation around the arithmetic mean (n-1); NaN when n <= 1.
double stddev_amean(const std::vector<double>& samples);
// mmtests' spread for the harmonic mean: sqrt(sum((1/x - 1/H)^2) * H^4 / n).
double stddev_hmean(const std::vector<double>& samples);
// stddev * 100 / mean; 0 when mean is 0; a NaN stddev counts as 0.
double coeffvar(double stddev, double mean);
double min_of(const std::vector<double>& samples);  // numeric minimum, NaN when empty
double max_of(const std::vector<double>& samples);  // numeric maximum, NaN when empty
// The middle sample (the mean of the two middle ones for an even count); NaN when empty.
double median(std::vector<double> samples);

// Number of samples kept by BAmean-P / BHmean-P: int(n * P / 100), at least 1.
int best_count(int n, int percent);
// Mean (arithmetic or harmonic per `better`) of the best int(n*P/100) samples.
double best_mean(const std::vector<double>& samples, Better better, int percent);

// Percentage differences; positive means "new is better" when chosen by compare_pct().
// pdiff = new*100/base - 100 (0 if equal or new == 0; 100 if base == 0 or NaN).
double pdiff(double new_value, double base_value);
// pndiff = 100 - new*100/base (0 if equal; 100 if new == 0; -99 if base == 0).
double pndiff(double new_value, double base_value);

// The statistic a table row shows; decides the % change function.
enum class StatKind { Min, Median, Mean, Stddev, CoeffVar, Max, BestMean };

// mmtests getStatCompareFunc: Stddev/CoeffVar always pndiff (less spread is better);
// otherwise pndiff for lower-is-better and pdiff for higher-is-better.
double compare_pct(StatKind kind, Better better, double new_value, double base_value);

// All statistics of one column of one operation.
struct Summary {
    int n = 0;
    Better better = Better::Lower;
    double min = 0;
    double mean = 0;    // Amean or Hmean per mean_kind_for(better)
    double stddev = 0;  // stddev matching the mean kind
    double coeffvar = 0;
    double max = 0;
};

Summary summarise(const std::vector<double>& samples, Better better);

}  // namespace numasim
