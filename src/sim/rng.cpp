#include "sim/rng.h"

#include <cmath>

namespace numasim {

namespace {

uint64_t splitmix64(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t fnv1a(std::string_view s) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (char c : s) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ULL;
    }
    return h;
}

uint64_t rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

}  // namespace

Rng::Rng(uint64_t seed, std::string_view stream) {
    uint64_t x = seed ^ fnv1a(stream);
    for (auto& s : s_)
        s = splitmix64(x);
}

uint64_t Rng::next_u64() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
}

double Rng::uniform() {
    return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
}

uint64_t Rng::below(uint64_t n) {
    // Lemire's multiply-shift with rejection of the biased low range.
    unsigned __int128 m = static_cast<unsigned __int128>(next_u64()) * n;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < n) {
        const uint64_t threshold = (0 - n) % n;
        while (low < threshold) {
            m = static_cast<unsigned __int128>(next_u64()) * n;
            low = static_cast<uint64_t>(m);
        }
    }
    return static_cast<uint64_t>(m >> 64);
}

bool Rng::bernoulli(double p) {
    return p >= 1.0 || (p > 0.0 && uniform() < p);
}

double Rng::exponential(double rate) {
    return -std::log1p(-uniform()) / rate;
}

double Rng::normal() {
    // Box-Muller: two uniforms give a normal deviate. Only the cosine branch is used, so each
    // draw takes exactly two uniforms and no state is carried between draws.
    constexpr double kTwoPi = 6.283185307179586;
    const double u1 = 1.0 - uniform();  // (0, 1]: the logarithm stays finite
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
}

uint64_t Rng::geometric(double p) {
    if (p >= 1.0) return 0;
    const double u = 1.0 - uniform();  // (0, 1]
    if (p != geometric_p_) {
        geometric_p_ = p;
        geometric_log_ = std::log1p(-p);
    }
    // log(u) <= 0 and log1p(-p) < 0: the quotient is never negative, so truncation is its
    // floor (std::floor without SSE4.1 is a dozen instructions of emulation on every draw).
    return static_cast<uint64_t>(std::log(u) / geometric_log_);
}

uint64_t Rng::poisson(double mean) {
    if (mean <= 0) return 0;
    if (mean < 30) {
        // Knuth's product of uniforms: exact, fine for small means.
        const double limit = std::exp(-mean);
        uint64_t k = 0;
        double prod = uniform();
        while (prod > limit) {
            ++k;
            prod *= uniform();
        }
        return k;
    }
    // Normal approximation with continuity correction: the error is far below the model's.
    const double u1 = 1.0 - uniform(), u2 = uniform();
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * M_PI * u2);
    const double v = std::floor(mean + std::sqrt(mean) * z + 0.5);
    return v < 0 ? 0 : static_cast<uint64_t>(v);
}

uint64_t Rng::binomial(uint64_t n, double p) {
    if (n == 0 || p <= 0) return 0;
    if (p >= 1) return n;
    if (p > 0.5) return n - binomial(n, 1 - p);
    const double mean = static_cast<double>(n) * p;
    if (n <= 64) {
        uint64_t k = 0;
        for (uint64_t i = 0; i < n; ++i)
            k += uniform() < p;
        return k;
    }
    if (mean < 30) {
        // Count successes by geometric gaps: O(mean) draws.
        uint64_t k = 0, pos = geometric(p);
        while (pos < n) {
            ++k;
            pos += 1 + geometric(p);
        }
        return k;
    }
    const double sd = std::sqrt(mean * (1 - p));
    const double u1 = 1.0 - uniform(), u2 = uniform();
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * M_PI * u2);
    const double v = std::floor(mean + sd * z + 0.5);
    if (v < 0) return 0;
    return v > static_cast<double>(n) ? n : static_cast<uint64_t>(v);
}

uint64_t derive_seed(uint64_t base, uint64_t index) {
    uint64_t x = base ^ (index * 0xd1b54a32d192ed03ULL);
    splitmix64(x);
    return splitmix64(x);
}

}  // namespace numasim
