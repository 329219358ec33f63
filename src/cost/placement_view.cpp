#include "cost/placement_view.h"

#include <fmt/format.h>

namespace numasim {

void PlacementViews::init(int nodes, size_t entries) {
    nodes_ = nodes;
    entries_.assign(entries, Entry{});
    shares_.assign(entries * static_cast<size_t>(nodes), 0.0);
}

uint64_t PlacementViews::refresh(Entry& e, const Region& r) {
    const size_t at = static_cast<size_t>(&e - entries_.data()) * static_cast<size_t>(nodes_);
    double* const shares = shares_.data() + at;
    const bool empty = r.present == 0;
    // The same view only if this entry held r's and size and emptiness are what they were.
    bool same = e.region == &r && e.bytes == r.bytes() && e.empty == empty;
    if (!empty)
        for (int n = 0; n < nodes_; ++n) {
            // The division line_demand makes.
            const double f = static_cast<double>(r.pages_on(n)) / static_cast<double>(r.present);
            same = same && shares[n] == f;
            shares[n] = f;
        }
    if (!same) e.id = ++last_id_;
    e.region = &r;
    e.stamp = r.stamp.value;
    e.shared_stamp = shared_stamp(r);
    e.bytes = r.bytes();
    e.empty = empty;
    return e.id;
}

std::optional<std::string> PlacementViews::find_stale(const Region& r) const {
    const Entry& e = entries_[slot(r)];
    if (e.region != &r || e.stamp != r.stamp.value || e.shared_stamp != shared_stamp(r))
        return std::nullopt;
    const double* const shares =
        shares_.data() + static_cast<size_t>(&e - entries_.data()) * static_cast<size_t>(nodes_);
    bool same = e.bytes == r.bytes() && e.empty == (r.present == 0);
    for (int n = 0; same && !e.empty && n < nodes_; ++n)
        same = shares[n] == static_cast<double>(r.pages_on(n)) / static_cast<double>(r.present);
    if (same) return std::nullopt;
    return fmt::format(
        "region {}: the page shares kept at its stamps differ from its counts now: a page count "
        "changed without Region::stamp",
        r.name);
}

}  // namespace numasim
