// Creating what a workload runs: address spaces, mappings, regions, processes and threads, and
// fork with copy-on-write sharing (kernel/fork.c, mm/mmap.c reduced to what matters here).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace numasim {

struct System;
struct Mm;
struct Vma;
struct Region;
struct Task;
struct MemObject;
class TaskProgram;

Mm& mm_create(System& sys);

// What a workload asked for exceeds what the machine or the simulator can hold (config/limits.h):
// a mapping larger than the machine's memory (the model has no swap), or more tasks than
// kMaxTasks. Thrown before anything is allocated; scenario loading turns it into an InputError
// naming the workload.
class WorkloadTooLarge : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Maps `bytes` (rounded up to pages) at `addr` (MAP_FIXED) or, with addr 0, at a fresh address:
// top-down below mm.mmap_base when mm.mmap_top_down, else bottom-up with a gap; mappings of
// a PMD THP's size or more (2 MiB on x86-64) are aligned to it so that THP may back them (v6.7+
// does this for anonymous mappings; 6.1 did not). The model never merges adjacent VMAs. A null
// `object` creates a new anonymous (or, with VM_FILE, page-cache) object. WorkloadTooLarge if
// `bytes` is 0 or more than the machine's memory.
Vma& do_mmap(System& sys, Mm& mm, uint64_t bytes, uint32_t vm_flags, const std::string& name,
             std::shared_ptr<MemObject> object = nullptr, uint64_t pgoff = 0, uint64_t addr = 0);

// A named range of pages of `vma` that access streams can refer to.
Region& add_region(System& sys, Vma& vma, uint64_t first_page, uint64_t count,
                   const std::string& name);

// A new process (own mm, CLONE_VM unset) or thread (shares parent's mm). The task is placed and
// enqueued at sys.now (wake_up_new_task). A process's mm must be given; a thread's is the parent's.
Task& create_process(System& sys, Mm& mm, Task* parent, const std::string& comm,
                     TaskProgram* program, int workload, int thread_index);
Task& create_thread(System& sys, Task& parent, const std::string& comm, TaskProgram* program,
                    int thread_index);

// fork(): a new mm whose mappings share the parent's frames copy-on-write, with the parent's
// regions duplicated by name and its NUMA scan state copied. Returns the child's mm;
// create_process() then starts the task.
Mm& dup_mm(System& sys, Mm& parent);

// Ends a task: dequeues it, drops it from its mm and its NUMA group, records its exit time.
// p stays on its mm (p.mm) for the engine, which then wakes a thread waiting in pthread_join().
void do_exit(System& sys, Task& p);

// Whether another thread of p's thread group is still alive.
bool other_threads_live(const Task& p);

Region* find_region(Mm& mm, const std::string& name);

}  // namespace numasim
