#include "cli/latency_options.h"

#include <charconv>

#include "cli/value_hints.h"
#include "config/input_error.h"

namespace numasim {

void LatencyCliOptions::add_to(CLI::App& app) {
    app.add_flag("--latency", on,
                 "record every stretch of time NUMA balancing takes from each task "
                 "(task_numa_work, hinting faults, migration-entry waits, TLB-shootdown IPIs, "
                 "the runqueue wait after a NUMA move; and, the other side of the trade, the "
                 "remote-access stall per tick) and report it as bcc-style log2 histograms "
                 "with percentiles");
    per_opt_ = one_of(app.add_option("--latency-per", per,
                                     "one histogram per task (bcc's tid sections) or per "
                                     "process (pid sections)"),
                      {"task", "process"});
    unit_opt_ = one_of(app.add_option("--latency-unit", unit,
                                      "bucket in microseconds, or in milliseconds as bcc's "
                                      "funclatency -m and runqlat -m do"),
                       {"usecs", "msecs"});
    percentiles_opt_ = app.add_option(
        "--latency-percentiles", percentiles,
        "the percentiles to print, comma-separated, each from 0 to 100 (default 50,90,99,99.9)");
}

LatencyReportOptions LatencyCliOptions::report_options() const {
    for (const CLI::Option* o : {per_opt_, unit_opt_, percentiles_opt_})
        if (o && o->count() > 0 && !on)
            throw InputError(o->get_name(), "", "reports latency histograms: add --latency");
    LatencyReportOptions r;
    r.per_process = per == "process";
    r.msecs = unit == "msecs";
    r.percentiles.clear();
    std::string_view rest = percentiles;
    for (;;) {
        const size_t comma = rest.find(',');
        const std::string_view item = rest.substr(0, comma);
        double p = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), p);
        if (item.empty() || ec != std::errc{} || end != item.data() + item.size() || !(p >= 0) ||
            p > 100)
            throw InputError("--latency-percentiles", std::string(item),
                             "a percentile is a number from 0 to 100");
        r.percentiles.push_back(p);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    return r;
}

}  // namespace numasim
