#include "report/sweep_report.h"

#include <fmt/format.h>

#include <map>

#include "config/input_error.h"
#include "kernel/counters.h"
#include "report/mmtests_table.h"
#include "report/monitor_tables.h"

namespace numasim {

namespace {

// Raised if the format of the case files changes, so that old shards are not mixed in: 2 added
// the runs' sched_swap_numa split and each task's numa_task_migrations (the task-migration
// table).
constexpr int kCaseFileFormat = 2;

// The argument as one shell word.
std::string shell_quote(const std::string& s) {
    if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_.,:/+-=@%") == std::string::npos)
        return s;
    // Double quotes read more easily around TOML's single-quoted strings; they are safe while
    // nothing in `s` is special to the shell inside them.
    if (s.find_first_of("\"$`\\!") == std::string::npos) return "\"" + s + "\"";
    std::string q = "'";
    for (char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// A CSV field (RFC 4180): quoted if it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

struct Op {
    std::string name;
    double value = 0;
    bool lower_is_better = false;
};

// A run's benchmark operations, as experiment/run.h's run_operations() gives them.
std::vector<Op> operations(const nlohmann::json& run) {
    std::vector<Op> ops;
    for (const auto& w : run.at("workloads"))
        if (w.contains("operations"))
            for (const auto& o : w.at("operations"))
                ops.push_back({o.at("name").get<std::string>(), o.at("value").get<double>(),
                               o.at("better").get<std::string>() == "lower"});
    if (ops.empty()) ops.push_back({"elsp", run.at("elapsed_s").get<double>(), true});
    return ops;
}

std::optional<double> number_at(const nlohmann::json& obj, const std::string& key) {
    const auto it = obj.find(key);
    if (it == obj.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

// A figure of a run by the names of experiment/run.h's run_metric().
std::optional<double> figure(const nlohmann::json& run, const std::string& name) {
    if (name == "elapsed_s" || name == "user_s" || name == "system_s") return number_at(run, name);
    if (name == "hint_local_pct") {
        const double f = number_at(run.at("vmstat"), "numa_hint_faults").value_or(0);
        const double local = number_at(run.at("vmstat"), "numa_hint_faults_local").value_or(0);
        return f > 0 ? 100.0 * local / f : 100.0;
    }
    if (name.rfind("vmstat.", 0) == 0) return number_at(run.at("vmstat"), name.substr(7));
    if (name.rfind("sched.", 0) == 0) return number_at(run.at("sched"), name.substr(6));
    for (const auto& o : operations(run))
        if (o.name == name) return o.value;
    return std::nullopt;
}

// The metric columns: the header's, or every operation of the sweep (in order of appearance)
// followed by the times and the counters.
std::vector<std::string> metric_names(const nlohmann::json& header,
                                      const std::vector<nlohmann::json>& cases) {
    std::vector<std::string> names = header.at("metrics").get<std::vector<std::string>>();
    if (!names.empty()) return names;
    for (const auto& c : cases)
        for (const auto& run : c.at("runs"))
            for (const auto& o : operations(run))
                if (std::find(names.begin(), names.end(), o.name) == names.end())
                    names.push_back(o.name);
    for (const char* n : {"elapsed_s", "user_s", "system_s", "hint_local_pct"})
        names.emplace_back(n);
    for (const auto& v : kVmNames)
        names.push_back("vmstat." + std::string(v));
    for (const auto& [n, field] : kSchedCounters)
        names.push_back("sched." + std::string(n));
    return names;
}

std::vector<std::string> axis_names(const nlohmann::json& header) {
    std::vector<std::string> names;
    for (const auto& a : header.at("axes"))
        names.push_back(a.at("name").get<std::string>());
    return names;
}

std::string label_of(const nlohmann::json& c, const std::string& axis) {
    return c.at("parameters").at(axis).get<std::string>();
}

// The runs of a group of cases, per column of the table.
struct Column {
    std::string name;
    std::vector<const nlohmann::json*> runs;
};

// A run's part of the NUMA task-migration summary, as compare_report's task_migration_table
// takes it from the run (the figures of run_report's result_json, slimmed).
void add_task_migrations(const nlohmann::json& run, NumaTaskMigrations& m) {
    const nlohmann::json& sched = run.at("sched");
    m.stuck += number_at(sched, "sched_stick_numa").value_or(0);
    m.idle += number_at(sched, "sched_move_numa").value_or(0);
    m.swapped += number_at(sched, "sched_swap_numa").value_or(0);
    m.local_swapped += number_at(sched, "sched_swap_numa_local").value_or(0);
    m.group_swapped += number_at(sched, "sched_swap_numa_group").value_or(0);
    if (const auto tasks = run.find("numa_task_migrations"); tasks != run.end())
        for (const auto& n : *tasks)
            m.per_task.push_back(n.get<double>());
}

std::string render_group(const std::vector<Column>& cols) {
    std::vector<std::string> names;
    std::vector<OperationSamples> ops;
    std::map<std::string, size_t> index;
    std::vector<DurationTimes> times;
    std::vector<VmstatDelta> deltas;
    std::vector<NumaTaskMigrations> migrations;
    for (size_t c = 0; c < cols.size(); ++c) {
        names.push_back(cols[c].name);
        DurationTimes t;
        VmstatDelta d;
        NumaTaskMigrations m;
        for (const nlohmann::json* run : cols[c].runs) {
            for (const auto& o : operations(*run)) {
                auto it = index.find(o.name);
                if (it == index.end()) {
                    it = index.emplace(o.name, ops.size()).first;
                    ops.push_back({o.name, o.lower_is_better ? Better::Lower : Better::Higher,
                                   std::vector<std::vector<double>>(cols.size())});
                }
                ops[it->second].samples[c].push_back(o.value);
            }
            t.user += run->at("user_s").get<double>();
            t.system += run->at("system_s").get<double>();
            t.elapsed += run->at("elapsed_s").get<double>();
            // Under the /proc/vmstat names the Ops rows read (pgalloc is pgalloc_normal).
            for (const auto& [proc, id] : kProcVmstatOrder)
                d[std::string(proc)] +=
                    number_at(run->at("vmstat"), std::string(kVmNames[static_cast<size_t>(id)]))
                        .value_or(0);
            add_task_migrations(*run, m);
        }
        times.push_back(t);
        deltas.push_back(d);
        migrations.push_back(std::move(m));
    }
    return render_compare_table(build_compare_table(names, ops)) + "\n" +
           render_monitor_table(build_duration_table(names, times)) + "\n" +
           render_monitor_table(build_mmtests_vmstat_table(names, deltas)) + "\n" +
           render_monitor_table(build_numa_task_migration_table(names, migrations));
}

}  // namespace

nlohmann::json sweep_header(const SweepDefinition& d, size_t cases) {
    nlohmann::json axes = nlohmann::json::array();
    for (const auto& a : sweep_axes(d)) {
        nlohmann::json j = {{"name", a.name}, {"values", a.labels}};
        if (a.kind == SweepAxis::Kind::Override) j["key"] = a.key;
        axes.push_back(j);
    }
    return {{"format", kCaseFileFormat},
            {"name", d.name},
            {"axes", axes},
            {"common", override_texts(d.common)},
            {"along", sweep_along(d)},
            {"metrics", d.metrics},
            {"cases", cases}};
}

std::string case_file_text(const nlohmann::json& header, const SweepCase& c,
                           const std::vector<std::string>& runs) {
    nlohmann::json parameters = nlohmann::json::object();
    const auto names = axis_names(header);
    for (size_t i = 0; i < names.size() && i < c.labels.size(); ++i)
        parameters[names[i]] = c.labels[i];
    std::string cmd = "numasim run " + shell_quote(c.scenario);
    const auto texts = override_texts(c.overrides);
    for (const auto& t : texts)
        cmd += " --param " + shell_quote(t);
    nlohmann::json j = {{"sweep", header},          {"case", c.index},    {"scenario", c.scenario},
                        {"parameters", parameters}, {"overrides", texts}, {"run", cmd}};
    nlohmann::json rs = nlohmann::json::array();
    for (const auto& r : runs)
        rs.push_back(nlohmann::json::parse(r));
    j["runs"] = rs;
    return j.dump(2) + "\n";
}

std::string case_file_name(size_t index, size_t cases) {
    const size_t width = std::max<size_t>(4, std::to_string(cases > 0 ? cases - 1 : 0).size());
    return fmt::format("{:0{}}.json", index, width);
}

SweepCaseFile parse_case_file(const std::string& text, const std::string& origin) {
    SweepCaseFile f;
    try {
        f.doc = nlohmann::json::parse(text);
        f.header = f.doc.at("sweep");
        if (f.header.at("format").get<int>() != kCaseFileFormat)
            throw InputError(origin, "sweep.format", "written by another version of numasim");
        f.index = f.doc.at("case").get<size_t>();
        if (f.index >= f.header.at("cases").get<size_t>())
            throw InputError(origin, "case", "beyond the sweep's number of cases");
        (void)f.doc.at("runs").size();
    } catch (const nlohmann::json::exception& e) {
        throw InputError(origin, "", std::string("not a numasim sweep case file: ") + e.what());
    }
    return f;
}

void slim_case_document(nlohmann::json& doc) {
    for (auto& run : doc.at("runs")) {
        nlohmann::json migrations = nlohmann::json::array();
        for (const auto& t : run.at("tasks"))
            migrations.push_back(t.at("numa_task_migrations"));
        run.erase("tasks");
        run["numa_task_migrations"] = std::move(migrations);
        for (auto& w : run.at("workloads"))
            w.erase("tasks");
    }
}

std::string sweep_csv(const nlohmann::json& header, const std::vector<nlohmann::json>& cases) {
    const auto axes = axis_names(header);
    const auto metrics = metric_names(header, cases);
    std::vector<std::string> head = {"case"};
    head.insert(head.end(), axes.begin(), axes.end());
    head.emplace_back("runs");
    head.insert(head.end(), metrics.begin(), metrics.end());
    std::string out;
    auto line = [&](const std::vector<std::string>& fields) {
        for (size_t i = 0; i < fields.size(); ++i) {
            if (i) out += ',';
            out += csv_field(fields[i]);
        }
        out += "\n";
    };
    line(head);
    for (const auto& c : cases) {
        std::vector<std::string> row = {std::to_string(c.at("case").get<size_t>())};
        for (const auto& a : axes)
            row.push_back(label_of(c, a));
        const auto& runs = c.at("runs");
        row.push_back(std::to_string(runs.size()));
        for (const auto& m : metrics) {
            // The mean over the case's iterations; empty where a run lacks the figure.
            double sum = 0;
            bool all = !runs.empty();
            for (const auto& r : runs) {
                const auto v = figure(r, m);
                all = all && v;
                sum += v.value_or(0);
            }
            row.push_back(all ? fmt::format("{}", sum / static_cast<double>(runs.size())) : "");
        }
        line(row);
    }
    return out;
}

std::string sweep_tables(const nlohmann::json& header, const std::vector<nlohmann::json>& cases) {
    const std::string along = header.at("along").get<std::string>();
    std::vector<std::string> columns;   // the along axis' values, in order
    std::vector<std::string> grouping;  // the other axes, the seed axis aside (its cases pool)
    for (const auto& a : header.at("axes")) {
        const std::string name = a.at("name").get<std::string>();
        if (name == along)
            columns = a.at("values").get<std::vector<std::string>>();
        else if (a.value("key", "") != "scenario.seed")
            grouping.push_back(name);
    }
    if (columns.empty()) columns.push_back(header.at("name").get<std::string>());
    // Groups in order of their first case; in each, the runs of every case per column.
    std::vector<std::pair<std::string, std::vector<Column>>> groups;
    std::map<std::string, size_t> group_of;
    for (const auto& c : cases) {
        std::string title;
        for (const auto& g : grouping)
            title += (title.empty() ? "" : ", ") + g + "=" + label_of(c, g);
        auto it = group_of.find(title);
        if (it == group_of.end()) {
            it = group_of.emplace(title, groups.size()).first;
            std::vector<Column> cols;
            for (const auto& n : columns)
                cols.push_back({n, {}});
            groups.emplace_back(title, std::move(cols));
        }
        const size_t col = along.empty()
                               ? 0
                               : static_cast<size_t>(
                                     std::find(columns.begin(), columns.end(), label_of(c, along)) -
                                     columns.begin());
        for (const auto& run : c.at("runs"))
            groups[it->second].second.at(col).runs.push_back(&run);
    }
    std::string out =
        fmt::format("numasim sweep: {}, {} cases{}\n", header.at("name").get<std::string>(),
                    cases.size(), along.empty() ? "" : ", along " + along);
    for (const auto& [title, cols] : groups) {
        out += "\n";
        if (!title.empty()) out += title + "\n\n";
        out += render_group(cols);
    }
    return out;
}

}  // namespace numasim
