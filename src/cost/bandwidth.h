// Closed-loop sharing of memory bandwidth: the delivered throughput of the tasks that use a
// node's DRAM or a link never exceeds its bandwidth, and tasks stall until they are served.
//
// Each resource r (a node's DRAM, one direction of a link) has a bandwidth B_r and a queueing
// delay Q_r that every access through it waits on top of the idle latency. A running task i
// spends, per cache line of progress,
//     t_i(Q) = fixed_i + sum_r w_ir * Q_r
// (CPU work plus the idle memory stall, plus the delays weighted by how often its misses cross
// each resource, divided by its memory-level parallelism: Little's law), so it makes progress at
// 1 / t_i lines per ns and moves b_ir bytes per line through resource r. The load of r is
//     D_r(Q) = background_r + sum_i duty_i * b_ir / t_i(Q)
// and its delay follows the loaded-latency curve Q_r = knee_r * rho / (1 - rho) at the
// delivered utilisation rho = D_r / B_r, so at the fixed point
//     F_r(Q) = D_r(Q) / B_r - Q_r / (knee_r + Q_r) = 0.
// F_r falls in Q_r and is convex (D_r is a sum of 1/(a + wQ), Q/(k+Q) is concave), so Newton's
// method on each resource converges; all resources take a Newton step per pass, with their own
// derivative, warm-started from the last solve. Because the delay grows without bound as rho
// approaches 1, every fixed point has D_r < B_r. A resource whose load does not fall with its
// own delay (background copies and uses that do not wait on it) and stays at or above B_r has
// none: its delay is held at a finite cap and it counts as solved (saturated). A solve that stops
// before the fixed point is made safe by proportional backpressure: each resource still over its
// bandwidth scales the tasks that use it by B_r / D_r (clip), and a task runs at the smallest clip
// on its path. One pass costs O(sum over tasks of the resources each uses).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace numasim {

class BandwidthSolver {
  public:
    struct Resource {
        double bandwidth = 0;  // bytes per ns (GB/s)
        double knee_ns = 0;    // delay scale of the loaded-latency curve
    };
    // A task's use of a resource: `stall_weight` ns of waiting per ns of its delay, and `bytes`
    // through it, per line of progress.
    struct Use {
        int resource;
        double stall_weight, bytes;
        bool operator==(const Use&) const = default;
    };
    // Adds a use to `uses[first..]`: into the entry of the same resource if there is one, else
    // as a new last entry (returns true then). How add_use adds up a task's repeated uses.
    static bool add_up(std::vector<Use>& uses, size_t first, const Use& u);

    void init(std::vector<Resource> resources);
    int nr_resources() const { return static_cast<int>(res_.size()); }

    // --- the demand of one solve ---
    void clear();
    // Starts a task that needs `fixed_ns` per line besides queueing and makes progress during
    // `duty` of the interval (the rest it spends in the kernel or stalled on other things).
    void add_task(double fixed_ns, double duty);
    // The last task added waits `stall_weight` ns per ns of delay at `resource` per line and moves
    // `bytes` through it per line. Repeated uses of one resource add up.
    void add_use(int resource, double stall_weight, double bytes);
    // The last task's uses, already added up per resource (add_up): nothing to look for.
    // Tasks given the same nonzero `id` must have been given the same fixed_ns and the same
    // uses (one demand held by many CPUs, cost/cost_model.h): one with the same duty as an
    // earlier one takes that task's uses and, in each pass, its line time and loads, computed
    // once and added in task order as before, so every sum has the same bits. A task given its
    // uses here takes no add_use.
    void add_uses(std::span<const Use> summed, uint64_t id = 0);
    // Load that does not react to the delay (kernel copies and page clearing), bytes per ns.
    void set_background(int resource, double bytes_per_ns);

    // Runs up to `max_passes` Newton passes, then sets the clips. Returns the passes used.
    int solve(int max_passes);
    // Whether the last solve left the delays and its step memory bit for bit as it found them.
    // Then solving the same demand again repeats that solve exactly, and may be skipped.
    bool at_fixed_point() const { return fixed_point_; }

    // --- the result ---
    double delay(int r) const { return q_[r]; }
    double clip(int r) const { return clip_[r]; }
    // Delivered load after backpressure, bytes per ns, and as a fraction of the bandwidth.
    double load(int r) const { return load_[r]; }
    double utilisation(int r) const { return load_[r] / res_[r].bandwidth; }
    // Lines per ns of the i-th task added, after backpressure.
    double task_rate(int i) const { return rate_[i]; }
    double residual(int r) const;  // |F_r| at the current delays
    // Whether `o` holds bit for bit the same delays, clips, loads and task rates.
    bool same_result(const BandwidthSolver& o) const;

  private:
    struct Task {
        double fixed_ns, duty;
        uint32_t first, count;
        // The first task of the same id and duty (this one's own index if none), and whether a
        // later task takes this one's figures.
        uint32_t rep;
        bool repeated;
    };
    // The tasks of this solve by id and duty, direct-mapped by id: an entry stands for this
    // solve while its `solve` is solves_; a task whose entry another took is its own rep.
    struct Seen {
        uint64_t id = 0;
        double duty = 0;
        uint32_t task = 0;
        uint64_t solve = 0;
    };
    static constexpr size_t kSeen = 4096;  // a power of two, above the CPUs of any preset
    std::vector<Seen> seen_;
    uint64_t solves_ = 1;
    double line_ns(const Task& t) const;
    // The end of the run of tasks from i on that repeat i's rep, one after the other.
    size_t run_end(size_t i) const;
    void evaluate(std::vector<double>& d, std::vector<double>* dd,
                  std::vector<double>* ns = nullptr) const;

    std::vector<Resource> res_;
    std::vector<double> q_, clip_, load_, background_, f_prev_;
    std::vector<double> q_start_, f_start_;  // q_ and f_prev_ when the last solve began
    bool fixed_point_ = false;
    std::vector<Task> tasks_;
    std::vector<Use> uses_;
    std::vector<double> rate_;
    mutable std::vector<double> d_, dd_;
    std::vector<double> f_;  // each resource's distance from its curve, in a pass
    // Per use of a repeated task, in the pass now: the bytes it moves per ns and what it takes
    // off the slope, for the tasks that repeat it; per task, its line time.
    mutable std::vector<double> moved_, slope_off_, line_;
    std::vector<double> ns_;  // each task's line time at the final delays
};

}  // namespace numasim
