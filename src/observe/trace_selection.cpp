#include "observe/trace_selection.h"

#include <fmt/format.h>

#include "config/input_error.h"

namespace numasim {

namespace {

std::string valid_names() {
    std::string s = "all, sched:*, migrate:*, vmscan:*";
    for (size_t i = 0; i < kNrTraceEvents; ++i)
        s += fmt::format(", {}", kTraceEventNames[i]);
    return s;
}

TraceEventMask one(std::string_view word, const std::string& option) {
    if (word == "all" || word == "*:*") return kAllTraceEvents;
    std::string_view system, name = word;
    if (const size_t colon = word.find(':'); colon != std::string_view::npos) {
        system = word.substr(0, colon);
        name = word.substr(colon + 1);
    }
    TraceEventMask m = 0;
    for (size_t i = 0; i < kNrTraceEvents; ++i) {
        if (!system.empty() && kTraceEventSystems[i] != system) continue;
        const TraceEventMask bit = trace_bit(static_cast<TraceEventId>(i));
        if ((name == "*" && !(bit & kByNameOnlyTraceEvents)) || kTraceEventNames[i] == name)
            m |= bit;
    }
    if (!m)
        throw InputError(option, std::string(word),
                         fmt::format("no such event; valid: {}", valid_names()));
    return m;
}

}  // namespace

TraceEventMask parse_trace_events(std::string_view list, const std::string& option) {
    TraceEventMask m = 0;
    size_t start = 0;
    while (start <= list.size()) {
        size_t end = list.find(',', start);
        if (end == std::string_view::npos) end = list.size();
        std::string_view word = list.substr(start, end - start);
        while (!word.empty() && word.front() == ' ')
            word.remove_prefix(1);
        while (!word.empty() && word.back() == ' ')
            word.remove_suffix(1);
        if (word.empty())
            throw InputError(option, std::string(list), "empty event name in the list");
        m |= one(word, option);
        start = end + 1;
    }
    return m;
}

std::string trace_events_text(TraceEventMask mask) {
    std::string s;
    for (size_t i = 0; i < kNrTraceEvents; ++i)
        if (mask & trace_bit(static_cast<TraceEventId>(i)))
            s += fmt::format("{}:{}\n", kTraceEventSystems[i], kTraceEventNames[i]);
    return s;
}

}  // namespace numasim
