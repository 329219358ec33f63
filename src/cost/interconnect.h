// The interconnect between NUMA nodes as the cost model sees it: which pairs of nodes are joined
// by a direct link, and which links the traffic from one node to another crosses.
//
// The machine description gives no link list, so links come from the SLIT with the test that
// init_numa_topology_type() (kernel/sched/topology.c) applies to tell a glueless mesh from a
// backplane: nodes a and b are joined directly unless some third node c is strictly closer to
// both of them (d(a,c) < d(a,b) and d(c,b) < d(a,b)); then a->b goes through such nodes. Traffic
// takes the shortest routes over direct links (the sum of the links' SLIT distances) and is
// split evenly over all equally short routes, as the QPI/UPI route tables of glueless boards
// spread two-hop traffic over the sockets in between.
#pragma once

#include <vector>

namespace numasim {

struct Topology;

class Interconnect {
  public:
    // One direction of a direct link.
    struct Link {
        int from = 0, to = 0;
    };
    // A link on a route with the share of the route's traffic that crosses it.
    struct Hop {
        int link = 0;
        double share = 1.0;
    };

    void init(const Topology& t);
    int nr_links() const { return static_cast<int>(links_.size()); }
    const Link& link(int l) const { return links_[l]; }
    // The link from `a` to `b`, or -1 if the nodes are not joined directly.
    int direct(int a, int b) const { return direct_[a * nodes_ + b]; }
    // The links that traffic from node `from` to node `to` crosses (empty for from == to).
    const std::vector<Hop>& route(int from, int to) const { return routes_[from * nodes_ + to]; }

  private:
    int nodes_ = 0;
    std::vector<Link> links_;
    std::vector<int> direct_;
    std::vector<std::vector<Hop>> routes_;
};

}  // namespace numasim
