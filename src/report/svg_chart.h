// Charts as inline SVG text, for the HTML report (report/html_report.h): drawn by hand rather
// than with a JavaScript charting library so that the page needs no script and no network, and
// so that the same run always gives the same bytes.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace numasim {

struct ChartSeries {
    std::string name;
    std::vector<std::pair<double, double>> points;  // (x, y), x ascending
};

// A line chart with axes, ticks and a legend; `x_label` and `y_label` name the axes.
std::string svg_line_chart(const std::string& title, const std::string& x_label,
                           const std::string& y_label, const std::vector<ChartSeries>& series);

struct HeatmapRow {
    std::string label;
    std::vector<int> cells;  // a colour index per column (-1: empty)
};

// Rows of coloured cells over `columns` (the x values, ascending); `legend` names each colour.
std::string svg_heatmap(const std::string& title, const std::vector<double>& columns,
                        const std::vector<HeatmapRow>& rows,
                        const std::vector<std::string>& legend);

// The colour of series or node `i` (a fixed palette, Tableau 10).
std::string_view chart_colour(size_t i);
// `s` with &, <, > and " escaped for HTML and SVG text.
std::string html_escape(std::string_view s);

}  // namespace numasim
