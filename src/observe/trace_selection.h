// --trace-events: which tracepoints to record, in the words of ftrace's set_event file: event
// names ("sched_switch"), system:event ("sched:sched_switch"), a whole system ("sched:*",
// "migrate:*"), or "all", separated by commas.
#pragma once

#include <string>
#include <string_view>

#include "kernel/trace_event.h"

namespace numasim {

// Throws InputError naming `option` and listing the valid events on an unknown name.
TraceEventMask parse_trace_events(std::string_view list, const std::string& option);

// The enabled events, as set_event lists them: "sched:sched_switch" one per line.
std::string trace_events_text(TraceEventMask mask);

}  // namespace numasim
