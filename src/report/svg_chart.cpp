#include "report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>

namespace numasim {

namespace {

constexpr int kWidth = 760, kHeight = 280;
constexpr int kLeft = 70, kRight = 170, kTop = 30, kBottom = 45;

// Tick values: 1, 2 or 5 times a power of ten, about five of them over [lo, hi].
std::vector<double> ticks(double lo, double hi) {
    const double span = hi - lo;
    if (!(span > 0)) return {lo};
    const double raw = span / 5;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (const double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * mag) {
            step = m * mag;
            break;
        }
    std::vector<double> t;
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
        t.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
    return t;
}

std::string tick_text(double v) {
    if (std::abs(v) >= 1e6) return fmt::format("{:.3g}", v);
    if (v == std::floor(v)) return fmt::format("{:.0f}", v);
    return fmt::format("{:g}", v);
}

void frame(std::string& s, const std::string& title, int height) {
    fmt::format_to(std::back_inserter(s),
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                   "viewBox=\"0 0 {} {}\" font-family=\"sans-serif\" font-size=\"11\">\n"
                   "<text x=\"{}\" y=\"18\" font-size=\"14\" font-weight=\"bold\">{}</text>\n",
                   kWidth, height, kWidth, height, kLeft, html_escape(title));
}

}  // namespace

std::string_view chart_colour(size_t i) {
    static constexpr std::array<std::string_view, 10> kPalette = {
        "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
        "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
    return kPalette[i % kPalette.size()];
}

std::string html_escape(std::string_view s) {
    std::string out;
    for (const char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string svg_line_chart(const std::string& title, const std::string& x_label,
                           const std::string& y_label, const std::vector<ChartSeries>& series) {
    double x0 = INFINITY, x1 = -INFINITY, y0 = 0, y1 = -INFINITY;
    for (const auto& c : series)
        for (const auto& [x, y] : c.points) {
            x0 = std::min(x0, x);
            x1 = std::max(x1, x);
            y0 = std::min(y0, y);
            y1 = std::max(y1, y);
        }
    if (!std::isfinite(x0)) x0 = 0, x1 = 1, y1 = 1;
    if (x1 <= x0) x1 = x0 + 1;
    if (y1 <= y0) y1 = y0 + 1;
    const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
    auto px = [&](double x) { return kLeft + (x - x0) / (x1 - x0) * pw; };
    auto py = [&](double y) { return kTop + ph - (y - y0) / (y1 - y0) * ph; };
    std::string s;
    frame(s, title, kHeight);
    auto it = std::back_inserter(s);
    fmt::format_to(it,
                   "<rect x=\"{}\" y=\"{}\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"none\" "
                   "stroke=\"#888\"/>\n",
                   kLeft, kTop, pw, ph);
    for (const double t : ticks(x0, x1))
        fmt::format_to(it,
                       "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
                       "stroke=\"#ddd\"/><text x=\"{0:.1f}\" y=\"{3:.1f}\" "
                       "text-anchor=\"middle\">{4}</text>\n",
                       px(t), static_cast<double>(kTop), kTop + ph, kTop + ph + 14, tick_text(t));
    for (const double t : ticks(y0, y1))
        fmt::format_to(it,
                       "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" "
                       "stroke=\"#ddd\"/><text x=\"{3}\" y=\"{4:.1f}\" "
                       "text-anchor=\"end\">{5}</text>\n",
                       kLeft, py(t), kLeft + pw, kLeft - 4, py(t) + 4, tick_text(t));
    fmt::format_to(it,
                   "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n"
                   "<text x=\"14\" y=\"{:.1f}\" text-anchor=\"middle\" "
                   "transform=\"rotate(-90 14 {:.1f})\">{}</text>\n",
                   kLeft + pw / 2, kHeight - 8, html_escape(x_label), kTop + ph / 2, kTop + ph / 2,
                   html_escape(y_label));
    for (size_t i = 0; i < series.size(); ++i) {
        std::string pts;
        for (const auto& [x, y] : series[i].points)
            fmt::format_to(std::back_inserter(pts), "{}{:.1f},{:.1f}", pts.empty() ? "" : " ",
                           px(x), py(y));
        fmt::format_to(it,
                       "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" "
                       "points=\"{}\"/>\n",
                       chart_colour(i), pts);
        const double ly = kTop + 8 + 16.0 * static_cast<double>(i);
        fmt::format_to(it,
                       "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"10\" height=\"10\" fill=\"{}\"/>"
                       "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
                       kLeft + pw + 12, ly - 9, chart_colour(i), kLeft + pw + 26, ly,
                       html_escape(series[i].name));
    }
    s += "</svg>\n";
    return s;
}

std::string svg_heatmap(const std::string& title, const std::vector<double>& columns,
                        const std::vector<HeatmapRow>& rows,
                        const std::vector<std::string>& legend) {
    const double row_h = rows.size() > 40 ? 6 : 14;
    // Room for the longest row label (about 7 px per character at this font size).
    size_t longest = 0;
    for (const auto& r : rows)
        longest = std::max(longest, r.label.size());
    const int left = row_h >= 10 ? std::max(kLeft, static_cast<int>(7 * longest) + 8) : kLeft;
    const double pw = kWidth - left - kRight;
    const int height = static_cast<int>(kTop + row_h * static_cast<double>(rows.size()) + kBottom);
    const double cw = columns.empty() ? pw : pw / static_cast<double>(columns.size());
    std::string s;
    frame(s, title, height);
    auto it = std::back_inserter(s);
    for (size_t r = 0; r < rows.size(); ++r) {
        const double y = kTop + row_h * static_cast<double>(r);
        if (row_h >= 10)
            fmt::format_to(it, "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
                           left - 4, y + row_h - 3, html_escape(rows[r].label));
        for (size_t c = 0; c < rows[r].cells.size() && c < columns.size(); ++c) {
            if (rows[r].cells[c] < 0) continue;
            fmt::format_to(it,
                           "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" "
                           "fill=\"{}\"/>\n",
                           left + cw * static_cast<double>(c), y, cw + 0.01, row_h - 1,
                           chart_colour(static_cast<size_t>(rows[r].cells[c])));
        }
    }
    const double bottom = kTop + row_h * static_cast<double>(rows.size());
    if (!columns.empty())
        for (const double t : ticks(columns.front(), columns.back())) {
            const double span = columns.back() - columns.front();
            const double x = left + (span > 0 ? (t - columns.front()) / span : 0) * (pw - cw);
            fmt::format_to(it, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                           x + cw / 2, bottom + 14, tick_text(t));
        }
    fmt::format_to(it, "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">time (s)</text>\n",
                   left + pw / 2, height - 8);
    for (size_t i = 0; i < legend.size(); ++i) {
        const double ly = kTop + 8 + 16.0 * static_cast<double>(i);
        fmt::format_to(it,
                       "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"10\" height=\"10\" fill=\"{}\"/>"
                       "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
                       left + pw + 12, ly - 9, chart_colour(i), left + pw + 26, ly,
                       html_escape(legend[i]));
    }
    s += "</svg>\n";
    return s;
}

}  // namespace numasim
