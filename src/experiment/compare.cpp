#include "experiment/compare.h"

#include <fmt/format.h>

#include <utility>

#include "config/input_error.h"
#include "experiment/pool.h"

namespace numasim {

std::vector<VariantRuns> load_variants(const std::string& scenario_path,
                                       const ScenarioOverrides& common,
                                       const std::vector<Variant>& variants) {
    std::vector<VariantRuns> out;
    for (size_t i = 0; i < variants.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (variants[i].name == variants[j].name)
                throw InputError(scenario_path, "variant",
                                 fmt::format("two variants are named '{}': the columns of the "
                                             "comparison need distinct names",
                                             variants[i].name));
    for (const Variant& v : variants) {
        ScenarioOverrides ov = common;
        ov.insert(ov.end(), v.overrides.begin(), v.overrides.end());
        out.push_back({v.name, load_scenario_file(scenario_path, ov), {}});
    }
    return out;
}

void run_variants(std::vector<VariantRuns>& out, int workers, const std::function<void()>& progress,
                  const ObserveOptions* obs) {
    // One flat list of (variant, iteration) runs; iteration i of every variant uses the same
    // seed, so variants are compared on common random numbers.
    std::vector<std::pair<size_t, int>> work;
    for (size_t vi = 0; vi < out.size(); ++vi) {
        out[vi].runs.resize(out[vi].scenario.iterations);
        for (int i = 0; i < out[vi].scenario.iterations; ++i)
            work.emplace_back(vi, i);
    }
    run_jobs(
        work.size(), workers,
        [&](size_t k) {
            const auto [vi, i] = work[k];
            const Scenario& sc = out[vi].scenario;
            out[vi].runs[i] =
                run_once(sc, iteration_seed(sc, i), obs, {out[vi].name, i, sc.iterations});
        },
        progress);
}

std::vector<VariantRuns> run_variants(const std::string& scenario_path,
                                      const ScenarioOverrides& common,
                                      const std::vector<Variant>& variants, int workers) {
    auto v = load_variants(scenario_path, common, variants);
    run_variants(v, workers);
    return v;
}

}  // namespace numasim
