#include "cost/bandwidth.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "sim/exact_add.h"

namespace numasim {

namespace {

// Load that ignores the delays (kernel copies) may not fill a resource completely, or the delay
// would have no finite fixed point; it is held just below the bandwidth.
constexpr double kMaxBackgroundShare = 0.999;
// A pass is close enough when every resource's utilisation is within this of its curve. The
// delays are left where this holds (no step after it), so it is also the solve's accuracy: far
// below any figure the reports print, and far above the round-off of a utilisation summed over
// a thousand tasks (about 1e-13), which no Newton step can remove.
constexpr double kTolerance = 1e-10;

// The longest delay a resource is given, in ns per line: far beyond any queue of cache lines (a
// second per line), and finite. Only a resource with no root reaches it: one whose load does
// not fall as its own delay grows (background copies, and uses that do not wait on it, such as
// write-backs) and stays at or above its bandwidth. Newton's step would grow that delay without
// bound, to infinity and then NaN, which spreads to every task's line time through its zero
// stall weight. Held here, the resource counts as solved (saturated), and backpressure (clip)
// scales its users.
constexpr double kMaxDelayNs = 1e9;

// memcmp may not be given the null data() of an empty vector, even for no bytes.
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

}  // namespace

void BandwidthSolver::init(std::vector<Resource> resources) {
    res_ = std::move(resources);
    const size_t n = res_.size();
    q_.assign(n, 0.0);
    clip_.assign(n, 1.0);
    load_.assign(n, 0.0);
    background_.assign(n, 0.0);
    f_prev_.assign(n, 0.0);
    fixed_point_ = false;
    clear();
}

void BandwidthSolver::clear() {
    ++solves_;
    tasks_.clear();
    uses_.clear();
    std::fill(background_.begin(), background_.end(), 0.0);
}

void BandwidthSolver::add_task(double fixed_ns, double duty) {
    const auto self = static_cast<uint32_t>(tasks_.size());
    tasks_.push_back(Task{fixed_ns, duty, static_cast<uint32_t>(uses_.size()), 0, self, false});
}

bool BandwidthSolver::add_up(std::vector<Use>& uses, size_t first, const Use& u) {
    for (size_t i = first; i < uses.size(); ++i)
        if (uses[i].resource == u.resource) {
            uses[i].stall_weight += u.stall_weight;
            uses[i].bytes += u.bytes;
            return false;
        }
    uses.push_back(u);
    return true;
}

void BandwidthSolver::add_use(int resource, double stall_weight, double bytes) {
    Task& t = tasks_.back();
    if (add_up(uses_, t.first, Use{resource, stall_weight, bytes})) ++t.count;
}

void BandwidthSolver::add_uses(std::span<const Use> summed, uint64_t id) {
    Task& t = tasks_.back();
    if (id != 0) {
        if (seen_.empty()) seen_.resize(kSeen);
        Seen& e = seen_[((id * 0x9E3779B97F4A7C15ull) >> 40) & (kSeen - 1)];
        if (e.solve == solves_ && e.id == id &&
            std::bit_cast<uint64_t>(e.duty) == std::bit_cast<uint64_t>(t.duty)) {
            Task& rep = tasks_[e.task];
            rep.repeated = true;
            t.first = rep.first;
            t.count = rep.count;
            t.rep = e.task;
            return;
        }
        e = Seen{id, t.duty, t.rep, solves_};
    }
    uses_.insert(uses_.end(), summed.begin(), summed.end());
    t.count += static_cast<uint32_t>(summed.size());
}

void BandwidthSolver::set_background(int resource, double bytes_per_ns) {
    background_[resource] =
        std::min(std::max(0.0, bytes_per_ns), kMaxBackgroundShare * res_[resource].bandwidth);
}

double BandwidthSolver::line_ns(const Task& t) const {
    double ns = t.fixed_ns;
    for (uint32_t u = t.first; u < t.first + t.count; ++u)
        ns += uses_[u].stall_weight * q_[uses_[u].resource];
    return ns;
}

// Loads at the current delays and, if `dd` is given, their derivatives dD_r/dQ_r; if `ns` is
// given, each task's line time.
void BandwidthSolver::evaluate(std::vector<double>& d, std::vector<double>* dd,
                               std::vector<double>* ns_out) const {
    d = background_;
    double* const load = d.data();
    double* slope = nullptr;
    if (dd) {
        dd->assign(res_.size(), 0.0);
        slope = dd->data();
    }
    if (ns_out) ns_out->resize(tasks_.size());
    line_.resize(tasks_.size());
    moved_.resize(uses_.size());
    slope_off_.resize(uses_.size());
    for (size_t i = 0; i < tasks_.size(); ++i) {
        const Task& t = tasks_[i];
        const Use* u = uses_.data() + t.first;
        const Use* const end = u + t.count;
        if (t.rep != i) {
            // The figures of its rep, computed earlier in this pass from the same inputs, for
            // this task and the ones right after it that repeat the same rep (threads of one
            // process on the CPUs of one node): each resource takes the same figure once per
            // task, one addition after the other as task by task, with nothing between them.
            const size_t last = run_end(i);
            const size_t tasks = last - i;
            std::fill(line_.begin() + i, line_.begin() + last, line_[t.rep]);
            if (ns_out) std::fill(ns_out->begin() + i, ns_out->begin() + last, line_[t.rep]);
            const double* moved = moved_.data() + t.first;
            const double* off = slope_off_.data() + t.first;
            for (; u != end; ++u, ++moved, ++off) {
                exact_add_n(load[u->resource], *moved, tasks);
                if (slope && u->stall_weight != 0) exact_add_n(slope[u->resource], -*off, tasks);
            }
            i = last - 1;
            continue;
        }
        const double ns = line_ns(t);
        line_[i] = ns;
        if (ns_out) (*ns_out)[i] = ns;
        const double lines = t.duty / ns;
        if (t.repeated) {
            // Kept for the tasks that repeat this one.
            double* moved = moved_.data() + t.first;
            double* off = slope_off_.data() + t.first;
            for (; u != end; ++u, ++moved, ++off) {
                *moved = lines * u->bytes;
                load[u->resource] += *moved;
                if (slope && u->stall_weight != 0) {
                    *off = *moved * u->stall_weight / ns;
                    slope[u->resource] -= *off;
                }
            }
            continue;
        }
        if (!slope) {
            for (; u != end; ++u)
                load[u->resource] += lines * u->bytes;
            continue;
        }
        for (; u != end; ++u) {
            const double moved = lines * u->bytes;
            load[u->resource] += moved;
            // A use the task does not wait on (a posted write-back) adds exactly nothing to the
            // slope: skip its divide.
            if (u->stall_weight != 0) slope[u->resource] -= moved * u->stall_weight / ns;
        }
    }
}

size_t BandwidthSolver::run_end(size_t i) const {
    const uint32_t rep = tasks_[i].rep;
    size_t last = i + 1;
    while (last < tasks_.size() && tasks_[last].rep == rep)
        ++last;
    return last;
}

bool BandwidthSolver::same_result(const BandwidthSolver& o) const {
    return same_bits(q_, o.q_) && same_bits(clip_, o.clip_) && same_bits(load_, o.load_) &&
           same_bits(rate_, o.rate_);
}

double BandwidthSolver::residual(int r) const {
    evaluate(d_, nullptr);
    return std::abs(d_[r] / res_[r].bandwidth - q_[r] / (res_[r].knee_ns + q_[r]));
}

int BandwidthSolver::solve(int max_passes) {
    const size_t n = res_.size();
    q_start_ = q_;
    f_start_ = f_prev_;
    f_.resize(n);
    int pass = 0;
    for (; pass < max_passes; ++pass) {
        evaluate(d_, &dd_);
        // Converged delays are left as they are. Stepping from them anyway moves them by
        // round-off, and the round-off of the next solve moves them back or elsewhere, so the
        // same demand never solves to the same bits and a settled machine is never seen as one
        // (NUMA01_THREADLOCAL on cascadelake-2s wandered through a cycle of five).
        double worst = 0;
        for (size_t r = 0; r < n; ++r) {
            const double q = q_[r];
            f_[r] = d_[r] / res_[r].bandwidth - q / (res_[r].knee_ns + q);
            const bool saturated = q == kMaxDelayNs && f_[r] > 0;
            // Written so that a NaN is never taken for converged.
            if (!saturated && !(std::abs(f_[r]) <= worst)) worst = std::abs(f_[r]);
        }
        if (worst < kTolerance) break;
        for (size_t r = 0; r < n; ++r) {
            const double b = res_[r].bandwidth, k = res_[r].knee_ns, q = q_[r], f = f_[r];
            const double df = dd_[r] / b - k / ((k + q) * (k + q));  // always < 0
            double next = std::clamp(q - f / df, 0.0, kMaxDelayNs);
            // A resource pushed past its root by its neighbours' steps takes half a step, so
            // coupled resources do not chase each other.
            if (f < 0 && f_prev_[r] > 0) next = 0.5 * (q + next);
            f_prev_[r] = f;
            q_[r] = next;
        }
    }
    fixed_point_ = same_bits(q_, q_start_) && same_bits(f_prev_, f_start_);

    // Backpressure: a resource still over its bandwidth slows every task that uses it.
    evaluate(d_, nullptr, &ns_);
    for (size_t r = 0; r < n; ++r) {
        const double b = res_[r].bandwidth;
        clip_[r] = d_[r] > b ? (b - background_[r]) / (d_[r] - background_[r]) : 1.0;
    }
    load_ = background_;
    rate_.resize(tasks_.size());
    for (size_t i = 0; i < tasks_.size(); ++i) {
        const Task& t = tasks_[i];
        if (t.rep != i) {
            // The same uses and line time as its rep, as the tasks right after it that repeat
            // the same rep: their loads added one after the other (evaluate).
            const size_t last = run_end(i);
            std::fill(rate_.begin() + i, rate_.begin() + last, rate_[t.rep]);
            for (uint32_t u = t.first; u < t.first + t.count; ++u)
                exact_add_n(load_[uses_[u].resource], t.duty * rate_[i] * uses_[u].bytes, last - i);
            i = last - 1;
            continue;
        }
        double theta = 1.0;
        for (uint32_t u = t.first; u < t.first + t.count; ++u)
            theta = std::min(theta, clip_[uses_[u].resource]);
        rate_[i] = theta / ns_[i];  // line_ns(t): the delays have not moved since
        for (uint32_t u = t.first; u < t.first + t.count; ++u)
            load_[uses_[u].resource] += t.duty * rate_[i] * uses_[u].bytes;
    }
    return pass;
}

}  // namespace numasim
