// numactl's command line, worked by hand from numactl.c and libnuma's numa_parse_nodestring on
// tiny-4n (nodes 0-3, one CPU each: CPU n on node n) and tiny-2n (CPUs 0-1 on node 0, 2-3 on 1).
#include "policy/numactl_args.h"

#include <gtest/gtest.h>

#include "machine/presets.h"
#include "machine/topology.h"

namespace numasim {
namespace {

const Topology& four() {
    static const Topology m = load_preset("tiny-4n");
    return m;
}
const Topology& two() {
    static const Topology m = load_preset("tiny-2n");
    return m;
}

// The error's option and message for a line numactl refuses.
std::pair<std::string, std::string> refusal(std::string_view line, const Topology& m) {
    try {
        parse_numactl(line, m);
    } catch (const NumactlError& e) {
        return {e.option(), e.what()};
    }
    return {"", "accepted"};
}

TEST(NumactlArgs, CpunodebindTakesTheNodesCpusAndMembindBindsMemory) {
    const NumactlBinding b = parse_numactl("--cpunodebind=1 --membind=1", two());
    ASSERT_TRUE(b.cpus);
    EXPECT_EQ(*b.cpus, (std::vector<int>{2, 3}));
    ASSERT_TRUE(b.mempolicy);
    EXPECT_EQ(b.mempolicy->mode, MpolMode::Bind);
    EXPECT_EQ(b.mempolicy->nodes, 0b10u);
    EXPECT_EQ(b.mempolicy->flags, 0);
}

TEST(NumactlArgs, ShortOptionsTakeAttachedOrSeparateArguments) {
    const NumactlBinding b = parse_numactl("numactl -N 0,2 -i1-3", four());
    EXPECT_EQ(*b.cpus, (std::vector<int>{0, 2}));
    EXPECT_EQ(b.mempolicy->mode, MpolMode::Interleave);
    EXPECT_EQ(b.mempolicy->nodes, 0b1110u);
}

TEST(NumactlArgs, NodeListsAreLibnumas) {
    EXPECT_EQ(parse_numactl("--interleave=all", four()).mempolicy->nodes, 0b1111u);
    EXPECT_EQ(parse_numactl("--interleave=!0", four()).mempolicy->nodes, 0b1110u);
    EXPECT_EQ(parse_numactl("--interleave=!1-2", four()).mempolicy->nodes, 0b1001u);
    EXPECT_EQ(parse_numactl("--interleave=+1", four()).mempolicy->nodes, 0b0010u);
    // "same": the previous option's list.
    const NumactlBinding s = parse_numactl("-N 1,3 -m same", four());
    EXPECT_EQ(*s.cpus, (std::vector<int>{1, 3}));
    EXPECT_EQ(s.mempolicy->nodes, 0b1010u);
}

TEST(NumactlArgs, PreferredLocalallocAndBalancing) {
    const NumactlBinding p = parse_numactl("--preferred=3", four());
    EXPECT_EQ(p.mempolicy->mode, MpolMode::Preferred);
    EXPECT_EQ(p.mempolicy->nodes, 0b1000u);
    EXPECT_FALSE(p.cpus);
    EXPECT_EQ(parse_numactl("-l", four()).mempolicy->mode, MpolMode::Local);
    // -b before --membind: set_mempolicy(MPOL_BIND | MPOL_F_NUMA_BALANCING).
    const NumactlBinding b = parse_numactl("-b -m0", four());
    EXPECT_EQ(b.mempolicy->mode, MpolMode::Bind);
    EXPECT_EQ(b.mempolicy->flags, MPOL_F_NUMA_BALANCING);
}

TEST(NumactlArgs, PhyscpubindAndLongOptionPrefixes) {
    EXPECT_EQ(*parse_numactl("-C 0-1,3", four()).cpus, (std::vector<int>{0, 1, 3}));
    // getopt_long takes a unique prefix; the last affinity option wins.
    const NumactlBinding b = parse_numactl("--cpunode=0 --physcpu=2 --mem 1", two());
    EXPECT_EQ(*b.cpus, (std::vector<int>{2}));
    EXPECT_EQ(b.mempolicy->nodes, 0b10u);
}

TEST(NumactlArgs, RefusalsNameTheOption) {
    EXPECT_EQ(refusal("--membind=2", two()),
              std::make_pair(std::string("--membind=2"),
                             std::string("<2> is invalid: node argument 2 is out of range")));
    EXPECT_EQ(refusal("-m 0 -i 1", two()),
              std::make_pair(std::string("-i"), std::string("Conflicting policies")));
    EXPECT_EQ(refusal("--preferred=0,1", two()).first, "--preferred=0,1");
    EXPECT_EQ(refusal("--p=0", two()).second,
              "option '--p=0' is ambiguous; possibilities: '--preferred' '--preferred-many' "
              "'--physcpubind'");
    EXPECT_EQ(refusal("--frobnicate", two()).second, "unrecognized option '--frobnicate'");
    EXPECT_EQ(refusal("-z", two()).second, "invalid option -- 'z'");
    EXPECT_EQ(refusal("--membind", two()).second, "option '--membind' requires an argument");
    EXPECT_EQ(refusal("--membind=0-x", two()).first, "--membind=0-x");
    EXPECT_EQ(refusal("--shm=seg", two()).first, "--shm=seg");
    EXPECT_EQ(refusal("-m same", two()).second, "same needs previous node specification");
    EXPECT_EQ(refusal("-m0 -b", two()).second, "--balancing must precede --membind");
    EXPECT_EQ(refusal("-N0 ./a.out", two()).first, "./a.out");
    EXPECT_EQ(refusal("-C 4", two()).second, "<4> is invalid: cpu argument 4 is out of range");
}

}  // namespace
}  // namespace numasim
