#include "workload/process_layout.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "engine/process.h"
#include "helpers.h"
#include "kernel/numa_maps.h"
#include "numab/numab.h"
#include "workload/common.h"
#include "workload/phase_list.h"

namespace numasim {
namespace {

const Vma* vma_named(const Mm& mm, const std::string& name, uint32_t flags) {
    for (const auto& v : mm.vmas)
        if (v->name == name && (v->vm_flags & (VM_READ | VM_WRITE | VM_EXEC)) == flags)
            return v.get();
    return nullptr;
}

struct Sim {
    std::unique_ptr<System> sys =
        std::make_unique<System>(load_preset("tiny-2n"), NumaBalancingKnobs{}, 1);
};

// execve() of a dynamic executable: text, read-only and writable segments of the program, of
// libc and of ld.so as private file mappings, [heap], [vvar] and [vdso], and the [stack] at the
// top of the address space; sorted, never overlapping.
TEST(ProcessLayout, DynamicExecutableHasTheLoadersMappings) {
    Sim s;
    auto pr = Process::exec(*s.sys, dynamic_c_program("/bin/prog"));
    const Mm& mm = pr->mm();
    const uint32_t R = VM_READ, RW = VM_READ | VM_WRITE, RX = VM_READ | VM_EXEC;
    ASSERT_NE(vma_named(mm, "/bin/prog", RX), nullptr);
    ASSERT_NE(vma_named(mm, "/bin/prog", RW), nullptr);
    const std::string libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
    const Vma* text = vma_named(mm, libc, RX);
    ASSERT_NE(text, nullptr);
    EXPECT_TRUE(text->is_file());
    EXPECT_FALSE(text->vm_flags & VM_WRITE);  // task_numa_work skips it as shared_ro
    EXPECT_NE(vma_named(mm, libc, R), nullptr);
    EXPECT_NE(vma_named(mm, "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", RX), nullptr);
    EXPECT_NE(vma_named(mm, "[heap]", RW), nullptr);
    const Vma* vvar = vma_named(mm, "[vvar]", R);
    ASSERT_NE(vvar, nullptr);
    EXPECT_TRUE(vvar->vm_flags & VM_PFNMAP);
    EXPECT_NE(vma_named(mm, "[vdso]", RX), nullptr);
    const Vma& stack = *mm.vmas.back();
    EXPECT_EQ(stack.name, "[stack]");
    EXPECT_EQ(stack.end, (uint64_t{1} << 47) - 4096);
    for (size_t i = 1; i < mm.vmas.size(); ++i)
        EXPECT_LE(mm.vmas[i - 1]->end, mm.vmas[i]->start) << mm.vmas[i]->name;
    // Nothing is touched before the main thread runs.
    EXPECT_EQ(mm.rss_pages, 0u);
}

// Two processes of the same program share the page cache of its files.
TEST(ProcessLayout, LibrariesAreOnePageCacheObject) {
    Sim s;
    auto a = Process::exec(*s.sys, dynamic_c_program("/bin/a"));
    auto b = Process::exec(*s.sys, dynamic_c_program("/bin/b"));
    const std::string libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
    const uint32_t RX = VM_READ | VM_EXEC;
    EXPECT_EQ(vma_named(a->mm(), libc, RX)->object, vma_named(b->mm(), libc, RX)->object);
    EXPECT_NE(vma_named(a->mm(), "/bin/a", RX)->object, vma_named(b->mm(), "/bin/b", RX)->object);
}

// pthread_create(): an 8 MiB stack with a PROT_NONE guard page below it; the creator writes the
// thread descriptor at its top from its own CPU, before the new thread runs anywhere.
TEST(ProcessLayout, ThreadStackAndGuardAndDescriptorPage) {
    Sim s;
    System& sys = *s.sys;
    auto pr = Process::exec(sys, dynamic_c_program("/bin/prog"));
    Task& main =
        pr->start(nullptr, "prog", std::make_unique<PhaseList>(std::vector<Phase>{}), 0, 0);
    const size_t before = pr->mm().vmas.size();
    pr->pthread_create(main, "prog", std::make_unique<PhaseList>(std::vector<Phase>{}), 1);
    Mm& mm = pr->mm();
    ASSERT_EQ(mm.vmas.size(), before + 2);
    const Vma* stack = nullptr;
    for (const auto& v : mm.vmas)
        if (v->nr_pages() == 2048 && v->name.empty()) stack = v.get();
    ASSERT_NE(stack, nullptr);
    const Vma* guard = nullptr;  // the mapping just below the stack
    for (const auto& v : mm.vmas)
        if (v->end == stack->start) guard = v.get();
    ASSERT_NE(guard, nullptr);
    EXPECT_EQ(guard->nr_pages(), 1u);
    EXPECT_EQ(guard->vm_flags & (VM_READ | VM_WRITE | VM_EXEC), 0u);
    const uint64_t top = stack->nr_pages() - 1;
    ASSERT_TRUE(stack->present.test(top));
    EXPECT_EQ(stack->frame(top).nid, sys.cpu_to_node(main.cpu));
    EXPECT_EQ(stack->present.count(0, stack->nr_pages()), 1u);
}

// A program whose main thread starts two workers and joins them: it sleeps (without being
// woken) until the last one exits, then exits; its stack cache hands the first worker's stack
// to a thread created after that worker exited.
TEST(ProcessLayout, JoinSleepsUntilTheThreadsExitAndStacksAreReused) {
    Sim s;
    System& sys = *s.sys;
    auto pr = Process::exec(sys, dynamic_c_program("/bin/prog"));
    Vma& buf = pr->mmap(16 << 20, "buf", VM_READ | VM_WRITE);
    Region& r = pr->region(buf, 0, buf.nr_pages(), "buf");
    auto work = [&](double bytes) {
        Phase ph;
        ph.streams.push_back({.region = &r, .write_fraction = 1.0});
        ph.rate_gbs = 1.0;
        ph.work_bytes = bytes;
        return std::make_unique<PhaseList>(std::vector<Phase>{ph});
    };
    Task* workers[3] = {};
    int step = 0;
    auto main_prog = std::make_unique<FnProgram>([&](Task& t, Phase& ph) {
        if (step == 0) {
            workers[0] = &pr->pthread_create(t, "w", work(8e6), 1);
            workers[1] = &pr->pthread_create(t, "w", work(64e6), 2);
            ph.cpu_time = NSEC_PER_USEC;
            ph.sleep_after = 20 * NSEC_PER_MSEC;  // long enough for worker 1 to be done
        } else if (step == 1) {
            workers[2] = &pr->pthread_create(t, "w", work(8e6), 3);
            ph.cpu_time = NSEC_PER_USEC;
            ph.join = true;
        } else {
            return false;
        }
        ++step;
        return true;
    });
    Task& main = pr->start(nullptr, "prog", std::move(main_prog), 0, 0);
    Engine eng(sys);
    eng.run(5 * NSEC_PER_SEC);
    ASSERT_NE(workers[2], nullptr);
    for (Task* w : workers)
        EXPECT_GE(main.exit_time, w->exit_time);
    EXPECT_LT(workers[0]->exit_time, workers[2]->start_time);
    EXPECT_LT(main.utime, NSEC_PER_MSEC);
    // The 8 MiB stack of worker 0 went to the stack cache and came back for worker 2.
    int stacks = 0;
    for (const auto& v : pr->mm().vmas)
        stacks += v->nr_pages() == 2048;
    EXPECT_EQ(stacks, 2);
}

// The v6.7 forced pass (task_numa_work, kernel/sched/fair.c) scans one pid-inactive VMA per
// call. On the way to it the kernel passes over, without ending the pass, what it never scans:
// read-only file segments (text, rodata, relro: "shared_ro"), PROT_NONE guard pages
// ("inaccessible") and [vvar] (VM_PFNMAP: "unsuitable"); nothing of these gets per-VMA state.
// So below a buffer that main() mapped before creating its threads, the walk stops once at
// each writable segment: the executable's .data, [heap], each thread's stack, then the buffer.
TEST(ProcessLayout, ForcedWalkStopsOnlyWhereTheKernelScans) {
    Sim s;
    System& sys = *s.sys;
    sys.knobs.vma_scan = VmaScanSelection::PidsActiveForced;
    sys.knobs.per_vma_start_scan_seq = false;  // v6.7: the first two passes are mm-wide
    sys.knobs.starvation_guard = false;
    auto pr = Process::exec(sys, dynamic_c_program("/bin/prog"));
    Task& main =
        pr->start(nullptr, "prog", std::make_unique<PhaseList>(std::vector<Phase>{}), 0, 0);
    Vma& buffer = pr->mmap(16 * kPages4K.size(), "buffer", VM_READ | VM_WRITE);
    constexpr int kThreads = 3;
    for (int i = 1; i <= kThreads; ++i)
        pr->pthread_create(main, "prog", std::make_unique<PhaseList>(std::vector<Phase>{}), i);
    Mm& mm = pr->mm();
    mm.numa_scan_seq = 2;  // the unconditional passes are over; nobody has faulted since
    auto due = [&](Nanos t) {
        sys.now = t;
        mm.numa_next_scan = t;
    };
    // First sight: every scannable VMA gets its state and waits out scan_delay.
    due(10 * NSEC_PER_SEC);
    task_numa_work(sys, main);
    const int seq = mm.numa_scan_seq;
    std::vector<const Vma*> walked;
    for (int call = 1; call <= 20 && mm.numa_scan_offset < buffer.end; ++call) {
        due((10 + 2 * call) * NSEC_PER_SEC);
        task_numa_work(sys, main);
        int newly = 0;
        for (const auto& v : mm.vmas)
            if (v->numab_state && v->numab_state->prev_scan_seq == seq &&
                std::find(walked.begin(), walked.end(), v.get()) == walked.end()) {
                walked.push_back(v.get());
                ++newly;
            }
        EXPECT_EQ(newly, 1) << "call " << call;
    }
    EXPECT_EQ(mm.numa_scan_seq, seq);
    ASSERT_EQ(walked.size(), static_cast<size_t>(3 + kThreads));
    EXPECT_EQ(walked[0]->name, "/bin/prog");
    EXPECT_TRUE(walked[0]->vm_flags & VM_WRITE);
    EXPECT_EQ(walked[1]->name, "[heap]");
    for (int i = 0; i < kThreads; ++i)
        EXPECT_EQ(walked[2 + i]->nr_pages(), 2048u);  // an 8 MiB thread stack
    EXPECT_EQ(walked.back(), &buffer);
    for (const auto& v : mm.vmas) {
        const bool ro_file = v->is_file() && !(v->vm_flags & VM_WRITE);
        const bool inaccessible = !(v->vm_flags & (VM_READ | VM_WRITE | VM_EXEC));
        if (ro_file || inaccessible || (v->vm_flags & VM_PFNMAP)) {
            EXPECT_FALSE(v->numab_state.has_value()) << v->name << " at " << v->start;
        }
    }
}

// numa_maps: one line per VMA with maps' permissions and numa_maps' counts.
TEST(ProcessLayout, NumaMapsListsEveryVma) {
    Sim s;
    System& sys = *s.sys;
    auto pr = Process::exec(sys, static_c_program("/bin/static"));
    pr->start(nullptr, "static", std::make_unique<PhaseList>(std::vector<Phase>{}), 0, 0);
    Engine eng(sys);
    eng.run(NSEC_PER_SEC);
    const std::string text = numa_maps(sys, pr->mm());
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), static_cast<long>(pr->mm().vmas.size()));
    EXPECT_NE(text.find("000000400000-000000401000 r--p default file=/bin/static"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find(" stack anon=3 dirty=3 N"), std::string::npos) << text;
    EXPECT_NE(text.find(" heap anon=2"), std::string::npos) << text;
    EXPECT_EQ(text.find("ld-linux"), std::string::npos);  // static: no interpreter
}

}  // namespace
}  // namespace numasim
