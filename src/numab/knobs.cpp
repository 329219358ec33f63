#include "numab/knobs.h"

#include <array>
#include <utility>

namespace numasim {

namespace {
template <typename E, size_t N>
bool parse_enum(const std::array<std::pair<E, const char*>, N>& names, const std::string& s,
                E& out) {
    for (const auto& [e, n] : names)
        if (s == n) {
            out = e;
            return true;
        }
    return false;
}
template <typename E, size_t N>
std::string name_of(const std::array<std::pair<E, const char*>, N>& names, E v) {
    for (const auto& [e, n] : names)
        if (e == v) return n;
    return "?";
}

constexpr std::array<std::pair<VmaScanSelection, const char*>, 4> kVmaScan = {{
    {VmaScanSelection::All, "all"},
    {VmaScanSelection::PidsActive, "pids_active"},
    {VmaScanSelection::PidsActiveForced, "pids_active_forced"},
    {VmaScanSelection::FourPass, "four_pass"},
}};
constexpr std::array<std::pair<CowSharedTest, const char*>, 3> kCow = {{
    {CowSharedTest::Mapcount, "mapcount"},
    {CowSharedTest::Refcount, "refcount"},
    {CowSharedTest::LikelyMappedShared, "likely_mapped_shared"},
}};
constexpr std::array<std::pair<NumaImbalance, const char*>, 6> kImb = {{
    {NumaImbalance::None, "none"},
    {NumaImbalance::ImbalancePct, "imbalance_pct"},
    {NumaImbalance::BusiestMin, "busiest_min"},
    {NumaImbalance::SrcMin, "src_min"},
    {NumaImbalance::Fixed, "fixed"},
    {NumaImbalance::ImbNumaNr, "imb_numa_nr"},
}};
constexpr std::array<std::pair<SchedClass, const char*>, 3> kSchedClass = {{
    {SchedClass::Cfs, "cfs"},
    {SchedClass::Eevdf, "eevdf"},
    {SchedClass::EevdfComplete, "eevdf_complete"},
}};
}  // namespace

std::string to_string(VmaScanSelection v) {
    return name_of(kVmaScan, v);
}
bool parse_vma_scan_selection(const std::string& s, VmaScanSelection& out) {
    return parse_enum(kVmaScan, s, out);
}
std::string to_string(CowSharedTest v) {
    return name_of(kCow, v);
}
bool parse_cow_shared_test(const std::string& s, CowSharedTest& out) {
    return parse_enum(kCow, s, out);
}
std::string to_string(NumaImbalance v) {
    return name_of(kImb, v);
}
bool parse_numa_imbalance(const std::string& s, NumaImbalance& out) {
    return parse_enum(kImb, s, out);
}
std::string to_string(SchedClass v) {
    return name_of(kSchedClass, v);
}
bool parse_sched_class(const std::string& s, SchedClass& out) {
    return parse_enum(kSchedClass, s, out);
}

}  // namespace numasim
