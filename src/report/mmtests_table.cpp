#include "report/mmtests_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "report/mmtests_header.h"
#include "report/text_format.h"

namespace numasim {

namespace {

struct StatSpec {
    StatKind kind;
    int percent;  // BestMean only
};

std::vector<StatSpec> stat_specs(StatSet set) {
    if (set == StatSet::MinMedianMax)
        return {{StatKind::Min, 0}, {StatKind::Median, 0}, {StatKind::Max, 0}};
    std::vector<StatSpec> specs = {{StatKind::Min, 0},
                                   {StatKind::Mean, 0},
                                   {StatKind::Stddev, 0},
                                   {StatKind::CoeffVar, 0},
                                   {StatKind::Max, 0}};
    if (set == StatSet::Multiops2019) {
        specs.push_back({StatKind::BestMean, 50});
        specs.push_back({StatKind::BestMean, 95});
        specs.push_back({StatKind::BestMean, 99});
    } else {
        specs.push_back({StatKind::BestMean, 95});
    }
    return specs;
}

std::string stat_name(const StatSpec& spec, Better better, BestMeanNaming naming) {
    const bool harmonic = mean_kind_for(better) == MeanKind::Harmonic;
    switch (spec.kind) {
        case StatKind::Min:
            return "Min";
        case StatKind::Median:
            return "Median";
        case StatKind::Mean:
            return harmonic ? "Hmean" : "Amean";
        case StatKind::Stddev:
            return "Stddev";
        case StatKind::CoeffVar:
            return "CoeffVar";
        case StatKind::Max:
            return "Max";
        case StatKind::BestMean:
            return fmt::format("{}{}{}", harmonic ? "BHmean" : "BAmean",
                               naming == BestMeanNaming::Dot ? "." : "-", spec.percent);
    }
    return "";
}

double stat_value(const StatSpec& spec, const Summary& s, const std::vector<double>& samples) {
    switch (spec.kind) {
        case StatKind::Min:
            return s.min;
        case StatKind::Median:
            return median(samples);
        case StatKind::Mean:
            return s.mean;
        case StatKind::Stddev:
            return s.stddev;
        case StatKind::CoeffVar:
            return s.coeffvar;
        case StatKind::Max:
            return s.max;
        case StatKind::BestMean:
            return best_mean(samples, s.better, spec.percent);
    }
    return 0;
}

}  // namespace

CompareTable build_compare_table(const std::vector<std::string>& columns,
                                 const std::vector<OperationSamples>& operations,
                                 const CompareOptions& options) {
    CompareTable table;
    table.columns = columns;
    table.field_length = options.field_length;
    table.precision = options.precision;
    table.show_compare = options.show_compare;

    // Summaries per operation and column, computed once.
    std::vector<std::vector<Summary>> summaries;
    for (const auto& op : operations) {
        if (op.samples.size() != columns.size()) {
            throw std::invalid_argument("operation '" + op.name + "' has " +
                                        std::to_string(op.samples.size()) + " sample sets for " +
                                        std::to_string(columns.size()) + " columns");
        }
        std::vector<Summary> per_column;
        for (const auto& samples : op.samples)
            per_column.push_back(summarise(samples, op.better));
        summaries.push_back(std::move(per_column));
        table.operation_width = std::max(table.operation_width, op.name.size());
    }

    // mmtests orders rows statistic-major: every operation's Min, then every Amean, ...
    for (const StatSpec& spec : stat_specs(options.stat_set)) {
        for (size_t o = 0; o < operations.size(); ++o) {
            const OperationSamples& op = operations[o];
            CompareRow row;
            row.stat = stat_name(spec, op.better, options.naming);
            row.operation = op.name;
            row.kind = spec.kind;
            // Padding follows all stats even when only the means are printed (mmtests output
            // grepped for "Hmean" keeps the BHmean-95 width).
            table.stat_width = std::max(table.stat_width, row.stat.size());
            const double base = stat_value(spec, summaries[o][0], op.samples[0]);
            for (size_t c = 0; c < columns.size(); ++c) {
                CompareCell cell;
                cell.value = stat_value(spec, summaries[o][c], op.samples[c]);
                cell.pct = c == 0 ? 0.0 : compare_pct(spec.kind, op.better, cell.value, base);
                if (c > 0 && spec.kind == StatKind::Mean && options.show_compare) {
                    const Summary& b = summaries[o][0];
                    const Summary& n = summaries[o][c];
                    cell.significant =
                        is_significant(options.rule, {b.mean, b.stddev, b.n},
                                       {n.mean, n.stddev, n.n}, options.significance_level);
                }
                row.cells.push_back(cell);
            }
            if (!options.means_only || spec.kind == StatKind::Mean) {
                table.rows.push_back(std::move(row));
            }
        }
    }
    if (options.print_significance && options.show_compare &&
        options.rule != SignificanceRule::None) {
        for (size_t o = 0; o < operations.size(); ++o) {
            SignificanceRow row{operations[o].name, {SignificanceCell{}}};
            const Summary& b = summaries[o][0];
            for (size_t c = 1; c < columns.size(); ++c) {
                const Summary& n = summaries[o][c];
                const MeanEstimate base{b.mean, b.stddev, b.n}, cand{n.mean, n.stddev, n.n};
                SignificanceCell cell;
                cell.significant =
                    is_significant(options.rule, base, cand, options.significance_level);
                // Compare.pm keeps cidiff itself, or _significanceTest's p-value * 100.
                cell.figure = options.rule == SignificanceRule::TTest
                                  ? 100 * ttest_p_value(base, cand)
                                  : ci_diff(base, cand);
                row.cells.push_back(cell);
            }
            table.significance.push_back(std::move(row));
        }
    }
    return table;
}

std::string render_compare_table(const CompareTable& table) {
    const size_t prefix = table.stat_width + 1 + table.operation_width;
    // " (" + "%7.2f" + "%)" adds CompareLength + 4 characters per column.
    const size_t column_width =
        static_cast<size_t>(table.field_length) +
        (table.show_compare ? static_cast<size_t>(kMmtestsCompareLength) + 4 : 0);
    std::string out = render_header_rows(table.columns, prefix, column_width);
    for (const auto& row : table.rows) {
        out += pad_right(row.stat, table.stat_width);
        out += ' ';
        out += pad_right(row.operation, table.operation_width);
        for (const auto& cell : row.cells) {
            out += format_fixed(cell.value, table.field_length, table.precision);
            if (table.show_compare) {
                // Significant cells swap the parentheses for '*', as PrintGeneric.pm does.
                const char open = cell.significant ? '*' : '(';
                const char close = cell.significant ? '*' : ')';
                out += fmt::format(" {}{}%{}", open,
                                   format_fixed(cell.pct, kMmtestsCompareLength, 2), close);
            }
        }
        out += '\n';
    }
    for (const auto& row : table.significance) {
        // "Significant" is longer than the stat column and, as in Perl's "%-Ns", overflows it.
        out += pad_right("Significant", table.stat_width);
        out += ' ';
        out += pad_right(row.operation, table.operation_width);
        for (const auto& cell : row.cells) {
            out += format_fixed(cell.significant ? 1.0 : 0.0, table.field_length, table.precision);
            out += fmt::format(" ({}%)", format_fixed(cell.figure, kMmtestsCompareLength, 2));
        }
        // Compare.pm pushes one element past the end of the significance list; PrintGeneric.pm
        // prints an undefined value as blanks the width of the field.
        out.append(static_cast<size_t>(table.field_length), ' ');
        out += '\n';
    }
    return out;
}

}  // namespace numasim
