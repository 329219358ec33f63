// What a Debian 6.1 kernel's tracefs says about its events, for trace.dat
// (observe/trace_dat_writer.h): events/header_page, events/header_event, each traced event's
// events/<system>/<name>/format file (its ID, the fields of its ring-buffer entry with their
// offsets and sizes, and its print fmt, the TP_printk with the macros expanded), and the entry
// itself, laid out as the format file says. trace-cmd and KernelShark decode the entries with
// these format files only, so the print fmt of each event is the one kernel/trace_print.cpp
// prints in the ftrace text (sched_skip_vma_numa is v6.7's, the kernel that added it).
#pragma once

#include <cstdint>
#include <string>

#include "kernel/trace_event.h"

namespace numasim {

// The event's "ID:" (its common_type). Kernels number events at boot; these are numasim's own.
uint16_t tracefs_event_id(TraceEventId id);
// The text of events/<system>/<name>/format.
std::string tracefs_format(TraceEventId id);
// events/header_page for ring-buffer pages of `page_size` bytes (local_t commit: 8 bytes).
std::string tracefs_header_page(uint32_t page_size);
// events/header_event.
std::string tracefs_header_event();
// Appends the event's ring-buffer entry: the common fields (common_type, common_flags,
// common_preempt_count, common_pid) and the event's fields at the offsets of its format file,
// padded to the size of the kernel's trace_event_raw_<name> struct.
void tracefs_entry(std::string& out, const TraceEvent& e);

}  // namespace numasim
