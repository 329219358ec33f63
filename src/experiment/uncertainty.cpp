#include "experiment/uncertainty.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "experiment/pool.h"
#include "experiment/validate.h"

namespace numasim {

std::vector<std::vector<VariantRuns>> make_draws(const std::vector<VariantRuns>& nominal, int draws,
                                                 const cost::FigureSet& ranges) {
    std::vector<std::vector<VariantRuns>> out{nominal};
    if (nominal.empty()) return out;
    const uint64_t seed = nominal.front().scenario.seed;
    for (int d = 1; d < draws; ++d) {
        const cost::FigureSet f = cost::draw_figures(ranges, seed, d);
        std::vector<VariantRuns> v = nominal;
        for (VariantRuns& x : v) {
            x.runs.clear();
            x.scenario.figures = f.kernel;
            cost::scale_machine_figures(x.scenario.machine, f.machine);
        }
        out.push_back(std::move(v));
    }
    return out;
}

void run_draws(std::vector<std::vector<VariantRuns>>& draws, int workers,
               const std::function<void()>& progress, const ObserveOptions* obs) {
    // One flat list of (draw, variant, iteration) runs, as run_variants lays out one draw's.
    std::vector<std::tuple<size_t, size_t, int>> work;
    for (size_t d = 0; d < draws.size(); ++d)
        for (size_t vi = 0; vi < draws[d].size(); ++vi) {
            VariantRuns& v = draws[d][vi];
            v.runs.resize(v.scenario.iterations);
            for (int i = 0; i < v.scenario.iterations; ++i)
                work.emplace_back(d, vi, i);
        }
    run_jobs(
        work.size(), workers,
        [&](size_t k) {
            const auto [d, vi, i] = work[k];
            VariantRuns& v = draws[d][vi];
            const Scenario& sc = v.scenario;
            v.runs[i] = run_once(sc, iteration_seed(sc, i), d == 0 ? obs : nullptr,
                                 {v.name, i, sc.iterations});
        },
        progress);
}

EffectSpread effect_spread(const std::vector<double>& values) {
    EffectSpread s;
    s.nominal = values.front();
    std::vector<double> v = values;
    std::sort(v.begin(), v.end());
    s.min = v.front();
    s.max = v.back();
    const size_t n = v.size();
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    const auto sign = [](double x) { return (x > 0) - (x < 0); };
    s.sign_holds =
        std::all_of(v.begin(), v.end(), [&](double x) { return sign(x) == sign(s.nominal); });
    return s;
}

namespace {

// The mean of every operation over a variant's runs.
std::map<std::string, double> operation_means(const VariantRuns& v) {
    std::map<std::string, std::pair<double, int>> sum;
    for (const RunResult& r : v.runs)
        for (const Operation& o : run_operations(r)) {
            auto& [total, n] = sum[o.name];
            total += o.value;
            ++n;
        }
    std::map<std::string, double> mean;
    for (const auto& [name, s] : sum)
        mean[name] = s.first / s.second;
    return mean;
}

}  // namespace

std::vector<UncertainEffect> compare_effect_spreads(
    const std::vector<std::vector<VariantRuns>>& draws) {
    // The operations in the order the compare table lists them: as they first appear.
    std::vector<std::string> ops;
    for (const VariantRuns& v : draws.front())
        for (const RunResult& r : v.runs)
            for (const Operation& o : run_operations(r))
                if (std::find(ops.begin(), ops.end(), o.name) == ops.end()) ops.push_back(o.name);
    std::vector<std::vector<std::map<std::string, double>>> means;  // [draw][variant]
    for (const auto& d : draws) {
        means.emplace_back();
        for (const VariantRuns& v : d)
            means.back().push_back(operation_means(v));
    }
    std::vector<UncertainEffect> out;
    const auto& variants = draws.front();
    for (const std::string& op : ops)
        for (size_t vi = 1; vi < variants.size(); ++vi) {
            std::vector<double> changes;
            for (const auto& m : means) {
                const auto from = m.front().find(op), to = m[vi].find(op);
                if (from == m.front().end() || to == m[vi].end()) break;
                changes.push_back(pct_change(from->second, to->second));
            }
            // An operation that not every draw of both variants reports has no spread.
            if (changes.size() != draws.size()) continue;
            out.push_back({op, variants.front().name, variants[vi].name, effect_spread(changes)});
        }
    return out;
}

}  // namespace numasim
