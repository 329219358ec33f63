// A tiny-2n System (2 nodes x 2 CPUs, 2 GiB per node, SLIT 10/21) with helpers to map memory
// and to make hand-built tasks that are never scheduled: the mm unit tests call the fault,
// allocation and migration functions directly.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include "engine/process.h"
#include "kernel/system.h"
#include "machine/presets.h"
#include "mm/fault.h"
#include "mm/migrate.h"
#include "mm/page_alloc.h"
#include "numab/profile.h"

namespace numasim::mmtest {

inline NumaBalancingKnobs knobs_off() {
    NumaBalancingKnobs k;
    k.numa_balancing = 0;
    return k;
}

struct World {
    explicit World(const std::string& preset = "tiny-2n") : World(load_preset(preset)) {}
    explicit World(Topology machine) : sys(std::move(machine), knobs_off(), 1) {}

    // A task that exists only for the mm calls (p.cpu, p.mempolicy, fault counts).
    Task& task_on(int cpu) {
        tasks.push_back(std::make_unique<Task>());
        Task& p = *tasks.back();
        p.pid = 2000 + static_cast<int>(tasks.size());
        p.cpu = cpu;
        return p;
    }

    uint64_t c(Vm v) const { return sys.counters[v]; }

    System sys;
    std::vector<std::unique_ptr<Task>> tasks;
};

}  // namespace numasim::mmtest
