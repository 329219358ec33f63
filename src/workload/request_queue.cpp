#include "workload/request_queue.h"

#include <algorithm>
#include <cmath>

#include "sim/log2_hist.h"

namespace numasim {

namespace {
// An arrival this late never comes in a run (at most a day, config/limits.h): the stream's clock
// stops there, so that at any rate its times stay far inside a 64-bit count of ns.
constexpr double kNeverNs = 1e18;

Nanos advance(double& clock, Rng& rng, double rate_per_ns) {
    clock = std::min(kNeverNs, clock + rng.exponential(rate_per_ns));
    return std::llround(clock);
}
}  // namespace

Nanos ServiceTime::draw(Rng& rng) const {
    const double m = static_cast<double>(mean);
    double s = m;
    switch (dist) {
        case ServiceDist::Fixed:
            break;
        case ServiceDist::Exponential:
            s = rng.exponential(1.0 / m);
            break;
        case ServiceDist::Lognormal:
            s = std::exp(std::log(m) - sigma * sigma / 2 + sigma * rng.normal());
            break;
    }
    return std::max<Nanos>(1, std::llround(s));
}

double saturation_rate(int workers, int cpus, Nanos mean_service) {
    return static_cast<double>(std::min(workers, cpus)) * NSEC_PER_SEC /
           static_cast<double>(mean_service);
}

ArrivalStream::ArrivalStream(Rng rng, double rate_per_s, Nanos start)
    : rng_(rng),
      rate_per_ns_(rate_per_s / NSEC_PER_SEC),
      clock_(static_cast<double>(start)),
      next_(advance(clock_, rng_, rate_per_ns_)) {}

Nanos ArrivalStream::take() {
    const Nanos a = next_;
    next_ = advance(clock_, rng_, rate_per_ns_);
    return a;
}

void batch_completions(Nanos start, Nanos end, std::span<const double> cum_bytes,
                       std::vector<Nanos>& out) {
    out.clear();
    if (cum_bytes.empty()) return;
    const double total = cum_bytes.back();
    const double span = static_cast<double>(end - start);
    for (size_t i = 0; i + 1 < cum_bytes.size(); ++i)
        out.push_back(start + std::llround(span * cum_bytes[i] / total));
    out.push_back(end);  // the last request ends with the phase, exactly
}

Nanos percentile_of_sorted(std::span<const Nanos> sorted, double p) {
    const uint64_t rank = nearest_rank(p, sorted.size());
    return sorted[std::min<uint64_t>(rank, sorted.size()) - 1];
}

}  // namespace numasim
