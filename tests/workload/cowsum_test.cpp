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

TEST(Cowsum, BadModeIsAnError) {
    EXPECT_THROW(test::run_workload("tiny-2n", "[[workload]]\ntype='cowsum'\nmode='shm'\n", 0),
                 InputError);
}

}  // namespace
}  // namespace numasim
