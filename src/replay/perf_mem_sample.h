// One memory sample as `perf script` prints it for `perf mem record` and `perf c2c record`
// sessions (the PEBS load-latency and store events, cpu/mem-loads,ldlat=30/P and
// cpu/mem-stores/P, or another PMU's memory sampling), read from one line of its text. The layout
// is builtin-script.c's process_event(): the fields in a fixed order, whichever of them `-F`
// selected:
//
//   COMM  PID/TID  [CPU]  SEC.USEC:  PERIOD  EVENT:  ADDR  DATA_SRC |OP ..|LVL ..|SNP ..|..  ...
//
// ADDR is the data address in hex without 0x ("%16" PRIx64), DATA_SRC the raw union
// perf_mem_data_src in hex followed by perf_script__meminfo_scnprintf()'s decode (perf before
// the "|OP" part prints the level text straight after the hex); what follows (weight, ip, sym,
// dso, phys_addr) is not read. The raw value is what the importer uses: its bits are the kernel's
// ABI (include/uapi/linux/perf_event.h), while the decode's wording changes between perf versions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace numasim {

// Where the sampled access was served from, from the data source's level bits.
enum class MemSource {
    kCache,        // L1, line fill buffer, L2, L3, L4, memory-side cache, any cache
    kLocalRam,     // DRAM of the sampling CPU's node (Local RAM, RAM without the remote bit)
    kRemoteRam,    // DRAM of another node (Remote RAM 1 or 2 hops, RAM with the remote bit)
    kRemoteCache,  // a cache of another socket (Remote Cache 1 or 2 hops, remote L1-L4)
    kOtherMemory,  // PMEM, CXL, I/O, uncached
    kUnknown,      // N/A: the PMU did not say
};
inline constexpr int kMemSourceCount = 6;
const char* mem_source_name(MemSource s);

struct PerfMemSample {
    int64_t pid = -1;  // -1: the pid field was not printed
    int64_t tid = 0;
    std::string_view comm;  // empty: not printed
    int64_t time_ns = 0;
    int cpu = -1;         // -1: the cpu field was not printed
    uint64_t period = 0;  // 0: the period field was not printed
    uint64_t addr = 0;
    uint64_t data_src = 0;
    bool store = false;
    bool hitm = false;  // the snoop found the line modified in another core's cache (HITM)
    MemSource source = MemSource::kUnknown;
};

// Lines that are not samples: blank lines and `perf script --header`'s '#' comments.
bool perf_mem_line_is_comment(std::string_view line);

// Parses one sample line; the sample's comm points into `line`. Throws InputError(file, where)
// naming the missing field (and the `-F` field that prints it) or the bad value.
PerfMemSample parse_perf_mem_line(std::string_view line, const std::string& file,
                                  const std::string& where);

// Decodes a raw perf_mem_data_src: the level class, store or not (op bits), HITM.
// Returns false when the value is not one the kernel writes (reserved level numbers).
bool decode_data_src(uint64_t data_src, MemSource& source, bool& store, bool& load, bool& hitm);

}  // namespace numasim
