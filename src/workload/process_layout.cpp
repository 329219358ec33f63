// The process layout of docs/model.md ("Process layout"). Segment sizes are those /proc/<pid>/maps
// shows on Debian 12 (x86_64, gcc 12, glibc 2.36, OpenJDK 17.0.15), measured with small test
// programs under `setarch -R` (no address randomisation), with the 6.1 kernel's four-page [vvar].
#include "workload/process_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "engine/process.h"
#include "kernel/system.h"
#include "mm/fault.h"
#include "mm/vma.h"
#include "workload/common.h"

namespace numasim {

namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB;

// x86-64 user address space without randomisation (arch/x86/include/asm/page_64_types.h,
// arch/x86/mm/mmap.c): TASK_SIZE_MAX = 2^47 - 4096; the stack top is TASK_SIZE; mmap_base
// leaves the stack rlimit plus the guard gap, at least 128 MiB (mmap_base(): gap_min); PIE
// executables load at ELF_ET_DYN_BASE = 2/3 TASK_SIZE, rounded as the ELF loader does; static
// non-PIE ones at their link address 0x400000.
constexpr uint64_t TASK_SIZE = (uint64_t{1} << 47) - 4096;
constexpr uint64_t MMAP_BASE = TASK_SIZE - 128 * MiB;
constexpr uint64_t PIE_BASE = 0x555555554000;
constexpr uint64_t STATIC_BASE = 0x400000;

// Kernel 6.1's vDSO data pages (vvar, pvclock, hvclock, timens: 4 pages) and vDSO text.
constexpr uint64_t VVAR_BYTES = 16 * KiB, VDSO_BYTES = 8 * KiB;
// ld.so's own early allocations (__minimal_malloc: link maps, the initial TLS block), mapped
// anonymously before the libraries.
constexpr uint64_t LDSO_ANON_BYTES = 8 * KiB;
// execve() maps 128 KiB of stack plus the argument pages (setup_arg_pages: stack_expand =
// 128 KiB); measured [stack] VMAs are 132 KiB. The kernel writes argv, envp and the auxv in
// its top pages; _start and main's frames sit just below: 3 pages touched.
constexpr uint64_t MAIN_STACK_BYTES = 132 * KiB;
constexpr uint64_t MAIN_STACK_USED_PAGES = 3;
// glibc: a new thread's stack is RLIMIT_STACK (8 MiB) with one guard page below
// (__pthread_get_minstack, ARCH_STACK_DEFAULT_SIZE, guardsize = page size). struct pthread
// and the static TLS block sit at the top; the creator writes them (one page). The thread's
// own frames use the page below.
constexpr uint64_t C_THREAD_STACK = 8 * MiB, C_THREAD_GUARD = 4 * KiB;
constexpr uint64_t C_THREAD_USED_PAGES = 2;
// malloc()'s first sbrk: 132 KiB ([heap] of the measured programs). Startup (stdio, atexit,
// the first malloc) writes its first pages.
constexpr uint64_t BRK_HEAP_BYTES = 132 * KiB;
constexpr uint64_t BRK_HEAP_TOUCHED = 2 * 4 * KiB;

// glibc's per-thread malloc arenas: HEAP_MAX_SIZE = 2 * DEFAULT_MMAP_THRESHOLD_MAX = 64 MiB,
// of which the first 132 KiB are read-write at first (measured).
constexpr uint64_t ARENA_BYTES = 64 * MiB, ARENA_OPEN_BYTES = 132 * KiB;

// A running thread touches its own stack on every call and return, and reads its globals all
// the time; the model needs only that such a page is touched soon after the scanner made it
// PROT_NONE, and that the bytes do not weigh in the cost model. 1e-5 of a phase's bytes is
// 10-100 KB/s at 1-10 GB/s: hundreds of cache-line touches per second on a few pages.
constexpr double RUNTIME_SHARE = 1e-5;
// Startup code (ld.so, libc init) runs at the bzero rate: it is short either way.
constexpr double STARTUP_RATE_GBS = BZERO_RATE_GBS;

uint64_t pages_of(const Mm& mm, uint64_t bytes) {
    return mm.pages.pages(bytes);
}

// The page counts of StackSpec and ProgramImage were measured on x86-64 in 4 KiB pages: the same
// bytes in the mm's pages (identical with 4 KiB pages).
uint64_t measured_pages(const Mm& mm, uint64_t x86_pages) {
    return pages_of(mm, x86_pages * kPages4K.size());
}

// The layout's x86-64 addresses are 4 KiB aligned: rounded down to the mm's page.
uint64_t page_down(const Mm& mm, uint64_t addr) {
    return addr & ~(mm.pages.size() - 1);
}

ElfObject elf(std::string path, uint64_t headers, uint64_t text, uint64_t rodata, uint64_t relro,
              uint64_t data, uint64_t bss, uint64_t text_read) {
    ElfObject o;
    o.path = std::move(path);
    o.headers = headers;
    o.text = text;
    o.rodata = rodata;
    o.relro = relro;
    o.data = data;
    o.bss = bss;
    o.text_read = text_read;
    return o;
}

ElfObject ld_so() {
    return elf("/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", 4 * KiB, 152 * KiB, 40 * KiB,
               8 * KiB, 8 * KiB, 0, 64 * KiB);
}

ElfObject libc() {
    return elf("/usr/lib/x86_64-linux-gnu/libc.so.6", 152 * KiB, 1368 * KiB, 332 * KiB, 16 * KiB,
               8 * KiB, 52 * KiB, 256 * KiB);
}

// A small PIE executable: one page per segment, .bss inside the .data page.
ElfObject small_pie(const std::string& path) {
    return elf(path, 4 * KiB, 4 * KiB, 4 * KiB, 4 * KiB, 4 * KiB, 0, 4 * KiB);
}

StackSpec c_thread_stack() {
    StackSpec s;
    s.size = C_THREAD_STACK;
    s.glibc_guard = C_THREAD_GUARD;
    s.used_pages = C_THREAD_USED_PAGES;
    return s;
}

StackSpec main_stack() {
    StackSpec s;
    s.size = MAIN_STACK_BYTES;
    s.used_pages = MAIN_STACK_USED_PAGES;
    return s;
}

// Wraps a thread's program: the main thread first runs the startup phase; every phase with
// access streams also touches the thread's stack and the process's globals.
class RuntimeProgram : public TaskProgram {
  public:
    RuntimeProgram(std::unique_ptr<TaskProgram> inner, std::vector<AccessStream> runtime,
                   std::vector<Phase> prologue)
        : inner_(std::move(inner)), runtime_(std::move(runtime)), prologue_(std::move(prologue)) {}

    bool next_phase(Task& t, Phase& ph) override {
        if (next_ < prologue_.size()) {
            ph = prologue_[next_++];
            return true;
        }
        if (!inner_ || !inner_->next_phase(t, ph)) return false;
        if (!ph.streams.empty())
            ph.streams.insert(ph.streams.end(), runtime_.begin(), runtime_.end());
        return true;
    }

  private:
    std::unique_ptr<TaskProgram> inner_;
    std::vector<AccessStream> runtime_;
    std::vector<Phase> prologue_;  // the startup or fork-return phase
    size_t next_ = 0;
};

}  // namespace

ElfObject libnuma() {
    return elf("/usr/lib/x86_64-linux-gnu/libnuma.so.1.0.0", 12 * KiB, 28 * KiB, 8 * KiB, 4 * KiB,
               4 * KiB, 0, 8 * KiB);
}

ProgramImage static_c_program(const std::string& path) {
    ProgramImage img;
    img.name = path.substr(path.rfind('/') + 1);
    // gcc -O2 -static -pthread: static glibc in the executable, no PT_INTERP.
    img.exe = elf(path, 4 * KiB, 552 * KiB, 168 * KiB, 16 * KiB, 12 * KiB, 20 * KiB, 64 * KiB);
    img.pie = false;
    img.brk_heap = 136 * KiB;
    img.globals_pages = 2;
    img.main_stack = main_stack();
    img.thread_stack = c_thread_stack();
    return img;
}

ProgramImage dynamic_c_program(const std::string& path, std::vector<ElfObject> extra_libs) {
    ProgramImage img;
    img.name = path.substr(path.rfind('/') + 1);
    img.exe = small_pie(path);
    img.libs = std::move(extra_libs);
    img.libs.push_back(libc());
    img.interp = ld_so();
    img.brk_heap = BRK_HEAP_BYTES;
    img.globals_pages = 1;
    img.main_stack = main_stack();
    img.thread_stack = c_thread_stack();
    return img;
}

ProgramImage hotspot_jvm() {
    ProgramImage img = dynamic_c_program("/usr/lib/jvm/java-17-openjdk-amd64/bin/java");
    img.name = "java";
    const std::string lib = "/usr/lib/jvm/java-17-openjdk-amd64/lib/";
    // DT_NEEDED of java (libz, libjli, libc), then what the launcher dlopen()s: libjvm (with
    // libstdc++, libm, libgcc_s), libjimage, libjava.
    img.libs = {
        elf("/usr/lib/x86_64-linux-gnu/libz.so.1.2.13", 12 * KiB, 76 * KiB, 28 * KiB, 4 * KiB,
            4 * KiB, 0, 16 * KiB),
        elf(lib + "libjli.so", 8 * KiB, 36 * KiB, 12 * KiB, 4 * KiB, 4 * KiB, 0, 16 * KiB),
        libc(),
        elf(lib + "server/libjvm.so", 2372 * KiB, 13644 * KiB, 2564 * KiB, 736 * KiB, 212 * KiB,
            360 * KiB, 4 * MiB),
        elf("/usr/lib/x86_64-linux-gnu/libm.so.6", 64 * KiB, 464 * KiB, 360 * KiB, 4 * KiB, 4 * KiB,
            0, 32 * KiB),
        elf("/usr/lib/x86_64-linux-gnu/libgcc_s.so.1", 12 * KiB, 92 * KiB, 16 * KiB, 4 * KiB,
            4 * KiB, 0, 8 * KiB),
        elf("/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", 612 * KiB, 1028 * KiB, 444 * KiB,
            44 * KiB, 12 * KiB, 12 * KiB, 64 * KiB),
        elf(lib + "libjimage.so", 8 * KiB, 12 * KiB, 4 * KiB, 4 * KiB, 4 * KiB, 8 * KiB, 8 * KiB),
        elf(lib + "libjava.so", 48 * KiB, 68 * KiB, 24 * KiB, 4 * KiB, 4 * KiB, 4 * KiB, 32 * KiB)};
    img.brk_heap = 284 * KiB;
    // The VM's globals live in libjvm's .data and .bss (Universe, the heap, safepoint state):
    // every Java thread reads a few of those pages all the time.
    img.globals_pages = 4;
    img.globals_in = lib + "server/libjvm.so";
    img.thread_stack = java_thread_stack();
    return img;
}

StackSpec java_thread_stack() {
    // ThreadStackSize = 1024 KiB; StackYellowPages 2 + StackRedPages 1 + StackReservedPages 1
    // (globals_x86.hpp), made PROT_NONE at the low end; no glibc guard (os::Linux::
    // default_guard_size is 0 for Java threads). Measured: 16 KiB ---p + 1008 KiB rw-p.
    // Interpreter and compiled frames go deeper than C frames: 4 pages in use (assumption).
    StackSpec s;
    s.size = 1 * MiB;
    s.hotspot_guard = 16 * KiB;
    s.used_pages = 4;
    return s;
}

StackSpec jvm_compiler_thread_stack() {
    StackSpec s = java_thread_stack();  // CompilerThreadStackSize = 1024 KiB on linux-x86
    s.used_pages = 8;                   // the compilers recurse deeply (assumption)
    return s;
}

StackSpec jvm_native_thread_stack() {
    // VMThreadStackSize = 1024 KiB with a glibc guard page (measured: 4 KiB ---p + 1 MiB).
    StackSpec s;
    s.size = 1 * MiB;
    s.glibc_guard = 4 * KiB;
    s.used_pages = 2;
    return s;
}

std::unique_ptr<Process> Process::exec(System& sys, const ProgramImage& image) {
    std::unique_ptr<Process> pr(new Process(sys, image));
    Mm& mm = mm_create(sys);
    pr->mm_ = &mm;
    mm.mmap_top_down = true;
    mm.mmap_base = page_down(mm, MMAP_BASE);
    // load_elf_binary(): the executable, then its interpreter top-down, then (arch_setup_
    // additional_pages) [vvar] and [vdso]; the [stack] was set up before all of them.
    pr->map_elf(image.exe, page_down(mm, image.pie ? PIE_BASE : STATIC_BASE), true);
    const Vma& last = *mm.vmas.back();
    if (image.brk_heap) {
        Vma& heap =
            do_mmap(sys, mm, image.brk_heap, VM_READ | VM_WRITE, "[heap]", nullptr, 0, last.end);
        pr->startup_write_.push_back(&pr->region(
            heap, 0, std::min(heap.nr_pages(), pages_of(mm, BRK_HEAP_TOUCHED)), "heap0"));
    }
    if (!image.interp.path.empty()) pr->map_elf(image.interp, 0, false);
    // [vvar] is VM_IO | VM_PFNMAP (not migratable); [vdso] holds shared kernel pages, which
    // change_pte_range leaves alone (page_count > 1): the model does not map them in.
    // map_vdso(): one area, [vvar] below [vdso].
    const uint64_t vvar = pages_of(mm, VVAR_BYTES) * mm.pages.size();
    const uint64_t vdso = pages_of(mm, VDSO_BYTES) * mm.pages.size();
    mm.mmap_base -= vvar + vdso;
    do_mmap(sys, mm, vvar, VM_READ | VM_IO | VM_PFNMAP, "[vvar]", nullptr, 0, mm.mmap_base);
    do_mmap(sys, mm, vdso, VM_READ | VM_EXEC | VM_MAYWRITE, "[vdso]", nullptr, 0,
            mm.mmap_base + vvar);
    if (!image.interp.path.empty()) {
        Vma& a = do_mmap(sys, mm, LDSO_ANON_BYTES, VM_READ | VM_WRITE, "");
        pr->startup_write_.push_back(&pr->region(a, 0, a.nr_pages(), "ld.so-anon"));
    }
    for (const ElfObject& lib : image.libs)
        pr->map_elf(lib, 0, false);
    // The main thread's stack, at the top of the address space.
    Vma& st = do_mmap(
        sys, mm, image.main_stack.size, VM_READ | VM_WRITE | VM_GROWSDOWN, "[stack]", nullptr, 0,
        page_down(mm, TASK_SIZE) - pages_of(mm, image.main_stack.size) * mm.pages.size());
    Stack s;
    s.vma = &st;
    s.spec = image.main_stack;
    const uint64_t used = std::min(st.nr_pages(), measured_pages(mm, image.main_stack.used_pages));
    s.used = &pr->region(st, st.nr_pages() - used, used, "stack0");
    pr->stacks_.push_back(s);
    pr->startup_write_.push_back(s.used);
    return pr;
}

void Process::map_elf(const ElfObject& o, uint64_t base, bool is_exe) {
    System& sys = sys_;
    Mm& mm = *mm_;
    // One page-cache object for the whole file, shared by every process that maps it.
    // Each segment is mapped in whole pages (the measured sizes are whole 4 KiB pages; larger
    // pages round each up).
    uint64_t file_pages = 0;
    for (uint64_t b : {o.headers, o.text, o.rodata, o.relro, o.data})
        file_pages += pages_of(mm, b);
    // The page cache is per inode, not per name: two workloads that run different builds of
    // a program under one path (the cowsum workload's static and dynamic programs, or arrays of
    // different sizes) map two files, as a binary replaced by rename keeps its old inode's
    // pages for the processes that still run it. Keyed by name alone, the second build would
    // map past the end of the first one's pages.
    auto& file = sys.files[fmt::format("{}:{}:{}:{}:{}:{}", o.path, o.headers, o.text, o.rodata,
                                       o.relro, o.data)];
    if (!file) file = std::make_shared<MemObject>(file_pages, true);
    // Top-down placement of the whole object first (ld.so reserves the object's span), then
    // its segments in address order inside that span.
    const uint64_t span = (file_pages + pages_of(mm, o.bss)) * mm.pages.size();
    uint64_t addr = base;
    if (!addr) {
        addr = mm.mmap_base - span;
        mm.mmap_base = addr;
    }
    uint64_t pgoff = 0;
    auto seg = [&](uint64_t bytes, uint32_t flags) -> Vma* {
        if (!bytes) return nullptr;
        Vma& v = do_mmap(sys, mm, bytes, flags | VM_FILE, o.path, file, pgoff, addr);
        addr = v.end;
        pgoff += v.nr_pages();
        return &v;
    };
    seg(o.headers, VM_READ);
    Vma* text = seg(o.text, VM_READ | VM_EXEC);
    seg(o.rodata, VM_READ);
    // RELRO: written by ld.so's relocations, then mprotect()ed read-only; still VM_FILE, so
    // task_numa_work skips it as shared_ro like the other read-only segments.
    Vma* relro = seg(o.relro, VM_READ);
    Vma* data = seg(o.data, VM_READ | VM_WRITE);
    Vma* bss = nullptr;
    if (o.bss) {
        bss = &do_mmap(sys, mm, o.bss, VM_READ | VM_WRITE, "", nullptr, 0, addr);
        addr = bss->end;
    }
    const std::string tag = o.path.substr(o.path.rfind('/') + 1);
    if (text && o.text_read)
        startup_read_.push_back(&region(
            *text, 0, std::min(text->nr_pages(), pages_of(mm, o.text_read)), tag + ":text"));
    // Relocations and static initialisers write all of .data/.got (copy-on-write from the page
    // cache) and .bss; the relro pages are written before the mprotect, and are read-only now.
    if (relro) startup_write_.push_back(&region(*relro, 0, relro->nr_pages(), tag + ":relro"));
    if (data)
        startup_write_.push_back(&region(
            *data, 0, std::min(data->nr_pages(), pages_of(mm, std::min(o.data, o.data_written))),
            tag + ":data"));
    if (bss) startup_write_.push_back(&region(*bss, 0, bss->nr_pages(), tag + ":bss"));
    // The program's global variables: the first pages of the writable data of the executable,
    // or of the library the image names (libjvm for the JVM).
    const bool holds_globals = is_exe ? image_.globals_in.empty() : o.path == image_.globals_in;
    Vma* g = data ? data : bss;
    if (holds_globals && g && image_.globals_pages)
        globals_ = &region(*g, 0, std::min(g->nr_pages(), measured_pages(mm, image_.globals_pages)),
                           "globals");
}

Region& Process::region(Vma& vma, uint64_t first, uint64_t count, const std::string& name) {
    return add_region(sys_, vma, first, count, name);
}

Vma& Process::exe_data() {
    for (auto& v : mm_->vmas)
        if (v->name == image_.exe.path && (v->vm_flags & VM_WRITE)) return *v;
    throw std::logic_error(image_.exe.path + " has no data segment");
}

Vma& Process::mmap(uint64_t bytes, const std::string& name, uint32_t vm_flags,
                   std::shared_ptr<MemObject> object) {
    return do_mmap(sys_, *mm_, bytes, vm_flags, name, std::move(object));
}

std::unique_ptr<TaskProgram> Process::wrap(std::unique_ptr<TaskProgram> program, Region* stack,
                                           First first_phase, Region* arena) {
    std::vector<AccessStream> rt;
    if (stack)
        rt.push_back({.region = stack,
                      .pattern = Pattern::Random,
                      .share = RUNTIME_SHARE,
                      .write_fraction = 0.5});
    if (globals_)
        rt.push_back({.region = globals_, .pattern = Pattern::Random, .share = RUNTIME_SHARE});
    std::vector<Phase> prologue;
    if (arena) {
        // The thread's first malloc() initialises its arena's heap header.
        Phase ph;
        ph.rate_gbs = STARTUP_RATE_GBS;
        ph.streams.push_back({.region = arena, .write_fraction = 1.0});
        ph.work_bytes = static_cast<double>(arena->bytes());
        prologue.push_back(std::move(ph));
    }
    if (first_phase == First::ForkReturn && stack) {
        // The child returns from fork() on its copy of the stack and writes its frames: the
        // shared pages are copied on its CPU.
        Phase ph;
        ph.rate_gbs = STARTUP_RATE_GBS;
        ph.streams.push_back({.region = stack, .write_fraction = 1.0});
        ph.work_bytes = static_cast<double>(stack->bytes());
        prologue.push_back(std::move(ph));
    }
    if (first_phase == First::Exec) {
        Phase ph;
        ph.rate_gbs = STARTUP_RATE_GBS;
        double total = 0;
        for (Region* r : startup_write_)
            total += static_cast<double>(r->bytes());
        for (Region* r : startup_read_)
            total += static_cast<double>(r->bytes());
        for (Region* r : startup_write_)
            ph.streams.push_back({.region = r,
                                  .share = static_cast<double>(r->bytes()) / total,
                                  .write_fraction = 1.0});
        for (Region* r : startup_read_)
            ph.streams.push_back({.region = r, .share = static_cast<double>(r->bytes()) / total});
        ph.work_bytes = total;
        if (!exec_affinity_.empty()) ph.set_affinity = exec_affinity_;
        if (total > 0) prologue.push_back(std::move(ph));
    }
    return std::make_unique<RuntimeProgram>(std::move(program), std::move(rt), std::move(prologue));
}

Task& Process::start(Task* parent, const std::string& comm, std::unique_ptr<TaskProgram> program,
                     int workload, int thread_index) {
    programs_.push_back(wrap(std::move(program), stacks_.front().used, First::Exec));
    Task& t =
        create_process(sys_, *mm_, parent, comm, programs_.back().get(), workload, thread_index);
    stacks_.front().owner = &t;
    return t;
}

Process::Stack& Process::new_stack(const StackSpec& spec) {
    // glibc's stack cache: a stack of the same size whose thread has exited is reused as it
    // is, with whatever pages it has and wherever they are.
    for (Stack& s : stacks_)
        if (s.owner && s.owner->exiting() && s.spec.size == spec.size &&
            s.spec.hotspot_guard == spec.hotspot_guard && &s != &stacks_.front()) {
            s.owner = nullptr;
            return s;
        }
    // allocate_stack(): mmap(size + guard, PROT_NONE) then mprotect() of the part above the
    // guard: a ---p guard VMA below the rw-p stack. HotSpot protects its zones inside the
    // stack of a Java thread the same way.
    Stack s;
    s.spec = spec;
    Mm& mm = *mm_;
    const uint64_t below = spec.glibc_guard + spec.hotspot_guard;
    const uint64_t top = mm.mmap_base;
    const uint64_t stack_bytes = pages_of(mm, spec.size - spec.hotspot_guard) * mm.pages.size();
    s.vma = &do_mmap(sys_, mm, stack_bytes, VM_READ | VM_WRITE, "", nullptr, 0, top - stack_bytes);
    if (below)
        do_mmap(sys_, mm, below, 0, "", nullptr, 0,
                s.vma->start - pages_of(mm, below) * mm.pages.size());
    mm.mmap_base = s.vma->start - pages_of(mm, below) * mm.pages.size();
    const uint64_t used = std::min(s.vma->nr_pages(), measured_pages(mm, spec.used_pages));
    s.used =
        &region(*s.vma, s.vma->nr_pages() - used, used, fmt::format("stack{}", stacks_.size()));
    stacks_.push_back(s);
    return stacks_.back();
}

Task& Process::pthread_create(Task& creator, const std::string& comm,
                              std::unique_ptr<TaskProgram> program, int thread_index) {
    return pthread_create(creator, comm, std::move(program), thread_index, image_.thread_stack);
}

Task& Process::pthread_create(Task& creator, const std::string& comm,
                              std::unique_ptr<TaskProgram> program, int thread_index,
                              const StackSpec& stack) {
    Stack& s = new_stack(stack);
    // The creator writes struct pthread and the static TLS block at the top of the new stack.
    const uint64_t top = s.vma->nr_pages() - 1;
    if (!s.vma->present.test(top))
        creator.kernel_debt +=
            static_cast<Nanos>(handle_mm_fault(sys_, creator, *s.vma, top, true));
    programs_.push_back(wrap(std::move(program), s.used, First::None,
                             image_.thread_arenas ? new_arena() : nullptr));
    Task& t = create_thread(sys_, creator, comm, programs_.back().get(), thread_index);
    s.owner = &t;
    return t;
}

Region* Process::new_arena() {
    // glibc arena_get2(): up to 8 arenas per core on 64-bit (NARENAS_FROM_NCORES), then threads
    // share them. new_heap() maps HEAP_MAX_SIZE (64 MiB) aligned to its size, PROT_NONE, and
    // opens the first 132 KiB (the measured rw-p part) read-write.
    if (arenas_ >= 8 * sys_.nr_cpus()) return nullptr;
    ++arenas_;
    Mm& mm = *mm_;
    const uint64_t start = (mm.mmap_base - ARENA_BYTES) & ~(ARENA_BYTES - 1);
    Vma& rw = do_mmap(sys_, mm, ARENA_OPEN_BYTES, VM_READ | VM_WRITE, "", nullptr, 0, start);
    do_mmap(sys_, mm, start + ARENA_BYTES - rw.end, 0, "", nullptr, 0, rw.end);
    mm.mmap_base = start;
    return &region(rw, 0, 1, fmt::format("arena{}", arenas_));
}

std::unique_ptr<Process> Process::fork(Task& parent) {
    std::unique_ptr<Process> child(new Process(sys_, image_));
    child->mm_ = &dup_mm(sys_, *mm_);
    // The child continues on its copy of the forking thread's stack; globals by name.
    size_t si = 0;
    for (size_t i = 0; i < stacks_.size(); ++i)
        if (stacks_[i].owner == &parent) si = i;
    Stack s = stacks_[si];
    s.vma = nullptr;
    s.used = find_region(*child->mm_, stacks_[si].used->name);
    s.vma = s.used->vma;
    s.owner = nullptr;
    child->stacks_.push_back(s);
    if (globals_) child->globals_ = find_region(*child->mm_, globals_->name);
    return child;
}

Task& Process::start_forked(Task& parent, const std::string& comm,
                            std::unique_ptr<TaskProgram> program, int workload, int thread_index) {
    programs_.push_back(wrap(std::move(program), stacks_.front().used, First::ForkReturn));
    Task& t =
        create_process(sys_, *mm_, &parent, comm, programs_.back().get(), workload, thread_index);
    stacks_.front().owner = &t;
    return t;
}

}  // namespace numasim
