// Loads an lstopo XML export with libhwloc in a child process. libhwloc does not check all of
// what it reads: Debian 12's 2.9 crashes (SEGV in hwloc_bitmap_compare_first, inside
// hwloc_topology_load) on some malformed XML, e.g. fuzz/known/libhwloc-bitmap-compare-first.xml.
// In a child such a crash only ends the child, and the user gets an InputError naming the file.
#pragma once

#include <string>

#include "machine/hwloc_facts.h"

namespace numasim {

// `xml` is the file's content, already read and size-checked; `path` names it in errors.
// Throws InputError if hwloc rejects the XML, crashes, fails or takes longer than
// kMaxHwlocLoadSeconds (config/limits.h).
HwlocFacts load_hwloc_xml_isolated(const std::string& xml, const std::string& path);

}  // namespace numasim
