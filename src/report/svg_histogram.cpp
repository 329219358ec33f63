#include "report/svg_histogram.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "report/svg_chart.h"

namespace numasim {

namespace {

// The line charts' page geometry (report/svg_chart.cpp), so the sections line up.
constexpr int kWidth = 760, kHeight = 280;
constexpr int kLeft = 70, kRight = 170, kTop = 30, kBottom = 45;

}  // namespace

std::string svg_histograms(const std::string& title, const std::string& unit,
                           const std::vector<std::string>& buckets,
                           const std::vector<HistogramSeries>& series) {
    std::string s;
    auto out = std::back_inserter(s);
    fmt::format_to(out,
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                   "viewBox=\"0 0 {} {}\" font-family=\"sans-serif\" font-size=\"11\">\n"
                   "<text x=\"{}\" y=\"18\" font-size=\"14\" font-weight=\"bold\">{}</text>\n",
                   kWidth, kHeight, kWidth, kHeight, kLeft, html_escape(title));
    const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
    const double bottom = kTop + plot_h;
    // The y axis: 0 to 100 % of a series' events, ticks every 25 %.
    for (int pct = 0; pct <= 100; pct += 25) {
        const double y = bottom - plot_h * pct / 100.0;
        fmt::format_to(out,
                       "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n"
                       "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
                       kLeft, y, kLeft + plot_w, y, kLeft - 5, y + 4, pct);
    }
    fmt::format_to(out,
                   "<text x=\"15\" y=\"{:.1f}\" transform=\"rotate(-90 15 {:.1f})\" "
                   "text-anchor=\"middle\">% of events</text>\n"
                   "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                   kTop + plot_h / 2, kTop + plot_h / 2, kLeft + plot_w / 2, kHeight - 5,
                   html_escape(unit));
    const size_t nb = std::max<size_t>(buckets.size(), 1);
    const double group = plot_w / static_cast<double>(nb);
    const double bar = group * 0.8 / static_cast<double>(std::max<size_t>(series.size(), 1));
    for (size_t b = 0; b < buckets.size(); ++b) {
        const double x0 = kLeft + group * static_cast<double>(b) + group * 0.1;
        fmt::format_to(out, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                       x0 + group * 0.4, bottom + 14, html_escape(buckets[b]));
        for (size_t i = 0; i < series.size(); ++i) {
            uint64_t total = 0;
            for (uint64_t c : series[i].counts)
                total += c;
            const uint64_t c = b < series[i].counts.size() ? series[i].counts[b] : 0;
            if (!total || !c) continue;
            const double h = plot_h * static_cast<double>(c) / static_cast<double>(total);
            fmt::format_to(out,
                           "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                           "fill=\"{}\"><title>{}: {}</title></rect>\n",
                           x0 + bar * static_cast<double>(i), bottom - h, bar, h, chart_colour(i),
                           html_escape(series[i].name), c);
        }
    }
    for (size_t i = 0; i < series.size(); ++i) {
        const double y = kTop + 10 + 16.0 * static_cast<double>(i);
        fmt::format_to(out,
                       "<rect x=\"{}\" y=\"{:.1f}\" width=\"10\" height=\"10\" fill=\"{}\"/>\n"
                       "<text x=\"{}\" y=\"{:.1f}\">{}</text>\n",
                       kWidth - kRight + 15, y - 9, chart_colour(i), kWidth - kRight + 30, y,
                       html_escape(series[i].name));
    }
    s += "</svg>\n";
    return s;
}

}  // namespace numasim
