// A run as a trace.dat file, version 6 of trace-cmd's format (trace-cmd.dat.v6(5)), which
// `trace-cmd report` and KernelShark read as if `trace-cmd record` had written it on a 64-bit
// little-endian machine with 4 KiB pages:
//   magic "\x17\x08\x44tracing", "6\0", endianness, long size, page size;
//   events/header_page and events/header_event (observe/tracefs_formats.h);
//   no ftrace (function tracer) formats;
//   the format file of each traced event, by system (sched, migrate);
//   no kallsyms, no trace_printk formats;
//   saved_cmdlines: "pid comm" for every task the trace names;
//   the CPU count; the options VERSION (numasim's version) and UNAME (the provenance: one
//   "key: value" line each, what `trace-cmd report --uname` prints);
//   "flyrecord": each CPU's offset and size, then, page aligned, each CPU's ring-buffer pages
//   (observe/ring_buffer_page.h) with the entries of its events (observe/tracefs_formats.h).
// Written by hand rather than through libtracecmd's tracecmd_output_* API: that API copies a
// live tracefs (format files, per-CPU trace_pipe_raw), so numasim would have to synthesise all
// of it anyway, and this writer needs no library at build time.
//
// Memory stays bounded: each CPU holds one open page; full pages go to one scratch file, and
// finish() copies them, CPU by CPU, behind the header (whose cmdlines and offsets are known only
// at the end). A page costs 4 bytes of index in memory. One scratch file for all CPUs, not one
// per CPU: parallel runs on a machine of hundreds of CPUs would run out of file descriptors.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "kernel/tracer.h"
#include "observe/ring_buffer_page.h"

namespace numasim {

class TraceDatWriter : public TraceSink {
  public:
    // `scratch`: a file open for writing and reading back; `events`: the traced events (their
    // format files go into the header); `provenance`: "key: value" lines.
    TraceDatWriter(std::FILE* scratch, int nr_cpus, TraceEventMask events,
                   std::vector<std::string> provenance);
    TraceDatWriter(const TraceDatWriter&) = delete;
    TraceDatWriter& operator=(const TraceDatWriter&) = delete;

    void event(const TraceEvent& e) override;
    // Writes the whole file to `out` (sequentially: a FIFO or standard output will do).
    void finish(std::FILE* out);

  private:
    std::string header(const std::vector<uint64_t>& cpu_offsets) const;
    void remember(const Task* p);

    std::FILE* scratch_;
    TraceEventMask events_;
    std::vector<std::string> provenance_;
    std::vector<RingBufferPages> cpus_;
    std::vector<std::vector<uint32_t>> cpu_pages_;  // per CPU: its pages' numbers in scratch_
    uint32_t scratch_pages_ = 0;
    std::map<int, std::string> comms_;  // saved_cmdlines
    std::string entry_;
};

}  // namespace numasim
