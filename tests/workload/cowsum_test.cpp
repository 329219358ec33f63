#include <gtest/gtest.h>

#include <set>

#include "engine/process.h"
#include "helpers.h"

namespace numasim {
namespace {

// Every child maps the same page-cache object privately; each page of the array is mapped by
// all the children (the parent never reads the array in Henry Willard's program). The first
// page of the data segment (.got.plt and the start of .data) was written by the parent's
// startup code, so every process has its own copy of it.
TEST(Cowsum, DataModeSharesOneFileObject) {
    auto r = test::run_workload(
        "tiny-2n", "[[workload]]\ntype='cowsum'\nprocesses=6\nseconds=0.3\nmode='data'\n", 2);
    std::set<const MemObject*> objects;
    int children = 0;
    for (const auto& t : r.sys->tasks) {
        if (t->workload != 0 || t->thread_index == 0) continue;
        ++children;
        Region* d = find_region(*t->mm, "data");
        ASSERT_NE(d, nullptr);
        EXPECT_TRUE(d->vma->is_file());
        EXPECT_TRUE(d->vma->object->is_file);
        objects.insert(d->vma->object.get());
        EXPECT_EQ(d->present, d->count);  // the child summed the whole array
    }
    EXPECT_EQ(children, 6);
    ASSERT_EQ(objects.size(), 1u);
    const Vma& data = *find_region(*r.sys->mms.back(), "data")->vma;
    EXPECT_FALSE(data.shares_object_page(0));
    for (uint64_t i = 1; i < data.nr_pages(); ++i) {
        const PageFrame& f = data.object->frames[data.pgoff + i];
        ASSERT_TRUE(f.flags & PF_ALLOC);
        EXPECT_EQ(f.mapcount, 6) << "page " << i;
    }
    const WorkloadResult m = r.w->result(*r.sys);
    EXPECT_GT(test::figure<double>(m, "total_passes"), 6.0);
    EXPECT_EQ(m.tasks.size(), 6u);
}

TEST(Cowsum, PrivateModeCopiesPerChild) {
    auto r = test::run_workload(
        "tiny-2n", "[[workload]]\ntype='cowsum'\nprocesses=3\nseconds=0.2\nmode='private'\n", 2);
    int own = 0;
    for (const auto& t : r.sys->tasks) {
        if (t->workload != 0 || t->thread_index == 0) continue;
        Region* o = find_region(*t->mm, "own");
        ASSERT_NE(o, nullptr);
        own += o->present == o->count;
    }
    EXPECT_EQ(own, 3);
}

// The fuzz-found heap overflow: two cowsum workloads run different builds of
// /usr/local/bin/cowsum (the posting's dynamic program with a 4,000,000-byte array; the oracle's
// static one with 4 MiB), so their page caches are two files. Sharing one object by name, the
// second mapped past the first's frames and its faults read beyond them (AddressSanitizer:
// heap-buffer-overflow in handle_mm_fault). The fuzzer's reproducer, run through the invariant
// checker as it was.
TEST(Cowsum, TwoBuildsUnderOnePathMapTwoFiles) {
    const TomlTable doc = TomlTable::parse_text(R"(
[[workload]]
type = "cowsum"
processes = 2

[[workload]]
type = "cowsum"
processes = 16
seconds = 20
mode = "data"
program = "oracle"
)",
                                                "two-cowsums.toml");
    System sys(load_preset("tiny-2n"), NumaBalancingKnobs{}, 1);
    std::vector<std::unique_ptr<Workload>> workloads;
    for (const TomlTable& t : doc.tables("workload")) {
        workloads.push_back(find_workload(t.get_string("type"))->factory(t, sys.topo));
        t.finish();
        workloads.back()->setup(sys, static_cast<int>(workloads.size()) - 1);
    }
    std::set<const MemObject*> objects;
    for (const auto& mm : sys.mms)
        for (const auto& v : mm->vmas) {
            if (v->name != "/usr/local/bin/cowsum") continue;
            objects.insert(v->object.get());
            EXPECT_LE(v->pgoff + v->nr_pages(), v->object->nr_pages) << "mm " << mm->id;
        }
    EXPECT_EQ(objects.size(), 2u);
    Engine engine(sys);
    engine.set_check_invariants(true);
    engine.run(NSEC_PER_SEC);
    for (const auto& w : workloads)
        EXPECT_GT(test::figure<double>(w->result(sys), "total_passes"), 0.0);
}

// A mapping must lie inside the object it maps: do_mmap refuses one that would not.
TEST(Cowsum, AMappingPastItsObjectIsRefused) {
    System sys(load_preset("tiny-2n"), NumaBalancingKnobs{}, 1);
    Mm& mm = mm_create(sys);
    auto file = std::make_shared<MemObject>(4, true);
    EXPECT_THROW(do_mmap(sys, mm, 8 * sys.pages().size(), VM_READ | VM_FILE, "f", file, 0),
                 std::logic_error);
    EXPECT_THROW(do_mmap(sys, mm, 2 * sys.pages().size(), VM_READ | VM_FILE, "f", file, 3),
                 std::logic_error);
    EXPECT_NO_THROW(do_mmap(sys, mm, 2 * sys.pages().size(), VM_READ | VM_FILE, "f", file, 2));
}

TEST(Cowsum, BadModeIsAnError) {
    EXPECT_THROW(test::run_workload("tiny-2n", "[[workload]]\ntype='cowsum'\nmode='shm'\n", 0),
                 InputError);
}

}  // namespace
}  // namespace numasim
