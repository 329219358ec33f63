// `--policy-plugin PATH.so` end to end (docs/placement-policies.md, "Plugins"): a plugin's
// policy is listed and selected like a built-in one, runs deterministically, and every way a
// plugin can fail is one input-error line naming the plugin and the call, exit 2, no output.
// The plugins are tests/plugins/*.cpp, built against numasim/policy_plugin.h alone.
#include <gtest/gtest.h>

#include <regex>

#include "numasim_process.h"

namespace numasim::test {
namespace {

const std::string kProbe = NUMASIM_TEST_PROBE_PLUGIN;

// NUMA01 of autonuma-benchmark shrunk to tiny-2n: pages first touched on node 0 by threads of
// both nodes, so hinting faults on misplaced pages come early.
std::string scenario(const std::string& params) {
    return write_temp("plugin.toml", R"([scenario]
machine = "tiny-2n"
duration = "4s"
policy = "probe"
[policy.probe]
)" + params + R"(
[[workload]]
type = "autonumabench"
test = "NUMA01"
size = "512MiB"
)");
}

// Runs `numasim ARGS`, its standard output into a file; returns (status, stderr, stdout).
struct Split {
    int status;
    std::string err, out;
};
Split run_split(const std::string& args) {
    const std::string out = scratch_path("stdout.txt");
    const Output o = shell("($NUMASIM " + args + " >" + out + ")");
    return {o.status, o.out, read_text(out)};
}

void expect_plugin_error(const std::string& args, const std::string& path, const std::string& call,
                         const std::string& problem) {
    SCOPED_TRACE(args);
    const Split s = run_split(args);
    EXPECT_EQ(s.status, 2);
    EXPECT_EQ(s.out, "");
    EXPECT_EQ(s.err, "numasim: error: --policy-plugin " + path + ": " + call + problem + "\n");
}

TEST(PolicyPlugin, ListedWithItsPath) {
    const Output o = run_numasim("policies --policy-plugin " + kProbe);
    ASSERT_EQ(o.status, 0) << o.out;
    EXPECT_NE(o.out.find("\nprobe                a test plugin that does what its parameters say "
                         "(plugin " +
                         kProbe + ")\n"),
              std::string::npos)
        << o.out;
}

TEST(PolicyPlugin, LoadingErrors) {
    expect_plugin_error("policies --policy-plugin /nonexistent/x.so", "/nonexistent/x.so", "",
                        "no such file");
    const std::string readme = std::string(NUMASIM_SOURCE_DIR) + "/README.md";
    expect_plugin_error("policies --policy-plugin " + readme, readme, "dlopen: ",
                        "not a loadable shared object: " + readme + ": invalid ELF header");
    expect_plugin_error("policies --policy-plugin " NUMASIM_TEST_NO_ENTRY_PLUGIN,
                        NUMASIM_TEST_NO_ENTRY_PLUGIN, "numasim_policy_plugin: ",
                        "no such entry point: a plugin defines it with "
                        "NUMASIM_POLICY_PLUGIN(descriptor) (numasim/policy_plugin.h)");
    expect_plugin_error("policies --policy-plugin " NUMASIM_TEST_OTHER_ABI_PLUGIN,
                        NUMASIM_TEST_OTHER_ABI_PLUGIN, "numasim_policy_plugin: ",
                        "built for plugin ABI version 3, this numasim loads version 2: rebuild "
                        "the plugin against its numasim/policy_plugin.h");
}

// A plugin that declares kHookNumaScan replaces the PTE scanner: no PTE is made PROT_NONE, its
// sampled accesses are counted as hinting faults and move pages, the same at any -j; its
// errors name its numa_scan call.
TEST(PolicyPlugin, AScanPolicyReplacesThePteScanner) {
    const std::string sampler = NUMASIM_TEST_SAMPLER_PLUGIN;
    auto text = [](const std::string& params) {
        return write_temp("sampler.toml", R"([scenario]
machine = "tiny-2n"
duration = "4s"
policy = "sampler"
[policy.sampler]
)" + params + R"(
[[workload]]
type = "autonumabench"
test = "NUMA01"
size = "512MiB"
)");
    };
    const std::string run = "run --policy-plugin " + sampler + " " + text("") + " --iterations 2";
    const Output a = run_numasim(run + " -j 1");
    ASSERT_EQ(a.status, 0) << a.out;
    EXPECT_EQ(a.out, run_numasim(run + " -j 2").out);
    auto counter = [&](const std::string& name) {
        std::smatch m;
        const std::regex re("\\n  " + name + " +([0-9]+)\\n");
        return std::regex_search(a.out, m, re) ? std::stoull(m[1]) : ~0ull;
    };
    EXPECT_EQ(counter("numa_pte_updates"), 0u) << a.out;
    EXPECT_GT(counter("numa_hint_faults"), 100u) << a.out;
    EXPECT_GT(counter("numa_pages_migrated"), 0u) << a.out;
    const std::string bad = "run --policy-plugin " + sampler + " ";
    expect_plugin_error(bad + text("scan = \"throw\""), sampler,
                        "sampler.numa_scan: ", "threw: scan refused");
    expect_plugin_error(bad + text("scan = \"negative\""), sampler,
                        "sampler.numa_scan: ", "returned -1 ns: not a kernel time (0 or more)");
}

TEST(PolicyPlugin, CallErrorsNameThePluginAndTheCall) {
    const std::string run = "run --policy-plugin " + kProbe + " ";
    expect_plugin_error(run + scenario("create = \"throw\""), kProbe,
                        "probe.create: ", "threw: create = \"throw\" given");
    expect_plugin_error(run + scenario("exec = \"throw\""), kProbe,
                        "probe.exec: ", "threw: exec refused");
    expect_plugin_error(run + scenario("exec = \"bad-cpu\""), kProbe, "probe.exec: ",
                        "set_cpus_allowed: CPU 4096 is out of range (the machine has CPUs 0-3)");
    expect_plugin_error(run + scenario("fault = \"throw\""), kProbe,
                        "probe.numa_fault: ", "threw: fault refused");
    expect_plugin_error(run + scenario("fault = \"bad-node\""), kProbe, "probe.numa_fault: ",
                        "returned node 99: not a node this page may go to (nodes with memory "
                        "its memory policy allows: 0,1), nor kNoNode");
}

TEST(PolicyPlugin, ACrashInsideThePluginIsReportedAsItsOwn) {
    const std::string run = "run -j 2 --policy-plugin " + kProbe + " ";
    expect_plugin_error(run + scenario("exec = \"segv\""), kProbe, "probe.exec: ",
                        "crashed with SIGSEGV (invalid memory access) inside the plugin");
    expect_plugin_error(run + scenario("fault = \"segv\""), kProbe, "probe.numa_fault: ",
                        "crashed with SIGSEGV (invalid memory access) inside the plugin");
    expect_plugin_error(run + scenario("fault = \"fpe\""), kProbe, "probe.numa_fault: ",
                        "crashed with SIGFPE (arithmetic error) inside the plugin");
}

// The crash ends the process from the signal handler; an output file being written under a
// temporary name (--trace) is removed, and the target never appears.
TEST(PolicyPlugin, ACrashLeavesNoOutputFileBehind) {
    const std::string dir = scratch_path("trace-dir");
    std::filesystem::create_directories(dir);
    const Split s = run_split("run --policy-plugin " + kProbe + " --trace " + dir + "/t.txt " +
                              scenario("fault = \"segv\""));
    EXPECT_EQ(s.status, 2) << s.err;
    EXPECT_TRUE(std::filesystem::is_empty(dir));
}

// A plugin drawing from the run's random stream: the same bytes at any number of workers, and
// its decisions visible in the counters against mainline's.
TEST(PolicyPlugin, DeterministicAndSelectableByVariant) {
    const std::string s = scenario("fault = \"random\"");
    const std::string args = "compare " + s + " --iterations 2 --policy-plugin " + kProbe +
                             " -V kernel:policy=mainline -V probe:policy=probe -j ";
    const Split one = run_split(args + "1");
    ASSERT_EQ(one.status, 0) << one.err;
    const Split two = run_split(args + "2");
    ASSERT_EQ(two.status, 0) << two.err;
    EXPECT_EQ(one.out, two.out);
    EXPECT_NE(one.out.find("kernel"), std::string::npos) << one.out;
    EXPECT_NE(one.out.find("probe"), std::string::npos) << one.out;
}

// exec binds the process to node 1 (CPUs and MPOL_BIND): its VMAs take no hinting faults (so the
// fault hook, which would fail, is never asked) and every page is allocated on node 1, where its
// threads run (numa_local).
TEST(PolicyPlugin, ExecHookBindsTheProcess) {
    const std::string s = write_temp("exec.toml", R"([scenario]
machine = "tiny-2n"
duration = "1s"
policy = "probe"
[policy.probe]
exec = "pin-node-1"
fault = "bad-node"
[[workload]]
type = "streams"
[[workload.process]]
name = "p"
threads = 2
[[workload.process.region]]
name = "data"
size = "64MiB"
[[workload.process.thread]]
count = 2
loop = true
phases = [ { streams = [ { region = "data", write_fraction = 1.0, per_thread = true } ], rate_gbs = 4.0, cpu_time = "100ms" } ]
)");
    const Split r = run_split("run --policy-plugin " + kProbe + " " + s);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\n  numa_hint_faults                      0\n"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("\n  numa_other                            0\n"), std::string::npos)
        << r.out;
}

}  // namespace
}  // namespace numasim::test
