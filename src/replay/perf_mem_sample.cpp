#include "replay/perf_mem_sample.h"

#include <fmt/format.h>

#include <charconv>
#include <vector>

#include "config/input_error.h"

namespace numasim {

namespace {

// union perf_mem_data_src (include/uapi/linux/perf_event.h): the fields' shifts and the bits
// the importer reads. The names are the header's, without the PERF_MEM_ prefix.
constexpr int kOpShift = 0;
constexpr uint64_t kOpNa = 0x01, kOpLoad = 0x02, kOpStore = 0x04, kOpPfetch = 0x08, kOpExec = 0x10;
constexpr int kLvlShift = 5;
constexpr uint64_t kLvlMiss = 0x04, kLvlL1 = 0x08, kLvlLfb = 0x10, kLvlL2 = 0x20, kLvlL3 = 0x40,
                   kLvlLocRam = 0x80, kLvlRemRam1 = 0x100, kLvlRemRam2 = 0x200, kLvlRemCce1 = 0x400,
                   kLvlRemCce2 = 0x800, kLvlIo = 0x1000, kLvlUnc = 0x2000;
constexpr int kSnoopShift = 19;
constexpr uint64_t kSnoopHitm = 0x10;
constexpr int kLvlNumShift = 33;
// PERF_MEM_LVLNUM_*: 1-4 L1-L4, 5 L2_MHB, 6 MSC, 7 unassigned, 8 UNC, 9 CXL, 0xa IO,
// 0xb ANY_CACHE, 0xc LFB, 0xd RAM, 0xe PMEM, 0xf NA.
constexpr uint64_t kLvlNumUnassigned = 0x07, kLvlNumUnc = 0x08, kLvlNumRam = 0x0d,
                   kLvlNumPmem = 0x0e, kLvlNumNa = 0x0f;
constexpr int kRemoteShift = 37;
// Bits above mem_hops (43..45) are mem_rsvd: no kernel writes them.
constexpr int kReservedShift = 46;

// The highest CPU number a sample may name: the kernel's NR_CPUS is at most 8192 (x86-64's
// MAXSMP), far above any machine the model has.
constexpr uint64_t kMaxCpuNumber = 8191;

uint64_t field(uint64_t v, int shift, int bits) {
    return (v >> shift) & ((uint64_t{1} << bits) - 1);
}

bool is_hex(std::string_view t) {
    if (t.empty() || t.size() > 16) return false;
    for (char c : t)
        if (!std::isxdigit(static_cast<unsigned char>(c)) ||
            std::isupper(static_cast<unsigned char>(c)))
            return false;
    return true;
}

uint64_t hex_value(std::string_view t) {
    uint64_t v = 0;
    std::from_chars(t.data(), t.data() + t.size(), v, 16);
    return v;
}

bool parse_decimal(std::string_view t, uint64_t& v) {
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    return ec == std::errc() && end == t.data() + t.size() && !t.empty();
}

// "4145.618343:" (perf's default, microseconds) or "4145.618343123:" (--ns) to nanoseconds.
bool parse_time(std::string_view t, int64_t& ns) {
    if (t.size() < 3 || t.back() != ':') return false;
    t.remove_suffix(1);
    const size_t dot = t.find('.');
    if (dot == std::string_view::npos || dot == 0) return false;
    uint64_t sec = 0, frac = 0;
    const std::string_view f = t.substr(dot + 1);
    if (!parse_decimal(t.substr(0, dot), sec) || sec > uint64_t{1} << 32) return false;
    if (f.empty() || f.size() > 9 || !parse_decimal(f, frac)) return false;
    uint64_t scale = 1000000000;
    for (size_t i = 0; i < f.size(); ++i)
        scale /= 10;
    ns = static_cast<int64_t>(sec * 1000000000 + frac * scale);
    return true;
}

struct Token {
    std::string_view text;
    size_t at;  // offset in the line
};

std::vector<Token> tokens_of(std::string_view line) {
    std::vector<Token> out;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        const size_t b = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t')
            ++i;
        if (i > b) out.push_back(Token{line.substr(b, i - b), b});
    }
    return out;
}

// perf_mem__op_scnprintf()'s word for the op bits, in its order of precedence.
std::string_view op_word(uint64_t op) {
    if (op & kOpNa) return "N/A";
    if (op & kOpLoad) return "LOAD";
    if (op & kOpStore) return "STORE";
    if (op & kOpPfetch) return "PFETCH";
    if (op & kOpExec) return "EXEC";
    return "No";
}

}  // namespace

const char* mem_source_name(MemSource s) {
    switch (s) {
        case MemSource::kCache:
            return "cache";
        case MemSource::kLocalRam:
            return "local RAM";
        case MemSource::kRemoteRam:
            return "remote RAM";
        case MemSource::kRemoteCache:
            return "remote cache";
        case MemSource::kOtherMemory:
            return "PMEM/CXL/I-O/uncached";
        case MemSource::kUnknown:
            break;
    }
    return "level not given";
}

bool decode_data_src(uint64_t v, MemSource& source, bool& store, bool& load, bool& hitm) {
    if (v >> kReservedShift) return false;
    const uint64_t op = field(v, kOpShift, 5);
    const uint64_t lvl = field(v, kLvlShift, 14);
    const uint64_t lvl_num = field(v, kLvlNumShift, 4);
    const bool remote = field(v, kRemoteShift, 1) != 0;
    if (lvl_num == kLvlNumUnassigned) return false;
    store = (op & kOpStore) != 0;
    load = (op & kOpLoad) != 0;
    hitm = (field(v, kSnoopShift, 5) & kSnoopHitm) != 0;
    source = MemSource::kUnknown;
    if (lvl_num != 0 && lvl_num != kLvlNumNa) {
        // The level number, when the PMU gives one, with the remote bit for "another node's".
        if (lvl_num == kLvlNumRam)
            source = remote ? MemSource::kRemoteRam : MemSource::kLocalRam;
        else if (lvl_num == kLvlNumPmem || (lvl_num >= kLvlNumUnc && lvl_num <= 0x0a))
            source = MemSource::kOtherMemory;
        else
            source = remote ? MemSource::kRemoteCache : MemSource::kCache;
        return true;
    }
    // The older level bits. A level marked "miss" says only that the data came from farther.
    // Several levels ("L3 or Local RAM") count as the farthest of them.
    if (lvl & kLvlMiss) return true;
    if (lvl & (kLvlRemRam1 | kLvlRemRam2))
        source = MemSource::kRemoteRam;
    else if (lvl & (kLvlRemCce1 | kLvlRemCce2))
        source = MemSource::kRemoteCache;
    else if (lvl & kLvlLocRam)
        source = remote ? MemSource::kRemoteRam : MemSource::kLocalRam;
    else if (lvl & (kLvlIo | kLvlUnc))
        source = MemSource::kOtherMemory;
    else if (lvl & (kLvlL1 | kLvlLfb | kLvlL2 | kLvlL3))
        source = remote ? MemSource::kRemoteCache : MemSource::kCache;
    return true;
}

bool perf_mem_line_is_comment(std::string_view line) {
    const size_t b = line.find_first_not_of(" \t\r");
    return b == std::string_view::npos || line[b] == '#';
}

PerfMemSample parse_perf_mem_line(std::string_view line, const std::string& file,
                                  const std::string& where) {
    auto fail = [&](const std::string& problem) { throw InputError(file, where, problem); };
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::vector<Token> t = tokens_of(line);
    PerfMemSample s;

    // The time is the first "SEC.FRAC:" token; the thread and the CPU stand just before it.
    size_t ti = 0;
    while (ti < t.size() && !parse_time(t[ti].text, s.time_ns))
        ++ti;
    if (ti == t.size())
        fail(
            "no time (SEC.USEC: after the thread): the samples need perf script's `time` field "
            "(perf script -F tid,time,event,addr,data_src,period, or its default fields)");
    size_t k = ti;
    if (k > 0 && t[k - 1].text.size() > 2 && t[k - 1].text.front() == '[' &&
        t[k - 1].text.back() == ']') {
        --k;  // [CPU]
        const std::string_view c = t[k].text.substr(1, t[k].text.size() - 2);
        uint64_t cpu = 0;
        if (!parse_decimal(c, cpu) || cpu > kMaxCpuNumber)
            fail(fmt::format("CPU '{}': not a CPU number (perf prints [%03d])", t[k].text));
        s.cpu = static_cast<int>(cpu);
    }
    if (k == 0) fail("no thread id before the time: the samples need perf script's `tid` field");
    {
        const std::string_view ids = t[k - 1].text;
        const size_t slash = ids.find('/');
        uint64_t a = 0, b = 0;
        if (slash == std::string_view::npos ? !parse_decimal(ids, a)
                                            : !parse_decimal(ids.substr(0, slash), a) ||
                                                  !parse_decimal(ids.substr(slash + 1), b))
            fail(fmt::format(
                "'{}' before the time is not a thread id (TID or PID/TID): the samples need perf "
                "script's `tid` field",
                ids));
        if (slash == std::string_view::npos) {
            s.tid = static_cast<int64_t>(a);
        } else {
            s.pid = static_cast<int64_t>(a);
            s.tid = static_cast<int64_t>(b);
        }
        std::string_view comm = line.substr(0, t[k - 1].at);
        while (!comm.empty() && (comm.back() == ' ' || comm.back() == '\t'))
            comm.remove_suffix(1);
        const size_t cb = comm.find_first_not_of(" \t");
        s.comm = cb == std::string_view::npos ? std::string_view{} : comm.substr(cb);
    }

    // The data source: its decode always holds "|SNP "; perf since 5.x starts it with "|OP ".
    const size_t after_time = t[ti].at + t[ti].text.size();
    const size_t snp = line.find("|SNP ", after_time);
    if (snp == std::string_view::npos)
        fail(
            "no data source (a decode with |SNP): the samples need perf script's `data_src` "
            "field");
    // The tokens between the time and the decode: [PERIOD] [EVENT:] ADDR DATA_SRC.
    const size_t op_at = line.find(" |OP ", after_time);
    const bool op_layout = op_at != std::string_view::npos && op_at < snp;
    std::vector<Token> run;
    size_t j = ti + 1;
    for (; j < t.size() && t[j].at < snp; ++j) {
        const std::string_view x = t[j].text;
        // perf before "|OP" prints the level's words straight after the raw value.
        if (op_layout ? x.front() == '|' : !is_hex(x) && x.back() != ':') break;
        run.push_back(t[j]);
    }
    if (j == t.size()) fail("the data source's decode is cut off");
    const std::string_view decode = line.substr(t[j].at);
    // The event name ends in ':'; the period (decimal) comes before it, the address after it.
    size_t ev = run.size();
    for (size_t i = 0; i < run.size(); ++i)
        if (run[i].text.back() == ':') {
            ev = i;
            break;
        }
    std::vector<std::string_view> before, after;
    for (size_t i = 0; i < run.size(); ++i)
        if (i < ev)
            before.push_back(run[i].text);
        else if (i > ev)
            after.push_back(run[i].text);
    const bool has_event = ev < run.size();
    if (!has_event) {
        // Without the event name, three tokens are PERIOD ADDR DATA_SRC, two ADDR DATA_SRC.
        after.swap(before);
        if (after.size() == 3) {
            before.push_back(after.front());
            after.erase(after.begin());
        }
    }
    if (before.size() > 1)
        fail(fmt::format("'{}' between the time and the {}: not one of perf script's fields",
                         before.front(), has_event ? "event name" : "address"));
    if (after.empty()) fail("no raw data source value before its decode");
    if (after.size() == 1)
        fail(
            "no data address before the data source: the samples need perf script's `addr` "
            "field");
    // After the event name, what stands between the address and the data source is the data
    // symbol and DSO perf prints for an address it resolves ("sym (dso)"): not read. Without the
    // event name nothing may stand there: the tokens could not be told apart.
    if (after.size() > 2 && !has_event)
        fail(
            fmt::format("'{}' between the time and the data address: not one of perf script's "
                        "fields",
                        after.front()));
    if (!is_hex(after[0]))
        fail(fmt::format("data address '{}': not hexadecimal (perf prints it as %16lx)", after[0]));
    s.addr = hex_value(after[0]);
    if (!is_hex(after.back()))
        fail(fmt::format("data source '{}': not the raw hexadecimal perf_mem_data_src",
                         after.back()));
    s.data_src = hex_value(after.back());
    if (!before.empty()) {
        if (!parse_decimal(before[0], s.period))
            fail(fmt::format("period '{}': not a whole number", before[0]));
        if (s.period == 0) fail("period 0: a sample stands for at least one event");
    }

    bool load = false;
    if (!decode_data_src(s.data_src, s.source, s.store, load, s.hitm))
        fail(
            fmt::format("data source {:#x}: not a value perf_event.h defines (reserved bits or "
                        "level number)",
                        s.data_src));
    // The decode must be perf's text for that value: its op word, where it prints one.
    if (decode.substr(0, 4) == "|OP ") {
        const size_t bar = decode.find('|', 4);
        const std::string_view word = decode.substr(4, bar == std::string_view::npos ? 0 : bar - 4);
        const std::string_view want = op_word(field(s.data_src, kOpShift, 5));
        if (word != want)
            fail(fmt::format("data source text '|OP {}|': perf prints '|OP {}|' for {:#x}", word,
                             want, s.data_src));
    } else if (decode.front() == '|') {
        fail(fmt::format("data source text '{}': not perf's decode (|OP ..|LVL ..|SNP ..)",
                         decode.substr(0, decode.find(' '))));
    }
    // Loads and stores by the op bits; a PMU that gives none (N/A) is read by the event's name.
    if (!s.store && !load && has_event)
        s.store = run[ev].text.find("store") != std::string_view::npos;
    return s;
}

}  // namespace numasim
