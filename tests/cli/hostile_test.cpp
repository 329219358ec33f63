// Hostile input: the numasim binary over a corpus of bad inputs (tests/cli/hostile/ and inputs
// generated here). Every case must end with its exit code (2 for bad input, never a crash, a
// hang or an internal error), a message that names the file or option, the key or line, and
// the problem, and no file created in the working directory (each `run` case also asks for a
// --trace file, which must not appear). Then the output-file rules: inputs are never
// overwritten, special files are written in place, regular files appear only on success.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;

const std::string kCorpus = std::string(NUMASIM_SOURCE_DIR) + "/tests/cli/hostile";
const std::string kExamples = std::string(NUMASIM_SOURCE_DIR) + "/examples";
// A case that takes longer has hung (a bad input must be refused before anything runs).
constexpr int kTimeoutSeconds = 60;

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

std::set<std::string> listing(const fs::path& dir) {
    std::set<std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
        out.insert(e.path().filename().string());
    return out;
}

struct Result {
    int code = -1;  // exit status; 124 a timeout, 128 + N death by signal N
    std::string out, err;
};

// A fresh, empty working directory for one case, and a capture directory beside it.
struct Sandbox {
    fs::path root, work, cap;
    explicit Sandbox(const std::string& name) {
        root = fs::temp_directory_path() /
               ("numasim_hostile_" + std::to_string(::getpid()) + "_" + name);
        fs::remove_all(root);
        work = root / "work";
        cap = root / "cap";
        fs::create_directories(work);
        fs::create_directories(cap);
    }
    ~Sandbox() { fs::remove_all(root); }

    // Runs numasim in `work`; {c} is the corpus, {e} the examples, {w} the working directory.
    Result run(std::string args) const {
        args = replace_all(std::move(args), "{c}", kCorpus);
        args = replace_all(std::move(args), "{e}", kExamples);
        args = replace_all(std::move(args), "{w}", work.string());
        std::string limit;
#if !defined(__SANITIZE_ADDRESS__)
        limit = "ulimit -v 4000000; ";  // a runaway allocation fails instead of swapping
#endif
        const std::string cmd = "cd '" + work.string() + "' && " + limit + "timeout " +
                                std::to_string(kTimeoutSeconds) + " " + NUMASIM_BINARY + " " +
                                args + " >'" + (cap / "out").string() + "' 2>'" +
                                (cap / "err").string() + "' </dev/null";
        const int st = std::system(cmd.c_str());
        Result r;
        r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        r.out = slurp(cap / "out");
        r.err = slurp(cap / "err");
        return r;
    }
};

struct HostileCase {
    const char* name;
    std::string args;
    int code;
    std::vector<std::string> says;                           // fragments of the message
    std::function<void(const fs::path& work)> prepare = {};  // inputs generated in `work`
};

void write(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
}

const std::string kHead = "[scenario]\nmachine = \"tiny-2n\"\nduration = \"1s\"\n";
const std::string kCowsum = "[[workload]]\ntype = \"cowsum\"\nprocesses = 2\n";

std::vector<HostileCase> cases() {
    std::vector<HostileCase> v = {
        // Scenario files: syntax, keys, types, values.
        {"unknown_key",
         "run {c}/unknown_key.toml",
         2,
         {"unknown_key.toml", "scenario.duraton", "line 4", "unknown key"}},
        {"wrong_type",
         "run {c}/wrong_type.toml",
         2,
         {"wrong_type.toml", "scenario.iterations", "line 5", "expected an integer"}},
        {"nan_duration",
         "run {c}/nan_duration.toml",
         2,
         {"nan_duration.toml", "scenario.duration", "line 4", "out of range"}},
        {"inf_rate",
         "run {c}/inf_rate.toml",
         2,
         {"inf_rate.toml", "rate_gbs", "line 14", "finite"}},
        {"zero_duration",
         "run {c}/zero_duration.toml",
         2,
         {"zero_duration.toml", "scenario.duration", "must be positive"}},
        {"huge_duration",
         "run {c}/huge_duration.toml",
         2,
         {"huge_duration.toml", "scenario.duration", "at most 86400 s"}},
        {"iterations_2_32",
         "run {c}/iterations_2_32.toml",
         2,
         {"iterations_2_32.toml", "scenario.iterations", "1..10000"}},
        {"negative_seed",
         "run {c}/negative_seed.toml",
         2,
         {"negative_seed.toml", "scenario.seed", "must be 0.."}},
        {"unknown_workload",
         "run {c}/unknown_workload.toml",
         2,
         {"unknown_workload.toml", "workload[0].type", "unknown workload 'nosuch'"}},
        {"no_workload", "run {c}/no_workload.toml", 2, {"no_workload.toml", "no [[workload]]"}},
        {"no_scenario",
         "run {c}/no_scenario.toml",
         2,
         {"no_scenario.toml", "missing [scenario] table"}},
        {"empty_file", "run {c}/empty.toml", 2, {"empty.toml", "missing [scenario] table"}},
        {"syntax_error", "run {c}/syntax_error.toml", 2, {"syntax_error.toml", "line 3"}},
        {"unknown_profile",
         "run {c}/unknown_profile.toml",
         2,
         {"unknown_profile.toml", "scenario.profile", "unknown kernel profile 'v9.9'"}},
        {"knob_out_of_range",
         "run {c}/knob_out_of_range.toml",
         2,
         {"knob_out_of_range.toml", "numa_balancing.smallimp", "line 7", "got -5"}},
        {"knob_wrong_type",
         "run {c}/knob_wrong_type.toml",
         2,
         {"knob_wrong_type.toml", "numa_balancing.scan_delay_ms", "expected an integer"}},
        {"bad_size_unit",
         "run {c}/bad_size_unit.toml",
         2,
         {"bad_size_unit.toml", "workload[0].heap", "is not a size"}},
        {"affinity_node_abc",
         "run {c}/affinity_node_abc.toml",
         2,
         {"affinity_node_abc.toml", "affinity", "line 14", "existing node"}},
        {"first_touch_node_1x",
         "run {c}/first_touch_node_1x.toml",
         2,
         {"first_touch_node_1x.toml", "first_touch", "'node:1x': no such node"}},
        {"policy_node_100",
         "run {c}/policy_node_100.toml --machine {c}/machine_128n.toml",
         2,
         {"policy_node_100.toml", "nodes", "node 100: memory policies take nodes 0..63"}},
        {"numactl_node_100",
         "run {c}/numactl_node_100.toml",
         2,
         {"numactl_node_100.toml", "policy.numactl.processes", "line 8",
          "\"--cpunodebind=100 --interleave=98-100\": --interleave=98-100: node 98: memory "
          "policies take nodes 0..63"}},
        {"first_touch_node_100",
         "run {c}/first_touch_node_100.toml",
         2,
         {"first_touch_node_100.toml", "first_touch",
          "'node:100': first touch binds to nodes "
          "0..63"}},
        {"variant_bad_profile",
         "compare {c}/variant_bad_profile.toml",
         2,
         {"variant_bad_profile.toml", "variant[1].profile", "line 11", "'v0.1'"}},
        {"effect_bad_expect",
         "validate --dir {c} --only effect_bad_expect",
         2,
         {"effect_bad_expect.toml", "effect[0].expect", "unknown expectation 'sideways'"}},
        // Files that are missing, refer to themselves, or never end.
        {"missing_scenario", "run {w}/nosuch.toml", 2, {"nosuch.toml", "cannot open file"}},
        {"scenario_is_directory", "run {c}", 2, {"hostile", "cannot read file"}},
        {"dev_zero", "run /dev/zero", 2, {"/dev/zero", "larger than 4 MiB"}},
        {"missing_machine_file",
         "run {c}/missing_machine.toml",
         2,
         {"no-such-machine.toml", "No such file"}},
        {"self_machine",
         "run {c}/self_machine.toml",
         2,
         {"self_machine.toml", "missing the [machine] table"}},
        // Sizes and counts that would exhaust memory or time.
        {"huge_threads",
         "run {c}/huge_threads.toml",
         2,
         {"huge_threads.toml", "process[0].threads", "line 10", "16384, got 4294967298"}},
        {"huge_process_count",
         "run {c}/huge_process_count.toml",
         2,
         {"huge_process_count.toml", "process[0].count", "got 1000000000"}},
        {"schbench_zero_threads",
         "run {c}/schbench_zero_threads.toml",
         2,
         {"schbench_zero_threads.toml", "threads", "got 0"}},
        {"schbench_tight_loop",
         "run {c}/schbench_tight_loop.toml",
         2,
         {"schbench_tight_loop.toml", "its phases could start"}},
        {"huge_warehouses",
         "run {c}/huge_warehouses.toml",
         2,
         {"huge_warehouses.toml", "workload[0].warehouses", "got 100000000"}},
        {"huge_region",
         "run {c}/huge_region.toml",
         2,
         {"huge_region.toml", "region[0].size", "the machine has 4.0 GiB"}},
        {"bound_region_too_big",
         "run {c}/bound_region_too_big.toml",
         2,
         {"bound_region_too_big.toml", "region[0].size", "bound to nodes with 2.0 GiB"}},
        {"numa01_bound_too_big",
         "run {c}/numa01_bound_too_big.toml",
         2,
         {"numa01_bound_too_big.toml", "workload[0].size", "bound to node 0"}},
        {"perf_tasks_in_file",
         "run {c}/perf_tasks_overflow.toml",
         2,
         {"perf_tasks_overflow.toml", "workload[0].nr_proc", "got 65536"}},
        {"processes_param_billion",
         "run {e}/cowsum.toml --param workload.processes=1000000000",
         2,
         {"--param workload.processes=1000000000", "workload[0].processes", "16384"}},
        {"param_before_file",
         "run --param workload.processes=1000000000 {e}/cowsum.toml",
         2,
         {"--param workload.processes=1000000000", "workload[0].processes"}},
        {"deep_header",
         "run {w}/deep.toml",
         2,
         {"deep.toml", "line 1", "more than 32 parts"},
         [](const fs::path& w) {
             std::string h = "[a";
             for (int i = 0; i < 50000; ++i)
                 h += ".a";
             write(w / "deep.toml", h + "]\n");
         }},
        {"deep_arrays",
         "run {w}/nested.toml",
         2,
         {"nested.toml", "line 4", "deeper than 32"},
         [](const fs::path& w) {
             write(w / "nested.toml",
                   kHead + "x = " + std::string(100000, '[') + std::string(100000, ']') + "\n");
         }},
        {"big_file",
         "run {w}/big.toml",
         2,
         {"big.toml", "larger than 4 MiB"},
         [](const fs::path& w) {
             write(w / "big.toml", kHead + "# " + std::string(5 << 20, 'x') + "\n" + kCowsum);
         }},
        {"deep_param_value",
         "run {e}/cowsum.toml --param 'seed=" + std::string(5000, '[') + "'",
         2,
         {"--param seed=[[[", "deeper than 32"}},
        {"deep_param_key",
         "run {e}/cowsum.toml --param " + replace_all(std::string(200, 'x'), "x", "a.") + "b=1",
         2,
         {"--param a.a.a", "more than 32 parts"}},
        // perf bench numa's options.
        {"perf_65536_squared",
         "perf-bench-numa mem -p 65536 -t 65536 -s 0.1",
         2,
         {"perf-bench-numa options", "nr_proc", "got 65536"}},
        {"perf_46341_squared",
         "perf-bench-numa mem -p 46341 -t 46341 -s 0.1",
         2,
         {"perf-bench-numa options", "nr_proc", "got 46341"}},
        {"perf_tasks_product",
         "perf-bench-numa mem -p 4096 -t 8 -s 0.1",
         2,
         {"perf-bench-numa options", "nr_threads", "more than 16384 tasks"}},
        {"perf_million_procs", "perf-bench-numa mem -p 1000000 -s 0.1", 2, {"nr_proc"}},
        {"perf_subpage_global",
         "perf-bench-numa mem -G 1e-7 -s 0.1",
         2,
         {"mb_global", "at least one page"}},
        {"perf_subpage_thread",
         "perf-bench-numa mem -G 0 -T 1e-9 -s 0.1",
         2,
         {"mb_thread", "at least one page"}},
        {"perf_no_memory", "perf-bench-numa mem -G 0 -s 0.1", 2, {"no memory to work on"}},
        {"perf_huge_global",
         "perf-bench-numa mem -G 1e12 -s 0.1",
         2,
         {"mb_global", "must be between"}},
        {"perf_global_exceeds_machine",
         "perf-bench-numa mem -G 1000000 -s 0.1",
         2,
         {"workload", "mapping 'global'", "the machine has"}},
        {"perf_nan_secs", "perf-bench-numa mem -s nan", 2, {"nr_secs", "got nan"}},
        {"perf_endless", "perf-bench-numa mem -s 0", 2, {"nr_secs", "never ends"}},
        {"perf_not_a_number", "perf-bench-numa mem -p lots", 2, {"--nr_proc", "lots"}},
        // Options: ranges, empties, blame.
        {"seed_negative", "run --seed -1", 2, {"--seed -1", "scenario.seed", "must be 0.."}},
        {"seed_2_64",
         "run --seed 18446744073709551616",
         2,
         {"--seed 18446744073709551616", "integer out of range"}},
        {"iterations_zero", "run --iterations 0", 2, {"--iterations 0", "1..10000"}},
        {"iterations_2_32_option",
         "run --iterations 4294967297",
         2,
         {"--iterations 4294967297", "1..10000"}},
        {"jobs_negative", "run -j -1", 2, {"numasim: error:", "--jobs", "not in range"}},
        {"jobs_zero", "run -j 0", 2, {"--jobs", "not in range"}},
        {"jobs_huge", "run -j 100000000", 2, {"--jobs", "not in range"}},
        {"machine_empty", "run --machine ''", 2, {"--machine", "empty value"}},
        {"machine_unknown",
         "run --machine nosuch",
         2,
         {"--machine nosuch", "unknown machine 'nosuch'"}},
        {"machine_file_missing",
         "run {e}/cowsum.toml --machine nosuch.toml",
         2,
         {"nosuch.toml", "No such file"}},
        {"machine_huge_sockets",
         "run --machine {c}/machine_huge_sockets.toml",
         2,
         {"machine_huge_sockets.toml", "machine.sockets", "line 4", "1..256"}},
        {"machine_huge_memory",
         "run --machine {c}/machine_huge_memory.toml",
         2,
         {"machine_huge_memory.toml", "machine.memory_per_node", "64 TiB"}},
        {"machine_bad_slit",
         "run --machine {c}/machine_bad_slit.toml",
         2,
         {"machine_bad_slit.toml", "machine.distance", "row 0 has 3 entries"}},
        {"machine_zero_cores",
         "run --machine {c}/machine_zero_cores.toml",
         2,
         {"machine_zero_cores.toml", "machine.cores_per_node", "got 0"}},
        {"machine_memory_node_no_memory",
         "run --machine {c}/machine_memory_node_no_memory.toml",
         2,
         {"machine_memory_node_no_memory.toml", "memory_node[0].memory", "line 10",
          "needs memory"}},
        {"machine_memory_node_bad_kind",
         "run --machine {c}/machine_memory_node_bad_kind.toml",
         2,
         {"machine_memory_node_bad_kind.toml", "memory_node[0].kind", "line 11", "'optane'"}},
        {"machine_memory_node_short_slit",
         "run --machine {c}/machine_memory_node_short_slit.toml",
         2,
         {"machine_memory_node_short_slit.toml", "machine.distance",
          "2 rows but the machine has 3 nodes"}},
        {"profile_empty", "run --profile ''", 2, {"--profile", "empty value"}},
        {"profile_unknown",
         "run {e}/cowsum.toml --profile v9.9",
         2,
         {"--profile v9.9", "scenario.profile", "unknown kernel profile"}},
        {"duration_zero", "run --duration 0", 2, {"--duration 0", "must be positive"}},
        {"duration_nan", "run --duration nan", 2, {"--duration nan", "not a duration"}},
        {"duration_negative", "run --duration=-5s", 2, {"--duration -5s", "not a duration"}},
        {"param_unknown_key", "run --param nokey=1", 2, {"--param nokey=1", "unknown key"}},
        {"param_no_equals", "run --param smallimp", 2, {"--param smallimp", "expected KEY=VALUE"}},
        {"param_no_key", "run --param =5", 2, {"--param =5", "expected KEY=VALUE"}},
        {"param_no_value", "run --param smallimp=", 2, {"--param smallimp=", "missing value"}},
        {"param_bad_value",
         "run --param 'smallimp=[1,'",
         2,
         {"--param smallimp=[1,", "neither TOML nor a bare word"}},
        {"set_not_a_number",
         "run --set smallimp=abc",
         2,
         {"--set smallimp=abc", "numa_balancing.smallimp", "expected an integer"}},
        {"set_huge_number", "run --set smallimp=1e999", 2, {"--set smallimp=1e999"}},
        {"set_into_value",
         "run --param scenario.seed.x=1",
         2,
         {"--param scenario.seed.x=1", "not a key that can be set"}},
        {"variant_no_colon",
         "compare {e}/variants.toml -V nocolon -V b:smallimp=0",
         2,
         {"--variant nocolon", "expected NAME:KEY=VALUE"}},
        {"variant_unknown_key",
         "compare {e}/variants.toml -V a:nokey=1 -V b:smallimp=0",
         2,
         {"--variant a:nokey=1", "unknown key"}},
        {"variant_duplicate_name",
         "compare {e}/cowsum.toml -V a:smallimp=0 -V a:smallimp=1",
         2,
         {"cowsum.toml", "two variants are named 'a'"}},
        {"cowsum_endless_seconds",
         "run {e}/cowsum.toml --param workload.seconds=1e300",
         2,
         {"--param workload.seconds=1e300", "workload[0].seconds", "at most 86400"}},
        {"streams_infinite_rate",
         "run {c}/inf_rate.toml --param workload.process.thread.phases.rate_gbs=1e300",
         2,
         {"--param workload.process.thread.phases.rate_gbs=1e300", "rate_gbs", "at most 10000"}},
        // Numbers that overflowed to infinity in double precision and gave a normal-looking but
        // wrong result, instead of an error.
        {"streams_share_overflow",
         "run {c}/share_overflow.toml",
         2,
         {"share_overflow.toml", "streams[0].share", "line 15", "at most 1000000"}},
        {"streams_mlp_overflow",
         "run {c}/mlp_overflow.toml",
         2,
         {"mlp_overflow.toml", "phases[0].mlp", "line 15", "between 0 and 1024"}},
        {"streams_ops_overflow",
         "run {c}/ops_overflow.toml",
         2,
         {"ops_overflow.toml", "phases[0].ops_per_byte", "line 15", "between 0 and 1000000"}},
        // Phase starts per simulated second beyond what the engine bounds (a hang before).
        {"phase_1ns_repeat",
         "run {c}/phase_1ns_repeat.toml",
         2,
         {"phase_1ns_repeat.toml", "workload[0]", "could start 1e+09 times in 1 s",
          "more than 1e+06 a second"}},
        {"loop_of_instants",
         "run {c}/loop_of_instants.toml",
         2,
         {"loop_of_instants.toml", "workload[0]", "could start inf times"}},
        {"many_fast_threads",
         "run {c}/many_fast_threads.toml",
         2,
         {"many_fast_threads.toml", "workload[0]", "could start 1.2e+06 times in 1 s"}},
        // Text after a newline in an override was parsed as more keys and dropped.
        {"param_newline",
         "run {e}/cowsum.toml --param 'smallimp=0\nworkload.processes=3'",
         2,
         {"--param smallimp=0", "numa_balancing.smallimp", "goes on past its end"}},
        // Options a command took and did not honour.
        // A case file that is not what a sweep writes (input_fuzz found it): an internal error
        // before, from deep in the tables' code.
        {"case_without_tasks",
         "compare --from {w}/case_without_tasks",
         2,
         {"case_without_tasks/cases/0000.json", "does not hold what `numasim sweep` writes",
          "'tasks' not found"},
         [](const fs::path& w) {
             fs::create_directories(w / "case_without_tasks" / "cases");
             fs::copy_file(kCorpus + "/case_without_tasks.json",
                           w / "case_without_tasks" / "cases" / "0000.json");
         }},
        {"gather_case_without_tasks",
         "gather {w}/case_without_tasks -o {w}/out",
         2,
         {"case_without_tasks/cases/0000.json", "does not hold what `numasim sweep` writes"},
         [](const fs::path& w) {
             fs::create_directories(w / "case_without_tasks" / "cases");
             fs::copy_file(kCorpus + "/case_without_tasks.json",
                           w / "case_without_tasks" / "cases" / "0000.json");
         }},
        {"compare_from_naming",
         "compare --from {w} --naming dot",
         2,
         {"--naming", "compare --from prints the tables a sweep's cases hold"}},
        {"compare_from_with_scenario",
         "compare {e}/cowsum.toml --from {w} --set smallimp=0",
         2,
         {"compare --from prints", "applies when compare runs a scenario"}},
        {"tiering_mode_before_5_18",
         "run {e}/cowsum.toml --profile v4.18 --set numa_balancing=3",
         2,
         {"--set numa_balancing=3", "v4.18 profile's kernel has no memory tiering mode"}},
        {"perf_iterations",
         "perf-bench-numa mem -p 1 -t 1 -P 16 --iterations 3 -s 0.1",
         2,
         {"--iterations 3", "scenario.iterations", "runs once", "numasim compare"}},
        {"perf_duration_cuts_runtime",
         "perf-bench-numa mem -p 1 -t 1 -P 16 --duration 1s -s 5",
         2,
         {"--duration 1s", "scenario.duration", "-s,--nr_secs"}},
        {"perf_param_iterations",
         "perf-bench-numa mem -p 1 -t 1 -P 16 --param iterations=2 -s 0.1",
         2,
         {"--param iterations=2", "runs once"}},
        // A buffer a workload maps only once it runs: refused at its key, in the words a streams
        // region larger than the machine gets, not an internal error when the run maps it.
        {"autonumabench_size_beyond_machine",
         "run {w}/numa02_big.toml",
         2,
         {"numa02_big.toml", "workload[0].size", "5.0 GiB but the machine has 4.0 GiB"},
         [](const fs::path& w) {
             write(w / "numa02_big.toml",
                   kHead +
                       "[[workload]]\ntype = \"autonumabench\"\ntest = \"NUMA02\"\n"
                       "size = \"5GiB\"\n");
         }},
        {"autonumabench_processes_beyond_machine",
         "run {w}/numa01_big.toml",
         2,
         {"numa01_big.toml", "workload[0].size", "2 x 3.0 GiB but the machine has 4.0 GiB"},
         [](const fs::path& w) {
             write(w / "numa01_big.toml",
                   kHead + "[[workload]]\ntype = \"autonumabench\"\ntest = \"NUMA01\"\n");
         }},
        {"compare_one_variant",
         "compare {e}/cowsum.toml -V a:smallimp=0",
         2,
         {"cowsum.toml", "at least two variants"}},
        {"compare_no_file", "compare", 2, {"scenario", "required"}},
        {"unknown_option", "run --frobnicate", 2, {"--frobnicate"}},
        {"unknown_command", "frobnicate", 2, {"numasim: error:", "subcommand is required"}},
        // hwloc XML.
        {"hwloc_missing", "run --machine hwloc:{w}/nosuch.xml", 2, {"nosuch.xml", "No such file"}},
        {"hwloc_not_xml",
         "run --machine hwloc:" + std::string(NUMASIM_SOURCE_DIR) +
             "/tests/machine/data/not_xml.xml",
         2,
         {"not_xml.xml", "no <topology> element"}},
        {"hwloc_not_topology",
         "run --machine hwloc:{c}/hwloc_not_topology.xml",
         2,
         {"hwloc_not_topology.xml", "no <topology> element"}},
        {"hwloc_truncated",
         "run --machine hwloc:{c}/hwloc_truncated.xml",
         2,
         {"hwloc_truncated.xml", "hwloc rejects this XML"}},
        {"hwloc_libhwloc_crash",
         "run --machine hwloc:" + std::string(NUMASIM_SOURCE_DIR) +
             "/fuzz/known/libhwloc-bitmap-compare-first.xml",
         2,
         {"libhwloc-bitmap-compare-first.xml", "libhwloc failed to parse it", "SIGSEGV"}},
        {"hwloc_directory", "run --machine hwloc:{c}", 2, {"hostile", "not a regular file"}},
        {"hwloc_empty", "run --machine hwloc:", 2, {"--machine hwloc:", "needs a path"}},
        // validate.
        {"validate_only_typo",
         "validate --only typo --strict",
         2,
         {"--only typo", "no experiment"}},
        {"validate_missing_dir",
         "validate --dir {w}/nosuch",
         2,
         {"nosuch", "cannot read the experiment directory"}},
        {"validate_empty_dir", "validate --dir {w}", 2, {"no experiment (*.toml)"}},
        {"validate_jobs_zero", "validate -j 0", 2, {"--jobs", "not in range"}},
        {"validate_oracle_boots_zero",
         "validate --oracle --oracle-boots 0",
         2,
         {"--oracle-boots", "not in range"}},
        // oracle: refused before qemu or a kernel is looked for.
        {"oracle_boots_zero", "oracle {e}/cowsum.toml --boots 0", 2, {"--boots", "not in range"}},
        {"oracle_boots_huge",
         "oracle {e}/cowsum.toml --boots 1000000",
         2,
         {"--boots", "not in range"}},
        {"oracle_vcpus_negative",
         "oracle {e}/cowsum.toml --max-vcpus=-1",
         2,
         {"--max-vcpus", "not in range"}},
        {"oracle_policy_numad",
         "oracle {e}/streams.toml --param policy=numad",
         2,
         {"scenario.policy", "the oracle's guest has no policy 'numad'"}},
        {"oracle_timeout_nan",
         "oracle {e}/cowsum.toml --timeout nan",
         2,
         {"--timeout", "not a number"}},
        // Output files.
        {"trace_is_input",
         "run {w}/in.toml --trace {w}/in.toml",
         2,
         {"--trace", "in.toml", "is an input of this command"},
         [](const fs::path& w) { write(w / "in.toml", kHead + kCowsum); }},
        {"trace_is_machine_file",
         "run --machine {w}/m.toml --trace {w}/m.toml",
         2,
         {"--trace", "m.toml", "is an input of this command"},
         [](const fs::path& w) {
             fs::copy_file(std::string(NUMASIM_SOURCE_DIR) + "/src/machine/presets/tiny-2n.toml",
                           w / "m.toml");
         }},
        {"trace_is_directory", "run --trace {w}", 2, {"--trace", "is a directory"}},
        {"trace_in_missing_dir",
         "run --trace {w}/no/such/dir/t.out",
         2,
         {"--trace", "cannot create a file in", "No such file"}},
        {"trace_empty_name", "run --trace ''", 2, {"--trace", "empty file name"}},
        {"trace_dangling_link",
         "run --trace {w}/dangling",
         2,
         {"--trace", "symbolic link to a file that does not exist"},
         [](const fs::path& w) { fs::create_symlink(w / "nowhere", w / "dangling"); }},
        // Man pages and shell completion (docs/install.md).
        {"completion_unknown_shell", "completion fish", 2, {"shell", "fish", "bash,zsh"}},
        {"man_unknown_command", "man frobnicate", 2, {"man", "frobnicate", "no such command"}},
        {"man_out_dir_is_a_file",
         "man --out-dir {w}/file",
         2,
         {"--out-dir", "file", "cannot create: Not a directory"},
         [](const fs::path& w) { write(w / "file", "x"); }},
        // `import damon`: profiles from other tools, cut off or corrupt; no scenario written.
        {"import_damon_truncated_json",
         "import damon {w}/d.json -o {w}/out.toml",
         2,
         {"d.json", "line 3", "the file is truncated"},
         [](const fs::path& w) {
             write(w / "d.json", "[{\"target_id\": 0,\n\"snapshots\": [{\"start_time\": \"1\",\n");
         }},
        {"import_damon_time_backwards",
         "import damon {w}/d.txt -o {w}/out.toml",
         2,
         {"d.txt", "line 2", "time goes backwards"},
         [](const fs::path& w) {
             write(w / "d.txt",
                   "k 1 [0] 2.0: damon:damon_aggregated: target_id=0 nr_regions=1 0-4096: 1 0\n"
                   "k 1 [0] 1.0: damon:damon_aggregated: target_id=0 nr_regions=1 0-4096: 1 0\n");
         }},
        {"import_damon_billions_of_regions",
         "import damon {w}/d.txt -o {w}/out.toml",
         2,
         {"d.txt", "line 1", "nr_regions=9000000000"},
         [](const fs::path& w) {
             write(w / "d.txt",
                   "k 1 [0] 2.0: damon:damon_aggregated: target_id=0 "
                   "nr_regions=9000000000 0-4096: 1 0\n");
         }},
        {"import_damon_not_a_directory",
         "import damon {w}/d.txt --format sysfs -o {w}/out.toml",
         2,
         {"d.txt", "not a directory"},
         [](const fs::path& w) { write(w / "d.txt", "x\n"); }},
        {"import_damon_bad_phase",
         "import damon {w}/d.txt --phase 0s",
         2,
         {"--phase", "not a duration"},
         [](const fs::path& w) { write(w / "d.txt", "x\n"); }},
        // `import perf-mem`: perf script text without a needed field, cut off, out of order.
        {"import_perf_mem_no_data_src",
         "import perf-mem {w}/p.txt -o {w}/out.toml",
         2,
         {"p.txt", "line 1", "`data_src` field"},
         [](const fs::path& w) {
             write(w / "p.txt", "app 12 [001] 5.000100: 1000 cycles: 55d0c6a011d9 main+0x49\n");
         }},
        {"import_perf_mem_time_backwards",
         "import perf-mem {w}/p.txt -o {w}/out.toml",
         2,
         {"p.txt", "line 2", "time goes backwards"},
         [](const fs::path& w) {
             write(w / "p.txt",
                   "12 5.0: 10 m: 7f0000000040 1a69401042 |OP LOAD|LVL RAM hit|SNP Miss\n"
                   "12 4.0: 10 m: 7f0000000040 1a69401042 |OP LOAD|LVL RAM hit|SNP Miss\n");
         }},
        {"import_perf_mem_truncated",
         "import perf-mem {w}/p.txt -o {w}/out.toml",
         2,
         {"p.txt", "line 1", "truncated"},
         [](const fs::path& w) { write(w / "p.txt", "12 5.0: 10 m: 7f0000000040 1a694"); }},
    };
    return v;
}

void PrintTo(const HostileCase& c, std::ostream* os) {
    *os << c.name;  // the arguments can be 100 000 characters long
}

class Hostile : public ::testing::TestWithParam<HostileCase> {};

TEST_P(Hostile, RefusedCleanly) {
    const HostileCase& hc = GetParam();
    Sandbox box(hc.name);
    if (hc.prepare) hc.prepare(box.work);
    const auto before = listing(box.work);
    std::string args = hc.args;
    // Every failing run also asks for a trace file, which must not appear.
    const bool traced = args.rfind("run ", 0) == 0 && args.find("--trace") == std::string::npos;
    if (traced) args += " --trace {w}/trace.out";
    const Result r = box.run(args);
    EXPECT_EQ(r.code, hc.code) << args << "\n" << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    for (const auto& s : hc.says) {
        std::string want = replace_all(s, "{w}", box.work.string());
        EXPECT_NE(r.err.find(want), std::string::npos) << "missing '" << want << "' in:\n" << r.err;
    }
    EXPECT_TRUE(r.out.empty()) << "no report on failure:\n" << r.out;
    EXPECT_EQ(listing(box.work), before) << "files created or removed in the working directory";
}

INSTANTIATE_TEST_SUITE_P(Corpus, Hostile, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// Every file in the corpus is exercised by some case.
TEST(HostileCorpus, EveryFileHasACase) {
    std::string all;
    for (const auto& c : cases())
        all += c.args + "\n";
    for (const auto& e : fs::directory_iterator(kCorpus)) {
        const std::string stem = e.path().stem().string();
        EXPECT_NE(all.find(stem), std::string::npos) << e.path() << " has no case";
    }
}

// A scenario that writes sched_*_numa events within its first simulated second (about 300; a
// second also keeps the sanitizer build, where it takes about 10 s of CPU, within the timeout).
const std::string kTraced = "run {e}/knobs.toml --profile v6.12 --duration 1s";

TEST(HostileOutput, FailedRunKeepsExistingFile) {
    Sandbox box("keeps_existing");
    write(box.work / "t.out", "precious\n");
    const Result r = box.run("run {e}/knobs.toml --set smallimp=-5 --trace {w}/t.out");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(slurp(box.work / "t.out"), "precious\n");
    EXPECT_EQ(listing(box.work), std::set<std::string>{"t.out"});
}

TEST(HostileOutput, RefusingAnInputLeavesItIntact) {
    Sandbox box("input_intact");
    const std::string text = slurp(kExamples + "/knobs.toml");
    write(box.work / "s.toml", text);
    fs::create_symlink(box.work / "s.toml", box.work / "alias");
    const Result r = box.run("run {w}/s.toml --trace {w}/alias");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("is an input of this command"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(box.work / "s.toml"), text);
    EXPECT_TRUE(fs::is_symlink(box.work / "alias"));
}

TEST(HostileOutput, RegularFileReplacedOnSuccessOnly) {
    Sandbox box("regular");
    write(box.work / "t.out", "old\n");
    const Result r = box.run(kTraced + " --trace {w}/t.out");
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string trace = slurp(box.work / "t.out");
    EXPECT_NE(trace.find(": sched_"), std::string::npos) << trace.substr(0, 500);
    EXPECT_EQ(listing(box.work), std::set<std::string>{"t.out"}) << "no temporary file left";
}

TEST(HostileOutput, SymlinkKeptTargetReplaced) {
    Sandbox box("symlink");
    fs::create_directories(box.work / "real");
    write(box.work / "real" / "t.out", "old\n");
    fs::create_symlink(box.work / "real" / "t.out", box.work / "link");
    const Result r = box.run(kTraced + " --trace {w}/link");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(box.work / "link"));
    EXPECT_NE(slurp(box.work / "real" / "t.out").find(": sched_"), std::string::npos);
    EXPECT_EQ(listing(box.work / "real"), std::set<std::string>{"t.out"});
}

TEST(HostileOutput, DashIsStandardOutput) {
    Sandbox box("dash");
    const Result r = box.run(kTraced + " --trace -");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(listing(box.work).empty()) << "no file named '-'";
    const auto trace_at = r.out.find(": sched_");
    const auto report_at = r.out.find("numasim: ");
    EXPECT_NE(trace_at, std::string::npos);
    EXPECT_LT(trace_at, report_at) << "the trace comes before the report";
}

TEST(HostileOutput, DevStdoutIsWrittenInPlace) {
    Sandbox box("dev_stdout");
    const Result r = box.run(kTraced + " --trace /dev/stdout");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink("/dev/stdout"));
    EXPECT_NE(r.out.find(": sched_"), std::string::npos) << "the trace reached the capture";
    EXPECT_NE(r.out.find("numasim: "), std::string::npos) << "and so did the report";
    EXPECT_TRUE(listing(box.work).empty());
}

TEST(HostileOutput, FifoIsWrittenInPlace) {
    Sandbox box("fifo");
    const fs::path fifo = box.work / "pipe";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string got;
    std::thread reader([&] { got = slurp(fifo); });
    const Result r = box.run(kTraced + " --trace {w}/pipe");
    reader.join();
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::is_fifo(fifo));
    EXPECT_NE(got.find(": sched_"), std::string::npos);
    EXPECT_EQ(listing(box.work), std::set<std::string>{"pipe"});
}

TEST(HostileOutput, CharacterDeviceIsWrittenInPlace) {
    Sandbox box("devnull");
    const Result r = box.run(kTraced + " --trace /dev/null");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

// SIGINT and SIGTERM in the middle of a run remove the temporary file and keep the old one.
void interrupt_midway(int sig) {
    Sandbox box(sig == SIGINT ? "sigint" : "sigterm");
    write(box.work / "t.out", "old\n");
    const std::string trace = (box.work / "t.out").string();
    const std::string scenario = kExamples + "/specjbb2005-per-socket.toml";
    std::vector<std::string> args = {NUMASIM_BINARY, "run", scenario, "-j", "1", "--trace", trace};
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    ASSERT_EQ(posix_spawn(&pid, NUMASIM_BINARY, &fa, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    // Wait for the temporary file: the run has started writing.
    bool started = false;
    for (int i = 0; i < 600 && !started; ++i) {
        started = listing(box.work).size() > 1;
        if (!started) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(pid, sig);
    int st = 0;
    ::waitpid(pid, &st, 0);
    ASSERT_TRUE(started) << "the run never created its temporary file";
    EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == sig) << st;
    EXPECT_EQ(listing(box.work), std::set<std::string>{"t.out"});
    EXPECT_EQ(slurp(box.work / "t.out"), "old\n");
}

TEST(HostileOutput, SigintRemovesTemporaryFile) {
    interrupt_midway(SIGINT);
}

TEST(HostileOutput, SigtermRemovesTemporaryFile) {
    interrupt_midway(SIGTERM);
}

TEST(HostileOutput, ValidateWorksOutsideTheSourceTree) {
    Sandbox box("validate_elsewhere");
    const Result r = box.run("validate --only nosuch");
    EXPECT_EQ(r.code, 2);
    // The experiments were found (next to the binary's build tree): the filter is what failed.
    EXPECT_NE(r.err.find("--only nosuch"), std::string::npos) << r.err;
}

}  // namespace
