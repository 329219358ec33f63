// The streams of a mix by VMA and page (cost/stream_index.h), on hand-placed regions.
#include <gtest/gtest.h>

#include <vector>

#include "cost/stream_index.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "machine/presets.h"

namespace numasim {
namespace {

struct IndexWorld {
    IndexWorld() : sys(load_preset("tiny-2n"), NumaBalancingKnobs{}, 1) {
        Mm& mm = mm_create(sys);
        a = &do_mmap(sys, mm, 256 * kPages4K.size(), VM_READ | VM_WRITE, "a");
        b = &do_mmap(sys, mm, 256 * kPages4K.size(), VM_READ | VM_WRITE, "b");
    }
    Region& region(Vma& v, uint64_t first, uint64_t count) {
        return add_region(sys, v, first, count, "r");
    }
    System sys;
    Vma* a = nullptr;
    Vma* b = nullptr;
};

AccessStream over(Region& r) {
    return AccessStream{&r, Pattern::Random, 1.0, 0.0};
}

TEST(StreamIndex, DisjointRegionsAnswerTheOneStreamThatCoversAPage) {
    IndexWorld w;
    // Streams in the mix's order: a's pages [100, 150), b's [0, 10), a's [0, 50), a's [50, 60)
    // and a region of a with no pages at 200.
    std::vector<AccessStream> streams{over(w.region(*w.a, 100, 50)), over(w.region(*w.b, 0, 10)),
                                      over(w.region(*w.a, 0, 50)), over(w.region(*w.a, 50, 10)),
                                      over(w.region(*w.a, 200, 0))};
    const AccessMix mix{streams, 1.0, 0};
    const StreamIndex::OfVma* a = stream_index(mix).over(*w.a);
    ASSERT_NE(a, nullptr);
    EXPECT_TRUE(a->disjoint);
    EXPECT_EQ(a->covering(0), 2);
    EXPECT_EQ(a->covering(49), 2);
    EXPECT_EQ(a->covering(50), 3);
    EXPECT_EQ(a->covering(60), -1);  // between [50, 60) and [100, 150)
    EXPECT_EQ(a->covering(149), 0);
    EXPECT_EQ(a->covering(200), -1);  // the empty region covers nothing
    // The next start after a page: of the regions with pages and of the empty one alike.
    EXPECT_EQ(a->next_first_after(0), 50u);
    EXPECT_EQ(a->next_first_after(60), 100u);
    EXPECT_EQ(a->next_first_after(120), 200u);
    EXPECT_EQ(a->next_first_after(200), ~uint64_t{0});
    const StreamIndex::OfVma* b = stream_index(mix).over(*w.b);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->covering(5), 1);
    EXPECT_EQ(b->covering(10), -1);
}

TEST(StreamIndex, OverlappingRegionsAreNotDisjoint) {
    IndexWorld w;
    Region& r = w.region(*w.a, 0, 64);
    // Two streams over one region, and a region inside another.
    std::vector<AccessStream> twice{over(r), over(w.region(*w.a, 64, 8)), over(r)};
    EXPECT_FALSE(stream_index(AccessMix{twice, 1.0, 0}).over(*w.a)->disjoint);
    std::vector<AccessStream> nested{over(w.region(*w.a, 10, 20)), over(r)};
    EXPECT_FALSE(stream_index(AccessMix{nested, 1.0, 0}).over(*w.a)->disjoint);
    // Adjacent regions do not overlap.
    std::vector<AccessStream> adjacent{over(w.region(*w.a, 64, 8)), over(r)};
    EXPECT_TRUE(stream_index(AccessMix{adjacent, 1.0, 0}).over(*w.a)->disjoint);
}

TEST(StreamIndex, AVmaWithoutStreamsHasNone) {
    IndexWorld w;
    std::vector<AccessStream> streams{over(w.region(*w.a, 0, 8))};
    EXPECT_EQ(stream_index(AccessMix{streams, 1.0, 0}).over(*w.b), nullptr);
}

TEST(StreamIndex, KeptWithTheMixAndMadeAgainForAnotherSpan) {
    IndexWorld w;
    std::vector<AccessStream> one{over(w.region(*w.a, 0, 8))};
    std::vector<AccessStream> other{over(w.region(*w.b, 0, 8))};
    AccessMix mix{one, 1.0, 0};
    const StreamIndex* first = &stream_index(mix);
    EXPECT_EQ(&stream_index(mix), first);  // kept
    mix.streams = other;
    EXPECT_EQ(stream_index(mix).over(*w.a), nullptr);  // made again from the new span
    EXPECT_NE(stream_index(mix).over(*w.b), nullptr);
}

}  // namespace
}  // namespace numasim
