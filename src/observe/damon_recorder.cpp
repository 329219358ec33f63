#include "observe/damon_recorder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kernel/system.h"
#include "mm/mm.h"
#include "mm/vma.h"

namespace numasim {

double damon_sample_hit(double lambda) {
    return lambda > 0 ? -std::expm1(-lambda) : 0.0;
}

int damon_nr_accesses(double expected_hits) {
    return static_cast<int>(
        std::lround(std::clamp(expected_hits, 0.0, static_cast<double>(kDamonMaxNrAccesses))));
}

uint32_t damon_next_age(int prev, int now, uint32_t prev_age) {
    if (prev < 0 || std::abs(now - prev) > kDamonAgeThreshold) return 0;
    return prev_age + 1;
}

std::vector<DamonPiece> damon_bound_regions(std::vector<DamonPiece> pieces, uint64_t page_bytes,
                                            size_t min_nr, size_t max_nr) {
    while (!pieces.empty() && pieces.size() < min_nr) {
        // The largest piece (the first of equals), cut at the page edge nearest its middle.
        auto big = std::max_element(pieces.begin(), pieces.end(), [](const auto& a, const auto& b) {
            return a.end - a.start < b.end - b.start;
        });
        const uint64_t pages = (big->end - big->start) / page_bytes;
        if (pages < 2) break;
        DamonPiece right = *big;
        right.start = big->start + pages / 2 * page_bytes;
        big->end = right.start;
        pieces.insert(big + 1, right);
    }
    while (pieces.size() > max_nr) {
        std::vector<DamonPiece> joined;
        for (size_t i = 0; i < pieces.size(); i += 2) {
            if (i + 1 == pieces.size()) {
                joined.push_back(pieces[i]);
                break;
            }
            const DamonPiece& a = pieces[i];
            const DamonPiece& b = pieces[i + 1];
            const auto sa = static_cast<double>(a.end - a.start);
            const auto sb = static_cast<double>(b.end - b.start);
            joined.push_back({a.start, b.end, (a.lambda * sa + b.lambda * sb) / (sa + sb)});
        }
        pieces = std::move(joined);
    }
    return pieces;
}

namespace {

// A region's expected accesses per page (all pages, and the extra of its hot pages) as the
// recorder last saw them.
struct RegionSeen {
    double all = 0, hot = 0;
};

// The pieces of `mm`'s address space between the edges of its regions and their hot parts, each
// with its pages' expected accesses since `seen` (the regions covering it added up); `seen`, by
// index in Mm::regions (which only grows), is brought up to date.
std::vector<DamonPiece> region_pieces(const Mm& mm, std::vector<RegionSeen>& seen) {
    struct Span {
        uint64_t start, end;
        double per_page;
    };
    std::vector<Span> spans;
    std::vector<uint64_t> edges;
    seen.resize(mm.regions.size());
    for (size_t i = 0; i < mm.regions.size(); ++i) {
        const Region& r = *mm.regions[i];
        const RegionAccesses& a = r.accesses;
        const RegionSeen now{a.all, a.hot};
        const RegionSeen d{now.all - seen[i].all, now.hot - seen[i].hot};
        seen[i] = now;
        if (!r.vma || r.count == 0) continue;
        const uint64_t page = r.vma->pages.size();
        const uint64_t start = r.vma->start + r.first * page, end = start + r.count * page;
        spans.push_back({start, end, d.all});
        edges.insert(edges.end(), {start, end});
        if (a.hot_pages > 0 && a.hot_pages < r.count) {
            spans.push_back({start, start + a.hot_pages * page, d.hot});
            edges.push_back(start + a.hot_pages * page);
        } else if (a.hot_pages >= r.count) {
            spans.back().per_page += d.hot;
        }
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    // Per elementary piece (between consecutive edges): spans covering it and their sum, as
    // differences at the edges where spans begin and end.
    std::vector<double> add(edges.size(), 0.0);
    std::vector<int> cover(edges.size(), 0);
    auto at = [&](uint64_t x) {
        return static_cast<size_t>(std::lower_bound(edges.begin(), edges.end(), x) - edges.begin());
    };
    for (const Span& s : spans) {
        add[at(s.start)] += s.per_page;
        add[at(s.end)] -= s.per_page;
        ++cover[at(s.start)];
        --cover[at(s.end)];
    }
    std::vector<DamonPiece> pieces;
    double sum = 0;
    int covered = 0;
    for (size_t i = 0; i + 1 < edges.size(); ++i) {
        sum += add[i];
        covered += cover[i];
        if (covered > 0) pieces.push_back({edges[i], edges[i + 1], std::max(0.0, sum)});
    }
    return pieces;
}

uint64_t page_bytes_of(const Mm& mm) {
    return mm.pages.size();
}

struct RegionRecord {
    uint64_t start, end;
    int nr_accesses;
    uint32_t age;
};

struct Window {
    Nanos start, end;
    size_t first, count;  // in Target::records
};

}  // namespace

struct DamonRecorder::Target {
    const Mm* mm = nullptr;
    bool ended = false;
    Nanos window_start = 0;                      // of the window being counted
    std::vector<RegionSeen> seen;                // by index in Mm::regions, at the last look
    std::vector<DamonPiece> bounded;             // the regions DAMON keeps (layout only)
    std::vector<double> hits;                    // per bounded region, in the current window
    std::vector<std::pair<int, uint32_t>> last;  // per bounded region: nr_accesses, age before
    std::vector<Window> windows;
    std::vector<RegionRecord> records;
};

DamonRecorder::DamonRecorder() = default;
DamonRecorder::~DamonRecorder() = default;

DamonRecorder::Target& DamonRecorder::target_of(const System& sys, size_t i) {
    // System::mms only grows, so its order is the targets' order.
    while (targets_.size() <= i) {
        Target t;
        t.mm = sys.mms[targets_.size()].get();
        // Counted from the first whole window after it appears (a window already under way is
        // not recorded), from what its regions had then: before the first look, nothing (the
        // run starts); later, what a fork copied or the last look's span added.
        const Nanos from = last_ == 0 ? 0 : sys.now;
        t.window_start = (from + kDamonAggrInterval - 1) / kDamonAggrInterval * kDamonAggrInterval;
        if (last_ > 0)
            for (const auto& r : t.mm->regions)
                t.seen.push_back({r->accesses.all, r->accesses.hot});
        targets_.push_back(std::move(t));
    }
    return targets_[i];
}

void DamonRecorder::sample(const System& sys) {
    const Nanos now = sys.now, span = now - last_;
    if (span <= 0) return;
    const double samples_in_span = static_cast<double>(span) / kDamonSampleInterval;
    for (size_t mi = 0; mi < sys.mms.size(); ++mi) {
        Target& t = target_of(sys, mi);
        if (t.ended) continue;
        if (t.mm->mm_users == 0) {
            t.ended = true;  // DAMON drops a target whose process is gone; its window with it
            continue;
        }
        const uint64_t page = page_bytes_of(*t.mm);
        // This look's accesses per page of each elementary piece.
        const std::vector<DamonPiece> delta = region_pieces(*t.mm, t.seen);
        std::vector<DamonPiece> layout = delta;
        for (DamonPiece& p : layout)
            p.lambda = 0;
        std::vector<DamonPiece> bounded =
            damon_bound_regions(layout, page, kDamonMinNrRegions, kDamonMaxNrRegions);
        if (bounded != t.bounded) {
            // Regions kept carry their count and age; new ones start afresh.
            std::vector<double> hits(bounded.size(), 0.0);
            std::vector<std::pair<int, uint32_t>> last(bounded.size(), {-1, 0});
            for (size_t i = 0; i < bounded.size(); ++i)
                for (size_t j = 0; j < t.bounded.size(); ++j)
                    if (t.bounded[j] == bounded[i]) {
                        hits[i] = t.hits[j];
                        last[i] = t.last[j];
                    }
            t.bounded = std::move(bounded);
            t.hits = std::move(hits);
            t.last = std::move(last);
        }
        // Each region's chance of a hit per sample: the sampled page is any of its pages alike.
        std::vector<double> p_hit(t.bounded.size(), 0.0);
        for (size_t i = 0, j = 0; i < t.bounded.size(); ++i) {
            const DamonPiece& b = t.bounded[i];
            while (j < delta.size() && delta[j].end <= b.start)
                ++j;
            for (size_t k = j; k < delta.size() && delta[k].start < b.end; ++k) {
                const DamonPiece& d = delta[k];
                const uint64_t lo = std::max(b.start, d.start), hi = std::min(b.end, d.end);
                if (lo >= hi) continue;
                p_hit[i] += damon_sample_hit(std::max(0.0, d.lambda) / samples_in_span) *
                            static_cast<double>(hi - lo) / static_cast<double>(b.end - b.start);
            }
        }
        // The span's samples go to the windows it overlaps; every window it completes is kept.
        Nanos from = std::max(last_, t.window_start);
        while (from < now) {
            const Nanos window_end = t.window_start + kDamonAggrInterval;
            const Nanos to = std::min(now, window_end);
            const double samples = static_cast<double>(to - from) / kDamonSampleInterval;
            for (size_t i = 0; i < p_hit.size(); ++i)
                t.hits[i] += p_hit[i] * samples;
            from = to;
            if (to < window_end) break;
            if (!t.bounded.empty()) {
                t.windows.push_back({t.window_start, window_end, t.records.size(), 0});
                for (size_t i = 0; i < t.bounded.size(); ++i) {
                    const int nr = damon_nr_accesses(t.hits[i]);
                    const uint32_t age = damon_next_age(t.last[i].first, nr, t.last[i].second);
                    t.records.push_back({t.bounded[i].start, t.bounded[i].end, nr, age});
                    t.last[i] = {nr, age};
                    t.hits[i] = 0;
                }
                t.windows.back().count = t.bounded.size();
            }
            t.window_start = window_end;
        }
    }
    last_ = now;
}

void DamonRecorder::write(std::FILE* out) const {
    // The keys and layout of damo's `record --output_type json` (DamonRecord.to_kvpairs(raw=True):
    // numbers as strings of digits, nr_accesses in samples).
    fmt::print(out, "[");
    int id = 0;
    bool first_record = true;
    for (const Target& t : targets_) {
        if (t.windows.empty()) continue;
        fmt::print(out,
                   "{}\n    {{\n        \"kdamond_idx\": 0,\n        \"context_idx\": 0,\n"
                   "        \"intervals\": {{\n            \"sample_us\": \"{}\",\n"
                   "            \"aggr_us\": \"{}\"\n        }},\n        \"scheme_idx\": null,\n"
                   "        \"target_id\": {},\n        \"scheme_filters\": [],\n"
                   "        \"snapshots\": [",
                   first_record ? "" : ",", kDamonSampleInterval / NSEC_PER_USEC,
                   kDamonAggrInterval / NSEC_PER_USEC, id++);
        first_record = false;
        for (size_t w = 0; w < t.windows.size(); ++w) {
            const Window& win = t.windows[w];
            uint64_t total = 0;
            for (size_t i = win.first; i < win.first + win.count; ++i)
                total += t.records[i].end - t.records[i].start;
            fmt::print(out,
                       "{}\n            {{\n                \"start_time\": \"{}\",\n"
                       "                \"end_time\": \"{}\",\n                \"regions\": [",
                       w ? "," : "", win.start, win.end);
            for (size_t i = win.first; i < win.first + win.count; ++i) {
                const RegionRecord& r = t.records[i];
                fmt::print(out,
                           "{}\n                    {{\"start\": \"{}\", \"end\": \"{}\", "
                           "\"nr_accesses\": {{\"samples\": {}, \"percent\": null}}, \"age\": "
                           "{{\"usec\": null, \"aggr_intervals\": \"{}\"}}}}",
                           i > win.first ? "," : "", r.start, r.end, r.nr_accesses, r.age);
            }
            fmt::print(out,
                       "\n                ],\n                \"total_bytes\": \"{}\",\n"
                       "                \"sample_interval_us\": \"{}\"\n            }}",
                       total, kDamonSampleInterval / NSEC_PER_USEC);
        }
        fmt::print(out, "\n        ]\n    }}");
    }
    fmt::print(out, "\n]\n");
}

}  // namespace numasim
