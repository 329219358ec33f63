// The machine the oracle's guest gets: the scenario machine's nodes, CPUs per node, memory per
// node and SLIT, scaled down when the host cannot hold it. qemu numbers vCPUs socket by socket
// with SMT siblings adjacent, so the guest's CPU ids are always consecutive per node; the model
// simulates this same topology, so that both sides run on one machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "machine/topology.h"

namespace numasim {

struct GuestLimits {
    // vCPUs the host can run: under TCG each vCPU is a host thread, and more than about four
    // per host core leave the guest's scheduler too little time to behave like the kernel on
    // real CPUs.
    int max_vcpus = 8;
    uint64_t max_mem_bytes = 0;  // guest RAM over all nodes; 0: no limit
};

struct GuestMachine {
    Topology topo;                    // what the guest sees and the model simulates
    int threads_per_core = 1;         // -smp threads=
    std::vector<std::string> scaled;  // one sentence per scaled dimension; empty if none
};

// Fits `m` into `lim`: vCPUs per node shrink in proportion (at least one per node that has
// CPUs; SMT is kept when every node still has whole cores), memory per node shrinks in
// proportion and is rounded down to 128 MiB. Throws InputError (origin `origin`) if the
// machine has more CPU nodes than the vCPU limit.
GuestMachine fit_guest_machine(const Topology& m, const GuestLimits& lim,
                               const std::string& origin);

// Makes `g` (fitted from `m`) a tiered guest: each memory-only node keeps the device figures of
// m's node, and the firmware publishes an ACPI HMAT (qemu `hmat=on`, `-numa hmat-lb`) from which
// a v6.10+ kernel gives a CPU-less node its memory tier. qemu's memory is boot memory, so no node
// is onlined by dax/kmem in the guest; with an HMAT the tier is the same either way
// (mm/memory_tiers.h, MemtierKernel::kHmat).
void publish_hmat(const Topology& m, GuestMachine& g);

// Memory the guest may take on this host: half of MemAvailable (/proc/meminfo), leaving the
// rest to the simulation and to whatever else runs. 0 if /proc/meminfo cannot be read.
uint64_t host_guest_memory_budget();

}  // namespace numasim
