// What a process looks like in memory, in one place for every workload: the mappings execve()
// and the dynamic loader leave behind (the executable's segments, [heap], ld.so and the shared
// libraries, [vvar]/[vdso], the main [stack]), the stack and guard that pthread_create() maps for
// each thread (glibc allocate_stack, or HotSpot's Java-thread stacks), the few pages of each that
// a program touches, and who touches them first. docs/model.md, "Process layout".
//
// A workload builds a process in three steps: Process::exec() creates the address space, the
// workload maps its own memory (Process::mmap(), top-down below the libraries as malloc()/mmap()
// would), then Process::start() creates the main thread. Threads come from pthread_create(),
// child processes from fork(). Every task's program is wrapped so that its phases also touch the
// thread's own stack and the process's global data, as running code does.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/program.h"

namespace numasim {

struct System;
struct Mm;
struct Vma;
struct Region;
struct Task;
struct MemObject;

// One ELF object as the loader maps it: its PT_LOAD segments, each rounded to pages.
struct ElfObject {
    std::string path;
    uint64_t headers = 0;    // r--p: ELF and program headers, dynamic symbols, relocations
    uint64_t text = 0;       // r-xp
    uint64_t rodata = 0;     // r--p: .rodata, .eh_frame
    uint64_t relro = 0;      // r--p after ld.so's mprotect: .data.rel.ro, .dynamic, .got
    uint64_t data = 0;       // rw-p, private file mapping: .data, .got.plt (written: copied)
    uint64_t bss = 0;        // rw-p anonymous: .bss beyond the last file page
    uint64_t text_read = 0;  // bytes of text the startup code executes (page cache reads)
    // Bytes at the start of the data segment that ld.so and the startup code write (.got.plt,
    // the start of .data); UINT64_MAX: all of it.
    uint64_t data_written = UINT64_MAX;
};

// The stack pthread_create() gives a thread (or the kernel the main thread).
struct StackSpec {
    uint64_t size = 0;           // the rw-p stack mapping
    uint64_t glibc_guard = 0;    // PROT_NONE guard mapped below it by glibc (guardsize)
    uint64_t hotspot_guard = 0;  // HotSpot's yellow+red zone: the lowest bytes made PROT_NONE
    uint64_t used_pages = 0;     // pages at the top the thread writes as it runs
};

struct ProgramImage {
    std::string name;
    ElfObject exe;
    bool pie = true;              // PIE: loaded at ELF_ET_DYN_BASE; else at 0x400000 (static)
    std::vector<ElfObject> libs;  // DT_NEEDED libraries in load order; empty when static
    ElfObject interp;             // ld.so (dynamic executables)
    uint64_t brk_heap = 0;        // [heap]: bytes malloc() took with brk by the time main() runs
    uint64_t globals_pages = 0;   // pages of .data every thread keeps reading (0: none)
    bool thread_arenas = false;   // threads malloc(): each gets a glibc arena (arena_get2)
    std::string globals_in;       // the object whose .data holds them ("": the executable)
    StackSpec main_stack;         // [stack]: mapped size and pages written at exec
    StackSpec thread_stack;       // pthread_create() default
};

// Debian 12 (glibc 2.36, gcc -O2) builds of the programs the workloads model.
ProgramImage static_c_program(const std::string& path);  // gcc -static (the qemu oracle's)
ProgramImage dynamic_c_program(const std::string& path, std::vector<ElfObject> extra_libs = {});
ElfObject libnuma();
// OpenJDK 8 HotSpot server VM, x86_64: the java launcher and its libraries.
ProgramImage hotspot_jvm();
// HotSpot thread stacks (os_linux_x86.cpp, globals_x86.hpp of JDK 8): Java threads and
// compiler threads (4 MiB) have the yellow and red zones instead of a glibc guard; the VM and
// GC threads a glibc guard page.
StackSpec java_thread_stack();
StackSpec jvm_compiler_thread_stack();
StackSpec jvm_native_thread_stack();

class Process {
  public:
    // execve() of `image`: a new address space with the image's mappings. Nothing is touched
    // yet; start() runs the startup code in the main thread.
    static std::unique_ptr<Process> exec(System& sys, const ProgramImage& image);

    Mm& mm() { return *mm_; }
    const ProgramImage& image() const { return image_; }

    // mmap() (or malloc() of a large block), placed top-down: anonymous memory, or a window
    // onto `object` (a file's page cache, or MAP_SHARED memory shared with other processes).
    Vma& mmap(uint64_t bytes, const std::string& name, uint32_t vm_flags,
              std::shared_ptr<MemObject> object = nullptr);

    // numactl --cpunodebind before exec: the main thread starts (and its startup code runs)
    // on these CPUs, and every thread inherits them.
    void set_exec_affinity(std::vector<int> cpus) { exec_affinity_ = std::move(cpus); }

    // The main thread: first the startup code (ld.so relocations, libc and static initialisers:
    // writes .data, .bss, the first [heap] pages and the top of [stack]; reads some text), then
    // `program`. `parent` places it as the child of that task (fork + exec).
    Task& start(Task* parent, const std::string& comm, std::unique_ptr<TaskProgram> program,
                int workload, int thread_index);

    // pthread_create() from `creator`: maps a stack (or reuses a dead thread's, as glibc's stack
    // cache does), writes the thread descriptor at its top from the creator's CPU, then starts
    // the thread running `program`.
    Task& pthread_create(Task& creator, const std::string& comm,
                         std::unique_ptr<TaskProgram> program, int thread_index);
    Task& pthread_create(Task& creator, const std::string& comm,
                         std::unique_ptr<TaskProgram> program, int thread_index,
                         const StackSpec& stack);

    // fork() by `parent` (a thread of this process): the child's address space shares every
    // page copy-on-write; its only thread continues on a copy of the parent thread's stack.
    // The caller may map more memory into the child before start_forked().
    std::unique_ptr<Process> fork(Task& parent);
    Task& start_forked(Task& parent, const std::string& comm, std::unique_ptr<TaskProgram> program,
                       int workload, int thread_index);

    // The executable's writable data segment (its .data: initialised global variables).
    Vma& exe_data();

    // A region over [first, first + count) pages of `vma`, for the workload's access streams.
    Region& region(Vma& vma, uint64_t first, uint64_t count, const std::string& name);

  private:
    struct Stack {
        Vma* vma = nullptr;
        Region* used = nullptr;  // the pages at the top the thread writes
        const Task* owner = nullptr;
        StackSpec spec;
    };

    Process(System& sys, ProgramImage image) : sys_(sys), image_(std::move(image)) {}
    void map_elf(const ElfObject& o, uint64_t base, bool is_exe);
    Stack& new_stack(const StackSpec& spec);
    enum class First { None, Exec, ForkReturn };  // what the task does before its program
    std::unique_ptr<TaskProgram> wrap(std::unique_ptr<TaskProgram> program, Region* stack,
                                      First first, Region* arena = nullptr);
    Region* new_arena();

    System& sys_;
    ProgramImage image_;
    Mm* mm_ = nullptr;
    std::vector<Stack> stacks_;           // [0] is the main thread's [stack]
    std::vector<Region*> startup_write_;  // what the startup code writes
    std::vector<Region*> startup_read_;   // and reads
    Region* globals_ = nullptr;
    std::vector<int> exec_affinity_;
    int arenas_ = 0;
    std::vector<std::unique_ptr<TaskProgram>> programs_;
};

}  // namespace numasim
