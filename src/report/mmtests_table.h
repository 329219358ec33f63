// mmtests compare table (bin/compare-mmtests.pl text output): per statistic and operation one
// row, per kernel/config column the value and its % change against the first (baseline) column.
#pragma once

#include <string>
#include <vector>

#include "report/significance.h"
#include "report/stats.h"

namespace numasim {

// The samples of one benchmark operation per column, e.g. "elsp-NUMA01_THREADLOCAL" (Lower) or
// "tput-13" (Higher).
struct OperationSamples {
    std::string name;
    Better better = Better::Lower;
    std::vector<std::vector<double>> samples;  // one sample vector per column
};

// Which summary rows are printed (mmtests SummariseMultiops).
enum class StatSet {
    Current,       // HEAD: Min, Amean|Hmean, Stddev, CoeffVar, Max, BAmean-95
    Multiops2019,  // 2019 - Nov 2024: ... Max, BAmean-50, BAmean-95, BAmean-99
    MinMedianMax,  // `numasim oracle`: a few boots, whose spread is the point, not a mean
};

// BAmean/BHmean name template: "BAmean-%d" (LKML 2019-2025) or "BAmean.%d" (mmtests HEAD,
// since commit fa1c230f, 2026-04-08).
enum class BestMeanNaming { Dash, Dot };

struct CompareOptions {
    StatSet stat_set = StatSet::Current;
    BestMeanNaming naming = BestMeanNaming::Dash;
    SignificanceRule rule = SignificanceRule::CiInterval;
    double significance_level = kMmtestsSignificanceLevel;  // TTest only
    bool show_compare = true;  // the " (  x.xx%)" column; monitors hide it
    bool means_only = false;   // print only the Amean/Hmean rows (widths stay as for all rows)
    int field_length = 12;     // mmtests Compare.pm default FieldLength
    int precision = 2;
    // compare-mmtests.pl --print-significance: a "Significant" row per operation after the
    // others (only with show_compare and a rule other than None).
    bool print_significance = false;
};

struct CompareCell {
    double value = 0;
    double pct = 0;  // % change vs column 0 (positive = better); 0 for the baseline
    bool significant = false;
};

struct CompareRow {
    std::string stat;       // "Min", "Amean", "BHmean-95", ...
    std::string operation;  // "elsp-NUMA01_THREADLOCAL"
    StatKind kind = StatKind::Min;
    std::vector<CompareCell> cells;  // one per column
};

// One column of a "Significant" row: the flag (1 or 0) and the figure behind it: cidiff for
// CiInterval, the two-sided p-value in percent for TTest; (0, 0) for the baseline.
struct SignificanceCell {
    bool significant = false;
    double figure = 0;
};

struct SignificanceRow {
    std::string operation;
    std::vector<SignificanceCell> cells;  // one per column
};

struct CompareTable {
    std::vector<std::string> columns;
    std::vector<CompareRow> rows;               // the rows to print (means_only already applied)
    std::vector<SignificanceRow> significance;  // --print-significance rows, printed last
    size_t stat_width = 0;                      // longest stat name over the full stat set
    size_t operation_width = 0;
    int field_length = 12;
    int precision = 2;
    bool show_compare = true;
};

// mmtests' `% change` compare field width (CompareLength) and the header column width it implies.
inline constexpr int kMmtestsCompareLength = 7;

CompareTable build_compare_table(const std::vector<std::string>& columns,
                                 const std::vector<OperationSamples>& operations,
                                 const CompareOptions& options = {});

std::string render_compare_table(const CompareTable& table);

}  // namespace numasim
