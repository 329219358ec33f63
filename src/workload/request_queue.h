// The parts of the request-serving model (workload/request_serving.cpp) that need no simulated
// machine: the service-time distributions, the arrival stream of one worker, the split of a
// batch's elapsed time over its requests, the saturation rate and the exact percentiles of the
// request latencies. docs/workloads/request-serving.md.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/clock.h"
#include "sim/rng.h"

namespace numasim {

enum class ServiceDist { Fixed, Exponential, Lognormal };

// The CPU time a request needs, with its data in local memory and the CPU to itself.
struct ServiceTime {
    ServiceDist dist = ServiceDist::Exponential;
    Nanos mean = 0;    // above 0
    double sigma = 0;  // lognormal: the standard deviation of ln(service time)

    // One request's service time, at least 1 ns. A lognormal draw is exp(mu + sigma * z) with
    // mu = ln(mean) - sigma^2 / 2, so that its mean is `mean`.
    Nanos draw(Rng& rng) const;
};

// Requests per second the machine could ever serve: every worker that has a CPU of its own busy
// all the time (min(workers, cpus) / mean service time).
double saturation_rate(int workers, int cpus, Nanos mean_service);

// One worker's requests in arrival order: a Poisson stream of `rate_per_s`, starting at `start`.
// Each request gets its service time when it is taken.
class ArrivalStream {
  public:
    ArrivalStream(Rng rng, double rate_per_s, Nanos start);
    Nanos next() const { return next_; }  // arrival of the first request not yet taken
    // Takes that request: its arrival, and the next one is drawn.
    Nanos take();
    Rng& rng() { return rng_; }

  private:
    Rng rng_;
    double rate_per_ns_;
    double clock_;  // exact arrival time of the next request, in ns
    Nanos next_;
};

// A batch of requests served back to back in one program phase: each request's completion time
// when the phase, started at `start`, ended at `end`. The phase's time is split in proportion to
// the requests' bytes (equally, their service times); `cum_bytes[i]` is the bytes of requests
// 0..i.
void batch_completions(Nanos start, Nanos end, std::span<const double> cum_bytes,
                       std::vector<Nanos>& out);

// The p-th percentile (0..100) of `sorted` (ascending, not empty): the value of nearest rank
// ceil(p/100 * N), at least 1 (sim/log2_hist.h's rank, on exact values).
Nanos percentile_of_sorted(std::span<const Nanos> sorted, double p);

}  // namespace numasim
