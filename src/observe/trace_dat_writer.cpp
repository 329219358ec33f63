#include "observe/trace_dat_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "config/version.h"
#include "kernel/trace_print.h"
#include "observe/tracefs_formats.h"
#include "sched/task.h"

namespace numasim {

namespace {

// trace-cmd.dat.v6(5) and trace-cmd's lib/trace-cmd/include/private/trace-cmd-private.h.
constexpr std::string_view kMagic = "\x17\x08\x44tracing";
constexpr std::string_view kFileVersion = "6";
constexpr char kLittleEndian = 0;
constexpr char kLongSize = 8;           // x86-64
constexpr uint32_t kPageSize = 4096;    // x86-64 PAGE_SIZE: one ring-buffer page
constexpr uint16_t kOptionDone = 0;     // TRACECMD_OPTION_DONE
constexpr uint16_t kOptionUname = 5;    // TRACECMD_OPTION_UNAME
constexpr uint16_t kOptionVersion = 9;  // TRACECMD_OPTION_VERSION

// A NUL-terminated string (the 10-byte section tags keep their padding spaces).
void put_cstr(std::string& out, std::string_view s) {
    out += s;
    out += '\0';
}

// A block of text behind its size, in `size_bytes` bytes.
void put_sized(std::string& out, std::string_view text, size_t size_bytes) {
    put_le(out, text.size(), size_bytes);
    out += text;
}

void put_option(std::string& out, uint16_t id, std::string_view text) {
    put_le(out, id, 2);
    put_le(out, text.size() + 1, 4);
    put_cstr(out, text);
}

}  // namespace

TraceDatWriter::TraceDatWriter(std::FILE* scratch, int nr_cpus, TraceEventMask events,
                               std::vector<std::string> provenance)
    : scratch_(scratch), events_(events), provenance_(std::move(provenance)) {
    cpus_.reserve(static_cast<size_t>(nr_cpus));
    cpu_pages_.resize(static_cast<size_t>(nr_cpus));
    for (int c = 0; c < nr_cpus; ++c)
        cpus_.emplace_back(kPageSize, [this, c](std::string_view page) {
            std::fwrite(page.data(), 1, page.size(), scratch_);
            cpu_pages_[static_cast<size_t>(c)].push_back(scratch_pages_++);
        });
}

void TraceDatWriter::remember(const Task* p) {
    if (!p) return;  // the idle task: trace-cmd names pid 0 "<idle>" itself
    const std::string_view comm = trace_comm(*p);
    auto [it, inserted] = comms_.try_emplace(p->pid, comm);
    if (!inserted && it->second != comm) it->second = comm;
}

void TraceDatWriter::event(const TraceEvent& e) {
    remember(e.current);
    remember(e.a);
    remember(e.b);
    entry_.clear();
    tracefs_entry(entry_, e);
    cpus_[static_cast<size_t>(e.cpu)].add(static_cast<uint64_t>(e.ts), entry_);
}

std::string TraceDatWriter::header(const std::vector<uint64_t>& cpu_offsets) const {
    std::string h;
    h += kMagic;
    put_cstr(h, kFileVersion);
    h += kLittleEndian;
    h += kLongSize;
    put_le(h, kPageSize, 4);

    put_cstr(h, "header_page");
    put_sized(h, tracefs_header_page(kPageSize), 8);
    put_cstr(h, "header_event");
    put_sized(h, tracefs_header_event(), 8);

    put_le(h, 0, 4);  // ftrace formats

    std::vector<std::string_view> systems;
    for (size_t i = 0; i < kNrTraceEvents; ++i)
        if ((events_ & trace_bit(static_cast<TraceEventId>(i))) &&
            std::find(systems.begin(), systems.end(), kTraceEventSystems[i]) == systems.end())
            systems.push_back(kTraceEventSystems[i]);
    put_le(h, systems.size(), 4);
    for (std::string_view sys : systems) {
        put_cstr(h, sys);
        std::vector<std::string> formats;
        for (size_t i = 0; i < kNrTraceEvents; ++i)
            if ((events_ & trace_bit(static_cast<TraceEventId>(i))) && kTraceEventSystems[i] == sys)
                formats.push_back(tracefs_format(static_cast<TraceEventId>(i)));
        put_le(h, formats.size(), 4);
        for (const std::string& f : formats)
            put_sized(h, f, 8);
    }

    put_le(h, 0, 4);  // kallsyms
    put_le(h, 0, 4);  // trace_printk formats

    std::string cmdlines;
    for (const auto& [pid, comm] : comms_)
        cmdlines += fmt::format("{} {}\n", pid, comm);
    put_sized(h, cmdlines, 8);

    put_le(h, cpus_.size(), 4);
    put_cstr(h, "options  ");
    put_option(h, kOptionVersion,
               fmt::format("numasim {} (git {})", numasim_version(), numasim_git_revision()));
    std::string uname;
    for (const std::string& line : provenance_)
        uname += line + "\n";
    put_option(h, kOptionUname, uname);
    put_le(h, kOptionDone, 2);

    put_cstr(h, "flyrecord");
    for (size_t c = 0; c < cpus_.size(); ++c) {
        put_le(h, cpu_offsets[c], 8);
        put_le(h, cpu_pages_[c].size() * uint64_t{kPageSize}, 8);
    }
    return h;
}

void TraceDatWriter::finish(std::FILE* out) {
    for (RingBufferPages& c : cpus_)
        c.flush();
    // The header's length does not depend on the offsets it holds: lay it out once to learn
    // where the page-aligned data starts.
    std::vector<uint64_t> offsets(cpus_.size(), 0);
    const uint64_t data_start = (header(offsets).size() + kPageSize - 1) / kPageSize * kPageSize;
    uint64_t at = data_start;
    for (size_t c = 0; c < cpus_.size(); ++c) {
        offsets[c] = at;
        at += cpu_pages_[c].size() * uint64_t{kPageSize};
    }
    std::string head = header(offsets);
    head.resize(data_start, '\0');
    std::fwrite(head.data(), 1, head.size(), out);
    if (std::fflush(scratch_) != 0) throw std::runtime_error("cannot read back the trace pages");
    std::string page(kPageSize, '\0');
    for (const std::vector<uint32_t>& pages : cpu_pages_)
        for (const uint32_t p : pages) {
            if (std::fseek(scratch_, static_cast<long>(uint64_t{p} * kPageSize), SEEK_SET) != 0 ||
                std::fread(page.data(), 1, kPageSize, scratch_) != kPageSize)
                throw std::runtime_error("cannot read back the trace pages");
            std::fwrite(page.data(), 1, kPageSize, out);
        }
}

}  // namespace numasim
