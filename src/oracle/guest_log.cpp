#include "oracle/guest_log.h"

#include <charconv>

#include "guest/protocol.h"

namespace numasim {

namespace {

int64_t to_int(const std::string& s, int64_t fallback = 0) {
    int64_t v = fallback;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
}

double to_double(const std::string& s) {
    double v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
}

std::map<std::string, int64_t> counters(const KeyValues& kv, const char* skip) {
    std::map<std::string, int64_t> m;
    for (const auto& [k, v] : kv)
        if (k != skip) m[k] = to_int(v);
    return m;
}

}  // namespace

KeyValues parse_key_values(std::string_view words) {
    KeyValues kv;
    size_t i = 0;
    while (i < words.size()) {
        while (i < words.size() && words[i] == ' ')
            ++i;
        size_t end = words.find(' ', i);
        if (end == std::string_view::npos) end = words.size();
        const std::string_view w = words.substr(i, end - i);
        const size_t eq = w.find('=');
        if (eq != std::string_view::npos && eq > 0)
            kv[std::string(w.substr(0, eq))] = std::string(w.substr(eq + 1));
        i = end;
    }
    return kv;
}

std::map<std::string, int64_t> BootLog::vmstat_delta() const {
    std::map<std::string, int64_t> d;
    for (const auto& [k, after] : vmstat_after)
        if (auto it = vmstat_before.find(k); it != vmstat_before.end()) d[k] = after - it->second;
    return d;
}

std::string BootLogReader::feed(std::string_view line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n'))
        line.remove_suffix(1);
    // The kernel's own messages may share the line (the console has no line discipline).
    const size_t at = line.find(guest_line::kPrefix);
    if (at == std::string_view::npos) return "";
    line.remove_prefix(at + guest_line::kPrefix.size());
    const size_t sp = line.find(' ');
    const std::string kind(line.substr(0, sp));
    const std::string_view rest =
        sp == std::string_view::npos ? std::string_view{} : line.substr(sp + 1);
    if (kind == "progress") {
        log_.progress.emplace_back(rest);
    } else if (kind == "error") {
        log_.errors.emplace_back(rest);
    } else if (kind == "damon") {
        log_.damon_record.emplace_back(rest);
    } else if (kind == guest_line::kProbeReply) {
        log_.probe_ok = true;
    } else {
        const KeyValues kv = parse_key_values(rest);
        auto get = [&](const char* k) {
            auto it = kv.find(k);
            return it == kv.end() ? std::string() : it->second;
        };
        if (kind == "kernel") {
            log_.kernel_release = get("release");
        } else if (kind == "node") {
            log_.nodes.push_back({static_cast<int>(to_int(get("id"))), get("cpus"),
                                  static_cast<uint64_t>(to_int(get("mem_kb"))), get("distance")});
        } else if (kind == "setting") {
            for (const auto& [k, v] : kv)
                log_.settings[k] = v;
        } else if (kind == "vmstat") {
            (get("when") == "before" ? log_.vmstat_before : log_.vmstat_after) =
                counters(kv, "when");
        } else if (kind == "sample") {
            log_.samples.push_back({to_double(get("t_s")), counters(kv, "t_s")});
        } else if (kind == "task") {
            log_.tasks.push_back(kv);
        } else if (kind == "region") {
            log_.regions.push_back(kv);
        } else if (kind == "probe") {
            const std::string event = get("event");
            if (get("armed") == "1") log_.probe_hits[event];
            if (kv.count("pid") && log_.probe_hits.count(event))
                log_.probe_hits[event][static_cast<int>(to_int(get("pid")))] += to_int(get("hits"));
        } else if (kind == "tier") {
            log_.tiers[static_cast<int>(to_int(get("id")))] = get("nodes");
        } else if (kind == "hmat") {
            log_.hmat.push_back(kv);
        } else if (kind == "calibrate") {
            log_.calibrations.push_back(kv);
        } else if (kind == "runner") {
            if (kv.count("elapsed_s")) log_.elapsed_s = to_double(get("elapsed_s"));
        } else if (kind == "end") {
            log_.ended = true;
            log_.rc = static_cast<int>(to_int(get("rc"), -1));
        } else {
            return "";
        }
    }
    return kind;
}

BootLog parse_boot_log(std::string_view console) {
    BootLogReader r;
    size_t start = 0;
    while (start < console.size()) {
        size_t nl = console.find('\n', start);
        if (nl == std::string_view::npos) nl = console.size();
        r.feed(console.substr(start, nl - start));
        start = nl + 1;
    }
    return r.take();
}

}  // namespace numasim
