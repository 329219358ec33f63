// Named random streams derived from one seed. Each component asks for its own stream by name
// ("sched.wakeup", "workload.specjbb.0"), so adding a random draw in one place never shifts the
// numbers another place sees. The generator is xoshiro256** seeded through splitmix64, and every
// distribution is written here so results do not depend on the standard library's algorithms.
#pragma once

#include <cstdint>
#include <string_view>

namespace numasim {

class Rng {
  public:
    Rng() : Rng(0, "") {}
    Rng(uint64_t seed, std::string_view stream);

    uint64_t next_u64();
    double uniform();            // [0, 1)
    uint64_t below(uint64_t n);  // [0, n), unbiased; n > 0
    bool bernoulli(double p);
    double exponential(double rate);  // mean 1/rate
    double normal();                  // standard normal: mean 0, standard deviation 1
    uint64_t geometric(double p);     // failures before the first success; p in (0, 1]
    uint64_t binomial(uint64_t n, double p);
    uint64_t poisson(double mean);

  private:
    uint64_t s_[4];
    // geometric()'s log1p(-p) for the last p: a stream's draws come in runs with one p.
    double geometric_p_ = -1, geometric_log_ = 0;
};

// Derives a per-iteration or per-run seed from a base seed and an index (splitmix64 mixing).
uint64_t derive_seed(uint64_t base, uint64_t index);

}  // namespace numasim
