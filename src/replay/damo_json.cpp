#include "replay/damo_json.h"

#include <fmt/format.h>

#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "config/input_error.h"

namespace numasim {

namespace {

using nlohmann::json;

// Nesting of the record file (damo's DamonRecord.to_kvpairs()): the list of records, a record,
// its intervals object or snapshots list, a snapshot, its regions list, a region, a region's
// nr_accesses or age object.
enum Depth : size_t {
    kRecords = 1,
    kRecord = 2,
    kRecordMember = 3,
    kSnapshot = 4,
    kRegions = 5,
    kRegion = 6,
    kRegionMember = 7,
};

struct Scalar {
    bool null = false;
    std::optional<uint64_t> value;  // unset: negative, fractional or not a number
};

class Reader {
  public:
    Reader(ProfileInput& in, const SnapshotHandler& on) : in_(in), on_(on) {}

    // nlohmann's SAX interface.
    bool null() { return scalar(Scalar{true, {}}); }
    bool boolean(bool) { return scalar(Scalar{}); }
    bool number_integer(json::number_integer_t v) {
        return scalar(v < 0 ? Scalar{} : Scalar{false, static_cast<uint64_t>(v)});
    }
    bool number_unsigned(json::number_unsigned_t v) { return scalar(Scalar{false, v}); }
    bool number_float(json::number_float_t, const json::string_t&) { return scalar(Scalar{}); }
    bool binary(json::binary_t&) { return scalar(Scalar{}); }
    // damo writes most numbers as strings of decimal digits ("%d", raw=True).
    bool string(json::string_t& s) {
        uint64_t v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return scalar(Scalar{});
        return scalar(Scalar{false, v});
    }
    bool start_object(size_t) {
        open(true);
        const size_t d = stack_.size();
        if (d == kRecords) fail("", "not a damo JSON record file: it must be a list of records");
        if (d == kRecord) {
            ++record_;
            snapshot_ = -1;
            target_.reset();
            sample_us_ = kDamonDefaultSampleUs;
            aggr_us_ = kDamonDefaultAggrUs;
        }
        if (d == kSnapshot && under(kRecordMember, "snapshots")) begin_snapshot();
        if (d == kRegion && under(kRegions, "regions") && under(kRecordMember, "snapshots"))
            begin_region();
        return true;
    }
    bool start_array(size_t) {
        open(false);
        if (stack_.size() == kRecord)
            fail("", "not a damo JSON record file: a record must be an object");
        return true;
    }
    bool key(json::string_t& k) {
        stack_.back().key = k;
        return true;
    }
    bool end_object() {
        const size_t d = stack_.size();
        if (d == kSnapshot && under(kRecordMember, "snapshots")) end_snapshot();
        if (d == kRegion && under(kRegions, "regions") && under(kRecordMember, "snapshots"))
            end_region();
        stack_.pop_back();
        return true;
    }
    bool end_array() {
        stack_.pop_back();
        return true;
    }
    bool parse_error(size_t, const std::string&, const nlohmann::detail::exception& ex) {
        // nlohmann's message: "[json.exception.parse_error.101] parse error at line 3, ...".
        std::string what = ex.what();
        if (const auto at = what.find("] "); at != std::string::npos) what = what.substr(at + 2);
        throw InputError(
            in_.path(), fmt::format("line {}", in_.line()),
            "invalid JSON (" + what + ")" +
                (what.find("end of input") != std::string::npos ? ": the file is truncated" : ""));
    }

    void finish() {
        if (record_ < 0) fail("", "no records: damo writes a list of one record per target");
    }

  private:
    struct Frame {
        bool object = false;
        std::string key;  // of the member being read (objects)
    };

    // Members the importer does not use (damos_stats, scheme_filters, probe_hits) are read
    // past: their scalars match none of the paths below.
    void open(bool object) { stack_.push_back(Frame{object, {}}); }
    // Whether the container at `depth` is the member `k` of the object above it.
    bool under(size_t depth, const char* k) const {
        return stack_.size() >= depth && stack_[depth - 2].object && stack_[depth - 2].key == k;
    }
    const std::string& member() const { return stack_.back().key; }

    bool scalar(const Scalar& s) {
        if (stack_.empty()) fail("", "not a damo JSON record file: it must be a list of records");
        const size_t d = stack_.size();
        if (!stack_.back().object) return true;
        const std::string& k = member();
        if (d == kRecord && k == "target_id") target_ = need(s, "target_id");
        if (d == kRecordMember && under(kRecordMember, "intervals")) {
            if (k == "sample_us") sample_us_ = positive(s, "intervals.sample_us");
            if (k == "aggr_us") aggr_us_ = positive(s, "intervals.aggr_us");
        }
        if (d == kSnapshot && under(kRecordMember, "snapshots")) {
            if (k == "start_time") snap_start_ = need(s, "start_time");
            if (k == "end_time") snap_end_ = need(s, "end_time");
            if (k == "sample_interval_us" && !s.null)
                snap_.sample_us = positive(s, "sample_interval_us");
        }
        if (d == kRegion && under(kRegions, "regions")) {
            if (k == "start") region_start_ = need(s, "start");
            if (k == "end") region_end_ = need(s, "end");
        }
        if (d == kRegionMember && under(kRegionMember, "nr_accesses")) {
            if (k == "samples" && !s.null) samples_ = need(s, "nr_accesses.samples");
            if (k == "percent" && !s.null) percent_ = need(s, "nr_accesses.percent");
        }
        if (d == kRegionMember && under(kRegionMember, "age") && k == "aggr_intervals" && !s.null)
            age_ = static_cast<int64_t>(need(s, "age.aggr_intervals"));
        return true;
    }

    void begin_snapshot() {
        ++snapshot_;
        if (!target_)
            fail(snapshot_where(),
                 "snapshots before the record's target_id: damo writes "
                 "target_id first");
        snap_ = DamonSnapshot{};
        snap_.target_id = *target_;
        snap_.sample_us = sample_us_;
        snap_.aggr_us = aggr_us_;
        snap_start_.reset();
        snap_end_.reset();
        region_ = -1;
    }
    void end_snapshot() {
        if (!snap_start_ || !snap_end_) fail(snapshot_where(), "no start_time or end_time");
        snap_.start_ns = static_cast<int64_t>(*snap_start_);
        snap_.end_ns = static_cast<int64_t>(*snap_end_);
        snap_.where = snapshot_where();
        on_(snap_);
    }
    void begin_region() {
        ++region_;
        if (snap_.regions.size() >= kMaxDamonRegionsPerSnapshot)
            fail(region_where(),
                 fmt::format("more than {} regions in one snapshot", kMaxDamonRegionsPerSnapshot));
        region_start_.reset();
        region_end_.reset();
        samples_.reset();
        percent_.reset();
        age_ = -1;
    }
    void end_region() {
        if (!region_start_ || !region_end_) fail(region_where(), "no start or end");
        DamonRegion r{*region_start_, *region_end_, 0, age_};
        if (samples_) {
            r.nr_accesses = *samples_;
        } else if (percent_) {
            // DamonNrAccesses.add_unset_unit(): percent of the window's sampling intervals.
            r.nr_accesses =
                *percent_ * static_cast<uint64_t>(snap_.aggr_us / snap_.sample_us) / 100;
        } else {
            fail(region_where(), "no nr_accesses: not an access monitoring record");
        }
        snap_.regions.push_back(r);
    }

    uint64_t need(const Scalar& s, const char* what) {
        if (!s.value)
            fail(where_now(), fmt::format("{}: not a non-negative integer (damo writes raw "
                                          "numbers, as json records have them)",
                                          what));
        return *s.value;
    }
    int64_t positive(const Scalar& s, const char* what) {
        const uint64_t v = need(s, what);
        if (v == 0 || v > uint64_t{1} << 40) fail(where_now(), fmt::format("{}: {} us", what, v));
        return static_cast<int64_t>(v);
    }

    std::string snapshot_where() const {
        return fmt::format("record {}, snapshot {}", record_, snapshot_);
    }
    std::string region_where() const {
        return fmt::format("record {}, snapshot {}, region {}", record_, snapshot_, region_);
    }
    std::string where_now() const {
        const size_t d = stack_.size();
        if (d >= kRegion && under(kRegions, "regions")) return region_where();
        if (d >= kSnapshot && under(kRecordMember, "snapshots")) return snapshot_where();
        return fmt::format("record {}", record_);
    }
    [[noreturn]] void fail(const std::string& where, const std::string& problem) const {
        throw InputError(in_.path(),
                         where.empty() ? fmt::format("line {}", in_.line())
                                       : fmt::format("{} (line {})", where, in_.line()),
                         problem);
    }

    ProfileInput& in_;
    const SnapshotHandler& on_;
    std::vector<Frame> stack_;
    int64_t record_ = -1, snapshot_ = -1, region_ = -1;
    std::optional<uint64_t> target_;
    int64_t sample_us_ = kDamonDefaultSampleUs, aggr_us_ = kDamonDefaultAggrUs;
    DamonSnapshot snap_;
    std::optional<uint64_t> snap_start_, snap_end_;
    std::optional<uint64_t> region_start_, region_end_, samples_, percent_;
    int64_t age_ = -1;
};

}  // namespace

void read_damo_json(ProfileInput& in, const SnapshotHandler& on_snapshot) {
    Reader r(in, on_snapshot);
    json::sax_parse(ProfileIterator(in), ProfileIterator(), &r);
    r.finish();
}

}  // namespace numasim
