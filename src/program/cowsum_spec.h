// Henry Willard's shared-data-section test (linux-mm, 2018-01-16, "mm: numa: Do not trap faults
// on shared data section pages"): many forked processes sum a 4 MB initialised global array that
// lives in the executable's .data. The scenario's parameters, read once: the model
// (workload/cowsum.cpp) and the oracle's guest runner (guest/cowsum.cpp) both run this
// description. See docs/workloads/cowsum.md.
#pragma once

#include <cstdint>
#include <string>

#include "sim/clock.h"

namespace numasim {

class TomlTable;

// "int a[1000000] = {13};" in the posted program: 4,000,000 bytes of .data. The oracle's
// cowsum.c: "uint64_t data_array[NWORDS]" with ARRAY_BYTES = 4 MiB.
inline constexpr uint64_t COWSUM_POSTED_ARRAY_BYTES = 1000000 * sizeof(int);
inline constexpr uint64_t COWSUM_ORACLE_ARRAY_BYTES = uint64_t{4} << 20;

// The posted run: "288 processes on a 144 core/8 socket machine".
inline constexpr int DEFAULT_COWSUM_PROCESSES = 288;

enum class CowsumMode {
    Data,     // sum the .data array itself: file pages shared by every child until written
    Anon,     // the parent copies it into anonymous memory before fork: COW-shared anon pages
    Private,  // each child copies it after fork (the control: nothing is shared)
};

// Which cowsum: the linux-mm posting's, or the qemu oracle's cowsum.c (a shared struct of
// per-child counters, and a first pass over the array by the parent before it forks).
enum class CowsumProgram { Posting, Oracle };

struct CowsumSpec {
    int processes = DEFAULT_COWSUM_PROCESSES;  // forked children
    Nanos run_ns = 0;  // each child sums until this much wall time has passed
    CowsumMode mode = CowsumMode::Data;
    std::string mode_name;
    CowsumProgram program = CowsumProgram::Posting;
    uint64_t array_bytes = COWSUM_POSTED_ARRAY_BYTES;
};

// Reads a [[workload]] table of type "cowsum" (processes, seconds, mode, program).
CowsumSpec read_cowsum_spec(const TomlTable& t);

}  // namespace numasim
