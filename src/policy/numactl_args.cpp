#include "policy/numactl_args.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "config/limits.h"
#include "machine/topology.h"

namespace numasim {

NumactlError::NumactlError(std::string option, const std::string& problem)
    : std::runtime_error(problem), option_(std::move(option)) {}

namespace {

// The options of numactl.c's opts[] table. `modelled`: the simulator can do what it does to a
// program started under it; the others (shared-memory segments, printing, the newer policies the
// memory model lacks) are refused by name rather than ignored.
struct LongOption {
    std::string_view name;
    bool has_arg;
    char short_name;  // 0: long only
    bool modelled;
};

constexpr LongOption kOptions[] = {
    {"all", false, 'a', true},
    {"interleave", true, 'i', true},
    {"weighted-interleave", true, 'w', false},
    {"preferred", true, 'p', true},
    {"preferred-many", true, 'P', false},
    {"cpubind", true, 'c', true},
    {"cpunodebind", true, 'N', true},
    {"physcpubind", true, 'C', true},
    {"membind", true, 'm', true},
    {"show", false, 's', false},
    {"localalloc", false, 'l', true},
    {"balancing", false, 'b', true},
    {"hardware", false, 'H', false},
    {"shm", true, 'S', false},
    {"file", true, 'f', false},
    {"offset", true, 'o', false},
    {"length", true, 'L', false},
    {"strict", false, 't', false},
    {"shmmode", true, 'M', false},
    {"dump", false, 'd', false},
    {"dump-nodes", false, 'D', false},
    {"shmid", true, 'I', false},
    {"huge", false, 'u', false},
    {"touch", false, 'T', false},
    {"cpu-compress", false, 0, false},
    {"verify", false, 'V', false},
    {"version", false, 0, false},
};

// getopt_long's rule: an exact name, else the one option the text is a prefix of.
const LongOption& find_long(std::string_view name, const std::string& given) {
    std::vector<const LongOption*> prefixed;
    for (const LongOption& o : kOptions) {
        if (o.name == name) return o;
        if (o.name.substr(0, name.size()) == name) prefixed.push_back(&o);
    }
    if (prefixed.size() == 1 && !name.empty()) return *prefixed.front();
    if (prefixed.empty() || name.empty())
        throw NumactlError(given, fmt::format("unrecognized option '{}'", given));
    std::vector<std::string> names;
    for (const LongOption* o : prefixed)
        names.push_back(fmt::format("'--{}'", o->name));
    throw NumactlError(given, fmt::format("option '{}' is ambiguous; possibilities: {}", given,
                                          fmt::join(names, " ")));
}

const LongOption& find_short(char c, const std::string& given) {
    for (const LongOption& o : kOptions)
        if (o.short_name == c) return o;
    throw NumactlError(given, fmt::format("invalid option -- '{}'", c));
}

// A list of numbers (nodes or CPUs) as libnuma's numa_parse_nodestring and numa_parse_cpustring
// read it. `allowed`: which numbers exist (bit i = i allowed), as numa_all_nodes_ptr (the nodes
// with memory) or numa_all_cpus_ptr. Returns the numbers, ascending, or throws.
std::vector<int> parse_list(std::string_view s, const std::vector<bool>& allowed,
                            std::string_view what, const std::string& given) {
    const int size = static_cast<int>(allowed.size());
    const std::string text(s);
    auto invalid = [&](const std::string& why) {
        return NumactlError(given, fmt::format("<{}> is invalid: {}", text, why));
    };
    std::vector<bool> mask(allowed.size(), false);
    if (s.empty()) throw invalid(fmt::format("no {} given", what));
    bool invert = false, relative = false;
    if (s.front() == '!') {
        invert = true;
        s.remove_prefix(1);
    }
    if (!s.empty() && s.front() == '+') {
        relative = true;
        s.remove_prefix(1);
    }
    // One number: absolute, or with '+' the n-th allowed one (get_nr()).
    auto number = [&](std::string_view& t) {
        size_t n = 0;
        while (n < t.size() && std::isdigit(static_cast<unsigned char>(t[n])))
            ++n;
        if (n == 0 || n > 9) throw invalid(fmt::format("unparseable {} description", what));
        int v = std::stoi(std::string(t.substr(0, n)));
        t.remove_prefix(n);
        if (relative) {
            int seen = -1, abs = -1;
            for (int i = 0; i < size && seen < v; ++i)
                if (allowed[static_cast<size_t>(i)] && ++seen == v) abs = i;
            if (abs < 0) throw invalid(fmt::format("{} argument +{} is out of range", what, v));
            v = abs;
        }
        if (v >= size || !allowed[static_cast<size_t>(v)])
            throw invalid(fmt::format("{} argument {} is out of range", what, v));
        return v;
    };
    if (s == "all") {
        mask = allowed;
    } else {
        for (;;) {
            const int a = number(s);
            int b = a;
            if (!s.empty() && s.front() == '-') {
                s.remove_prefix(1);
                b = number(s);
            }
            for (int i = a; i <= b; ++i)
                if (allowed[static_cast<size_t>(i)]) mask[static_cast<size_t>(i)] = true;
            if (s.empty()) break;
            if (s.front() != ',') throw invalid(fmt::format("unparseable {} description", what));
            s.remove_prefix(1);
        }
    }
    std::vector<int> out;
    for (int i = 0; i < size; ++i)
        if (mask[static_cast<size_t>(i)] != invert && (!invert || allowed[static_cast<size_t>(i)]))
            out.push_back(i);
    if (out.empty()) throw invalid(fmt::format("no {} left", what));
    return out;
}

uint64_t node_bits(const std::vector<int>& nodes) {
    uint64_t bits = 0;
    for (int n : nodes)
        bits |= uint64_t{1} << n;
    return bits;
}

class Parser {
  public:
    explicit Parser(const Topology& m) : m_(m) {
        for (const NodeInfo& n : m.nodes)
            nodes_with_memory_.push_back(n.mem_bytes > 0);
        all_cpus_.assign(static_cast<size_t>(m.nr_cpus()), true);
    }

    // One option, as given (`given`), with its argument if it takes one.
    void option(const LongOption& o, const std::string& given, const std::string& arg) {
        if (!o.modelled)
            throw NumactlError(given, fmt::format("--{} is not modelled: a binding takes "
                                                  "--cpunodebind, --physcpubind, --membind, "
                                                  "--interleave, --preferred, --localalloc, "
                                                  "--balancing and --all",
                                                  o.name));
        switch (o.short_name) {
            case 'a':
                if (did_list_)
                    throw NumactlError(given,
                                       "--all/-a option must be before all cpu/node "
                                       "specifications");
                break;  // no cpuset narrows the allowed nodes here, so --all changes nothing
            case 'b':
                if (out_.mempolicy) throw NumactlError(given, "--balancing must precede --membind");
                balancing_ = true;
                break;
            case 'N':
            case 'c': {
                std::vector<int> cpus;
                for (int nid : nodes(arg, given))
                    for (int c : m_.nodes[static_cast<size_t>(nid)].cpus)
                        cpus.push_back(c);
                if (cpus.empty())
                    throw NumactlError(given,
                                       "sched_setaffinity: Invalid argument (the nodes "
                                       "have no CPUs)");
                std::sort(cpus.begin(), cpus.end());
                out_.cpus = std::move(cpus);
                break;
            }
            case 'C':
                did_list_ = true;
                out_.cpus = parse_list(arg, all_cpus_, "cpu", given);
                break;
            case 'm':
                set_policy(given, MpolMode::Bind, nodes(arg, given));
                if (balancing_) out_.mempolicy->flags |= MPOL_F_NUMA_BALANCING;
                break;
            case 'i':
                set_policy(given, MpolMode::Interleave, nodes(arg, given));
                break;
            case 'p': {
                const std::vector<int> n = nodes(arg, given);
                if (n.size() != 1)
                    throw NumactlError(given, "--preferred takes one node (numactl's usage)");
                set_policy(given, MpolMode::Preferred, n);
                break;
            }
            case 'l':
                set_policy(given, MpolMode::Local, {});
                break;
        }
    }

    NumactlBinding result() const { return out_; }

  private:
    // numactl_parse_nodestring(): "same" repeats the previous list.
    std::vector<int> nodes(const std::string& arg, const std::string& given) {
        did_list_ = true;
        if (arg == "same") {
            if (!last_) throw NumactlError(given, "same needs previous node specification");
            return *last_;
        }
        last_ = parse_list(arg, nodes_with_memory_, "node", given);
        return *last_;
    }

    // setpolicy(): one memory policy per invocation.
    void set_policy(const std::string& given, MpolMode mode, const std::vector<int>& nodes) {
        if (out_.mempolicy) throw NumactlError(given, "Conflicting policies");
        for (int n : nodes)
            if (n >= kMaxPolicyNodes)
                throw NumactlError(given, fmt::format("node {}: memory policies take nodes 0..{} "
                                                      "(the model's node mask is 64 bits)",
                                                      n, kMaxPolicyNodes - 1));
        out_.mempolicy = MemPolicy{.mode = mode, .nodes = node_bits(nodes)};
    }

    const Topology& m_;
    std::vector<bool> nodes_with_memory_, all_cpus_;
    NumactlBinding out_;
    std::optional<std::vector<int>> last_;
    bool did_list_ = false;
    bool balancing_ = false;
};

std::vector<std::string> words(std::string_view s) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
            ++i;
        size_t j = i;
        while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j])))
            ++j;
        if (j > i) out.emplace_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

}  // namespace

NumactlBinding parse_numactl(std::string_view command_line, const Topology& machine) {
    std::vector<std::string> w = words(command_line);
    size_t i = !w.empty() && w.front() == "numactl" ? 1 : 0;
    Parser parser(machine);
    // The option's argument: after '=' or attached, else the next word (getopt).
    auto take_arg = [&](const std::string& given, std::string_view rest,
                        const LongOption& o) -> std::string {
        if (!rest.empty()) return std::string(rest);
        if (i + 1 >= w.size())
            throw NumactlError(given, fmt::format("option '--{}' requires an argument", o.name));
        return w[++i];
    };
    for (; i < w.size(); ++i) {
        const std::string& word = w[i];
        if (word == "--") {
            ++i;
            break;
        }
        if (word.size() < 2 || word[0] != '-') break;  // "+" shortopts: options end at a word
        if (word[1] == '-') {
            const size_t eq = word.find('=');
            const std::string_view name = std::string_view(word).substr(2, eq - 2);
            const LongOption& o = find_long(name, word);
            if (!o.has_arg && eq != std::string::npos)
                throw NumactlError(word,
                                   fmt::format("option '--{}' doesn't allow an argument", o.name));
            const std::string_view rest = eq == std::string::npos
                                              ? std::string_view{}
                                              : std::string_view(word).substr(eq + 1);
            if (o.has_arg && eq != std::string::npos && rest.empty())
                throw NumactlError(word, fmt::format("option '--{}' requires an argument", o.name));
            parser.option(o, word, o.has_arg ? take_arg(word, rest, o) : std::string());
            continue;
        }
        // Short options, grouped as getopt allows ("-la"); one with an argument ends the group.
        for (size_t k = 1; k < word.size(); ++k) {
            const LongOption& o = find_short(word[k], word);
            if (!o.has_arg) {
                parser.option(o, word, {});
                continue;
            }
            parser.option(o, word, take_arg(word, std::string_view(word).substr(k + 1), o));
            break;
        }
    }
    if (i < w.size())
        throw NumactlError(w[i], fmt::format("'{}' is a program to run: give only numactl's "
                                             "options, the workload is the program",
                                             w[i]));
    return parser.result();
}

}  // namespace numasim
