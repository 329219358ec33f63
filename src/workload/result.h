// What a workload reports at the end of a run, typed: the benchmark operations that `numasim
// compare` summarises, its own figures, one row per task, an optional block that only some
// reports print (specjbb's Prev/Current throughput, perf bench numa's result lines) and the
// lines of the text report. report/run_report.h prints it as text and as JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "workload/perf_bench_numa.h"
#include "workload/specjbb2005.h"

namespace numasim {

struct Figure;
// Named figures in a fixed order: a JSON object.
using Record = std::vector<Figure>;

// A figure's value. Integers, numbers, booleans, strings and "no value" stay apart, so the JSON
// printer writes each exactly as the workload produced it; a list of records is a JSON array of
// objects (specjbb's warehouse points, perf bench numa's convergence checks).
class FigureValue {
  public:
    using Value = std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string,
                               std::vector<Record>>;

    // Implicit, so that figures read like {"loops", 50}. Defined below, once Figure (which the
    // variant holds through Record) is complete.
    FigureValue() = default;
    template <typename T>
    requires std::is_arithmetic_v<T> FigureValue(T v);
    FigureValue(std::string s);
    FigureValue(const char* s);
    FigureValue(std::optional<double> v);  // no value: null
    FigureValue(std::vector<Record> records);

    const Value& value() const { return v_; }

  private:
    Value v_;
};

struct Figure {
    std::string name;
    FigureValue value;
};

template <typename T>
requires std::is_arithmetic_v<T> FigureValue::FigureValue(T v) {
    if constexpr (std::is_same_v<T, bool>)
        v_ = v;
    else if constexpr (std::is_floating_point_v<T>)
        v_ = static_cast<double>(v);
    else if constexpr (std::is_signed_v<T>)
        v_ = static_cast<int64_t>(v);
    else
        v_ = static_cast<uint64_t>(v);
}
inline FigureValue::FigureValue(std::string s) : v_(std::move(s)) {}
inline FigureValue::FigureValue(const char* s) : v_(std::string(s)) {}
inline FigureValue::FigureValue(std::optional<double> v) {
    if (v) v_ = *v;
}
inline FigureValue::FigureValue(std::vector<Record> records) : v_(std::move(records)) {}

// One benchmark operation under the name mmtests gives it ("elsp-NUMA01", "tput-8").
struct Operation {
    std::string name;
    double value = 0;
    bool lower_is_better = false;
};

// What every workload reports per task (getrusage, /proc/<pid>/sched).
struct TaskFigures {
    int pid = 0, tgid = 0;
    std::string comm;
    int thread_index = 0;
    double user_s = 0, system_s = 0, start_s = 0;
    std::optional<double> exit_s;  // still running at the end of the run: none
    double bytes = 0, ops = 0;
    uint64_t nr_migrations = 0;
    uint64_t numa_pages_migrated = 0;
    int numa_preferred_nid = -1;
    int last_node = 0;
};

struct TaskRow {
    std::optional<TaskFigures> task;  // none for a benchmark thread that was never created
    Record extra;                     // the workload's own per-task figures
};

// The block a report prints for one kind of workload only.
using ExtraBlock = std::variant<std::monostate, SpecjbbThroughput, PerfBenchNumaRaw>;

struct WorkloadResult {
    std::string type;  // the registry name; set by the runner
    Record figures;
    std::vector<Operation> operations;
    std::vector<TaskRow> tasks;
    ExtraBlock extra;
    std::string summary;  // lines of the text report
};

}  // namespace numasim
