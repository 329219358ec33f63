#include "cost/interconnect.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>

#include "machine/topology.h"

namespace numasim {

namespace {

// Above this many nodes every pair counts as directly linked: the route search grows with the
// fourth power of the nodes, and no published machine this large describes its wiring in the SLIT.
constexpr int kMaxRoutedNodes = 64;

}  // namespace

void Interconnect::init(const Topology& t) {
    nodes_ = t.nr_nodes();
    const int n = nodes_;
    links_.clear();
    direct_.assign(static_cast<size_t>(n) * n, -1);
    routes_.assign(static_cast<size_t>(n) * n, {});
    auto d = [&](int a, int b) { return t.node_distance(a, b); };

    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
            if (a == b) continue;
            bool via = false;
            for (int c = 0; c < n && !via && n <= kMaxRoutedNodes; ++c)
                via = c != a && c != b && d(a, c) < d(a, b) && d(c, b) < d(a, b);
            if (via) continue;
            direct_[a * n + b] = static_cast<int>(links_.size());
            links_.push_back(Link{a, b});
        }

    // Shortest routes over the direct links, the length of a link being its SLIT distance.
    constexpr int64_t kFar = std::numeric_limits<int64_t>::max() / 4;
    std::vector<int64_t> dist(static_cast<size_t>(n) * n, kFar);
    for (int a = 0; a < n; ++a) {
        dist[a * n + a] = 0;
        for (int b = 0; b < n; ++b)
            if (direct(a, b) >= 0) dist[a * n + b] = d(a, b);
    }
    for (int k = 0; k < n; ++k)
        for (int a = 0; a < n; ++a)
            for (int b = 0; b < n; ++b)
                dist[a * n + b] = std::min(dist[a * n + b], dist[a * n + k] + dist[k * n + b]);

    // paths[s][x]: number of shortest routes from s to x, counted in order of distance from s.
    std::vector<double> paths(static_cast<size_t>(n) * n, 0.0);
    std::vector<int> order(n);
    for (int s = 0; s < n; ++s) {
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](int x, int y) { return dist[s * n + x] < dist[s * n + y]; });
        paths[s * n + s] = 1;
        for (int x : order)
            for (int u = 0; u < n; ++u)
                if (x != s && direct(u, x) >= 0 && dist[s * n + u] + d(u, x) == dist[s * n + x])
                    paths[s * n + x] += paths[s * n + u];
    }
    // A link u->v carries the share of the s->t routes that pass through it.
    for (int s = 0; s < n; ++s)
        for (int e = 0; e < n; ++e) {
            if (s == e) continue;
            auto& r = routes_[s * n + e];
            for (int l = 0; l < nr_links(); ++l) {
                const int u = links_[l].from, v = links_[l].to;
                if (dist[s * n + u] + d(u, v) + dist[v * n + e] != dist[s * n + e]) continue;
                r.push_back(Hop{l, paths[s * n + u] * paths[v * n + e] / paths[s * n + e]});
            }
        }
}

}  // namespace numasim
